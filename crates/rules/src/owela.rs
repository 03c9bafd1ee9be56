//! Owela (Namibia, four ranks), docs/rules.md section 4.
//!
//! Each player owns two rows (`columns` pits each) that form a closed loop: the outer row
//! from the owner's left to right, then the inner row from the owner's right to left. Own pit
//! `i` is pit `i` for South and `2*columns + i` for North; [`Game::pits`] lists South's loop
//! then North's. Column `c` (from the owner's left) holds own outer pit `c` and own inner pit
//! `2*columns-1-c`; North sits opposite, so South's column `c` faces North's column
//! `columns-1-c`. For a mover's inner pit `j` the opponent's pits in that column are the
//! opponent's own pits `j - columns` (outer) and `3*columns-1-j` (inner).
//!
//! Decisions where the source text is silent (docs/rules.md section 4 has the rest):
//! - Sowing does not skip the pit it started from: a sowing of `2*columns` or more seeds
//!   laps the whole loop. A pit "held seeds before" when it was not empty just before the
//!   last seed fell into it (seeds dropped earlier in the same sowing count).
//! - `max_relay` counts lifts from own pits: the first lift of the move and every relay. When
//!   a relay would be lift number `max_relay + 1`, the move ends with the seeds where they
//!   lie. Taking the opponent's seeds in a capture is not a lift (captures are finite anyway:
//!   each takes at least 2 seeds from the opponent).
//! - Seeds never leave the board, so there are no captures or stores to score: the scores of
//!   this game ([`Game::scores`] and the `S0 S1` field of the position line) are the seeds on
//!   each player's side, and the margin of a finished game is the winner's side minus the
//!   loser's side (0 when the winner holds fewer).
//! - The ply count for `max_plies` is part of the position (and of its hash) and of the
//!   protocol's position line (`plies=N`, 0 when not written). A line whose count has
//!   reached `max_plies` is settled on reading, as after a move; a count past it is refused.

use std::fmt::Write as _;

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::hash::hash_pits;
use crate::moves::{Action, MoveMask};
use crate::options::{RulesSpec, parse_number, same_key, unknown_key};
use crate::outcome::{Outcome, Status};
use crate::player::{ByPlayer, Player};
use crate::setup::{KeptState, Setup};

/// The option keys, in canonical order.
const KEYS: &[&str] = &["columns", "min_sow", "max_relay", "max_plies"];
const MIN_COLUMNS: u32 = 6;
const MAX_COLUMNS: u32 = 16;
/// Pits of the largest board (16 columns, 4 rows); smaller boards leave the tail at 0.
const PIT_ARRAY: usize = 4 * MAX_COLUMNS as usize;
/// The setup puts 2 seeds in a pit, so a larger minimum would leave South no move at all.
const MAX_MIN_SOW: u32 = 2;
const MAX_RELAY_LIMIT: u32 = 1_000_000;

/// Owela with its options fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owela {
    /// Pits in a row (6..=16).
    columns: u8,
    /// Seeds a pit must hold to be sown (1 or 2).
    min_sow: u8,
    /// Lifts one move may make (the first one included).
    max_relay: u32,
    /// Plies after which the side with more seeds wins.
    max_plies: u16,
}

/// An Owela position: the board, the side to move and the ply count, plus the side to
/// move's legal moves and the status, both kept up to date when a move is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwelaPosition {
    /// Seeds by absolute pit index; indices from `4*columns` on are always 0.
    pits: [u8; PIT_ARRAY],
    side: Player,
    /// Plies played since the start (or since the position line it was read from).
    plies: u16,
    /// Bit `i`: own pit `i` of the side to move may be sown (0 when the game is over).
    legal: u64,
    status: Status,
}

