//! One sowing engine that plays any [`Description`]: the board, the sowing loop (laps,
//! relays, stores, captures during the sowing), the last seed's captures, the move filters
//! and the endings, all driven by the resolved [`Rules`].
//!
//! Positions are `Copy` values of a fixed size and playing a move does not allocate. The
//! sowing steps from house to house through tables worked out when the game is made, so the
//! hot loop reads no description and looks up no string.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::hash::hash_pits;
use crate::moves::{Action, MoveMask};
use crate::outcome::{Outcome, Status};
use crate::player::{ByPlayer, Player};
use crate::setup::{KeptState, Setup};

use super::description::{
    CaptureFrom, CaptureOn, Cross, CrossFrom, CrossSeed, CycleDesc, Description, Direction, EmptyRowTo, GrandSlam,
    MAX_PITS, NoMove, Origin, Rules, Score, Singletons, SowFrom, SowingTo,
};
use super::trace::{Step, Trace};
use crate::oware::board::{OWN_ROW, capture_row, load_rows, sow_rows, store_rows};

/// The slot of the mover's store in the sowing tables (houses are `0..MAX_PITS`).
const STORE: u8 = MAX_PITS as u8;
/// Slots in a sowing table: every house and the mover's store.
const SLOTS: usize = MAX_PITS + 1;
/// No house (the end of a capture run).
const NOWHERE: u8 = u8::MAX;

/// A described game: its description, the resolved rules and the sowing tables.
#[derive(Clone, Debug)]
pub struct Described {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    description: Description,
    rules: Rules,
    canonical: String,
    /// `next[side][direction][slot]`: where the mover's next seed falls after `slot`
    /// (direction 0 counter-clockwise, 1 clockwise). The mover's own store is a slot; the
    /// opponent's store is never sown.
    next: [[[u8; SLOTS]; 2]; 2],
    /// `back[direction][house]`: the house before `house` against that direction, for a
    /// capture run (stores are not on it).
    back: [[u8; MAX_PITS]; 2],
    /// `opposite[house]`: the house across the board (two ranks), for cross captures.
    opposite: [u8; MAX_PITS],
    /// Each player's territory, and the whole board.
    territory: [Houses; 2],
    board: Houses,
    /// The laps of every sowing, for sowing whole laps at once.
    laps: Laps,
    /// No move filter beyond the seeds a house holds can apply (free singletons, no
    /// forbidden grand slam that can capture): the legal moves are the sowable houses,
    /// unless a must-feed rule finds the opponent empty.
    plain: bool,
    /// The game fits the row-word path ([`Described::play_rows`]): two ranks of at most 8
    /// houses, no stores, one lap sown counter-clockwise from one's own row, the last seed
    /// capturing in the opponent's row only.
    rows: bool,
}

impl PartialEq for Described {
    fn eq(&self, other: &Self) -> bool {
        self.inner.canonical == other.inner.canonical
    }
}

impl Eq for Described {}

/// A position of a described game: the board, the scores (captures and stores), who
/// controls each house, and the state the rules need.
///
/// Equality and [`Game::hash`] cover everything that decides the rest of the game except the
/// ply count of the `max_plies` guard, so that a repeated position is seen as one.
#[derive(Clone, Copy, Debug)]
pub struct DescribedPosition {
    pits: [u8; MAX_PITS],
    /// Seeds captured or stored by each player.
    scores: ByPlayer<u16>,
    /// Bit `i` set when North controls house `i`.
    north: u64,
    /// Legal actions of the side to move (0 when the game is over).
    legal: u64,
    plies: u16,
    since_capture: u16,
    side: Player,
    /// The side to move makes the extra move of a grand slam (`grand_slam = "extra-turn"`).
    bonus: bool,
    starter: Player,
    status: Status,
    /// The house each player has claimed under the `tuzdyk` rule, [`NOWHERE`] for none.
    tuzdyk: ByPlayer<u8>,
}

impl PartialEq for DescribedPosition {
    fn eq(&self, other: &Self) -> bool {
        self.pits == other.pits
            && self.scores == other.scores
            && self.north == other.north
            && self.since_capture == other.since_capture
            && self.side == other.side
            && self.bonus == other.bonus
            && self.starter == other.starter
            && self.status == other.status
            && self.tuzdyk == other.tuzdyk
    }
}

impl Eq for DescribedPosition {}

impl DescribedPosition {
    /// Plies played since the start (or the set-up position).
    pub fn plies(&self) -> u16 {
        self.plies
    }
}

/// What a sowing did, for the move filters and the bookkeeping.
#[derive(Clone, Copy, Debug, Default)]
struct Sown {
    /// Seeds that left the board into captures or stores during the move.
    scored: u16,
    /// Seeds taken from the opponent and sown on (four-rank captures).
    taken: u16,
    /// The opponent's seeds on the board after the sowing, before the last seed's capture:
    /// worked out only where it is read (a pending capture, a trial for the filters).
    opponent_after_sowing: u32,
    /// Whether the sowing put a seed into the opponent's houses.
    fed: bool,
    /// The last seed's capture that waits for the grand-slam rule: the seeds and the run's
    /// houses (`run_from` back to `last`).
    pending: u16,
    last: u8,
    /// The last seed fell into the mover's store and the rules give another move.
    extra_turn: bool,
}

/// The move filters, stage by stage, for [`Game::why_illegal`].
struct Filters {
    sown: u64,
    fed: u64,
    singles: u64,
    legal: u64,
}

impl Described {
    /// The game a description states.
    ///
    /// # Errors
    /// [`RulesError::Description`] naming the key and why the description cannot be played.
    pub fn new(description: Description) -> Result<Self, RulesError> {
        let rules = description.resolve()?;
        let canonical = description.canonical();
        let mut next = [[[0u8; SLOTS]; 2]; 2];
        for side in Player::BOTH {
            for (d, clockwise) in [false, true].into_iter().enumerate() {
                let circuit = circuit(&rules, side, clockwise);
                for (i, &slot) in circuit.iter().enumerate() {
                    next[side.index()][d][usize::from(slot)] = circuit[(i + 1) % circuit.len()];
                }
            }
        }
        let mut back = [[NOWHERE; MAX_PITS]; 2];
        for (d, clockwise) in [false, true].into_iter().enumerate() {
            // The houses in sowing order, stores left out, both players' territories.
            for side in Player::BOTH {
                let houses: Vec<u8> = circuit(&rules, side, clockwise).into_iter().filter(|&s| s != STORE).collect();
                for (i, &h) in houses.iter().enumerate() {
                    back[d][usize::from(h)] = houses[(i + houses.len() - 1) % houses.len()];
                }
            }
        }
        let mut opposite = [NOWHERE; MAX_PITS];
        if rules.ranks == 2 {
            for (h, o) in opposite.iter_mut().enumerate().take(rules.pits) {
                *o = (rules.pits - 1 - h) as u8;
            }
        }
        let t = rules.territory;
        let row = if t >= 64 { u64::MAX } else { (1u64 << t) - 1 };
        let territory = [Houses::new(row), Houses::new(row << t)];
        let board = Houses::new(if rules.pits >= 64 { u64::MAX } else { (1u64 << rules.pits) - 1 });
        let plain = rules.singletons == Singletons::Free
            && (rules.grand_slam != GrandSlam::Forbidden || rules.capture_counts == 0);
        let laps = Laps::new(&rules);
        let rows = fits_rows(&rules);
        let inner = Inner { description, rules, canonical, next, back, opposite, territory, board, plain, laps, rows };
        Ok(Described { inner: Arc::new(inner) })
    }

    /// The game without the row-word path, every move through the general sowing: for
    /// tests that hold the two to each other.
    #[doc(hidden)]
    pub fn without_row_path(description: Description) -> Result<Self, RulesError> {
        let mut game = Described::new(description)?;
        Arc::get_mut(&mut game.inner).expect("a new game is not shared").rows = false;
        Ok(game)
    }

    /// Whether moves take the row-word path.
    #[doc(hidden)]
    pub fn takes_row_path(&self) -> bool {
        self.inner.rows
    }

