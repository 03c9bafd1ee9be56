//! Kalah (docs/rules.md section 2): two rows of houses and a store per player; sowing passes the
//! own store but never the opponent's, a last seed in the own store earns another move, and a
//! last seed in an own empty house captures the house opposite.
//!
//! ```
//! use mancala_rules::{parse_rules, Game, Line};
//!
//! let mut line = Line::new(parse_rules("kalah").unwrap());
//! line.play_label("C").unwrap(); // the last seed lands in South's store: South again
//! assert_eq!(
//!     line.game().to_setup(line.position()).to_string(),
//!     "south | 1 0 | 4 4 0 5 5 5 4 4 4 4 4 4 | ongoing"
//! );
//! ```
//!
//! A finished game has every seed in a store: the seeds left in a row go to the row's owner
//! when the game ends, so `scores()` then are the final totals and every pit is empty.

mod display;
mod options;

pub use options::{KalahEnd, KalahOptions, MAX_HOUSES, MAX_TOTAL_SEEDS};

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::hash::hash_pits;
use crate::moves::{Action, MoveMask};
use crate::options::RulesSpec;
use crate::outcome::{Outcome, Status};
use crate::player::{ByPlayer, Player};
use crate::setup::{KeptState, Setup};

/// Pits the position's array holds: two rows of [`MAX_HOUSES`].
const MAX_PITS: usize = 2 * MAX_HOUSES;

/// Kalah with its rules fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kalah {
    opts: KalahOptions,
}

/// A Kalah position: houses, stores, the side to move and the status, decided when the move
/// that led here was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KalahPosition {
    /// South's houses `0..houses`, then North's; the pits past `2 * houses` stay empty.
    pits: [u8; MAX_PITS],
    stores: ByPlayer<u8>,
    side: Player,
    /// The legal moves (the mover's non-empty houses); none when the game is over.
    legal: u16,
    status: Status,
}

/// One bit a byte of `word`: bit `i` is set when byte `i` is not zero.
#[inline]
fn nonzero_bytes(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Adding 0x7f to the low 7 bits carries into bit 7 unless they are all zero.
    let high = (((word & LOW7) + LOW7) | word) & HIGH;
    // Gathers bit 7 of every byte into the top byte (byte i to bit 56 + i).
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

impl Kalah {
    /// The game from a parsed rules string (preset `kalah`, optional suffix `kalah:H,S`).
    ///
    /// # Errors
    /// [`RulesError`] naming the unknown key, bad value or size.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<Self, RulesError> {
        Ok(Kalah { opts: KalahOptions::from_spec(spec)? })
    }

    /// The game with these options.
    ///
    /// # Panics
    /// If the options are out of range (houses 1 to 16, 255 seeds in all at most); rules read
    /// by [`Kalah::from_spec`] always are in range.
    pub fn new(opts: KalahOptions) -> Self {
        assert!((1..=MAX_HOUSES).contains(&usize::from(opts.houses)), "1 to {MAX_HOUSES} houses");
        assert!(
            opts.seeds >= 1 && 2 * u32::from(opts.houses) * u32::from(opts.seeds) <= MAX_TOTAL_SEEDS,
            "1 seed a house at least, {MAX_TOTAL_SEEDS} in all at most"
        );
        Kalah { opts }
    }

    pub fn options(&self) -> &KalahOptions {
        &self.opts
    }

    #[inline]
    fn houses(&self) -> usize {
        usize::from(self.opts.houses)
    }

    /// Bit `i` set when `side`'s house `i` holds seeds.
    #[inline]
    fn row_mask(&self, pos: &KalahPosition, side: Player) -> u64 {
        let h = self.houses();
        let base = side.index() * h;
        let word = |at: usize| u64::from_le_bytes(pos.pits[at..at + 8].try_into().expect("8 bytes"));
        let mut mask = nonzero_bytes(word(base));
        if h > 8 {
            mask |= nonzero_bytes(word(base + 8)) << 8;
        }
        mask & ((1u64 << h) - 1)
    }

    /// Whether the game ends here, as the `end` option says, given the next mover's houses
    /// that hold seeds (`legal`).
    #[inline]
    fn is_end(&self, pos: &KalahPosition, legal: u64) -> bool {
        legal == 0
            || match self.opts.end {
                KalahEnd::EitherRowEmpty => self.row_mask(pos, !pos.side) == 0,
                KalahEnd::MoverRowEmpty => false,
            }
    }

    /// Ends the game: the seeds left in a row go to that row's owner.
    fn finish(&self, pos: &mut KalahPosition) {
        let h = self.houses();
        for side in Player::BOTH {
            let row = &mut pos.pits[side.index() * h..(side.index() + 1) * h];
            let left: u8 = row.iter().sum();
            row.fill(0);
            pos.stores[side] += left;
        }
        pos.legal = 0;
        pos.status = Status::Over(Outcome::from_totals(pos.stores.map(u16::from)));
    }

    /// Sets the legal moves of the side to move, or ends the game if the rules say it is over.
    #[inline]
    fn settle(&self, pos: &mut KalahPosition) {
        let legal = self.row_mask(pos, pos.side);
        if self.is_end(pos, legal) {
            self.finish(pos);
        } else {
            pos.legal = legal as u16;
        }
    }
}