impl Owela {
    /// Reads the options of the `owela` preset: `columns` (6..=16, default 8), `min_sow`
    /// (1..=2, default 2: the setup's pits hold 2 seeds, so more would leave South no move),
    /// `max_relay` (1..=1000000, default 1000), `max_plies` (1..=65535, default 1000).
    ///
    /// # Errors
    /// [`RulesError`] for a size suffix, an unknown key or a value out of range.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<Self, RulesError> {
        if !spec.sizes.is_empty() {
            return Err(RulesError::BadSize {
                text: format!(
                    "{}:{}",
                    spec.preset,
                    spec.sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                ),
                reason: "owela takes no size suffix: write columns=N".to_string(),
            });
        }
        let mut game = Owela { columns: 8, min_sow: 2, max_relay: 1000, max_plies: 1000 };
        for &(key, value) in &spec.options {
            if same_key(key, "columns") {
                game.columns = parse_number(key, value, MIN_COLUMNS, MAX_COLUMNS)? as u8;
            } else if same_key(key, "min_sow") {
                game.min_sow = parse_number(key, value, 1, MAX_MIN_SOW)? as u8;
            } else if same_key(key, "max_relay") {
                game.max_relay = parse_number(key, value, 1, MAX_RELAY_LIMIT)?;
            } else if same_key(key, "max_plies") {
                game.max_plies = parse_number(key, value, 1, u32::from(u16::MAX))? as u16;
            } else {
                return Err(unknown_key("owela", key, KEYS));
            }
        }
        Ok(game)
    }

    /// Pits a player owns (`2*columns`), also the length of the own loop.
    #[inline]
    fn loop_len(&self) -> usize {
        2 * usize::from(self.columns)
    }

    /// The absolute index of `side`'s own pit 0.
    #[inline]
    fn base(&self, side: Player) -> usize {
        match side {
            Player::South => 0,
            Player::North => self.loop_len(),
        }
    }

    /// `side`'s own pits, in sowing order.
    #[inline]
    fn own<'a>(&self, pos: &'a OwelaPosition, side: Player) -> &'a [u8] {
        let base = self.base(side);
        &pos.pits[base..base + self.loop_len()]
    }

    /// The own pits of `side` that hold at least `min_sow` seeds, as a mask: eight pits a
    /// word, each byte tested for a set bit under `min_sow`'s mask (`min_sow` is 1 or 2).
    #[inline]
    fn sowable(&self, pos: &OwelaPosition, side: Player) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const ONES: u64 = 0x0101_0101_0101_0101;
        let bits = if self.min_sow >= 2 { 0xfefe_fefe_fefe_fefe } else { u64::MAX };
        let window = window(&pos.pits, self.base(side));
        let mut mask = 0u64;
        for (k, chunk) in window.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) & bits;
            let nonzero = ((((word & LOW7) + LOW7) | word) >> 7) & ONES;
            mask |= (nonzero.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        mask & ((1u64 << self.loop_len()) - 1)
    }

    fn side_seeds(&self, pos: &OwelaPosition, side: Player) -> u16 {
        self.own(pos, side).iter().map(|&n| u16::from(n)).sum()
    }

    /// Settles the legal moves and the status for the side to move.
    fn settle(&self, pos: &mut OwelaPosition) {
        let legal = self.sowable(pos, pos.side);
        if legal != 0 && pos.plies < self.max_plies {
            pos.legal = legal;
            pos.status = Status::Ongoing;
            return;
        }
        let seeds = self.scores(pos);
        pos.legal = 0;
        pos.status = if legal == 0 {
            // Rule 6: a player who cannot move loses.
            let winner = pos.side.opponent();
            Status::Over(Outcome { winner: Some(winner), margin: seeds[winner].saturating_sub(seeds[pos.side]) })
        } else {
            Status::Over(Outcome::from_totals(seeds))
        };
    }

    /// The label of own pit `i` of `side`: `A`..`Z`, then `A2`.. (North in lower case).
    fn label(side: Player, i: usize) -> String {
        let first = if side == Player::South { b'A' } else { b'a' };
        let letter = char::from(first + (i % 26) as u8);
        if i < 26 { letter.to_string() } else { format!("{letter}2") }
    }

    /// Reads a label as (owner, own pit index), without checking the board size.
    fn read_label(text: &str) -> Option<(Player, usize)> {
        let bytes = text.as_bytes();
        let (letter, high) = match bytes {
            [l] => (*l, false),
            [l, b'2'] => (*l, true),
            _ => return None,
        };
        let (side, i) = match letter {
            b'A'..=b'Z' => (Player::South, usize::from(letter - b'A')),
            b'a'..=b'z' => (Player::North, usize::from(letter - b'a')),
            _ => return None,
        };
        Some((side, if high { i + 26 } else { i }))
    }
}