    /// The description this game was made from.
    pub fn description(&self) -> &Description {
        &self.inner.description
    }

    /// The resolved rules.
    pub fn rules(&self) -> &Rules {
        &self.inner.rules
    }

    /// The game's short name (`name` in the description).
    pub fn name(&self) -> &str {
        &self.inner.description.name
    }

    #[inline(always)]
    fn r(&self) -> &Rules {
        &self.inner.rules
    }

    /// The owner of house `pit`'s territory.
    #[inline(always)]
    fn owner(&self, pit: usize) -> Player {
        if pit < self.r().territory { Player::South } else { Player::North }
    }

    /// The first house of `side`'s territory.
    #[inline(always)]
    fn base(&self, side: Player) -> usize {
        side.index() * self.r().territory
    }

    #[inline(always)]
    fn controller_of(north: u64, pit: usize) -> Player {
        if north >> pit & 1 == 1 { Player::North } else { Player::South }
    }

    /// The territory of `side` as a house mask.
    #[inline(always)]
    fn territory_mask(&self, side: Player) -> u64 {
        self.inner.territory[side.index()].bits
    }

    /// The territory of `side`, for the word-at-a-time counts.
    #[inline(always)]
    fn territory(&self, side: Player) -> &Houses {
        &self.inner.territory[side.index()]
    }

    #[inline(always)]
    fn board_mask(&self) -> u64 {
        self.inner.board.bits
    }

    /// Seeds in the houses of `set`, eight houses a step (see [`byte_sum`]).
    #[inline(always)]
    fn seeds_in(pits: &[u8; MAX_PITS], set: &Houses) -> u32 {
        let mut sum = 0u32;
        for w in set.words() {
            sum += byte_sum(word_at(pits, 8 * w) & set.bytes(w));
        }
        sum
    }

    /// Whether any house of `set` holds a seed. No early exit: a loop over the same words
    /// every time is predicted, a test that stops at the first seed is not.
    #[inline(always)]
    fn any_seeds(pits: &[u8; MAX_PITS], set: &Houses) -> bool {
        let mut any = 0u64;
        for w in set.words() {
            any |= word_at(pits, 8 * w) & set.bytes(w);
        }
        any != 0
    }

    /// The houses of `set` holding at least `min` seeds, eight houses a step (see
    /// [`at_least`]).
    #[inline(always)]
    fn holding(pits: &[u8; MAX_PITS], set: &Houses, min: u8) -> u64 {
        let mut out = 0u64;
        for w in set.words() {
            let c = 8 * w;
            out |= (at_least(word_at(pits, c), min) & ((set.bits >> c) & 0xff)) << c;
        }
        out
    }

    /// The house and direction (0 counter-clockwise, 1 clockwise) an action of `side` sows.
    #[inline(always)]
    fn decode(&self, side: Player, action: Action) -> (usize, usize) {
        let r = self.r();
        let n = r.houses_per_action_set();
        let a = usize::from(action);
        let (i, d) = if a >= n { (a - n, 1) } else { (a, usize::from(r.direction == Direction::Clockwise)) };
        let pit = match r.from {
            SowFrom::Own => self.base(side) + i,
            SowFrom::Controlled => (self.base(side) + i) % r.pits,
        };
        (pit, d)
    }

    /// The actions of `side` sowing the houses of `houses`, in every direction the rules allow.
    #[inline(always)]
    fn actions_of(&self, side: Player, houses: u64) -> u64 {
        let r = self.r();
        let per = match r.from {
            SowFrom::Own => houses >> self.base(side),
            SowFrom::Controlled => {
                let b = self.base(side);
                if b == 0 { houses } else { ((houses >> b) | (houses << (r.pits - b))) & self.board_mask() }
            }
        };
        if r.direction == Direction::Either { per | per << r.houses_per_action_set() } else { per }
    }

