//! Retrograde analysis, one layer (seed count on the board) at a time, from the empty board
//! up. See the crate docs for what a value means and how cycles are scored.
//!
//! A layer is built in three steps:
//! 1. **Moves.** Every (board, side) is made a real position of the game
//!    ([`Game::from_setup`]) and every legal move is played with [`Game::play_unchecked`]. A
//!    move that takes seeds off the board (a capture, a seed into a Kalah store, the end of the
//!    game) lands in a lower layer, already known: its value is the seeds the move gave each
//!    player plus the value found there. A move that keeps every seed on the board lands in the
//!    same layer: it becomes an edge of the layer's graph.
//! 2. **Bounds.** For every position, `lo` (what the mover can force in a finite number of
//!    moves whatever the opponent does) and `hi` (the most the opponent must concede) are
//!    iterated to their fixed point, starting from `-n` and `+n`. Where the layer's graph has
//!    no cycle (Kalah), both meet at the exact value everywhere.
//! 3. **Cycles.** Where they do not meet, neither player can force the game out of the cycle
//!    at a price the other accepts; the game would go on until a position repeats, and the
//!    cycle rule ([`Game::settle_cycle`]: each player takes their own row) is applied to the
//!    position itself, clamped to `[lo, hi]` because neither side accepts less than it can
//!    force.

use std::sync::atomic::{AtomicBool, AtomicI8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mancala_rules::{ByPlayer, Game, Player, Setup, Status};
use rayon::prelude::*;

use crate::Tablebase;
use crate::error::TablebaseError;
use crate::index::Indexer;

/// How far a build has come, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The layer (seeds on the board) being built.
    pub seeds: usize,
    /// Slots whose moves have been generated, all layers, and all slots.
    pub done: u64,
    pub total: u64,
}

/// Figures of a finished build.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildStats {
    pub slots: u64,
    /// Positions scored by the cycle rule (their bounds never met).
    pub cyclic: u64,
    /// The same, by seeds on the board.
    pub cyclic_by_seeds: Vec<u64>,
    /// Positions where the game is already over.
    pub terminal: u64,
    /// The most bound-iteration passes any layer needed.
    pub max_passes: u32,
    pub elapsed: Duration,
}

/// Boards a unit of parallel work: big enough to amortise the scheduling, small enough for a
/// smooth progress bar.
const CHUNK_BOARDS: u64 = 1 << 13;

/// Marks "no move leaves the layer" in the best-exit array; below every real value.
const NO_EXIT: i8 = i8::MIN;

/// Marks an edge to a position with the same side to move (Kalah's extra turn), whose value
/// counts for the mover instead of against.
const SAME_SIDE: u32 = 1 << 31;

/// One chunk of a layer after step 1.
struct Chunk {
    /// First slot (within the layer) of the chunk.
    first: usize,
    /// The best value among moves leaving the layer, or the value itself when `fixed`.
    exit: Vec<i8>,
    fixed: Vec<bool>,
    /// Edges of slot `i` are `edges[starts[i]..starts[i + 1]]`: in-layer slot, maybe `SAME_SIDE`.
    starts: Vec<u32>,
    edges: Vec<u32>,
}

/// Scores that make `seeds` on the board a real position of `game`: the captured seeds split
/// as evenly as they go (North gets the odd one). Values do not depend on the scores; the split
/// only keeps the position legal and, in Oware, ongoing (no one holds a majority yet).
pub fn endgame_scores(total: u16, seeds: usize) -> ByPlayer<u16> {
    let captured = total - seeds as u16;
    ByPlayer::new(captured / 2, captured - captured / 2)
}

/// The value of a finished game for the player to move at `pos`, counting only what the end
/// of the game gave each player beyond `scores` (the scores the position was made with).
pub(crate) fn finished_value(status: Status, side: Player, scores: ByPlayer<u16>) -> Option<i16> {
    let outcome = status.outcome()?;
    let already = i32::from(scores[side]) - i32::from(scores[!side]);
    Some((outcome.margin_for(side) - already) as i16)
}