/// Own pits a side may have: the loop of the largest board.
const WINDOW: usize = 2 * MAX_COLUMNS as usize;

/// The `WINDOW` pits from `base` on: a side's own loop and, on smaller boards, pits beyond
/// it that sowing must leave alone.
#[inline]
fn window(pits: &[u8; PIT_ARRAY], base: usize) -> &[u8; WINDOW] {
    pits[base..base + WINDOW].try_into().expect("a side's pits end within the array")
}

/// Sows `seeds` seeds one a pit around the own loop (the first `len` pits of `own`),
/// starting after pit `from`; returns the pit the last seed fell into. Every full lap sows
/// the whole loop, the start pit included. Branch-free over the fixed window, so the
/// compiler can sow all pits at once.
#[inline]
fn sow(own: &mut [u8; WINDOW], len: usize, from: usize, seeds: u8) -> usize {
    let mut left = usize::from(seeds);
    if left >= len {
        let laps = (left / len) as u8;
        for n in &mut own[..len] {
            *n += laps;
        }
        left %= len;
        if left == 0 {
            return from;
        }
    }
    // Pits from+1 ..= from+left, wrapping past the end of the loop: pit i is sown when its
    // distance after `from` around the loop is 1..=left.
    let (len8, from8, left8) = (len as u8, from as u8, left as u8);
    for (i, n) in own.iter_mut().enumerate() {
        let i = i as u8;
        let ahead = i.wrapping_sub(from8).wrapping_sub(1);
        let around = (i + len8).wrapping_sub(from8).wrapping_sub(1);
        *n += u8::from(i < len8 && (ahead < left8 || around < left8));
    }
    let end = from + left;
    if end >= len { end - len } else { end }
}

impl Game for Owela {
    type Position = OwelaPosition;

    fn rules_string(&self) -> String {
        format!(
            "owela columns={} min_sow={} max_relay={} max_plies={}",
            self.columns, self.min_sow, self.max_relay, self.max_plies
        )
    }

    /// Rule 2: 2 seeds in every outer pit and in the four inner pits at the owner's right
    /// end. The inner row is indexed from the owner's right, so those are own pits
    /// `columns..columns+4`.
    fn start(&self) -> OwelaPosition {
        let mut pos =
            OwelaPosition { pits: [0; PIT_ARRAY], side: Player::South, plies: 0, legal: 0, status: Status::Ongoing };
        let c = usize::from(self.columns);
        for side in Player::BOTH {
            let base = self.base(side);
            pos.pits[base..base + c + 4].fill(2);
        }
        self.settle(&mut pos);
        pos
    }

    fn action_space(&self) -> usize {
        self.loop_len()
    }

    fn total_seeds(&self) -> u16 {
        4 * (u16::from(self.columns) + 4)
    }

    #[inline]
    fn side_to_move(&self, pos: &OwelaPosition) -> Player {
        pos.side
    }

    #[inline]
    fn legal_moves(&self, pos: &OwelaPosition) -> MoveMask {
        MoveMask(pos.legal)
    }