    /// Sows `hand` seeds of `side` in direction `d` from slot `from` with the lap tables: each
    /// slot of the lap gets the whole laps, the first slots of the lap one seed more, the
    /// mover's store its share. Returns the slot of the last seed.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sow_laps(
        &self,
        pos: &mut DescribedPosition,
        side: Player,
        d: usize,
        from: u8,
        hand: u32,
        out: &mut Sown,
        opp_mask: u64,
    ) -> u8 {
        let laps = &self.inner.laps;
        let len = laps.len as u32;
        let i = (side.index() * 2 + d) * self.r().pits + usize::from(from);
        // Most sowings stay within one lap: no division for them.
        let (full, rem) = if hand < len { (0, hand) } else { (hand / len, hand % len) };
        let prefix = &laps.prefix[i * (laps.len + 1)..(i + 1) * (laps.len + 1)];
        let store_at = u32::from(laps.store_at[i]);
        let mut stored = 0u32;
        let mut sown = 0u64;
        if full > 0 {
            let all = prefix[laps.len];
            add_seeds(&mut pos.pits, all, laps.words[side.index()], full as u8);
            sown = all;
            if store_at < len {
                stored += full;
            }
        }
        if rem > 0 {
            let some = prefix[rem as usize];
            add_seeds(&mut pos.pits, some, laps.words[side.index()], 1);
            sown |= some;
            if store_at < rem {
                stored += 1;
            }
        }
        if stored > 0 {
            pos.scores[side] += stored as u16;
            out.scored += stored as u16;
        }
        out.fed |= sown & opp_mask != 0;
        let last = if rem > 0 { rem - 1 } else { len - 1 };
        laps.slots[i * laps.len + last as usize]
    }

    /// Whether the capture rules may take house `pit` on `side`'s move.
    #[inline(always)]
    fn capturable(&self, side: Player, pit: usize) -> bool {
        match self.r().capture_from {
            CaptureFrom::Opponent => self.owner(pit) != side,
            CaptureFrom::Own => self.owner(pit) == side,
            CaptureFrom::Any => true,
        }
    }

    /// Whether `pit` is an inner house of its owner (four ranks: the second half of the
    /// territory in sowing order).
    #[inline(always)]
    fn is_inner(&self, pit: usize) -> bool {
        let t = self.r().territory;
        pit % t >= t / 2
    }

    /// The opponent's two houses in the column of `side`'s inner house `pit` (outer, inner).
    #[inline(always)]
    fn column_across(&self, side: Player, pit: usize) -> (usize, usize) {
        let c = self.r().territory / 2;
        let j = pit - self.base(side);
        let opp = self.base(!side);
        (opp + j - c, opp + 3 * c - 1 - j)
    }

    /// Sows house `pit` of `side` in direction `d` on `pos` (board, scores) and makes the
    /// captures of the sowing and of the last seed, except a last-seed capture the grand-slam
    /// rule must judge, which is left in `pending`. With `trace`, records every step.
    #[inline(always)]
    fn sow(
        &self,
        pos: &mut DescribedPosition,
        side: Player,
        pit: usize,
        d: usize,
        mut trace: Option<&mut Trace>,
    ) -> Sown {
        let r = self.r();
        let next = &self.inner.next[side.index()][d];
        let mut out = Sown::default();
        let opp_mask = self.territory_mask(!side);
        let mut hand = u32::from(pos.pits[pit]);
        pos.pits[pit] = 0;
        if let Some(t) = trace.as_deref_mut() {
            t.push(Step::Lift { house: pit as u8, seeds: hand as u8 });
        }
        let origin = pit as u8;
        let mut at = origin;
        if r.origin == Origin::First && hand > 1 {
            // The first seed goes back into the origin house.
            pos.pits[pit] = 1;
            hand -= 1;
            if let Some(t) = trace.as_deref_mut() {
                t.push(Step::Drop { house: origin });
            }
        }
        let skip = r.origin == Origin::Skip;
        let during = r.capture_on == CaptureOn::Sowing;
        let mut relays = 0u32;
        let mut ended = false;
        loop {
            // Whole laps at once where no seed but the last can do anything (no trace to
            // record, no capture during the sowing); a relay lap under `origin = "skip"`
            // starts away from the house it must skip, which the lap tables do not cover.
            if trace.is_none() && !during && hand > 0 && (!skip || at == origin) {
                at = self.sow_laps(pos, side, d, at, hand, &mut out, opp_mask);
                hand = 0;
            }
            while hand > 0 {
                at = next[usize::from(at)];
                if skip && at == origin {
                    at = next[usize::from(at)];
                }
                hand -= 1;
                if at == STORE {
                    pos.scores[side] += 1;
                    out.scored += 1;
                    if let Some(t) = trace.as_deref_mut() {
                        t.push(Step::Store { player: side });
                    }
                    continue;
                }
                let h = usize::from(at);
                pos.pits[h] += 1;
                out.fed |= opp_mask >> h & 1 == 1;
                if let Some(t) = trace.as_deref_mut() {
                    t.push(Step::Drop { house: at });
                }
                if during && hand > 0 && self.capturable(side, h) && r.captures_count(pos.pits[h]) {
                    let taker = match r.sowing_to {
                        SowingTo::Controller => Self::controller_of(pos.north, h),
                        SowingTo::Mover => side,
                    };
                    let n = u16::from(std::mem::take(&mut pos.pits[h]));
                    pos.scores[taker] += n;
                    out.scored += n;
                    if let Some(t) = trace.as_deref_mut() {
                        t.push(Step::Capture { house: at, seeds: n as u8, player: taker });
                    }
                }
            }
            if at == STORE {
                out.extra_turn = r.extra_turn;
                break;
            }
            let h = usize::from(at);
            let count = pos.pits[h];
            if during && self.capturable(side, h) && r.captures_count(count) {
                pos.pits[h] = 0;
                pos.scores[side] += u16::from(count);
                out.scored += u16::from(count);
                if let Some(t) = trace.as_deref_mut() {
                    t.push(Step::Capture { house: at, seeds: count, player: side });
                }
                ended = true;
                break;
            }
            if r.relay && count > 1 {
                if r.four_rank && self.owner(h) == side && self.is_inner(h) {
                    let (outer, inner) = self.column_across(side, h);
                    if pos.pits[outer] != 0 && pos.pits[inner] != 0 {
                        let (a, b) = (pos.pits[outer], pos.pits[inner]);
                        pos.pits[outer] = 0;
                        pos.pits[inner] = 0;
                        hand = u32::from(a) + u32::from(b);
                        out.taken += hand as u16;
                        if let Some(t) = trace.as_deref_mut() {
                            t.push(Step::Take { house: outer as u8, seeds: a });
                            t.push(Step::Take { house: inner as u8, seeds: b });
                        }
                        continue;
                    }
                }
                if relays >= r.relay_limit {
                    break;
                }
                relays += 1;
                hand = u32::from(count);
                pos.pits[h] = 0;
                if let Some(t) = trace.as_deref_mut() {
                    t.push(Step::Lift { house: at, seeds: count });
                }
                continue;
            }
            break;
        }
        out.last = at;
        if ended || at == STORE {
            return out;
        }
        let h = usize::from(at);
        if r.tuzdyk && self.tuzdyk(pos, side, h, &mut out, trace.as_deref_mut()) {
            return out;
        }
        let count = pos.pits[h];
        if !during && r.capture_counts != 0 && self.capturable(side, h) && r.captures_count(count) {
            let mut taken = u16::from(count);
            if r.capture_on == CaptureOn::Run {
                let back = &self.inner.back[d];
                let mut p = back[h];
                while p != NOWHERE && usize::from(p) != h && self.capturable(side, usize::from(p)) {
                    let c = pos.pits[usize::from(p)];
                    if !r.captures_count(c) {
                        break;
                    }
                    taken += u16::from(c);
                    p = back[usize::from(p)];
                }
            }
            out.pending = taken;
            // For the grand-slam rule: what the opponent holds before this capture.
            out.opponent_after_sowing = Self::seeds_in(&pos.pits, self.territory(!side));
            return out;
        }
        if r.cross != Cross::None && (r.cross_from == CrossFrom::Any || self.owner(h) == side) && count == 1 {
            let o = usize::from(self.inner.opposite[h]);
            if pos.pits[o] > 0 || r.cross == Cross::Always {
                // Some games leave the capturing seed in its house (`cross_seed = "left"`).
                let seed_taken = r.cross_seed == CrossSeed::Taken;
                let n = u16::from(pos.pits[o]) + u16::from(seed_taken);
                if let Some(t) = trace {
                    t.push(Step::Capture { house: o as u8, seeds: pos.pits[o], player: side });
                    if seed_taken {
                        t.push(Step::Capture { house: at, seeds: 1, player: side });
                    }
                }
                pos.pits[o] = 0;
                if seed_taken {
                    pos.pits[h] = 0;
                }
                pos.scores[side] += n;
                out.scored += n;
            }
        }
        out
    }

    /// The `tuzdyk` rule after a sowing of `side` whose last seed fell into house `h`: claims
    /// `h` when the seed made it hold 3 and the rule allows the claim (the three seeds go to
    /// the mover), then moves the seeds sown into claimed houses to their owners. Returns
    /// whether the last seed's move is over (it fell into a claimed house, or made a claim):
    /// no capture follows.
    fn tuzdyk(
        &self,
        pos: &mut DescribedPosition,
        side: Player,
        h: usize,
        out: &mut Sown,
        mut trace: Option<&mut Trace>,
    ) -> bool {
        let t = self.r().territory;
        let into_claimed = pos.tuzdyk.south == h as u8 || pos.tuzdyk.north == h as u8;
        let opponent = !side;
        // The opponent's house numbered like this one in the opponent's row (0-based).
        let index = h.wrapping_sub(self.base(opponent));
        let claim = !into_claimed
            && self.owner(h) == opponent
            && pos.pits[h] == 3
            && pos.tuzdyk[side] == NOWHERE
            && index != t - 1
            && usize::from(pos.tuzdyk[opponent]).wrapping_sub(self.base(side)) != index;
        if claim {
            pos.pits[h] = 0;
            pos.scores[side] += 3;
            out.scored += 3;
            pos.tuzdyk[side] = h as u8;
            if let Some(tr) = trace.as_deref_mut() {
                tr.push(Step::Capture { house: h as u8, seeds: 3, player: side });
                tr.push(Step::Claim { house: h as u8, player: side });
            }
        }
        for owner in Player::BOTH {
            let house = pos.tuzdyk[owner];
            if house == NOWHERE {
                continue;
            }
            let n = std::mem::take(&mut pos.pits[usize::from(house)]);
            if n > 0 {
                pos.scores[owner] += u16::from(n);
                out.scored += u16::from(n);
                if let Some(tr) = trace.as_deref_mut() {
                    tr.push(Step::Capture { house, seeds: n, player: owner });
                }
            }
        }
        into_claimed || claim
    }

    /// Takes the pending last-seed capture of `sown`: the last house and, for a run, the
    /// houses before it while they hold a capturing count.
    fn take_pending(
        &self,
        pos: &mut DescribedPosition,
        side: Player,
        d: usize,
        sown: &Sown,
        mut trace: Option<&mut Trace>,
    ) {
        let r = self.r();
        let back = &self.inner.back[d];
        let mut p = sown.last;
        let mut first = true;
        while p != NOWHERE {
            let h = usize::from(p);
            if !first && (h == usize::from(sown.last) || !self.capturable(side, h) || !r.captures_count(pos.pits[h])) {
                break;
            }
            let n = std::mem::take(&mut pos.pits[h]);
            pos.scores[side] += u16::from(n);
            if let Some(t) = trace.as_deref_mut() {
                t.push(Step::Capture { house: p, seeds: n, player: side });
            }
            if r.capture_on != CaptureOn::Run {
                break;
            }
            first = false;
            p = back[h];
        }
    }

    /// What the grand-slam rule makes of a pending capture that takes every seed the
    /// opponent has: `Some((take, extra_turn))`, or `None` for a forced grand slam under
    /// `forbidden`, which loses.
    fn grand_slam(&self) -> Option<(bool, bool)> {
        match self.r().grand_slam {
            GrandSlam::NoCapture => Some((false, false)),
            GrandSlam::CaptureAll => Some((true, false)),
            GrandSlam::ExtraTurn => Some((true, true)),
            GrandSlam::Forbidden => None,
        }
    }

    /// Sows an action on a copy, for the move filters.
    fn trial(&self, pos: &DescribedPosition, action: Action) -> Sown {
        let mut copy = *pos;
        let (pit, d) = self.decode(pos.side, action);
        let mut sown = self.sow(&mut copy, pos.side, pit, d, None);
        sown.opponent_after_sowing = Self::seeds_in(&copy.pits, self.territory(!pos.side));
        sown
    }

    fn is_grand_slam(sown: &Sown) -> bool {
        sown.pending > 0 && u32::from(sown.pending) == sown.opponent_after_sowing
    }

    /// The houses `side` may sow (own or controlled, holding enough seeds), as actions.
    #[inline(always)]
    fn sowable(&self, pos: &DescribedPosition, side: Player) -> u64 {
        let r = self.r();
        let houses = match r.from {
            SowFrom::Own => Self::holding(&pos.pits, self.territory(side), r.min_seeds),
            SowFrom::Controlled => {
                let north = pos.north & self.board_mask();
                let mine = if side == Player::North { north } else { !north & self.board_mask() };
                Self::holding(&pos.pits, &self.inner.board, r.min_seeds) & mine
            }
        };
        self.actions_of(side, houses)
    }

    /// The move filters stage by stage: sowable, must feed (or the extra move's must leave
    /// a seed), singletons, the forbidden grand slam.
    fn filters(&self, pos: &DescribedPosition) -> Filters {
        let r = self.r();
        let side = pos.side;
        let sown = self.sowable(pos, side);
        let keep = |mask: u64, f: &dyn Fn(&Sown) -> bool| {
            MoveMask(mask).iter().filter(|&a| f(&self.trial(pos, a))).fold(0u64, |m, a| m | 1 << a)
        };
        let mut fed = sown;
        if pos.bonus {
            fed = keep(sown, &|t| t.opponent_after_sowing > u32::from(t.pending));
        } else if r.must_feed && !Self::any_seeds(&pos.pits, self.territory(!side)) {
            fed = keep(sown, &|t| t.fed);
        }
        let mut singles = fed;
        if r.singletons == Singletons::Restricted {
            let big = fed
                & MoveMask(fed).iter().filter(|&a| pos.pits[self.decode(side, a).0] > 1).fold(0u64, |m, a| m | 1 << a);
            if big != 0 {
                singles = big;
            }
        }
        let mut legal = singles;
        if r.grand_slam == GrandSlam::Forbidden && r.capture_counts != 0 {
            let slams = keep(singles, &|t| Self::is_grand_slam(t));
            if slams != singles {
                legal = singles & !slams;
            }
        }
        Filters { sown, fed, singles, legal }
    }

    /// The legal moves of the side to move, not looking at whether the game is over.
    #[inline(always)]
    fn compute_legal(&self, pos: &DescribedPosition) -> u64 {
        let plain = !pos.bonus
            && self.inner.plain
            && (!self.r().must_feed || Self::any_seeds(&pos.pits, self.territory(!pos.side)));
        if plain { self.sowable(pos, pos.side) } else { self.filters(pos).legal }
    }

    /// The seeds each player counts at the end: captures and stores, or (`score = "board"`)
    /// the seeds on their side.
    fn totals(&self, pos: &DescribedPosition) -> ByPlayer<u16> {
        match self.r().score {
            Score::Captures => pos.scores,
            Score::Board => ByPlayer::from_fn(|p| Self::seeds_in(&pos.pits, self.territory(p)) as u16),
        }
    }

    fn finish(&self, pos: &mut DescribedPosition, outcome: Outcome) {
        pos.status = Status::Over(outcome);
        pos.legal = 0;
    }

    /// Moves every seed on the board to `taker(house)` and ends the game on the totals.
    fn sweep(&self, pos: &mut DescribedPosition, taker: impl Fn(usize) -> Player) -> u16 {
        let mut swept = 0u16;
        if self.r().score == Score::Captures {
            for h in 0..self.r().pits {
                let n = u16::from(std::mem::take(&mut pos.pits[h]));
                pos.scores[taker(h)] += n;
                swept += n;
            }
        }
        let totals = self.totals(pos);
        self.finish(pos, Outcome::from_totals(totals));
        swept
    }

    /// Each player takes the seeds in the houses they control and the game ends (the cycle
    /// rule, the ply cap, an empty row, nobody able to feed).
    fn collect(&self, pos: &mut DescribedPosition) -> u16 {
        let north = pos.north;
        self.sweep(pos, |h| Self::controller_of(north, h))
    }

    /// A forced grand slam under `forbidden`: the move counts and the mover loses by forfeit.
    #[cold]
    #[inline(never)]
    fn forced_grand_slam(&self, pos: &mut DescribedPosition, mover: Player) -> Sowing {
        pos.plies = pos.plies.saturating_add(1);
        pos.bonus = false;
        self.forfeit(pos, mover);
        Sowing { captured: 0, irreversible: true }
    }

    /// Every seed and capture to the opponent of `mover`, who loses by forfeit (a forced
    /// grand slam under `forbidden`).
    fn forfeit(&self, pos: &mut DescribedPosition, mover: Player) {
        let winner = !mover;
        pos.scores[winner] = self.r().total;
        pos.scores[mover] = 0;
        pos.pits = [0; MAX_PITS];
        pos.side = winner;
        self.finish(pos, Outcome::from_totals(pos.scores));
    }

    /// Applies the end rules to a position just made and stores its legal moves and status.
    /// `after_move` is false for a set-up position (the seeds-left end is judged when a move
    /// ends). Returns the seeds an ending moved into the scores.
    fn arrive(&self, pos: &mut DescribedPosition, after_move: bool, scores_changed: bool) -> u16 {
        self.arrive_with(pos, after_move, scores_changed, 0)
    }

    /// [`Described::arrive`] with the legal moves the caller already knows (`legal`, 0 when
    /// it does not): they must be what [`Described::compute_legal`] would find.
    #[inline(always)]
    fn arrive_with(&self, pos: &mut DescribedPosition, after_move: bool, scores_changed: bool, legal: u64) -> u16 {
        let r = self.r();
        if r.majority && scores_changed {
            let half = r.total / 2;
            let (s, n) = (pos.scores.south, pos.scores.north);
            if s > half || n > half || (s == half && n == half) {
                self.finish(pos, Outcome::from_totals(pos.scores));
                return 0;
            }
        }
        if after_move && r.seeds_left > 0 {
            let on_board = Self::seeds_in(&pos.pits, &self.inner.board);
            if on_board <= u32::from(r.seeds_left) {
                let starter = pos.starter;
                return self.sweep(pos, |_| starter);
            }
        }
        // Awari's end: only singles and empty houses are left; the singles are nobody's.
        if r.all_singles && Self::holding(&pos.pits, &self.inner.board, 2) == 0 {
            let totals = self.totals(pos);
            self.finish(pos, Outcome::from_totals(totals));
            return 0;
        }
        if let CycleDesc::Plies(limit) = r.cycle
            && pos.since_capture >= limit
        {
            return self.collect(pos);
        }
        let legal = if legal != 0 { legal } else { self.compute_legal(pos) };
        if r.max_plies > 0 && pos.plies >= r.max_plies && !(r.no_move == NoMove::MoverLoses && legal == 0) {
            return self.collect(pos);
        }
        if r.empty_row {
            let south = Self::any_seeds(&pos.pits, self.territory(Player::South));
            let north = Self::any_seeds(&pos.pits, self.territory(Player::North));
            if !south || !north {
                // Under `emptied` the player whose row is empty takes the other row's seeds
                // (Mangala); both rows empty leave nothing to take.
                return match r.empty_row_to {
                    EmptyRowTo::Emptied => {
                        let taker = if south { Player::North } else { Player::South };
                        self.sweep(pos, |_| taker)
                    }
                    EmptyRowTo::Owners => self.collect(pos),
                };
            }
        }
        if legal != 0 {
            pos.legal = legal;
            pos.status = Status::Ongoing;
            return 0;
        }
        if pos.bonus {
            return self.collect(pos);
        }
        match r.no_move {
            NoMove::OwnersTake => self.collect(pos),
            NoMove::NotScored => {
                let totals = self.totals(pos);
                self.finish(pos, Outcome::from_totals(totals));
                0
            }
            NoMove::OpponentTakes => {
                let taker = !pos.side;
                if Self::seeds_in(&pos.pits, &self.inner.board) == 0 {
                    let totals = self.totals(pos);
                    self.finish(pos, Outcome::from_totals(totals));
                    0
                } else {
                    self.sweep(pos, |_| taker)
                }
            }
            NoMove::MoverLoses => {
                let totals = self.totals(pos);
                let winner = !pos.side;
                let margin = totals[winner].saturating_sub(totals[pos.side]);
                self.finish(pos, Outcome { winner: Some(winner), margin });
                0
            }
        }
    }

    /// Plays a legal action and records every step of it: lifts, seeds dropped, stores,
    /// captures, relays and the end. The browser animates a move from this.
    ///
    /// # Errors
    /// [`crate::IllegalMove`] naming the move and why; `pos` is not changed.
    pub fn play_traced(
        &self,
        pos: &DescribedPosition,
        action: Action,
    ) -> Result<(DescribedPosition, Sowing, Trace), crate::IllegalMove> {
        self.play(pos, action)?;
        let mut next = *pos;
        let mut trace = Trace::default();
        let sowing = self.play_inner(&mut next, action, Some(&mut trace));
        Ok((next, sowing, trace))
    }

    #[inline(always)]
    fn play_inner(&self, pos: &mut DescribedPosition, action: Action, mut trace: Option<&mut Trace>) -> Sowing {
        let r = self.r();
        let mover = pos.side;
        let (pit, d) = self.decode(mover, action);
        let mut sown = self.sow(pos, mover, pit, d, trace.as_deref_mut());
        let mut extra = sown.extra_turn;
        if sown.pending > 0 {
            let rule = if Self::is_grand_slam(&sown) { self.grand_slam() } else { Some((true, false)) };
            let Some((take, extra_turn)) = rule else {
                return self.forced_grand_slam(pos, mover);
            };
            if take {
                self.take_pending(pos, mover, d, &sown, trace.as_deref_mut());
                sown.scored += sown.pending;
                extra |= extra_turn;
            }
        }
        let captured = sown.scored + sown.taken;
        if let CycleDesc::Plies(_) = r.cycle {
            pos.since_capture = if captured > 0 { 0 } else { pos.since_capture.saturating_add(1) };
        }
        pos.plies = pos.plies.saturating_add(1);
        // An extra turn from a grand slam carries the must-leave-a-seed duty; one from a
        // store does not.
        pos.bonus = extra && !sown.extra_turn;
        if !extra {
            pos.side = !mover;
        }
        let swept = self.arrive(pos, true, sown.scored > 0);
        if let Some(t) = trace {
            t.push(Step::End { status: pos.status, side: pos.side });
        }
        let captured = captured + swept;
        Sowing { captured, irreversible: captured > 0 }
    }

    /// [`Game::play_unchecked`] on the row-word path (see `Inner::rows`): each row one word in
    /// registers, sown and captured without a loop over houses, and the next player's legal
    /// moves read from the words. The same moves, positions and results as the general path.
    #[inline(always)]
    fn play_rows(&self, pos: &mut DescribedPosition, action: Action) -> Sowing {
        let r = self.r();
        let houses = r.territory;
        let row = if houses == 8 { u64::MAX } else { (1u64 << (8 * houses)) - 1 };
        let mover = pos.side;
        let (south, north) = load_rows(&pos.pits, houses, row);
        let (mut own, mut opp) = if mover == Player::South { (south, north) } else { (north, south) };
        let last = sow_rows(&mut own, &mut opp, usize::from(action), houses, r.origin == Origin::Skip);
        let mut captured = 0u16;
        let mut extra = false;
        if last != OWN_ROW {
            let (taken, clear) = capture_row(opp, last, r.capture_counts, r.capture_on == CaptureOn::Run);
            if taken > 0 {
                let rule = if taken == byte_sum(opp) { self.grand_slam() } else { Some((true, false)) };
                let Some((take, extra_turn)) = rule else {
                    return self.forced_grand_slam(pos, mover);
                };
                if take {
                    opp &= !clear;
                    captured = taken as u16;
                    extra = extra_turn;
                }
            }
        }
        let (south, north) = if mover == Player::South { (own, opp) } else { (opp, own) };
        store_rows(&mut pos.pits, houses, south, north);
        pos.scores[mover] += captured;
        if let CycleDesc::Plies(_) = r.cycle {
            pos.since_capture = if captured > 0 { 0 } else { pos.since_capture.saturating_add(1) };
        }
        pos.plies = pos.plies.saturating_add(1);
        pos.bonus = extra;
        if !extra {
            pos.side = !mover;
        }
        // The next player sows from `opp`; where no filter applies (see `compute_legal`),
        // their legal moves are its houses holding enough seeds.
        let legal = if self.inner.plain && !extra && (own != 0 || !r.must_feed) {
            at_least(opp, r.min_seeds) & ((1 << houses) - 1)
        } else {
            0
        };
        let swept = self.arrive_with(pos, true, captured > 0, legal);
        let captured = captured + swept;
        Sowing { captured, irreversible: captured > 0 }
    }

    /// The label of house `pit`: its owner's letter for its place in the owner's sowing
    /// order (`A..`, `a..`), past 26 houses with a `2`.
    pub fn house_label(&self, pit: usize) -> String {
        let owner = self.owner(pit);
        let i = pit - self.base(owner);
        let first = if owner == Player::South { b'A' } else { b'a' };
        let letter = char::from(first + (i % 26) as u8);
        if i < 26 { letter.to_string() } else { format!("{letter}2") }
    }

    fn read_house(&self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        let (letter, high) = match bytes {
            [l] => (*l, false),
            [l, b'2'] => (*l, true),
            _ => return None,
        };
        let (owner, i) = match letter {
            b'A'..=b'Z' => (Player::South, usize::from(letter - b'A')),
            b'a'..=b'z' => (Player::North, usize::from(letter - b'a')),
            _ => return None,
        };
        let i = if high { i + 26 } else { i };
        (i < self.r().territory).then(|| self.base(owner) + i)
    }

    fn labels_of(&self, side: Player) -> String {
        let r = self.r();
        let houses: Vec<usize> = (0..r.houses_per_action_set()).map(|i| self.decode(side, i as Action).0).collect();
        let mut out: Vec<String> = Vec::new();
        for &h in &houses {
            if r.direction == Direction::Either {
                out.push(format!("{}+", self.house_label(h)));
                out.push(format!("{}-", self.house_label(h)));
            } else {
                out.push(self.house_label(h));
            }
        }
        out.join(", ")
    }

    /// The claimed houses of a set-up position, checked against the `tuzdyk` rule: each in
    /// the claimer's opponent's row, not its last house, empty (seeds sown there go to the
    /// owner at once), and the two claims not numbered alike in their rows.
    fn read_tuzdyk(&self, setup: &Setup) -> Result<ByPlayer<u8>, SetupError> {
        let t = self.r().territory;
        let mut out = ByPlayer::new(NOWHERE, NOWHERE);
        for player in Player::BOTH {
            let Some(h) = setup.tuzdyk[player] else { continue };
            let invalid = |why: String| Err(SetupError::Invalid { reason: format!("tuzdyk of {player}: {why}") });
            let house = usize::from(h);
            if house >= self.r().pits || self.owner(house) == player {
                return invalid(format!("house {h} is not a house of {}'s row", !player));
            }
            if house - self.base(!player) == t - 1 {
                return invalid(format!("house {h} is {}'s last house, which cannot be claimed", !player));
            }
            if setup.pits[house] != 0 {
                return invalid(format!(
                    "house {h} holds {} seeds; a claimed house is always empty",
                    setup.pits[house]
                ));
            }
            out[player] = h;
        }
        if let (Some(s), Some(n)) = (setup.tuzdyk.south, setup.tuzdyk.north)
            && usize::from(s) - t == usize::from(n)
        {
            return Err(SetupError::Invalid {
                reason: format!("tuzdyk: houses {s} and {n} are numbered alike in their rows; the rule forbids it"),
            });
        }
        Ok(out)
    }

    fn kept_state(&self) -> KeptState {
        let r = self.r();
        KeptState {
            max_plies: (r.max_plies > 0).then_some(r.max_plies),
            since_capture_limit: match r.cycle {
                CycleDesc::Plies(n) => Some(n),
                _ => None,
            },
            bonus: r.grand_slam == GrandSlam::ExtraTurn,
            starter: r.seeds_left > 0,
            tuzdyk: r.tuzdyk,
        }
    }
}