impl Game for Kalah {
    type Position = KalahPosition;

    fn rules_string(&self) -> String {
        self.opts.rules_string()
    }

    fn start(&self) -> KalahPosition {
        let mut pits = [0u8; MAX_PITS];
        pits[..2 * self.houses()].fill(self.opts.seeds);
        let mut pos =
            KalahPosition { pits, stores: ByPlayer::new(0, 0), side: Player::South, legal: 0, status: Status::Ongoing };
        self.settle(&mut pos);
        pos
    }

    fn action_space(&self) -> usize {
        self.houses()
    }

    fn total_seeds(&self) -> u16 {
        2 * u16::from(self.opts.houses) * u16::from(self.opts.seeds)
    }

    #[inline]
    fn side_to_move(&self, pos: &KalahPosition) -> Player {
        pos.side
    }

    #[inline]
    fn legal_moves(&self, pos: &KalahPosition) -> MoveMask {
        MoveMask(u64::from(pos.legal))
    }

    /// Sows house `action` of the side to move.
    ///
    /// # Panics
    /// If `action` is not a house index (`0..houses`); an empty house or a finished game
    /// gives a meaningless position.
    #[inline]
    fn play_unchecked(&self, pos: &mut KalahPosition, action: Action) -> Sowing {
        let h = self.houses();
        let a = usize::from(action);
        assert!(a < h, "action {a} outside 0..{h}");
        let me = pos.side;
        let own = me.index() * h;
        let opp = h - own;
        let stored_before = u16::from(pos.stores.south) + u16::from(pos.stores.north);

        let seeds = usize::from(pos.pits[own + a]);
        pos.pits[own + a] = 0;
        // The mover's cycle: own houses, own store, the opponent's houses (2h + 1 pits).
        let lap = 2 * h + 1;
        let mut left = seeds;
        if seeds >= lap {
            // Whole laps put one seed in every pit of the cycle, the origin included.
            let laps = (seeds / lap) as u8;
            for p in &mut pos.pits[..2 * h] {
                *p += laps;
            }
            pos.stores[me] += laps;
            left = seeds % lap;
        }
        // Where the last seed falls, on the mover's cycle (0..h own houses, h the store).
        let last = if a + left >= lap { a + left - lap } else { a + left };
        // The rest from the house after the origin; fewer than a lap, so it stops before it.
        let first = (h - 1 - a).min(left);
        for p in &mut pos.pits[own + a + 1..own + a + 1 + first] {
            *p += 1;
        }
        left -= first;
        if left > 0 {
            pos.stores[me] += 1;
            left -= 1;
            let across = h.min(left);
            for p in &mut pos.pits[opp..opp + across] {
                *p += 1;
            }
            left -= across;
            for p in &mut pos.pits[own..own + left] {
                *p += 1;
            }
        }

        if last == h {
            // Extra turn: the mover stays.
        } else {
            if last < h && pos.pits[own + last] == 1 {
                let opposite = opp + (h - 1 - last);
                let taken = pos.pits[opposite];
                if taken > 0 || self.opts.empty_capture {
                    pos.stores[me] += 1 + taken;
                    pos.pits[own + last] = 0;
                    pos.pits[opposite] = 0;
                }
            }
            pos.side = !me;
        }
        self.settle(pos);
        let stored_after = u16::from(pos.stores.south) + u16::from(pos.stores.north);
        // Seeds only move forward within a row and pass into the other row only through a
        // store, and stores never shrink: no position can ever occur again.
        Sowing { captured: stored_after - stored_before, irreversible: true }
    }

