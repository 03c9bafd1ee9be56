//! Values under the game's own end, where the scores matter: [`ScoredTablebase`].
//!
//! A [`Tablebase`](crate::Tablebase) plays every game to its end and counts every seed on the
//! board ("The majority rule" in the crate docs), so its value is a function of board and
//! side alone. Oware's rules stop the game as soon as a player holds more than half the seeds
//! and leave the board's seeds uncounted: the result is the same, the margin not always, and
//! so not always the best move. Once the stop counts, the scores are part of the position.
//!
//! A scored database holds one value a (board, side, split of the captured seeds) for every
//! split that leaves the game ongoing: in a game that stops at a majority, no one past half
//! (Oware to 15 seeds: 16 splits of the largest layer, 0.52 billion values of a byte, about
//! 0.8 GiB to build). It is built by the same three steps as the database (see
//! [`build`](crate::build)), once a split. A move that takes seeds off the board is valued
//! by the game itself when it ends the game, else by the lower layer at the new split.
//! Cycles are scored as the database scores them. In a game without the stop (Kalah) every
//! split gives the database's values. It lives in memory, built when asked for: it judges
//! moves (`tablebase accuracy --real-end`), it does not play.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mancala_rules::{AnyGame, ByPlayer, Game, Player};

use crate::build::{
    BuildStats, LayerBuilt, Progress, binomial, build_layer, check_seed_limit, count, finished_value, human_bytes,
};
use crate::error::TablebaseError;
use crate::index::Indexer;
use crate::{Probe, check_supported, probe_by};

/// Bytes a position of the split being built holds while it is built (as the database's
/// build).
const WORK_BYTES_A_SLOT: f64 = 24.0;

/// The values of one layer: for each split, South's score from `south_low` up, every slot.
#[derive(Clone, Debug)]
struct ScoredLayer {
    south_low: u16,
    splits: usize,
    slots: usize,
    values: Vec<i8>,
}

impl ScoredLayer {
    fn value(&self, south: u16, within: usize) -> Option<i8> {
        let split = usize::from(south.checked_sub(self.south_low)?);
        (split < self.splits).then(|| self.values[split * self.slots + within])
    }
}

/// The splits of `captured` seeds that leave `game` ongoing: South's lowest score and how
/// many. Every split, unless the game stops at a majority (more than half of its seeds).
fn splits<G: Game>(game: &G, captured: u16) -> (u16, usize) {
    if !game.stops_at_majority() {
        return (0, usize::from(captured) + 1);
    }
    let half = game.total_seeds() / 2;
    let low = captured.saturating_sub(half);
    let high = captured.min(half);
    (low, usize::from(high + 1).saturating_sub(usize::from(low)))
}

/// The value of every (board, side, scores) with at most `max_seeds` seeds on the board,
/// under the game's own end. See the module docs.
#[derive(Clone, Debug)]
pub struct ScoredTablebase {
    rules: String,
    indexer: Indexer,
    layers: Vec<ScoredLayer>,
}

/// The positions of a scored database of `game` to `max_seeds` seeds (one byte each), and
/// about the memory building it takes: those bytes and the work of the largest split.
pub fn scored_size<G: Game>(game: &G, max_seeds: usize) -> (f64, f64) {
    let pits = game.pits(&game.start()).len();
    let total = game.total_seeds();
    let boards = |seeds: usize| binomial(seeds + pits - 1, pits - 1);
    let positions: f64 = (0..=max_seeds)
        .map(|seeds| 2.0 * boards(seeds) * splits(game, total.saturating_sub(seeds as u16)).1 as f64)
        .sum();
    (positions, positions + WORK_BYTES_A_SLOT * 2.0 * boards(max_seeds))
}

impl ScoredTablebase {
    /// Builds the scored database of `game` to `max_seeds` seeds on the board, refusing one
    /// that needs more than `memory_limit` bytes; `progress` as the database's build.
    ///
    /// # Errors
    /// As [`Tablebase::build_within`](crate::Tablebase::build_within).
    pub fn build_within(
        game: &AnyGame,
        max_seeds: usize,
        memory_limit: u64,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<(ScoredTablebase, BuildStats), TablebaseError> {
        check_supported(game)?;
        match game {
            AnyGame::Oware(g) => build_scored(g, max_seeds, memory_limit, progress),
            AnyGame::Kalah(g) => build_scored(g, max_seeds, memory_limit, progress),
            AnyGame::Described(g) => build_scored(g, max_seeds, memory_limit, progress),
            other => build_scored(other, max_seeds, memory_limit, progress),
        }
    }

    /// The canonical rules string of the game it is for.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    pub fn max_seeds(&self) -> usize {
        self.indexer.max_seeds()
    }

