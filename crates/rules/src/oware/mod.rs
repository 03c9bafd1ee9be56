//! The Oware family (docs/rules.md section 1): Abapa (the default, as OpenSpiel's `oware`),
//! Ouril, Awale and the grand-slam variants, on `2 x houses` boards.
//!
//! ```
//! use mancala_rules::oware::Oware;
//! use mancala_rules::options::RulesSpec;
//! use mancala_rules::{Game, PRESETS};
//!
//! let game = Oware::from_spec(&RulesSpec::parse("ouril", PRESETS).unwrap()).unwrap();
//! assert_eq!(
//!     game.rules_string(),
//!     "oware houses=6 seeds=4 grand_slam=extra-turn unfed_end=mover-takes singletons=restricted \
//!      cycle=repetition max_plies=1000"
//! );
//! let pos = game.start();
//! let (pos, _) = game.play(&pos, 3).unwrap(); // South sows D
//! assert_eq!(game.pits(&pos), &[4, 4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4]);
//! ```
//!
//! Decisions where the sources leave room (docs/rules.md marks them "Decided in code"):
//! - Rule 5, `unfed_end=mover-takes`: the seeds left go to the player whose row holds them.
//!   When the player to move cannot feed, that is every seed, to the player to move (the rule
//!   as written, and OpenSpiel's `CollectAndTerminate`). When the player to move has no seed
//!   at all (after a `capture-all` grand slam, or in a set-up position), the seeds lie in the
//!   other row and go to its owner.
//! - `grand_slam=forbidden`, when every legal move is a grand slam: the mover plays one and
//!   loses at once, by forfeit: every seed (the board's and the mover's captures) is credited
//!   to the opponent, who wins by the total. The result then follows from the scores, so the
//!   position line reads back to the same finished game (taking only the board's seeds could
//!   leave the scores level when the mover held exactly half).
//! - Filters apply in this order: must feed (or, for an Ouril bonus move, must leave the
//!   opponent a seed), then singletons (among the moves still allowed: a lone seed is refused
//!   only when an allowed house holds more), then the forbidden grand slam.
//! - End checks after a move, in order: majority or half each (rule 7), `plies:N`,
//!   `max_plies`, then no legal move (rule 5). The repetition rule is applied by [`crate::Line`].
//! - The ply count for `max_plies` is not part of a position's identity (`==`, hash): it is a
//!   guard, and a repetition must be seen as one.
//! - A game won by a majority (rule 7) leaves the seeds still on the board there, uncounted.
//!   OpenSpiel's `oware` instead lets each player take their own row after every game-ending
//!   move; the winner is the same, only the final scores differ.
//! - The position line carries the ply counters (`plies=N`, `since_capture=N`) and the Ouril
//!   bonus-move flag (`bonus`). A line whose ply count has reached `max_plies` (or whose
//!   `since_capture` has reached `cycle=plies:N`) is settled on reading, as after a move;
//!   counts past the limit are refused.

pub(crate) mod board;
pub mod options;

use std::fmt::Write as _;

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::hash::hash_pits;
use crate::moves::{Action, MoveMask};
use crate::options::RulesSpec;
use crate::outcome::{Outcome, Status};
use crate::player::{ByPlayer, Player};
use crate::setup::{KeptState, Setup};

use board::{
    FOUR_OR_MORE, NOT_ONE, OWN_ROW, PITS, capture_row, load_rows, nonzero_mask, nonzero_mask64, row_mask, row_sum,
    row_sum64, row_word, sow, sow_rows, store_rows,
};
pub use options::{Cycle, GrandSlam, OwareOptions, Singletons, UnfedEnd};

/// The counts rule 2 captures, as a set (bit `c` for `c` seeds).
const TWO_OR_THREE: u64 = 1 << 2 | 1 << 3;

/// An Oware game with its options fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Oware {
    options: OwareOptions,
    houses: usize,
    total: u16,
    row_mask: u128,
    /// No forbidden grand slam and free singletons: with seeds on both rows, every
    /// non-empty house is a legal move.
    plain: bool,
}