/// One lap of every sowing, by mover, direction and the slot it starts from: the slots a lap
/// passes in order (the start last, or not at all under `origin = "skip"`), the houses its
/// first `k` seeds reach as a mask, and where the mover's store falls in it.
#[derive(Debug)]
struct Laps {
    /// Slots in a lap (the circuit, less the start when it is skipped).
    len: usize,
    /// `slots[i * len + k]`: the slot of the lap's `k`-th seed, `i` = (side, direction, start).
    slots: Vec<u8>,
    /// `prefix[i * (len + 1) + k]`: the houses the lap's first `k` seeds fall into.
    prefix: Vec<u64>,
    /// `store_at[i]`: the index of the mover's store in the lap, `u8::MAX` when it has none.
    store_at: Vec<u8>,
    /// The board words each side's laps reach (the whole board on two ranks, the territory
    /// on four).
    words: [(u8, u8); 2],
}

impl Laps {
    fn new(rules: &Rules) -> Laps {
        let skip = rules.origin == Origin::Skip;
        let n = rules.pits;
        let circuit_len = circuit(rules, Player::South, false).len();
        let len = circuit_len - usize::from(skip);
        let starts = 4 * n;
        let mut laps = Laps {
            len,
            slots: vec![0; starts * len],
            prefix: vec![0; starts * (len + 1)],
            store_at: vec![u8::MAX; starts],
            words: [(0, 0); 2],
        };
        for side in Player::BOTH {
            let reach = circuit(rules, side, false).iter().filter(|&&s| s != STORE).fold(0u64, |m, &h| m | 1 << h);
            laps.words[side.index()] = word_span(reach);
            for (d, clockwise) in [false, true].into_iter().enumerate() {
                let circuit = circuit(rules, side, clockwise);
                for (at, &start) in circuit.iter().enumerate() {
                    if start == STORE {
                        continue;
                    }
                    let i = (side.index() * 2 + d) * n + usize::from(start);
                    let lap: Vec<u8> = (1..=circuit.len())
                        .map(|k| circuit[(at + k) % circuit.len()])
                        .filter(|&slot| !(skip && slot == start))
                        .collect();
                    let mut mask = 0u64;
                    for (k, &slot) in lap.iter().enumerate() {
                        laps.slots[i * len + k] = slot;
                        if slot == STORE {
                            laps.store_at[i] = k as u8;
                        } else {
                            mask |= 1 << slot;
                        }
                        laps.prefix[i * (len + 1) + k + 1] = mask;
                    }
                }
            }
        }
        laps
    }
}