    /// What the game's own end makes of `pos`: its value, each legal move's and the best
    /// moves, as [`Tablebase::probe`](crate::Tablebase::probe) answers by playing to the end.
    /// `None` outside the database. `game` must be its game.
    pub fn probe<G: Game>(&self, game: &G, pos: &G::Position) -> Option<Probe> {
        probe_by(game, pos, |p| value_beyond(game, &self.indexer, &self.layers, p))
    }
}

/// The value of `pos` for its mover beyond its scores: a finished game's by the game itself,
/// else the table's at its board, side and split (`None` outside the layers built so far, or
/// at a split past the stop).
fn value_beyond<G: Game>(game: &G, ix: &Indexer, layers: &[ScoredLayer], pos: &G::Position) -> Option<i32> {
    let side = game.side_to_move(pos);
    let scores = game.scores(pos);
    if let Some(v) = finished_value(game.status(pos), side, scores) {
        return Some(i32::from(v));
    }
    let board = game.pits(pos);
    let slot = ix.slot(board, side)?;
    let seeds: usize = board.iter().map(|&c| usize::from(c)).sum();
    let within = (slot - ix.layer_start(seeds)) as usize;
    layers.get(seeds)?.value(scores[Player::South], within).map(i32::from)
}

fn build_scored<G: Game>(
    game: &G,
    max_seeds: usize,
    memory_limit: u64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(ScoredTablebase, BuildStats), TablebaseError> {
    let started = Instant::now();
    let total = game.total_seeds();
    let pits = game.pits(&game.start()).len();
    check_seed_limit(game, max_seeds)?;
    let (positions, need) = scored_size(game, max_seeds);
    let too_large = |reason: String| TablebaseError::TooLarge {
        rules: game.rules_string(),
        seeds: max_seeds,
        positions: count(positions),
        memory: human_bytes(need),
        reason,
    };
    if need > memory_limit as f64 {
        return Err(too_large(format!("the limit is {}", human_bytes(memory_limit as f64))));
    }
    let ix = Indexer::new(pits, max_seeds).ok_or_else(|| too_large("the index overflows 64 bits".into()))?;
    let mut layers: Vec<ScoredLayer> = Vec::with_capacity(max_seeds + 1);
    let mut stats = BuildStats::default();
    let all: u64 = (0..=max_seeds).map(|s| 2 * ix.boards(s) * splits(game, total - s as u16).1 as u64).sum();
    stats.slots = all;
    let done = AtomicU64::new(0);
    for seeds in 0..=max_seeds {
        let (south_low, count) = splits(game, total - seeds as u16);
        let slots = 2 * ix.boards(seeds) as usize;
        let mut values = Vec::new();
        values
            .try_reserve_exact(slots * count)
            .map_err(|e| too_large(format!("the memory for its values could not be had: {e}")))?;
        values.resize(slots * count, 0i8);
        let mut cyclic = 0;
        for (split, out) in values.chunks_mut(slots.max(1)).enumerate() {
            let south = south_low + split as u16;
            let scores = ByPlayer::new(south, total - seeds as u16 - south);
            let lower = &layers;
            let exit = |next: &G::Position, _slot: u64| {
                value_beyond(game, &ix, lower, next).expect("a move off the board lands in a layer already built")
            };
            // The build's own progress counts slots of one split; this counts them all.
            let quiet = |_: Progress| {};
            let built: LayerBuilt = build_layer(game, &ix, seeds, scores, &exit, out, &AtomicU64::new(0), &quiet)?;
            stats.max_passes = stats.max_passes.max(built.passes);
            stats.terminal += built.terminal;
            cyclic += built.cyclic;
            let now = done.fetch_add(slots as u64, Ordering::Relaxed) + slots as u64;
            progress(Progress { seeds, done: now, total: all });
        }
        stats.cyclic += cyclic;
        stats.cyclic_by_seeds.push(cyclic);
        layers.push(ScoredLayer { south_low, splits: count, slots, values });
    }
    stats.elapsed = started.elapsed();
    Ok((ScoredTablebase { rules: game.rules_string(), indexer: ix, layers }, stats))
}