/// The memory a build holds by default at most, 16 GiB: Oware to 23 seeds on the board,
/// Kalah (six houses) to 23. A larger database is built with [`build_within`] and a higher
/// limit, on a machine that has it.
pub const DEFAULT_MEMORY_LIMIT: u64 = 16 << 30;

/// Bytes a position of the layer being built holds while it is built: its best exit and
/// whether it is final (1 + 1), the start of its edges (4), about four edges of 4 bytes, and
/// its two bounds (1 + 1).
const WORK_BYTES_A_SLOT: f64 = 24.0;

/// About the memory building a database of `pits` pits and up to `max_seeds` seeds takes:
/// one byte a position, and the work of the largest layer (the last). In `f64`, because the
/// sizes a user can ask for overflow any integer.
pub fn memory_needed(pits: usize, max_seeds: usize) -> f64 {
    let positions = |seeds: usize| 2.0 * binomial(seeds + pits, pits);
    let last_layer = 2.0 * binomial((max_seeds + pits).saturating_sub(1), pits.saturating_sub(1));
    positions(max_seeds) + WORK_BYTES_A_SLOT * last_layer
}

/// `C(n, k)` as a float (exact while it fits 53 bits, close enough after for a size).
pub(crate) fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// A count for people: exact while it has at most 15 digits, then "1.23e33".
pub(crate) fn count(n: f64) -> String {
    if n < 1e15 { format!("{n:.0}") } else { format!("{n:.2e}") }
}

/// A byte count for people: "1.5 GiB", "2.5e12 GiB".
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    for unit in UNITS {
        if value < 1024.0 || unit == "TiB" {
            return if value < 1e6 { format!("{value:.1} {unit}") } else { format!("{value:.2e} {unit}") };
        }
        value /= 1024.0;
    }
    unreachable!("the last unit returns")
}

/// Refuses a seed limit above the game's seeds or above what a byte holds.
pub(crate) fn check_seed_limit<G: Game>(game: &G, max_seeds: usize) -> Result<(), TablebaseError> {
    let total = game.total_seeds();
    let bad = |reason: String| TablebaseError::BadSeedLimit { rules: game.rules_string(), seeds: max_seeds, reason };
    if max_seeds > usize::from(total) {
        return Err(bad(format!("the game has only {total} seeds")));
    }
    if max_seeds > 127 {
        return Err(bad("values are stored in one byte: 127 seeds at most".into()));
    }
    Ok(())
}

/// Builds the database of `game` for every board of up to `max_seeds` seeds, within
/// [`DEFAULT_MEMORY_LIMIT`].
///
/// # Errors
/// As [`build_within`].
pub fn build<G: Game>(
    game: &G,
    max_seeds: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Tablebase, BuildStats), TablebaseError> {
    build_within(game, max_seeds, DEFAULT_MEMORY_LIMIT, progress)
}