    fn why_illegal(&self, pos: &KalahPosition, action: Action) -> String {
        let h = self.houses();
        if usize::from(action) >= h {
            return format!("action {action} is outside 0..{h}");
        }
        let label = self.move_label(pos.side, action);
        if pos.status.is_over() {
            return "the game is over".to_string();
        }
        if pos.pits[self.action_pit(pos.side, action)] == 0 {
            return format!("house {label} is empty");
        }
        format!("house {label} is a legal move")
    }

    #[inline]
    fn status(&self, pos: &KalahPosition) -> Status {
        pos.status
    }

    #[inline]
    fn hash(&self, pos: &KalahPosition) -> u64 {
        // The status follows from the rest.
        let extra = u64::from(pos.stores.south) | u64::from(pos.stores.north) << 8 | (pos.side.index() as u64) << 16;
        hash_pits(&pos.pits[..2 * self.houses()], extra)
    }

    fn moves_twice(&self) -> bool {
        true
    }

    fn endgame_database(&self) -> Result<(), String> {
        Ok(())
    }

    fn scores(&self, pos: &KalahPosition) -> ByPlayer<u16> {
        pos.stores.map(u16::from)
    }

    fn pits<'a>(&self, pos: &'a KalahPosition) -> &'a [u8] {
        &pos.pits[..2 * self.houses()]
    }

    fn controller(&self, _pos: &KalahPosition, pit: usize) -> Player {
        if pit < self.houses() { Player::South } else { Player::North }
    }

    #[inline]
    fn action_pit(&self, side: Player, action: Action) -> usize {
        side.index() * self.houses() + usize::from(action)
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        let base = if side == Player::South { b'A' } else { b'a' };
        char::from(base + action).to_string()
    }

    fn parse_move(&self, pos: &KalahPosition, text: &str) -> Result<Action, MoveParseError> {
        let h = self.houses() as u8;
        let mover = pos.side;
        let unknown = || MoveParseError::Unknown {
            text: text.to_string(),
            allowed: (0..h).map(|a| self.move_label(mover, a)).collect::<Vec<_>>().join(", "),
        };
        let &[c] = text.trim().as_bytes() else { return Err(unknown()) };
        let (owner, action) = match c {
            b'A'..=b'Z' if c - b'A' < h => (Player::South, c - b'A'),
            b'a'..=b'z' if c - b'a' < h => (Player::North, c - b'a'),
            _ => return Err(unknown()),
        };
        if owner != mover {
            return Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover });
        }
        Ok(action)
    }

    fn to_setup(&self, pos: &KalahPosition) -> Setup {
        Setup {
            side: pos.side,
            scores: self.scores(pos),
            pits: self.pits(pos).to_vec(),
            controllers: None,
            status: pos.status.to_string(),
            ..Setup::default()
        }
    }

    /// Reads a position line. A position where the game has ended by the `end` option is
    /// settled: the seeds left in a row go to that row's owner.
    fn from_setup(&self, setup: &Setup) -> Result<KalahPosition, SetupError> {
        let h = self.houses();
        if setup.pits.len() != 2 * h {
            return Err(SetupError::PitCount { found: setup.pits.len(), expected: 2 * h });
        }
        if setup.controllers.is_some() {
            return Err(SetupError::Invalid {
                reason: "Kalah has no pit controllers: every house belongs to its row's owner".to_string(),
            });
        }
        let found = setup.pits.iter().map(|&p| u32::from(p)).sum::<u32>()
            + u32::from(setup.scores.south)
            + u32::from(setup.scores.north);
        let expected = u32::from(self.total_seeds());
        if found != expected {
            return Err(SetupError::SeedCount { found, expected });
        }
        // Kalah keeps no state beyond the board: every game ends without a ply limit.
        setup.check_state("kalah", KeptState::default())?;
        // Every count is at most the total, at most 255.
        let mut pits = [0u8; MAX_PITS];
        pits[..2 * h].copy_from_slice(&setup.pits);
        let mut pos = KalahPosition {
            pits,
            stores: setup.scores.map(|s| s as u8),
            side: setup.side,
            legal: 0,
            status: Status::Ongoing,
        };
        self.settle(&mut pos);
        Ok(pos)
    }

    /// The other side to move, settled as a set-up position is (without the setup's
    /// allocations: the encoder asks for it at every network leaf).
    fn passed(&self, pos: &KalahPosition) -> Option<KalahPosition> {
        if pos.status.is_over() {
            return None;
        }
        let mut next = KalahPosition { side: pos.side.opponent(), legal: 0, ..*pos };
        self.settle(&mut next);
        Some(next)
    }

    fn display(&self, pos: &KalahPosition) -> String {
        display::board(self, pos)
    }
}
