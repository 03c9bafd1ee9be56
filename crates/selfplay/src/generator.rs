//! The self-play generator: workers on their own rayon pool, each playing many games at once
//! and answering all their searches' leaves with one batched evaluator call
//! (gather / evaluate / apply).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use mancala_mcts::{Evaluator, Search, SearchConfig};
use mancala_nn::{encode, layout, Layout};
use mancala_rules::{Game, Line, Player};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::config::SelfPlayConfig;
use crate::record::{GameRecord, Row};

/// What a batch of self-play produced, with throughput figures.
#[derive(Clone, Debug, Default)]
pub struct SelfPlayOutput {
    pub games: Vec<GameRecord>,
    pub moves: usize,
    pub simulations: u64,
    pub seconds: f64,
}

impl SelfPlayOutput {
    pub fn rows(&self) -> usize {
        self.games.iter().map(|g| g.rows.len()).sum()
    }
}

struct PendingRow {
    side: Player,
    row: Row,
}

/// One game in progress inside a worker.
struct Slot<G: Game> {
    line: Line<G>,
    search: Search<G>,
    rows: Vec<PendingRow>,
    full: bool,
    rng: SmallRng,
    /// Leaves this slot handed out in the current round.
    leaves: usize,
}

/// Plays `games` self-play games. `make_evaluator(worker)` gives each worker its own
/// evaluator; `search` holds the search settings (simulations and noise are set per move).
/// Game `k` is played by worker `k % threads` with a seed derived from `seed` and `k`, so
/// the games are the same for the same seed and thread count. When `stop` is set the workers
/// return at their next search round with the games finished so far (the others are
/// dropped), so a role that is told to stop does not first finish a whole shard.
#[allow(clippy::too_many_arguments)]
pub fn play_games<G, E, F>(
    game: &G,
    config: &SelfPlayConfig,
    search: &SearchConfig,
    games: usize,
    seed: u64,
    make_evaluator: F,
    progress: &(dyn Fn(usize) + Sync),
    stop: &AtomicBool,
) -> SelfPlayOutput
where
    G: Game,
    E: Evaluator<G>,
    F: Fn(usize) -> E + Sync,
{
    let start = Instant::now();
    let threads = config.threads.max(1);
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("selfplay-{i}"))
        .build()
        .expect("a thread pool can be built");
    let results: Vec<(Vec<(usize, GameRecord)>, usize, u64)> = pool.install(|| {
        (0..threads)
            .into_par_iter()
            .map(|w| {
                let mine: Vec<usize> = (w..games).step_by(threads).collect();
                let mut evaluator = make_evaluator(w);
                let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                worker(game, config, search, &mine, seed, &mut evaluator, &tick, stop)
            })
            .collect()
    });
    let mut out = SelfPlayOutput::default();
    let mut all: Vec<(usize, GameRecord)> = Vec::with_capacity(games);
    for (records, moves, sims) in results {
        all.extend(records);
        out.moves += moves;
        out.simulations += sims;
    }
    all.sort_by_key(|(k, _)| *k);
    out.games = all.into_iter().map(|(_, g)| g).collect();
    out.seconds = start.elapsed().as_secs_f64();
    out
}