/// An Oware position: the board, captures, side to move, and the state the rules need.
///
/// Besides the board it holds the legal moves of the side to move and the status, both
/// worked out when the position is made, so that `legal_moves` and `status` are reads.
///
/// Equality and [`Game::hash`] cover everything that decides the rest of the game except
/// the ply count of the `max_plies` guard, so that the repetition rule sees a repeated
/// position as equal.
#[derive(Clone, Copy, Debug)]
pub struct OwarePosition {
    pits: [u8; PITS],
    scores: ByPlayer<u16>,
    /// Legal actions of the side to move (0 when the game is over).
    legal: u32,
    /// Plies since the last capture (`cycle=plies:N` only; 0 otherwise).
    since_capture: u16,
    /// Plies since the start or the set-up position, for `max_plies`.
    plies: u16,
    side: Player,
    /// Ouril: the side to move has just made a grand slam and moves again.
    bonus: bool,
    status: Status,
}

impl PartialEq for OwarePosition {
    fn eq(&self, other: &Self) -> bool {
        self.pits == other.pits
            && self.scores == other.scores
            && self.legal == other.legal
            && self.since_capture == other.since_capture
            && self.side == other.side
            && self.bonus == other.bonus
            && self.status == other.status
    }
}

impl Eq for OwarePosition {}

impl OwarePosition {
    /// Plies played since the start (or the set-up position).
    pub fn plies(&self) -> u16 {
        self.plies
    }

    /// Plies since the last capture, counted under `cycle=plies:N` only.
    pub fn plies_since_capture(&self) -> u16 {
        self.since_capture
    }

    /// True when the side to move makes the extra move of an Ouril grand slam.
    pub fn is_bonus_move(&self) -> bool {
        self.bonus
    }
}

/// What playing one action would do, without playing it (for the move filters).
struct Trial {
    /// Seeds in the opponent's row after sowing, before the capture.
    opponent_seeds: u32,
    /// Seeds the capture rule (rule 2) would take.
    capture: u32,
}

impl Trial {
    fn is_grand_slam(&self) -> bool {
        self.capture > 0 && self.capture == self.opponent_seeds
    }
}

/// The move filters of rules 4 and 6 and the forbidden grand slam, one stage at a time.
struct Filters {
    /// Non-empty own houses.
    sown: u32,
    /// After must feed (or the Ouril bonus move's must-leave-a-seed).
    fed: u32,
    /// After the singleton rule.
    singles: u32,
    /// After the forbidden grand slam: the legal moves.
    legal: u32,
}

impl Default for Oware {
    /// Abapa, the default `oware`.
    fn default() -> Self {
        Oware::new(OwareOptions::default()).expect("the defaults are valid")
    }
}