/// Adds `n` seeds to every house of `mask`, eight houses a step over the words `words` (those
/// a lap can reach): no byte can carry into the next, as no house can hold more than the
/// game's 255 seeds. The same words every time, so the loop is predicted.
#[inline(always)]
fn add_seeds(pits: &mut [u8; MAX_PITS], mask: u64, words: (u8, u8), n: u8) {
    let per = LOW_BYTES * u64::from(n);
    for w in usize::from(words.0)..usize::from(words.1) {
        let c = 8 * w;
        let add = SPREAD[((mask >> c) & 0xff) as usize] & per;
        let sum = word_at(pits, c) + add;
        pits[c..c + 8].copy_from_slice(&sum.to_le_bytes());
    }
}

/// A set of houses for the eight-houses-a-step counts: the mask and the words of the board
/// it touches.
#[derive(Clone, Copy, Debug)]
struct Houses {
    bits: u64,
    /// The words `lo..hi` of the board (eight houses each) that hold the set's houses.
    lo: u8,
    hi: u8,
}

impl Houses {
    fn new(bits: u64) -> Houses {
        let (lo, hi) = word_span(bits);
        Houses { bits, lo, hi }
    }

    #[inline(always)]
    fn words(&self) -> std::ops::Range<usize> {
        usize::from(self.lo)..usize::from(self.hi)
    }