fn game_seed(seed: u64, k: usize) -> u64 {
    mancala_rules::hash::mix64(seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Plays the games numbered in `mine`, `parallel_games` at a time.
#[allow(clippy::too_many_arguments)]
fn worker<G: Game, E: Evaluator<G>>(
    game: &G,
    config: &SelfPlayConfig,
    search: &SearchConfig,
    mine: &[usize],
    seed: u64,
    evaluator: &mut E,
    tick: &dyn Fn(),
    stop: &AtomicBool,
) -> (Vec<(usize, GameRecord)>, usize, u64) {
    let lay = layout(game);
    let a = game.action_space();
    let mut queue = mine.iter().copied();
    let mut slots: Vec<(usize, Slot<G>)> = Vec::new();
    for _ in 0..config.parallel_games.max(1) {
        if let Some(k) = queue.next() {
            slots.push((k, new_slot(game, config, search, game_seed(seed, k))));
        }
    }
    let mut records = Vec::with_capacity(mine.len());
    let mut leaves: Vec<G::Position> = Vec::new();
    let mut policies: Vec<f32> = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    let (mut moves, mut sims) = (0usize, 0u64);
    while !slots.is_empty() && !stop.load(Ordering::Relaxed) {
        leaves.clear();
        for (_, s) in slots.iter_mut() {
            s.leaves = s.search.gather(&mut leaves);
        }
        if !leaves.is_empty() {
            policies.resize(leaves.len() * a, 0.0);
            values.resize(leaves.len(), 0.0);
            evaluator.evaluate(game, &leaves, &mut policies, &mut values);
            let mut at = 0;
            for (_, s) in slots.iter_mut() {
                if s.leaves > 0 {
                    s.search.apply(&policies[at * a..(at + s.leaves) * a], &values[at..at + s.leaves]);
                    at += s.leaves;
                }
            }
        }
        let mut i = 0;
        while i < slots.len() {
            let s = &mut slots[i].1;
            if !s.search.is_done() {
                i += 1;
                continue;
            }
            sims += u64::from(s.search.simulations_done());
            moves += 1;
            if let Some(finished) = step(game, config, &lay, s) {
                records.push((slots[i].0, finished));
                tick();
                match queue.next() {
                    Some(k) => slots[i] = (k, new_slot(game, config, search, game_seed(seed, k))),
                    None => {
                        slots.swap_remove(i);
                        continue;
                    }
                }
            }
            i += 1;
        }
    }
    (records, moves, sims)
}

fn new_slot<G: Game>(game: &G, config: &SelfPlayConfig, search: &SearchConfig, seed: u64) -> Slot<G> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut sc = search.clone();
    sc.leaves_per_gather = config.leaves_per_gather;
    let mut search = Search::new(game.clone(), sc, rng.random());
    let line = Line::new(game.clone());
    let full = rng.random_bool(config.full_search_share);
    configure(&mut search, config, full);
    search.set_root_line(&line);
    Slot { line, search, rows: Vec::new(), full, rng, leaves: 0 }
}

/// Sets the next move's budget: full searches get noise and are recorded; cheap ones not.
fn configure<G: Game>(search: &mut Search<G>, config: &SelfPlayConfig, full: bool) {
    let c = search.config_mut();
    c.simulations = if full { config.simulations } else { config.fast_simulations };
    c.dirichlet_noise = full;
}

/// Plays the move the finished search chose; returns the game record if the game ended.
fn step<G: Game>(game: &G, config: &SelfPlayConfig, lay: &Layout, s: &mut Slot<G>) -> Option<GameRecord> {
    let pos = *s.line.position();
    let side = game.side_to_move(&pos);
    if s.full {
        let mut inputs = vec![0.0; lay.inputs()];
        encode(game, lay, &pos, &mut inputs);
        let mut policy = vec![0.0; game.action_space()];
        s.search.policy_target(&mut policy);
        let row = Row {
            inputs,
            legal: game.legal_moves(&pos).0,
            policy,
            search_value: s.search.root_value(),
            outcome: 0.0,
            margin: 0.0,
        };
        s.rows.push(PendingRow { side, row });
    }
    let temperature = if (s.line.len() as u32) < config.temperature_plies { config.temperature } else { 0.0 };
    let action = s.search.select_action(temperature).expect("an ongoing game has a move");
    s.line.play(action).expect("search picks legal moves");
    if let Some(outcome) = s.line.status().outcome() {
        let total = f32::from(game.total_seeds().max(1));
        let rows = std::mem::take(&mut s.rows)
            .into_iter()
            .map(|mut p| {
                p.row.outcome = outcome.value_for(p.side);
                p.row.margin = outcome.margin_for(p.side) as f32 / total;
                p.row
            })
            .collect();
        return Some(GameRecord { moves: s.line.move_labels(), result: outcome.to_string(), rows });
    }
    s.full = s.rng.random_bool(config.full_search_share);
    configure(&mut s.search, config, s.full);
    s.search.advance(action);
    if s.search.root_position() != s.line.position() {
        s.search.set_root_line(&s.line);
    }
    None
}