/// Builds the database of `game` for every board of up to `max_seeds` seeds, refusing one
/// whose build would take more than `memory_limit` bytes ([`memory_needed`]).
///
/// # Errors
/// [`TablebaseError::BadSeedLimit`] when the limit exceeds the game's seeds or 127;
/// [`TablebaseError::TooLarge`] when the build needs more memory than `memory_limit` (or
/// could not get it); [`TablebaseError::Setup`] when the rules refuse a board.
pub fn build_within<G: Game>(
    game: &G,
    max_seeds: usize,
    memory_limit: u64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Tablebase, BuildStats), TablebaseError> {
    let started = Instant::now();
    check_seed_limit(game, max_seeds)?;
    let pits = game.pits(&game.start()).len();
    let too_large = |reason: String| TablebaseError::TooLarge {
        rules: game.rules_string(),
        seeds: max_seeds,
        positions: count(2.0 * binomial(max_seeds + pits, pits)),
        memory: human_bytes(memory_needed(pits, max_seeds)),
        reason,
    };
    let need = memory_needed(pits, max_seeds);
    if need > memory_limit as f64 {
        return Err(too_large(format!("the limit is {}", human_bytes(memory_limit as f64))));
    }
    // Edges address a position of their layer in 31 bits (the top bit marks the same side).
    if 2.0 * binomial(max_seeds + pits - 1, pits - 1) > f64::from(SAME_SIDE) {
        return Err(too_large("a layer of more than 2^31 positions cannot be indexed".into()));
    }
    let ix = Indexer::new(pits, max_seeds).ok_or_else(|| too_large("the index overflows 64 bits".into()))?;
    let slots =
        usize::try_from(ix.slots()).map_err(|_| too_large("its values do not fit this machine's memory".into()))?;
    let mut values = Vec::new();
    values
        .try_reserve_exact(slots)
        .map_err(|e| too_large(format!("the memory for its values could not be had: {e}")))?;
    values.resize(slots, 0i8);
    let mut stats = BuildStats { slots: ix.slots(), ..BuildStats::default() };
    let done = AtomicU64::new(0);
    for seeds in 0..=max_seeds {
        let start = ix.layer_start(seeds) as usize;
        let end = ix.layer_start(seeds + 1) as usize;
        let (lower, rest) = values.split_at_mut(start);
        let layer = &mut rest[..end - start];
        let lower = &*lower;
        let scores = endgame_scores(game.total_seeds(), seeds);
        // Play to the end: after a capture the value is the new board's, whatever the scores.
        let exit = |_: &G::Position, slot: u64| i32::from(lower[slot as usize]);
        let built = build_layer(game, &ix, seeds, scores, &exit, layer, &done, progress)?;
        stats.max_passes = stats.max_passes.max(built.passes);
        stats.terminal += built.terminal;
        stats.cyclic += built.cyclic;
        stats.cyclic_by_seeds.push(built.cyclic);
        progress(Progress { seeds, done: done.load(Ordering::Relaxed), total: ix.slots() });
    }
    stats.elapsed = started.elapsed();
    Ok((Tablebase::from_parts(game.rules_string(), ix, values), stats))
}

/// What building one layer found.
pub(crate) struct LayerBuilt {
    pub passes: u32,
    pub terminal: u64,
    pub cyclic: u64,
}

/// The three steps for layer `seeds`, its positions made with `scores`, written into `layer`
/// (its slots in order). `exit(next, slot)` is the value, for its mover and beyond its
/// scores, of a position `next` in a lower layer (at `slot`): what a move that takes seeds off
/// the board leads to.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_layer<G: Game, F: Fn(&G::Position, u64) -> i32 + Sync>(
    game: &G,
    ix: &Indexer,
    seeds: usize,
    scores: ByPlayer<u16>,
    exit: &F,
    layer: &mut [i8],
    done: &AtomicU64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<LayerBuilt, TablebaseError> {
    let chunks = generate_moves(game, ix, seeds, scores, exit, done, progress)?;
    let (lo, hi, passes) = iterate_bounds(&chunks, seeds);
    let terminal = chunks.iter().map(|c| c.fixed.iter().filter(|&&f| f).count() as u64).sum();
    let cyclic = settle_layer(game, ix, seeds, scores, &lo, &hi, layer)?;
    Ok(LayerBuilt { passes, terminal, cyclic })
}