    /// A byte of ones for each house of the set in word `w`.
    #[inline(always)]
    fn bytes(&self, w: usize) -> u64 {
        SPREAD[((self.bits >> (8 * w)) & 0xff) as usize]
    }
}

/// The words `lo..hi` (eight houses each) that hold the houses of `bits`; `0..0` for none.
fn word_span(bits: u64) -> (u8, u8) {
    if bits == 0 {
        return (0, 0);
    }
    let lo = bits.trailing_zeros() / 8;
    let hi = (63 - bits.leading_zeros()) / 8 + 1;
    (lo as u8, hi as u8)
}

/// `SPREAD[bits]`: a byte of ones for each set bit of `bits`, to mask eight houses at once.
static SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut k = 0;
        while k < 8 {
            if bits >> k & 1 == 1 {
                table[bits] |= 0xff << (8 * k);
            }
            k += 1;
        }
        bits += 1;
    }
    table
};

const LOW_BYTES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Houses `c..c + 8` as one word, house `c` in the low byte (`c` a multiple of 8, so the
/// eight bytes are always inside the board array).
#[inline(always)]
fn word_at(pits: &[u8; MAX_PITS], c: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&pits[c..c + 8]);
    u64::from_le_bytes(bytes)
}

/// The sum of a word's bytes. Multiplying by `0x0101..01` adds every byte into the top
/// one; no partial sum carries, because a game holds at most [`super::MAX_SEEDS`] (255) seeds.
#[inline(always)]
fn byte_sum(w: u64) -> u32 {
    (w.wrapping_mul(LOW_BYTES) >> 56) as u32
}