    /// Rules 3 to 6.
    ///
    /// # Panics
    /// May panic or leave a meaningless position if `action` is not a legal move.
    fn play_unchecked(&self, pos: &mut OwelaPosition, action: Action) -> Sowing {
        let len = self.loop_len();
        let c = usize::from(self.columns);
        let side = pos.side;
        let (base, opp) = (self.base(side), self.base(side.opponent()));

        let mut sowing = Sowing::default();
        let mut pit = usize::from(action);
        let mut seeds = std::mem::take(&mut pos.pits[base + pit]);
        let mut lifts = 1u32;
        loop {
            let own: &mut [u8; WINDOW] =
                (&mut pos.pits[base..base + WINDOW]).try_into().expect("a side's pits end within the array");
            pit = sow(own, len, pit, seeds);
            if own[pit] == 1 {
                break; // The last seed fell into an empty pit: the turn ends.
            }
            if pit >= c {
                // Rule 4: an own inner pit that held seeds; the opponent's column faces it.
                let (outer, inner) = (opp + pit - c, opp + 3 * c - 1 - pit);
                if pos.pits[outer] != 0 && pos.pits[inner] != 0 {
                    seeds = std::mem::take(&mut pos.pits[outer]) + std::mem::take(&mut pos.pits[inner]);
                    sowing.captured += u16::from(seeds);
                    sowing.irreversible = true;
                    continue;
                }
            }
            // Rule 5: relay, within the guard.
            if lifts >= self.max_relay {
                break;
            }
            lifts += 1;
            seeds = std::mem::take(&mut pos.pits[base + pit]);
        }

        pos.side = side.opponent();
        pos.plies = pos.plies.saturating_add(1);
        self.settle(pos);
        sowing
    }

    fn why_illegal(&self, pos: &OwelaPosition, action: Action) -> String {
        let i = usize::from(action);
        if i >= self.loop_len() {
            return format!("action {i} is outside the action space 0..{}", self.loop_len());
        }
        if pos.status.is_over() {
            return "the game is over".to_string();
        }
        let n = self.own(pos, pos.side)[i];
        if n < self.min_sow {
            let plural = if n == 1 { "" } else { "s" };
            return format!(
                "pit {} holds {n} seed{plural}; a pit needs at least {} to be sown (min_sow)",
                Self::label(pos.side, i),
                self.min_sow
            );
        }
        "the move is legal".to_string()
    }

    #[inline]
    fn status(&self, pos: &OwelaPosition) -> Status {
        pos.status
    }

    #[inline]
    fn hash(&self, pos: &OwelaPosition) -> u64 {
        hash_pits(&pos.pits[..2 * self.loop_len()], pos.side as u64 | u64::from(pos.plies) << 1)
    }

    /// `max_plies` less the plies played: the move that brings the count to `max_plies`
    /// ends the game (the side with more seeds wins).
    fn plies_left(&self, pos: &OwelaPosition) -> Option<u16> {
        Some(self.max_plies.saturating_sub(pos.plies))
    }

    /// The seeds on each player's side (Owela has no captures or stores).
    fn endgame_database(&self) -> Result<(), String> {
        Err("Owela never takes seeds off the board, so there are no endgame layers".to_string())
    }

    fn scores(&self, pos: &OwelaPosition) -> ByPlayer<u16> {
        ByPlayer::from_fn(|p| self.side_seeds(pos, p))
    }