impl Oware {
    /// Reads the game from a parsed rules string (presets `oware`, `abapa`, `ouril`, `awale`,
    /// `oware-capture-all`, optional size `oware:HOUSES,SEEDS`, then options).
    ///
    /// # Errors
    /// [`RulesError`] naming the bad preset, size, key or value.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<Self, RulesError> {
        Oware::new(OwareOptions::from_spec(spec)?)
    }

    /// The game with these options.
    ///
    /// # Errors
    /// [`RulesError::BadValue`] when houses are not in 1..=16, the board would hold no seed
    /// or more than 255, or a ply limit is 0.
    pub fn new(options: OwareOptions) -> Result<Self, RulesError> {
        if !(1..=options::MAX_HOUSES).contains(&u32::from(options.houses)) {
            return Err(RulesError::BadValue {
                key: "houses".to_string(),
                value: options.houses.to_string(),
                allowed: format!("a whole number from 1 to {}", options::MAX_HOUSES),
            });
        }
        let total = 2 * u32::from(options.houses) * u32::from(options.seeds);
        if options.seeds == 0 || total > options::MAX_TOTAL_SEEDS {
            return Err(RulesError::BadValue {
                key: "seeds".to_string(),
                value: options.seeds.to_string(),
                allowed: format!("at least 1 and at most {} seeds in all", options::MAX_TOTAL_SEEDS),
            });
        }
        if options.max_plies == 0 || options.cycle == Cycle::Plies(0) {
            let (key, value) = if options.max_plies == 0 { ("max_plies", "0") } else { ("cycle", "plies:0") };
            return Err(RulesError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                allowed: "at least one ply".to_string(),
            });
        }
        let houses = usize::from(options.houses);
        let plain = options.grand_slam != GrandSlam::Forbidden && options.singletons == Singletons::Free;
        Ok(Oware { options, houses, total: total as u16, row_mask: row_mask(houses), plain })
    }

    pub fn options(&self) -> &OwareOptions {
        &self.options
    }

    /// The preset these rules are exactly (`oware`, `ouril`, `awale`, `oware-capture-all`),
    /// or `None` for another combination of options.
    pub fn preset_name(&self) -> Option<&'static str> {
        self.options.preset_name()
    }

    /// The first pit of `player`'s row.
    #[inline(always)]
    fn row_start(&self, player: Player) -> usize {
        match player {
            Player::South => 0,
            Player::North => self.houses,
        }
    }

    #[inline(always)]
    fn row(&self, pits: &[u8; PITS], player: Player) -> u128 {
        if self.houses <= 8 {
            let (south, north) = load_rows(pits, self.houses, self.row_mask as u64);
            u128::from(if player == Player::South { south } else { north })
        } else {
            row_word(pits, self.row_start(player), self.row_mask)
        }
    }

    /// Sows pit `origin` (rule 1) and returns the pit of the last seed.
    #[inline(always)]
    fn sow(&self, pits: &mut [u8; PITS], origin: usize) -> usize {
        sow(pits, origin, 2 * self.houses)
    }

    fn label(&self, side: Player, house: usize) -> char {
        let base = if side == Player::South { b'A' } else { b'a' };
        char::from(base + house as u8)
    }

    /// Seeds the capture rule takes when the last seed fell into `last`, and the first pit
    /// taken (rule 2: backwards while the houses hold 2 or 3, not past the row's start).
    #[inline(always)]
    fn capture_run(pits: &[u8; PITS], last: usize, row_start: usize) -> (u32, usize) {
        let mut taken = 0u32;
        let mut pit = last;
        loop {
            let c = pits[pit];
            if c != 2 && c != 3 {
                return (taken, pit + 1);
            }
            taken += u32::from(c);
            if pit == row_start {
                return (taken, pit);
            }
            pit -= 1;
        }
    }

    /// Sows `action` for `side` on a copy and reports the capture it would make.
    fn trial(&self, pits: &[u8; PITS], side: Player, action: usize) -> Trial {
        let mut pits = *pits;
        let last = self.sow(&mut pits, self.row_start(side) + action);
        let opp = self.row_start(!side);
        let opponent_seeds = row_sum(self.row(&pits, !side));
        let capture = if last.wrapping_sub(opp) < self.houses { Self::capture_run(&pits, last, opp).0 } else { 0 };
        Trial { opponent_seeds, capture }
    }

    /// The move filters, stage by stage, for positions off the fast path and for
    /// [`Game::why_illegal`].
    #[cold]
    #[inline(never)]
    fn filters(&self, pos: &OwarePosition) -> Filters {
        let side = pos.side;
        let own = self.row(&pos.pits, side);
        let sown = nonzero_mask(own);
        let mut fed = sown;
        if pos.bonus {
            // Ouril: the extra move after a grand slam must leave the opponent a seed.
            fed = MoveMask(u64::from(sown))
                .iter()
                .filter(|&a| {
                    let t = self.trial(&pos.pits, side, usize::from(a));
                    t.opponent_seeds > t.capture
                })
                .fold(0, |m, a| m | 1 << a);
        } else if self.row(&pos.pits, !side) == 0 {
            // Rule 4: a house feeds the opponent when its seeds reach past the own row.
            let start = self.row_start(side);
            fed = (0..self.houses)
                .filter(|&i| usize::from(pos.pits[start + i]) + i >= self.houses)
                .fold(0, |m, i| m | 1 << i);
        }
        let mut singles = fed;
        if self.options.singletons == Singletons::Restricted {
            let big = fed & nonzero_mask(own & NOT_ONE);
            if big != 0 {
                singles = big;
            }
        }
        let legal = self.without_grand_slams(&pos.pits, side, singles);
        Filters { sown, fed, singles, legal }
    }

    /// Under `grand_slam=forbidden`, the candidates that are not grand slams, or all of them
    /// when every one is (the mover must play one and loses); otherwise the candidates.
    #[inline(always)]
    fn without_grand_slams(&self, pits: &[u8; PITS], side: Player, candidates: u32) -> u32 {
        if self.options.grand_slam != GrandSlam::Forbidden {
            return candidates;
        }
        let slams = self.grand_slams(pits, side, candidates);
        if slams == candidates { candidates } else { candidates & !slams }
    }

    /// The candidate moves that are grand slams.
    #[cold]
    #[inline(never)]
    fn grand_slams(&self, pits: &[u8; PITS], side: Player, candidates: u32) -> u32 {
        // Sowing only adds seeds: an opponent's house of 4 or more is never captured and
        // never emptied, so no move is a grand slam.
        if self.row(pits, !side) & FOUR_OR_MORE != 0 {
            return 0;
        }
        let moves = MoveMask(u64::from(candidates)).iter();
        if self.houses <= 8 {
            let (south, north) = load_rows(pits, self.houses, self.row_mask as u64);
            let (own, opp) = if side == Player::South { (south, north) } else { (north, south) };
            moves
                .filter(|&a| {
                    let (mut own, mut opp) = (own, opp);
                    let last = sow_rows(&mut own, &mut opp, usize::from(a), self.houses, true);
                    last != OWN_ROW && {
                        let taken = capture_row(opp, last, TWO_OR_THREE, true).0;
                        taken > 0 && taken == row_sum64(opp)
                    }
                })
                .fold(0, |m, a| m | 1 << a)
        } else {
            moves.filter(|&a| self.trial(pits, side, usize::from(a)).is_grand_slam()).fold(0, |m, a| m | 1 << a)
        }
    }

    /// The legal moves when both rows hold seeds and no bonus move is due: the non-empty
    /// houses, less lone seeds under `singletons=restricted`, less grand slams under
    /// `grand_slam=forbidden`. `own` is the mover's row word.
    #[inline(always)]
    fn legal_when_fed(&self, pits: &[u8; PITS], side: Player, own: u128) -> u32 {
        let mut legal = nonzero_mask(own);
        if self.options.singletons == Singletons::Restricted {
            let big = nonzero_mask(own & NOT_ONE);
            if big != 0 {
                legal = big;
            }
        }
        self.without_grand_slams(pits, side, legal)
    }

    /// The legal moves of the side to move, not looking at whether the game is over.
    #[inline(always)]
    fn compute_legal(&self, pos: &OwarePosition) -> u32 {
        if !pos.bonus && self.row(&pos.pits, !pos.side) != 0 {
            self.legal_when_fed(&pos.pits, pos.side, self.row(&pos.pits, pos.side))
        } else {
            self.filters(pos).legal
        }
    }

    #[inline(always)]
    fn finish(pos: &mut OwarePosition, outcome: Outcome) {
        pos.status = Status::Over(outcome);
        pos.legal = 0;
    }

    /// Each player captures the seeds of their own row and the game ends (rules 5 and 8,
    /// the Ouril fallback).
    #[cold]
    #[inline(never)]
    fn collect_rows(&self, pos: &mut OwarePosition) {
        for p in Player::BOTH {
            pos.scores[p] += row_sum(self.row(&pos.pits, p)) as u16;
        }
        pos.pits = [0; PITS];
        Self::finish(pos, Outcome::from_totals(pos.scores));
    }

    /// `grand_slam=forbidden` when every legal move was a grand slam: the mover played one
    /// and loses at once, by forfeit. The move captures nothing; every seed, the board's and
    /// the mover's captures, is credited to the opponent (scores 0 and the total), so the
    /// result follows from the scores as for every other end.
    #[cold]
    #[inline(never)]
    fn forfeit(&self, pos: &mut OwarePosition, mover: Player) {
        let winner = !mover;
        pos.scores[winner] = self.total;
        pos.scores[mover] = 0;
        pos.pits = [0; PITS];
        pos.side = winner;
        Self::finish(pos, Outcome::from_totals(pos.scores));
    }

    /// Applies the end rules to a position just made (by a move or a set-up) and stores its
    /// legal moves and status.
    fn arrive(&self, pos: &mut OwarePosition) {
        self.arrive_with(pos, true, 0);
    }

    /// [`Oware::arrive`] for the hot path: `scores_changed` false skips the majority check
    /// (nothing was captured), and a non-zero `legal` is the legal moves the caller already
    /// knows.
    #[inline(always)]
    fn arrive_with(&self, pos: &mut OwarePosition, scores_changed: bool, legal: u32) {
        // Rule 7: a majority, or half each.
        if scores_changed {
            let half = self.total / 2;
            let (s, n) = (pos.scores.south, pos.scores.north);
            if s > half || n > half || (s == half && n == half) {
                Self::finish(pos, Outcome::from_totals(pos.scores));
                return;
            }
        }
        // Rule 8: plies without a capture, and the hard limit.
        if let Cycle::Plies(limit) = self.options.cycle
            && pos.since_capture >= limit
        {
            self.collect_rows(pos);
            return;
        }
        if pos.plies >= self.options.max_plies {
            self.collect_rows(pos);
            return;
        }
        let legal = if legal != 0 { legal } else { self.compute_legal(pos) };
        if legal != 0 {
            pos.legal = legal;
            pos.status = Status::Ongoing;
            return;
        }
        // Rule 5 (or, for an Ouril bonus move, rule 3's fallback): nobody can feed.
        if pos.bonus || self.options.unfed_end == UnfedEnd::MoverTakes {
            self.collect_rows(pos);
        } else {
            Self::finish(pos, Outcome::from_totals(pos.scores));
        }
    }

    /// What rule 3 makes of a capture that would empty the opponent's row: whether the
    /// seeds are taken and whether the mover moves again; `None` for a forced grand slam
    /// under `forbidden`, which loses.
    #[inline(always)]
    fn grand_slam(&self) -> Option<(bool, bool)> {
        match self.options.grand_slam {
            GrandSlam::NoCapture => Some((false, false)),
            GrandSlam::CaptureAll => Some((true, false)),
            GrandSlam::ExtraTurn => Some((true, true)),
            GrandSlam::Forbidden => None,
        }
    }

    /// The bookkeeping after the board is sown and captured: scores, counters, side, end.
    #[inline(always)]
    fn after_move(
        &self,
        pos: &mut OwarePosition,
        mover: Player,
        captured: u16,
        extra_turn: bool,
        legal: u32,
    ) -> Sowing {
        pos.scores[mover] += captured;
        if let Cycle::Plies(_) = self.options.cycle {
            pos.since_capture = if captured > 0 { 0 } else { pos.since_capture.saturating_add(1) };
        }
        pos.plies = pos.plies.saturating_add(1);
        pos.bonus = extra_turn;
        if !extra_turn {
            pos.side = !mover;
        }
        self.arrive_with(pos, captured > 0, legal);
        Sowing { captured, irreversible: captured > 0 }
    }

    /// A forced grand slam under `forbidden`: the mover loses (see [`Oware::forfeit`]).
    #[cold]
    #[inline(never)]
    fn forced_grand_slam(&self, pos: &mut OwarePosition, mover: Player) -> Sowing {
        pos.plies = pos.plies.saturating_add(1);
        pos.bonus = false;
        self.forfeit(pos, mover);
        Sowing { captured: 0, irreversible: true }
    }

    /// [`Game::play_unchecked`] for rows of at most 8 houses: each row is one word in
    /// registers, and the next player's legal moves come from them without a reload.
    #[inline(always)]
    fn play_small(&self, pos: &mut OwarePosition, house: usize) -> Sowing {
        let houses = self.houses;
        let mover = pos.side;
        let (south, north) = load_rows(&pos.pits, houses, self.row_mask as u64);
        let (mut own, mut opp) = if mover == Player::South { (south, north) } else { (north, south) };
        let last = sow_rows(&mut own, &mut opp, house, houses, true);
        let mut captured = 0u16;
        let mut extra_turn = false;
        if last != OWN_ROW {
            let (taken, clear) = capture_row(opp, last, TWO_OR_THREE, true);
            if taken > 0 {
                let rule = if taken == row_sum64(opp) { self.grand_slam() } else { Some((true, false)) };
                let Some((take, extra)) = rule else {
                    self.put_rows(pos, mover, own, opp);
                    return self.forced_grand_slam(pos, mover);
                };
                if take {
                    opp &= !clear;
                    captured = taken as u16;
                    extra_turn = extra;
                }
            }
        }
        self.put_rows(pos, mover, own, opp);
        // The next player sows from `opp`; with seeds on both rows their legal moves come
        // from that word (0: worked out by `arrive`).
        let legal = if self.plain && !extra_turn && own != 0 {
            nonzero_mask64(opp)
        } else if !extra_turn && own != 0 {
            self.legal_when_fed(&pos.pits, !mover, u128::from(opp))
        } else {
            0
        };
        self.after_move(pos, mover, captured, extra_turn, legal)
    }

    #[inline(always)]
    fn put_rows(&self, pos: &mut OwarePosition, mover: Player, own: u64, opp: u64) {
        let (south, north) = if mover == Player::South { (own, opp) } else { (opp, own) };
        store_rows(&mut pos.pits, self.houses, south, north);
    }

    fn row_labels(&self, side: Player) -> String {
        (0..self.houses).map(|i| self.label(side, i).to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The limit of `cycle=plies:N`, if these rules use it.
    fn capture_limit(&self) -> Option<u16> {
        match self.options.cycle {
            Cycle::Plies(n) => Some(n),
            Cycle::Repetition => None,
        }
    }
}

impl Game for Oware {
    type Position = OwarePosition;

    fn rules_string(&self) -> String {
        self.options.rules_string()
    }

    fn start(&self) -> OwarePosition {
        let mut pits = [0; PITS];
        pits[..2 * self.houses].fill(self.options.seeds);
        let mut pos = OwarePosition {
            pits,
            scores: ByPlayer::new(0, 0),
            legal: 0,
            since_capture: 0,
            plies: 0,
            side: Player::South,
            bonus: false,
            status: Status::Ongoing,
        };
        self.arrive(&mut pos);
        pos
    }

    fn action_space(&self) -> usize {
        self.houses
    }

    fn total_seeds(&self) -> u16 {
        self.total
    }

    #[inline]
    fn side_to_move(&self, pos: &OwarePosition) -> Player {
        pos.side
    }

    #[inline]
    fn legal_moves(&self, pos: &OwarePosition) -> MoveMask {
        MoveMask(u64::from(pos.legal))
    }

    /// Sows `action`, captures (rules 1 to 3), then applies the end rules for the next
    /// player. An Ouril grand slam (`extra-turn`) leaves the same player to move with the
    /// bonus flag set; a forced grand slam under `forbidden` ends the game as a loss for the
    /// mover (the opponent takes every seed left on the board).
    ///
    /// # Panics
    /// If `action` sows an empty house or is outside the row; other illegal actions leave a
    /// meaningless position.
    #[inline(always)]
    fn play_unchecked(&self, pos: &mut OwarePosition, action: Action) -> Sowing {
        let houses = self.houses;
        let house = usize::from(action);
        assert!(house < houses, "action {action} outside the row of {houses} houses");
        if houses <= 8 {
            return self.play_small(pos, house);
        }
        let mover = pos.side;
        let opp = self.row_start(!mover);
        let last = self.sow(&mut pos.pits, self.row_start(mover) + house);
        let mut captured = 0u16;
        let mut extra_turn = false;
        if last.wrapping_sub(opp) < houses {
            let (taken, first) = Self::capture_run(&pos.pits, last, opp);
            if taken > 0 {
                let grand_slam = taken == row_sum(self.row(&pos.pits, !mover));
                let Some((take, extra)) = (if grand_slam { self.grand_slam() } else { Some((true, false)) }) else {
                    return self.forced_grand_slam(pos, mover);
                };
                if take {
                    pos.pits[first..=last].fill(0);
                    captured = taken as u16;
                    extra_turn = extra;
                }
            }
        }
        self.after_move(pos, mover, captured, extra_turn, 0)
    }

    fn why_illegal(&self, pos: &OwarePosition, action: Action) -> String {
        let side = pos.side;
        let a = usize::from(action);
        if pos.status.is_over() {
            return "the game is over".to_string();
        }
        if a >= self.houses {
            return format!("action {a} is outside the row of {} houses", self.houses);
        }
        let label = self.label(side, a);
        let f = self.filters(pos);
        let bit = 1u32 << a;
        let opponent = !side;
        if f.sown & bit == 0 {
            return format!("house {label} is empty");
        }
        if f.fed & bit == 0 {
            return if pos.bonus {
                format!(
                    "after a grand slam the extra move must leave {opponent} at least one seed, and {label} does not"
                )
            } else {
                format!("must feed: {opponent}'s houses are empty and house {label} does not reach them")
            };
        }
        if f.singles & bit == 0 {
            let big = (f.singles & !bit).trailing_zeros() as usize;
            return format!(
                "singletons: house {label} holds a single seed while house {} holds more",
                self.label(side, big)
            );
        }
        if f.legal & bit == 0 {
            return format!("grand slam: house {label} would capture every seed in {opponent}'s row");
        }
        format!("house {label} is not a legal move")
    }

    #[inline]
    fn status(&self, pos: &OwarePosition) -> Status {
        pos.status
    }

    fn hash(&self, pos: &OwarePosition) -> u64 {
        let (kind, margin) = match pos.status {
            Status::Ongoing => (0u64, 0u64),
            Status::Over(o) => (
                match o.winner {
                    None => 1,
                    Some(Player::South) => 2,
                    Some(Player::North) => 3,
                },
                u64::from(o.margin),
            ),
        };
        let extra = u64::from(pos.scores.south)
            | u64::from(pos.scores.north) << 8
            | (pos.side.index() as u64) << 16
            | u64::from(pos.bonus) << 17
            | kind << 18
            | margin << 20
            | u64::from(pos.since_capture) << 28;
        hash_pits(&pos.pits[..2 * self.houses], extra)
    }

    fn repetition_ends_game(&self) -> bool {
        self.options.cycle == Cycle::Repetition
    }

    fn stops_at_majority(&self) -> bool {
        true
    }

    fn settle_cycle(&self, pos: &mut OwarePosition) {
        self.collect_rows(pos);
    }

    /// `max_plies` less the plies played, or under `cycle=plies:N` the plies still allowed
    /// without a capture, whichever is smaller: the move that brings a count to its limit
    /// ends the game.
    fn plies_left(&self, pos: &OwarePosition) -> Option<u16> {
        let left = self.options.max_plies.saturating_sub(pos.plies);
        Some(self.capture_limit().map_or(left, |n| left.min(n.saturating_sub(pos.since_capture))))
    }

    fn moves_twice(&self) -> bool {
        self.options.grand_slam == GrandSlam::ExtraTurn
    }

    fn endgame_database(&self) -> Result<(), String> {
        if self.options.grand_slam == GrandSlam::ExtraTurn {
            // After an Ouril grand slam the same player moves again under a constraint the
            // position line cannot write down: (board, side) would not be the whole state.
            return Err("the extra-turn grand slam leaves state the board does not show".to_string());
        }
        if self.capture_limit().is_some() {
            return Err("cycle=plies:N counts plies the board does not show; use cycle=repetition".to_string());
        }
        Ok(())
    }

    fn bonus_move(&self, pos: &OwarePosition) -> Option<bool> {
        (self.options.grand_slam == GrandSlam::ExtraTurn).then_some(pos.bonus)
    }

    fn scores(&self, pos: &OwarePosition) -> ByPlayer<u16> {
        pos.scores
    }

    fn pits<'a>(&self, pos: &'a OwarePosition) -> &'a [u8] {
        &pos.pits[..2 * self.houses]
    }

    fn controller(&self, _pos: &OwarePosition, pit: usize) -> Player {
        if pit < self.houses { Player::South } else { Player::North }
    }

    fn action_pit(&self, side: Player, action: Action) -> usize {
        self.row_start(side) + usize::from(action)
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        self.label(side, usize::from(action)).to_string()
    }

    fn parse_move(&self, pos: &OwarePosition, text: &str) -> Result<Action, MoveParseError> {
        let side = pos.side;
        let unknown = || MoveParseError::Unknown { text: text.to_string(), allowed: self.row_labels(side) };
        let mut chars = text.trim().chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(unknown());
        };
        let (owner, index) = if c.is_ascii_uppercase() {
            (Player::South, c as usize - 'A' as usize)
        } else if c.is_ascii_lowercase() {
            (Player::North, c as usize - 'a' as usize)
        } else {
            return Err(unknown());
        };
        if index >= self.houses {
            return Err(unknown());
        }
        if owner != side {
            return Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover: side });
        }
        Ok(index as Action)
    }

    fn to_setup(&self, pos: &OwarePosition) -> Setup {
        Setup {
            side: pos.side,
            scores: pos.scores,
            pits: pos.pits[..2 * self.houses].to_vec(),
            controllers: None,
            status: pos.status.to_string(),
            plies: pos.plies,
            since_capture: pos.since_capture,
            bonus: pos.bonus,
            starter: Player::South,
            ..Setup::default()
        }
    }

    /// Reads a position line with its ply counters and bonus-move flag. The end rules are
    /// applied at once, as after a move: a count at its limit ends the game, and if the
    /// player to move has no legal move, rule 5 (or for a bonus move rule 3's fallback).
    fn from_setup(&self, setup: &Setup) -> Result<OwarePosition, SetupError> {
        let n = 2 * self.houses;
        if setup.pits.len() != n {
            return Err(SetupError::PitCount { found: setup.pits.len(), expected: n });
        }
        if setup.controllers.is_some() {
            return Err(SetupError::Invalid { reason: "oware pits have no controllers field".to_string() });
        }
        let kept = KeptState {
            max_plies: Some(self.options.max_plies),
            since_capture_limit: self.capture_limit(),
            bonus: self.options.grand_slam == GrandSlam::ExtraTurn,
            ..KeptState::default()
        };
        setup.check_state(self.preset_name().unwrap_or("these oware rules"), kept)?;
        let found = setup.pits.iter().map(|&c| u32::from(c)).sum::<u32>()
            + u32::from(setup.scores.south)
            + u32::from(setup.scores.north);
        if found != u32::from(self.total) {
            return Err(SetupError::SeedCount { found, expected: u32::from(self.total) });
        }
        let mut pits = [0; PITS];
        pits[..n].copy_from_slice(&setup.pits);
        let mut pos = OwarePosition {
            pits,
            scores: setup.scores,
            legal: 0,
            since_capture: setup.since_capture,
            plies: setup.plies,
            side: setup.side,
            bonus: setup.bonus,
            status: Status::Ongoing,
        };
        self.arrive(&mut pos);
        Ok(pos)
    }

    /// The other side to move, settled as a set-up position is (without the setup's
    /// allocations: the encoder asks for it at every network leaf).
    fn passed(&self, pos: &OwarePosition) -> Option<OwarePosition> {
        if pos.status.is_over() {
            return None;
        }
        let mut next = OwarePosition { side: pos.side.opponent(), bonus: false, legal: 0, ..*pos };
        self.arrive(&mut next);
        Some(next)
    }

    fn display(&self, pos: &OwarePosition) -> String {
        let h = self.houses;
        let mut out = String::new();
        let mark = |p: Player| if pos.status.is_over() || pos.side != p { "" } else { "  (to move)" };
        let _ = writeln!(out, "north  captured {}{}", pos.scores.north, mark(Player::North));
        let cell = |s: &mut String, x: &dyn std::fmt::Display| {
            let _ = write!(s, "{x:>4}");
        };
        for i in (0..h).rev() {
            cell(&mut out, &self.label(Player::North, i));
        }
        out.push('\n');
        for i in (0..h).rev() {
            cell(&mut out, &pos.pits[h + i]);
        }
        out.push('\n');
        for i in 0..h {
            cell(&mut out, &pos.pits[i]);
        }
        out.push('\n');
        for i in 0..h {
            cell(&mut out, &self.label(Player::South, i));
        }
        out.push('\n');
        let _ = writeln!(out, "south  captured {}{}", pos.scores.south, mark(Player::South));
        match pos.status {
            Status::Ongoing if pos.bonus => {
                let _ = writeln!(out, "ongoing: {} makes the extra move of a grand slam", pos.side);
            }
            status => {
                let _ = writeln!(out, "{status}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PRESETS;

    fn game(rules: &str) -> Oware {
        Oware::from_spec(&RulesSpec::parse(rules, PRESETS).unwrap()).unwrap()
    }

    /// The fast paths (word sowing, stored legal moves, the grand-slam pre-check) agree with
    /// the stage-by-stage filters and byte-by-byte trials over random games.
    #[test]
    fn fast_paths_agree_with_the_filters() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for rules in ["oware", "ouril", "awale", "oware-capture-all singletons=restricted", "awale:8,15", "awale:3,2"] {
            let g = game(rules);
            for _ in 0..300 {
                let mut pos = g.start();
                while !pos.status.is_over() {
                    assert_eq!(pos.legal, g.filters(&pos).legal, "{rules}: {pos:?}");
                    let slams = (0..g.houses)
                        .filter(|&a| pos.pits[g.row_start(pos.side) + a] > 0)
                        .filter(|&a| g.trial(&pos.pits, pos.side, a).is_grand_slam())
                        .fold(0u32, |m, a| m | 1 << a);
                    let sown = nonzero_mask(g.row(&pos.pits, pos.side));
                    assert_eq!(g.grand_slams(&pos.pits, pos.side, sown), slams, "{rules}: {pos:?}");
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let legal = MoveMask(u64::from(pos.legal));
                    let a = legal.nth((seed % legal.len() as u64) as usize).unwrap();
                    g.play_unchecked(&mut pos, a);
                }
            }
        }
    }
}