/// One bit a byte of `w`: set where the byte is at least `min`. Up to a `min` of 128,
/// `(byte | 0x80) - min` never borrows from the next byte and keeps its top bit exactly when
/// a byte below 128 reaches `min`; a byte of 128 or more always does. The top bits are then
/// gathered into the low eight bits by one multiplication.
#[inline(always)]
fn at_least(w: u64, min: u8) -> u64 {
    let top = if min <= 128 {
        (((w | HIGH_BITS) - LOW_BYTES * u64::from(min)) | w) & HIGH_BITS
    } else {
        let mut top = 0u64;
        for k in 0..8 {
            if (w >> (8 * k)) as u8 >= min {
                top |= 0x80 << (8 * k);
            }
        }
        top
    };
    ((top >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Whether a game fits the row-word path (see `Inner::rows`).
fn fits_rows(r: &Rules) -> bool {
    r.ranks == 2
        && r.territory <= 8
        && r.pits == 2 * r.territory
        && !r.stores
        && !r.relay
        && !r.four_rank
        && !r.tuzdyk
        && r.min_seeds >= 1
        && r.from == SowFrom::Own
        && r.direction == Direction::CounterClockwise
        && r.origin != Origin::First
        && matches!(r.capture_on, CaptureOn::Last | CaptureOn::Run)
        && r.capture_from == CaptureFrom::Opponent
        && r.cross == Cross::None
}

/// The slots of `side`'s sowing circuit in sowing order, starting from house 0 of the
/// circuit: the whole board on two ranks (with the mover's store after the mover's last
/// house), the own territory on four ranks.
fn circuit(rules: &Rules, side: Player, clockwise: bool) -> Vec<u8> {
    let t = rules.territory;
    let mut order: Vec<u8> = Vec::new();
    if rules.ranks == 4 {
        let base = side.index() * t;
        order.extend((base..base + t).map(|h| h as u8));
        if clockwise {
            order.reverse();
        }
        return order;
    }
    let n = rules.pits;
    if !clockwise {
        for h in 0..n {
            order.push(h as u8);
            if rules.stores && h == side.index() * t + t - 1 {
                order.push(STORE);
            }
        }
    } else {
        for h in (0..n).rev() {
            order.push(h as u8);
            if rules.stores && h == side.index() * t {
                order.push(STORE);
            }
        }
    }
    order
}

impl Game for Described {
    type Position = DescribedPosition;

    fn rules_string(&self) -> String {
        format!("sowing {}", self.inner.canonical)
    }

    fn start(&self) -> DescribedPosition {
        let r = self.r();
        let mut pits = [0u8; MAX_PITS];
        for side in Player::BOTH {
            let b = self.base(side);
            pits[b..b + r.territory].copy_from_slice(&r.start);
        }
        let mut pos = DescribedPosition {
            pits,
            scores: ByPlayer::new(0, 0),
            north: self.territory_mask(Player::North),
            legal: 0,
            plies: 0,
            since_capture: 0,
            side: Player::South,
            bonus: false,
            starter: Player::South,
            status: Status::Ongoing,
            tuzdyk: ByPlayer::new(NOWHERE, NOWHERE),
        };
        self.arrive(&mut pos, false, true);
        pos
    }

    fn action_space(&self) -> usize {
        self.r().action_space()
    }

    fn total_seeds(&self) -> u16 {
        self.r().total
    }

    #[inline]
    fn side_to_move(&self, pos: &DescribedPosition) -> Player {
        pos.side
    }

    #[inline]
    fn legal_moves(&self, pos: &DescribedPosition) -> MoveMask {
        MoveMask(pos.legal)
    }

    /// Sows `action` with its captures, then applies the end rules for the next player.
    ///
    /// # Panics
    /// May panic or leave a meaningless position if `action` is not legal.
    #[inline]
    fn play_unchecked(&self, pos: &mut DescribedPosition, action: Action) -> Sowing {
        if self.inner.rows { self.play_rows(pos, action) } else { self.play_inner(pos, action, None) }
    }

    fn why_illegal(&self, pos: &DescribedPosition, action: Action) -> String {
        if pos.status.is_over() {
            return "the game is over".to_string();
        }
        let r = self.r();
        if usize::from(action) >= r.action_space() {
            return format!("action {action} is outside the {} actions", r.action_space());
        }
        let side = pos.side;
        let (pit, _) = self.decode(side, action);
        let label = self.house_label(pit);
        let f = self.filters(pos);
        let bit = 1u64 << action;
        let opponent = !side;
        if f.sown & bit == 0 {
            if Self::controller_of(pos.north, pit) != side {
                return format!("house {label} is controlled by {opponent}");
            }
            return if pos.pits[pit] == 0 {
                format!("house {label} is empty")
            } else {
                format!("house {label} holds {} seeds; a move needs at least {}", pos.pits[pit], r.min_seeds)
            };
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
            return format!("singletons: house {label} holds a single seed while another house holds more");
        }
        if f.legal & bit == 0 {
            return format!("grand slam: house {label} would capture every seed {opponent} has");
        }
        format!("house {label} is not a legal move")
    }

    #[inline]
    fn status(&self, pos: &DescribedPosition) -> Status {
        pos.status
    }

    fn hash(&self, pos: &DescribedPosition) -> u64 {
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
            | u64::from(pos.scores.north) << 9
            | (pos.side.index() as u64) << 18
            | u64::from(pos.bonus) << 19
            | (pos.starter.index() as u64) << 20
            | kind << 21
            | margin << 23
            | u64::from(pos.since_capture) << 32;
        let h = hash_pits(&pos.pits[..self.r().pits], extra);
        let h = if self.r().from == SowFrom::Controlled { crate::hash::mix64(h ^ pos.north) } else { h };
        if self.r().tuzdyk {
            crate::hash::mix64(h ^ (u64::from(pos.tuzdyk.south) | u64::from(pos.tuzdyk.north) << 8))
        } else {
            h
        }
    }

    fn repetition_ends_game(&self) -> bool {
        self.r().cycle == CycleDesc::Repetition
    }

    fn stops_at_majority(&self) -> bool {
        self.r().majority
    }

    fn settle_cycle(&self, pos: &mut DescribedPosition) {
        self.collect(pos);
    }

    fn plies_left(&self, pos: &DescribedPosition) -> Option<u16> {
        let r = self.r();
        let cap = (r.max_plies > 0).then(|| r.max_plies.saturating_sub(pos.plies));
        let cycle = match r.cycle {
            CycleDesc::Plies(n) => Some(n.saturating_sub(pos.since_capture)),
            _ => None,
        };
        match (cap, cycle) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn moves_twice(&self) -> bool {
        self.r().extra_turn || self.r().grand_slam == GrandSlam::ExtraTurn
    }

    fn control_changes(&self) -> bool {
        self.r().from == SowFrom::Controlled
    }

    fn claims_houses(&self) -> bool {
        self.r().tuzdyk
    }

    fn claimed(&self, pos: &DescribedPosition, pit: usize) -> Option<Player> {
        Player::BOTH.into_iter().find(|&p| usize::from(pos.tuzdyk[p]) == pit)
    }

    fn endgame_database(&self) -> Result<(), String> {
        let r = self.r();
        if r.score == Score::Board {
            return Err(format!("{} never takes seeds off the board, so there are no endgame layers", self.name()));
        }
        if r.from == SowFrom::Controlled {
            return Err(format!("{}: houses change controller, so the board alone is not the position", self.name()));
        }
        if r.grand_slam == GrandSlam::ExtraTurn {
            return Err("the extra-turn grand slam leaves state the board does not show".to_string());
        }
        if let CycleDesc::Plies(_) = r.cycle {
            return Err("cycle = plies:N counts plies the board does not show; use repetition".to_string());
        }
        if r.tuzdyk {
            return Err("the tuzdyk rule claims houses, which the board does not show".to_string());
        }
        if r.seeds_left > 0 {
            return Err("end.seeds_left gives the last seeds to the player who began, which the board does not show"
                .to_string());
        }
        Ok(())
    }

    fn bonus_move(&self, pos: &DescribedPosition) -> Option<bool> {
        (self.r().grand_slam == GrandSlam::ExtraTurn).then_some(pos.bonus)
    }

    fn starter(&self, pos: &DescribedPosition) -> Option<Player> {
        (self.r().seeds_left > 0).then_some(pos.starter)
    }

    fn scores(&self, pos: &DescribedPosition) -> ByPlayer<u16> {
        self.totals(pos)
    }

    fn pits<'a>(&self, pos: &'a DescribedPosition) -> &'a [u8] {
        &pos.pits[..self.r().pits]
    }

    fn controller(&self, pos: &DescribedPosition, pit: usize) -> Player {
        Self::controller_of(pos.north, pit)
    }

    fn action_pit(&self, side: Player, action: Action) -> usize {
        self.decode(side, action).0
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        let (pit, d) = self.decode(side, action);
        let label = self.house_label(pit);
        if self.r().direction == Direction::Either {
            format!("{label}{}", if d == 0 { '+' } else { '-' })
        } else {
            label
        }
    }

    fn parse_move(&self, pos: &DescribedPosition, text: &str) -> Result<Action, MoveParseError> {
        let r = self.r();
        let side = pos.side;
        let unknown = || MoveParseError::Unknown { text: text.to_string(), allowed: self.labels_of(side) };
        let text_t = text.trim();
        let (house_text, d) = if r.direction == Direction::Either {
            match text_t.as_bytes().last() {
                Some(b'+') => (&text_t[..text_t.len() - 1], 0),
                Some(b'-') => (&text_t[..text_t.len() - 1], 1),
                _ => return Err(unknown()),
            }
        } else {
            (text_t, usize::from(r.direction == Direction::Clockwise))
        };
        let pit = self.read_house(house_text).ok_or_else(unknown)?;
        let n = r.houses_per_action_set();
        let i = match r.from {
            SowFrom::Own => {
                let owner = self.owner(pit);
                if owner != side {
                    return Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover: side });
                }
                pit - self.base(side)
            }
            SowFrom::Controlled => {
                let owner = Self::controller_of(pos.north, pit);
                if owner != side {
                    return Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover: side });
                }
                (pit + r.pits - self.base(side)) % r.pits
            }
        };
        let a = if r.direction == Direction::Either && d == 1 { i + n } else { i };
        Ok(a as Action)
    }

    fn to_setup(&self, pos: &DescribedPosition) -> Setup {
        let r = self.r();
        Setup {
            side: pos.side,
            scores: self.totals(pos),
            pits: pos.pits[..r.pits].to_vec(),
            controllers: (r.from == SowFrom::Controlled)
                .then(|| (0..r.pits).map(|h| Self::controller_of(pos.north, h)).collect()),
            status: pos.status.to_string(),
            // The line carries only the counters the rules keep.
            plies: if r.max_plies > 0 { pos.plies } else { 0 },
            since_capture: pos.since_capture,
            bonus: pos.bonus,
            starter: pos.starter,
            tuzdyk: pos.tuzdyk.map(|h| (h != NOWHERE).then_some(h)),
        }
    }

    /// Reads a position line with its state. The end rules are applied as after a move,
    /// except the seeds-left end, which a move's end triggers.
    fn from_setup(&self, setup: &Setup) -> Result<DescribedPosition, SetupError> {
        let r = self.r();
        if setup.pits.len() != r.pits {
            return Err(SetupError::PitCount { found: setup.pits.len(), expected: r.pits });
        }
        let north = match (&setup.controllers, r.from) {
            (Some(c), SowFrom::Controlled) => {
                if c.len() != r.pits {
                    return Err(SetupError::Invalid {
                        reason: format!("{} controllers for {} houses", c.len(), r.pits),
                    });
                }
                c.iter().enumerate().fold(0u64, |m, (i, &p)| if p == Player::North { m | 1 << i } else { m })
            }
            (None, SowFrom::Controlled) => {
                return Err(SetupError::Invalid {
                    reason: format!("{} needs the controllers field (s or n for every house)", self.name()),
                });
            }
            (Some(_), SowFrom::Own) => {
                return Err(SetupError::Invalid {
                    reason: format!("{} has no controllers field: every house belongs to its row's owner", self.name()),
                });
            }
            (None, SowFrom::Own) => self.territory_mask(Player::North),
        };
        setup.check_state(self.name(), self.kept_state())?;
        let on_board: u32 = setup.pits.iter().map(|&c| u32::from(c)).sum();
        let mut scores = setup.scores;
        match r.score {
            Score::Captures => {
                let found = on_board + u32::from(setup.scores.south) + u32::from(setup.scores.north);
                if found != u32::from(r.total) {
                    return Err(SetupError::SeedCount { found, expected: u32::from(r.total) });
                }
            }
            Score::Board => {
                if on_board != u32::from(r.total) {
                    return Err(SetupError::SeedCount { found: on_board, expected: u32::from(r.total) });
                }
                let side_seeds = |p: Player| {
                    setup.pits[p.index() * r.territory..(p.index() + 1) * r.territory]
                        .iter()
                        .map(|&c| u16::from(c))
                        .sum::<u16>()
                };
                let want = ByPlayer::from_fn(side_seeds);
                if setup.scores != want {
                    return Err(SetupError::Invalid {
                        reason: format!(
                            "the scores of {} are the seeds on each side: {} {}",
                            self.name(),
                            want.south,
                            want.north
                        ),
                    });
                }
                scores = ByPlayer::new(0, 0);
            }
        }
        let tuzdyk = self.read_tuzdyk(setup)?;
        let mut pits = [0u8; MAX_PITS];
        pits[..r.pits].copy_from_slice(&setup.pits);
        let mut pos = DescribedPosition {
            pits,
            scores,
            north,
            legal: 0,
            plies: setup.plies,
            since_capture: setup.since_capture,
            side: setup.side,
            bonus: setup.bonus,
            starter: setup.starter,
            status: Status::Ongoing,
            tuzdyk,
        };
        self.arrive(&mut pos, false, true);
        Ok(pos)
    }

    fn passed(&self, pos: &DescribedPosition) -> Option<DescribedPosition> {
        if pos.status.is_over() {
            return None;
        }
        let mut next = DescribedPosition { side: pos.side.opponent(), bonus: false, legal: 0, ..*pos };
        self.arrive(&mut next, false, true);
        Some(next)
    }

    fn display(&self, pos: &DescribedPosition) -> String {
        let r = self.r();
        let t = r.territory;
        let mut out = String::new();
        let mark = |p: Player| if pos.status.is_over() || pos.side != p { "" } else { "  (to move)" };
        let word = if r.score == Score::Board {
            "on the board"
        } else if r.stores {
            "store"
        } else {
            "captured"
        };
        let totals = self.totals(pos);
        let _ = writeln!(out, "north  {word} {}{}", totals.north, mark(Player::North));
        // Rows from North's far side to South's, each from South's left to right.
        let rows: Vec<Vec<usize>> = if r.ranks == 2 {
            vec![(0..t).rev().map(|i| t + i).collect(), (0..t).collect()]
        } else {
            let c = t / 2;
            vec![
                (0..c).rev().map(|i| t + i).collect(),
                (0..c).map(|x| t + c + x).collect(),
                (0..c).map(|x| 2 * c - 1 - x).collect(),
                (0..c).collect(),
            ]
        };
        let cell = |s: &mut String, x: &dyn std::fmt::Display| {
            let _ = write!(s, "{x:>4}");
        };
        let last = rows.len() - 1;
        for (k, row) in rows.iter().enumerate() {
            if k == 0 {
                for &h in row {
                    cell(&mut out, &self.house_label(h));
                }
                out.push('\n');
            }
            for &h in row {
                cell(&mut out, &pos.pits[h]);
            }
            out.push('\n');
            if k == last {
                for &h in row {
                    cell(&mut out, &self.house_label(h));
                }
                out.push('\n');
            }
        }
        let _ = writeln!(out, "south  {word} {}{}", totals.south, mark(Player::South));
        if r.tuzdyk {
            let claim = |p: Player| match pos.tuzdyk[p] {
                NOWHERE => "none".to_string(),
                h => self.house_label(usize::from(h)),
            };
            let _ = writeln!(out, "tuzdyk: south {}, north {}", claim(Player::South), claim(Player::North));
        }
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

    /// The eight-houses-at-once sums and comparisons agree with a house-by-house count on
    /// random boards, masks and thresholds (every threshold, both sides of 128).
    #[test]
    fn word_helpers_agree_with_house_by_house() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20_000 {
            let mut pits = [0u8; MAX_PITS];
            let mut left = 255u32;
            for p in pits.iter_mut() {
                let big = round % 3 == 0;
                let n = (next() % if big { 200 } else { 9 }) as u32;
                let n = n.min(left);
                *p = n as u8;
                left -= n;
            }
            let mask = next() & next();
            let sum: u32 = (0..MAX_PITS).filter(|&h| mask >> h & 1 == 1).map(|h| u32::from(pits[h])).sum();
            let set = Houses::new(mask);
            assert_eq!(Described::seeds_in(&pits, &set), sum);
            assert_eq!(Described::any_seeds(&pits, &set), sum > 0);
            let min = (next() % 255 + 1) as u8;
            let want = (0..MAX_PITS).filter(|&h| mask >> h & 1 == 1 && pits[h] >= min).fold(0u64, |m, h| m | 1 << h);
            assert_eq!(Described::holding(&pits, &set, min), want, "min {min}");
            // Adding over the set's words (or a wider span) adds to its houses only.
            let n = (next() % 4) as u8;
            if pits.iter().all(|&p| u32::from(p) + u32::from(n) <= 255) {
                let mut added = pits;
                let span = if round % 2 == 0 { (set.lo, set.hi) } else { (0, (MAX_PITS / 8) as u8) };
                add_seeds(&mut added, mask, span, n);
                for h in 0..MAX_PITS {
                    let want = pits[h] + if mask >> h & 1 == 1 { n } else { 0 };
                    assert_eq!(added[h], want, "house {h}");
                }
            }
        }
    }
}