/// Step 1 for layer `seeds`: every position's exits and in-layer edges.
fn generate_moves<G: Game, F: Fn(&G::Position, u64) -> i32 + Sync>(
    game: &G,
    ix: &Indexer,
    seeds: usize,
    scores: ByPlayer<u16>,
    exit: &F,
    done: &AtomicU64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<Chunk>, TablebaseError> {
    let boards = ix.boards(seeds);
    let starts: Vec<u64> = (0..boards).step_by(CHUNK_BOARDS as usize).collect();
    starts
        .par_iter()
        .map(|&first_board| {
            let last_board = (first_board + CHUNK_BOARDS).min(boards);
            let slots = 2 * (last_board - first_board) as usize;
            let mut chunk = Chunk {
                first: 2 * first_board as usize,
                exit: Vec::with_capacity(slots),
                fixed: Vec::with_capacity(slots),
                starts: Vec::with_capacity(slots + 1),
                edges: Vec::with_capacity(slots * 4),
            };
            chunk.starts.push(0);
            let mut setup = Setup { scores, pits: vec![0; ix.pits()], ..Setup::default() };
            for rank in first_board..last_board {
                ix.unrank(rank, seeds, &mut setup.pits);
                for side in Player::BOTH {
                    setup.side = side;
                    let pos = game.from_setup(&setup).map_err(|source| TablebaseError::Setup {
                        pits: setup.pits.clone(),
                        side,
                        source,
                    })?;
                    position_moves(game, ix, seeds, exit, &pos, scores, &mut chunk);
                    chunk.starts.push(chunk.edges.len() as u32);
                }
            }
            let total = ix.slots();
            let now = done.fetch_add(slots as u64, Ordering::Relaxed) + slots as u64;
            progress(Progress { seeds, done: now, total });
            Ok(chunk)
        })
        .collect()
}

/// Step 1 for one position: pushes its best exit (or its value, if the game is over) and its
/// in-layer edges onto `chunk`.
#[inline]
fn position_moves<G: Game, F: Fn(&G::Position, u64) -> i32>(
    game: &G,
    ix: &Indexer,
    seeds: usize,
    exit: &F,
    pos: &G::Position,
    scores: ByPlayer<u16>,
    chunk: &mut Chunk,
) {
    let me = game.side_to_move(pos);
    if let Some(v) = finished_value(game.status(pos), me, scores) {
        chunk.exit.push(v as i8);
        chunk.fixed.push(true);
        return;
    }
    let layer_start = ix.layer_start(seeds);
    let mut best_exit = i16::from(NO_EXIT);
    for action in game.legal_moves(pos) {
        let mut next = *pos;
        game.play_unchecked(&mut next, action);
        let board = game.pits(&next);
        let side = game.side_to_move(&next);
        let slot = ix.slot(board, side).expect("sowing never adds seeds to the board");
        let after = game.scores(&next);
        let gained = (i32::from(after[me]) - i32::from(scores[me])) - (i32::from(after[!me]) - i32::from(scores[!me]));
        if slot >= layer_start {
            // Every seed is still on the board, so no one's score moved.
            debug_assert_eq!(gained, 0);
            let within = (slot - layer_start) as u32;
            chunk.edges.push(if side == me { within | SAME_SIDE } else { within });
        } else {
            let v = exit(&next, slot);
            let value = gained + if side == me { v } else { -v };
            best_exit = best_exit.max(value as i16);
        }
    }
    chunk.exit.push(best_exit as i8);
    chunk.fixed.push(false);
}

/// Step 2: iterates `lo` and `hi` of every position of the layer to their fixed point.
/// Updates are in place and monotone (`lo` only rises, `hi` only falls), so the order threads
/// visit positions in changes only how many passes it takes, not the result.
fn iterate_bounds(chunks: &[Chunk], seeds: usize) -> (Vec<AtomicI8>, Vec<AtomicI8>, u32) {
    let slots: usize = chunks.iter().map(|c| c.exit.len()).sum();
    let n = seeds as i8;
    let mut lo = Vec::with_capacity(slots);
    let mut hi = Vec::with_capacity(slots);
    for c in chunks {
        for (&e, &fixed) in c.exit.iter().zip(&c.fixed) {
            if fixed {
                lo.push(AtomicI8::new(e));
                hi.push(AtomicI8::new(e));
            } else {
                lo.push(AtomicI8::new(e.max(-n)));
                hi.push(AtomicI8::new(n));
            }
        }
    }
    let mut passes = 0;
    loop {
        passes += 1;
        let changed = AtomicBool::new(false);
        chunks.par_iter().for_each(|c| {
            for i in 0..c.exit.len() {
                if c.fixed[i] {
                    continue;
                }
                let slot = c.first + i;
                let (old_lo, old_hi) = (lo[slot].load(Ordering::Relaxed), hi[slot].load(Ordering::Relaxed));
                if old_lo == old_hi {
                    continue;
                }
                let mut new_lo = i16::from(c.exit[i]);
                let mut new_hi = i16::from(c.exit[i]);
                for &e in &c.edges[c.starts[i] as usize..c.starts[i + 1] as usize] {
                    let child = (e & !SAME_SIDE) as usize;
                    let (cl, ch) =
                        (i16::from(lo[child].load(Ordering::Relaxed)), i16::from(hi[child].load(Ordering::Relaxed)));
                    if e & SAME_SIDE != 0 {
                        new_lo = new_lo.max(cl);
                        new_hi = new_hi.max(ch);
                    } else {
                        new_lo = new_lo.max(-ch);
                        new_hi = new_hi.max(-cl);
                    }
                }
                // Clamp to the old bounds: another thread's stale read must not undo progress.
                let new_lo = (new_lo as i8).max(old_lo);
                let new_hi = (new_hi as i8).min(old_hi);
                if new_lo != old_lo {
                    lo[slot].fetch_max(new_lo, Ordering::Relaxed);
                    changed.store(true, Ordering::Relaxed);
                }
                if new_hi != old_hi {
                    hi[slot].fetch_min(new_hi, Ordering::Relaxed);
                    changed.store(true, Ordering::Relaxed);
                }
            }
        });
        if !changed.load(Ordering::Relaxed) {
            return (lo, hi, passes);
        }
    }
}

/// Step 3: writes the layer's values; positions whose bounds did not meet get the cycle
/// rule's value clamped to them. Returns how many did.
fn settle_layer<G: Game>(
    game: &G,
    ix: &Indexer,
    seeds: usize,
    scores: ByPlayer<u16>,
    lo: &[AtomicI8],
    hi: &[AtomicI8],
    layer: &mut [i8],
) -> Result<u64, TablebaseError> {
    let cyclic = AtomicU64::new(0);
    layer.par_chunks_mut(2 * CHUNK_BOARDS as usize).enumerate().try_for_each(|(k, out)| {
        let first = k * 2 * CHUNK_BOARDS as usize;
        let mut setup = Setup { scores, pits: vec![0; ix.pits()], ..Setup::default() };
        for (i, value) in out.iter_mut().enumerate() {
            let slot = first + i;
            let (l, h) = (lo[slot].load(Ordering::Relaxed), hi[slot].load(Ordering::Relaxed));
            if l == h {
                *value = l;
                continue;
            }
            cyclic.fetch_add(1, Ordering::Relaxed);
            ix.unrank((slot / 2) as u64, seeds, &mut setup.pits);
            setup.side = if slot.is_multiple_of(2) { Player::South } else { Player::North };
            let pos = game.from_setup(&setup).map_err(|source| TablebaseError::Setup {
                pits: setup.pits.clone(),
                side: setup.side,
                source,
            })?;
            // Awale's forfeit (a forced grand slam loses all 48 seeds) can cross the bounds;
            // then the upper bound wins instead of a panic.
            *value = cycle_value(game, &pos, scores).max(l).min(h);
        }
        Ok(())
    })?;
    Ok(cyclic.into_inner())
}

/// The value the cycle rule gives `pos` for its mover: the game's own [`Game::settle_cycle`],
/// or, for a game without one, each player's own row.
pub fn cycle_value<G: Game>(game: &G, pos: &G::Position, scores: ByPlayer<u16>) -> i8 {
    let me = game.side_to_move(pos);
    let mut settled = *pos;
    game.settle_cycle(&mut settled);
    if let Some(v) = finished_value(game.status(&settled), me, scores) {
        return v as i8;
    }
    let mut margin = 0i32;
    for (pit, &c) in game.pits(pos).iter().enumerate() {
        let c = i32::from(c);
        margin += if game.controller(pos, pit) == me { c } else { -c };
    }
    margin as i8
}