    fn pits<'a>(&self, pos: &'a OwelaPosition) -> &'a [u8] {
        &pos.pits[..2 * self.loop_len()]
    }

    fn controller(&self, _pos: &OwelaPosition, pit: usize) -> Player {
        if pit < self.loop_len() { Player::South } else { Player::North }
    }

    fn action_pit(&self, side: Player, action: Action) -> usize {
        self.base(side) + usize::from(action)
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        Self::label(side, usize::from(action))
    }

    fn parse_move(&self, pos: &OwelaPosition, text: &str) -> Result<Action, MoveParseError> {
        let text = text.trim();
        match Self::read_label(text) {
            Some((owner, i)) if i < self.loop_len() => {
                if owner == pos.side {
                    Ok(i as Action)
                } else {
                    Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover: pos.side })
                }
            }
            _ => Err(MoveParseError::Unknown {
                text: text.to_string(),
                allowed: (0..self.loop_len()).map(|i| Self::label(pos.side, i)).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The scores written are the seeds on each side.
    fn to_setup(&self, pos: &OwelaPosition) -> Setup {
        Setup {
            side: pos.side,
            scores: self.scores(pos),
            pits: self.pits(pos).to_vec(),
            controllers: None,
            status: pos.status.to_string(),
            plies: pos.plies,
            ..Setup::default()
        }
    }

    /// Checks the pit count, the seed total and that the scores are the seeds on each side,
    /// and reads the ply count (a count at `max_plies` ends the game at once).
    fn from_setup(&self, setup: &Setup) -> Result<OwelaPosition, SetupError> {
        let len = self.loop_len();
        if setup.pits.len() != 2 * len {
            return Err(SetupError::PitCount { found: setup.pits.len(), expected: 2 * len });
        }
        if setup.controllers.is_some() {
            return Err(SetupError::Invalid {
                reason: "Owela pits belong to their row's owner: the line must not list controllers".to_string(),
            });
        }
        let found: u32 = setup.pits.iter().map(|&n| u32::from(n)).sum();
        if found != u32::from(self.total_seeds()) {
            return Err(SetupError::SeedCount { found, expected: self.total_seeds().into() });
        }
        setup.check_state("owela", KeptState { max_plies: Some(self.max_plies), ..KeptState::default() })?;
        let mut pos = OwelaPosition {
            pits: [0; PIT_ARRAY],
            side: setup.side,
            plies: setup.plies,
            legal: 0,
            status: Status::Ongoing,
        };
        pos.pits[..2 * len].copy_from_slice(&setup.pits);
        for side in Player::BOTH {
            let seeds = self.side_seeds(&pos, side);
            if setup.scores[side] != seeds {
                return Err(SetupError::Invalid {
                    reason: format!(
                        "the score of {side} is {}, but {side}'s pits hold {seeds} seeds \
                         (Owela scores are the seeds on each side)",
                        setup.scores[side]
                    ),
                });
            }
        }
        self.settle(&mut pos);
        Ok(pos)
    }

    /// Seen from South: North's outer and inner rows on top, South's inner and outer rows
    /// below, so that the four pits of a column line up.
    fn display(&self, pos: &OwelaPosition) -> String {
        let c = usize::from(self.columns);
        let mut out = String::new();
        let row = |out: &mut String, side: Player, own: &mut dyn Iterator<Item = usize>| {
            let pits = self.own(pos, side);
            let (mut labels, mut counts) = (String::from("  "), String::from("  "));
            for i in own {
                let _ = write!(labels, "{:>4}", Self::label(side, i));
                let _ = write!(counts, "{:>4}", pits[i]);
            }
            let _ = writeln!(out, "{}", labels.trim_end());
            let _ = writeln!(out, "{counts}");
        };
        let seeds = self.scores(pos);
        let _ = writeln!(out, "North: {} seeds", seeds.north);
        // South's column k faces North's column c-1-k: North's outer pit c-1-k, inner c+k.
        row(&mut out, Player::North, &mut (0..c).rev());
        row(&mut out, Player::North, &mut (c..2 * c));
        row(&mut out, Player::South, &mut (c..2 * c).rev());
        row(&mut out, Player::South, &mut (0..c));
        let _ = writeln!(out, "South: {} seeds", seeds.south);
        let to_move = match pos.status {
            Status::Ongoing => format!("{} to move", pos.side),
            Status::Over(o) => format!("game over: {o}"),
        };
        let _ = writeln!(out, "ply {}, {to_move}", pos.plies);
        out
    }
}
