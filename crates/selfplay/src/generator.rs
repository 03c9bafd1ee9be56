//! The self-play generator: workers on their own rayon pool, each playing many games at once
//! and answering all their searches' leaves with one batched evaluator call
//! (gather / evaluate / apply).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use mancala_encoding::{Layout, encode, layout};
use mancala_mcts::service::{InferenceService, ServiceConfig, ServiceError, ServiceStats, SubmitEvaluator};
use mancala_mcts::{Evaluator, Search, SearchConfig};
use mancala_rules::{Game, Line, Outcome, Player};
use mancala_tablebase::Tablebase;
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
    endgame: Option<&Tablebase>,
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
    let rules = Rules { game, config, search, endgame };
    run_workers(config, games, progress, |w, mine, tick| {
        let mut evaluator = make_evaluator(w);
        worker(&rules, mine, seed, &mut evaluator, tick, stop)
    })
}

/// [`play_games`] where each thread plays its games in two groups: it hands one group's
/// leaves over ([`SubmitEvaluator::submit`]), searches the other group, and only then
/// collects the first group's answer, so its searching overlaps the evaluation (an inference
/// service on a GPU). Every game goes through the same search steps as in [`play_games`], so
/// with an evaluator that answers each position the same whatever batch it comes in, the
/// games are the same.
#[allow(clippy::too_many_arguments)]
pub fn play_games_pipelined<G, E, F>(
    game: &G,
    config: &SelfPlayConfig,
    search: &SearchConfig,
    endgame: Option<&Tablebase>,
    games: usize,
    seed: u64,
    make_evaluator: F,
    progress: &(dyn Fn(usize) + Sync),
    stop: &AtomicBool,
) -> SelfPlayOutput
where
    G: Game,
    E: SubmitEvaluator<G>,
    F: Fn(usize) -> E + Sync,
{
    let rules = Rules { game, config, search, endgame };
    run_workers(config, games, progress, |w, mine, tick| {
        let mut evaluator = make_evaluator(w);
        pipelined_worker(&rules, mine, seed, &mut evaluator, tick, stop)
    })
}

/// [`play_games_pipelined`] through one [`InferenceService`] that owns `evaluator` (batches
/// of at most `config.service_batch` positions, flushed after `config.service_flush_us`),
/// each thread with its own client behind a cache of `2^cache_log2_slots` entries. Returns
/// when the service has answered everything and ended.
///
/// # Errors
/// The service could not start, or its evaluator panicked.
#[allow(clippy::too_many_arguments)]
pub fn play_games_served<G, E>(
    game: &G,
    config: &SelfPlayConfig,
    search: &SearchConfig,
    endgame: Option<&Tablebase>,
    games: usize,
    seed: u64,
    evaluator: E,
    cache_log2_slots: u32,
    progress: &(dyn Fn(usize) + Sync),
    stop: &AtomicBool,
) -> Result<(SelfPlayOutput, ServiceStats), ServiceError>
where
    G: Game,
    E: Evaluator<G> + 'static,
{
    let flush = std::time::Duration::from_micros(config.service_flush_us);
    let service = InferenceService::start(game, evaluator, ServiceConfig { max_batch: config.service_batch, flush })?;
    // A client panics its thread when the service's evaluator panicked; `join` below then
    // reports why, rather than that panic.
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        play_games_pipelined(
            game,
            config,
            search,
            endgame,
            games,
            seed,
            |_| service.client().cached(cache_log2_slots),
            progress,
            stop,
        )
    }));
    let stats = service.join()?;
    match played {
        Ok(out) => Ok((out, stats)),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Runs `work(w, games of worker w, tick)` for each of `config.threads` workers on a pool of
/// their own and merges what they played in game order.
fn run_workers<W>(config: &SelfPlayConfig, games: usize, progress: &(dyn Fn(usize) + Sync), work: W) -> SelfPlayOutput
where
    W: Fn(usize, &[usize], &dyn Fn()) -> Played + Sync,
{
    let start = Instant::now();
    let threads = config.threads.max(1);
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("selfplay-{i}"))
        .build()
        .expect("a thread pool can be built");
    let results: Vec<Played> = pool.install(|| {
        (0..threads)
            .into_par_iter()
            .map(|w| {
                let mine: Vec<usize> = (w..games).step_by(threads).collect();
                let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                work(w, &mine, &tick)
            })
            .collect()
    });
    let mut out = SelfPlayOutput::default();
    let mut all: Vec<(usize, GameRecord)> = Vec::with_capacity(games);
    for played in results {
        all.extend(played.records);
        out.moves += played.moves;
        out.simulations += played.sims;
    }
    all.sort_by_key(|(k, _)| *k);
    out.games = all.into_iter().map(|(_, g)| g).collect();
    out.seconds = start.elapsed().as_secs_f64();
    out
}

fn game_seed(seed: u64, k: usize) -> u64 {
    mancala_rules::hash::mix64(seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// What every game of one call is played under.
struct Rules<'a, G: Game> {
    game: &'a G,
    config: &'a SelfPlayConfig,
    search: &'a SearchConfig,
    /// Games that enter it end there with their exact result.
    endgame: Option<&'a Tablebase>,
}

/// Plays the games numbered in `mine`, `parallel_games` at a time.
fn worker<G: Game, E: Evaluator<G>>(
    rules: &Rules<'_, G>,
    mine: &[usize],
    seed: u64,
    evaluator: &mut E,
    tick: &dyn Fn(),
    stop: &AtomicBool,
) -> Played {
    let Rules { game, config, search, .. } = *rules;
    let lay = layout(game);
    let a = game.action_space();
    let mut queue = mine.iter().copied();
    let mut slots: Vec<(usize, Slot<G>)> = Vec::new();
    for _ in 0..config.parallel_games.max(1) {
        if let Some(k) = queue.next() {
            slots.push((k, new_slot(game, config, search, game_seed(seed, k))));
        }
    }
    let mut played = Played { records: Vec::with_capacity(mine.len()), moves: 0, sims: 0 };
    let mut leaves: Vec<G::Position> = Vec::new();
    let mut policies: Vec<f32> = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    while !slots.is_empty() && !stop.load(Ordering::Relaxed) {
        leaves.clear();
        for (_, s) in slots.iter_mut() {
            s.leaves = s.search.gather(&mut leaves);
        }
        if !leaves.is_empty() {
            policies.resize(leaves.len() * a, 0.0);
            values.resize(leaves.len(), 0.0);
            evaluator.evaluate(game, &leaves, &mut policies, &mut values);
            apply(&mut slots, a, &policies, &values);
        }
        finish_moves(rules, &lay, seed, &mut slots, &mut queue, &mut played, tick);
    }
    played
}

/// What a worker has played so far.
struct Played {
    records: Vec<(usize, GameRecord)>,
    moves: usize,
    sims: u64,
}

/// Hands each slot its leaves' answers, in the order the slots gathered them.
fn apply<G: Game>(slots: &mut [(usize, Slot<G>)], a: usize, policies: &[f32], values: &[f32]) {
    let mut at = 0;
    for (_, s) in slots.iter_mut() {
        if s.leaves > 0 {
            s.search.apply(&policies[at * a..(at + s.leaves) * a], &values[at..at + s.leaves]);
            at += s.leaves;
        }
    }
}

/// Plays the move of every slot whose search is done; a finished game's record goes to
/// `played` and its slot takes the next game of `queue`, or is removed when there is none.
fn finish_moves<G: Game>(
    rules: &Rules<'_, G>,
    lay: &Layout,
    seed: u64,
    slots: &mut Vec<(usize, Slot<G>)>,
    queue: &mut impl Iterator<Item = usize>,
    played: &mut Played,
    tick: &dyn Fn(),
) {
    let Rules { game, config, search, .. } = *rules;
    let mut i = 0;
    while i < slots.len() {
        let s = &mut slots[i].1;
        if !s.search.is_done() {
            i += 1;
            continue;
        }
        played.sims += u64::from(s.search.simulations_done());
        played.moves += 1;
        if let Some(finished) = step(rules, lay, s) {
            played.records.push((slots[i].0, finished));
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

/// One of a pipelined worker's two groups of games, with the answer it waits for.
struct Group<G: Game, T> {
    slots: Vec<(usize, Slot<G>)>,
    leaves: Vec<G::Position>,
    pending: Option<T>,
}

/// Plays the games numbered in `mine`, `parallel_games` at a time in two groups that take
/// turns: collect a group's answer, apply it and play the finished searches' moves, gather
/// the group's next leaves and submit them; then the other group. Each game sees the same
/// gather / apply / move sequence as in [`worker`].
fn pipelined_worker<G: Game, E: SubmitEvaluator<G>>(
    rules: &Rules<'_, G>,
    mine: &[usize],
    seed: u64,
    evaluator: &mut E,
    tick: &dyn Fn(),
    stop: &AtomicBool,
) -> Played {
    let Rules { game, config, search, .. } = *rules;
    let lay = layout(game);
    let a = game.action_space();
    let mut queue = mine.iter().copied();
    let mut groups: [Group<G, E::Ticket>; 2] =
        std::array::from_fn(|_| Group { slots: Vec::new(), leaves: Vec::new(), pending: None });
    for i in 0..config.parallel_games.max(1) {
        if let Some(k) = queue.next() {
            groups[i % 2].slots.push((k, new_slot(game, config, search, game_seed(seed, k))));
        }
    }
    let mut played = Played { records: Vec::with_capacity(mine.len()), moves: 0, sims: 0 };
    let mut policies: Vec<f32> = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    // A stop drops the tickets still pending: their answers are thrown away.
    while groups.iter().any(|g| !g.slots.is_empty()) && !stop.load(Ordering::Relaxed) {
        for g in groups.iter_mut() {
            if let Some(ticket) = g.pending.take() {
                policies.resize(g.leaves.len() * a, 0.0);
                values.resize(g.leaves.len(), 0.0);
                evaluator.collect(game, ticket, &mut policies, &mut values);
                apply(&mut g.slots, a, &policies, &values);
                finish_moves(rules, &lay, seed, &mut g.slots, &mut queue, &mut played, tick);
            }
            if g.slots.is_empty() {
                continue;
            }
            g.leaves.clear();
            for (_, s) in g.slots.iter_mut() {
                s.leaves = s.search.gather(&mut g.leaves);
            }
            if g.leaves.is_empty() {
                finish_moves(rules, &lay, seed, &mut g.slots, &mut queue, &mut played, tick);
            } else {
                g.pending = Some(evaluator.submit(game, &g.leaves));
            }
        }
    }
    played
}

fn new_slot<G: Game>(game: &G, config: &SelfPlayConfig, search: &SearchConfig, seed: u64) -> Slot<G> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut sc = search.clone();
    sc.leaves_per_gather = config.leaves_per_gather;
    let mut search = Search::new(game.clone(), sc, rng.random());
    let line = opening(game, config.opening_plies as usize, &mut rng);
    let full = rng.random_bool(config.full_search_share);
    configure(&mut search, config, full);
    search.set_root_line(&line);
    Slot { line, search, rows: Vec::new(), full, rng, leaves: 0 }
}

/// The line a game starts from: `plies` random moves (`selfplay.opening_plies`), drawn again
/// while they end the game; the initial position after a hundred draws that all end it.
fn opening<G: Game>(game: &G, plies: usize, rng: &mut SmallRng) -> Line<G> {
    (0..100)
        .find_map(|_| Line::random(game.clone(), plies, |n| rng.random_range(0..n)))
        .unwrap_or_else(|| Line::new(game.clone()))
}

/// Sets the next move's budget: full searches get noise and are recorded; cheap ones not.
fn configure<G: Game>(search: &mut Search<G>, config: &SelfPlayConfig, full: bool) {
    let c = search.config_mut();
    c.simulations = if full { config.simulations } else { config.fast_simulations };
    c.dirichlet_noise = full;
}

/// Plays the move the finished search chose; returns the game record if the game ended,
/// by the rules or by entering the endgame database.
fn step<G: Game>(rules: &Rules<'_, G>, lay: &Layout, s: &mut Slot<G>) -> Option<GameRecord> {
    let Rules { game, config, endgame, .. } = *rules;
    let pos = *s.line.position();
    let side = game.side_to_move(&pos);
    if s.full {
        let mut policy = vec![0.0; game.action_space()];
        s.search.policy_target(&mut policy);
        s.rows.push(PendingRow { side, row: new_row(game, lay, &pos, policy, s.search.root_value()) });
    }
    let temperature = config.temperature_at(s.line.len() as u32);
    let action = s.search.select_action(temperature).expect("an ongoing game has a move");
    s.line.play(action).expect("search picks legal moves");
    let outcome = match s.line.status().outcome() {
        Some(outcome) => Some(outcome),
        None => endgame.and_then(|tb| adjudicate(game, lay, tb, s)),
    };
    if let Some(outcome) = outcome {
        let rows = std::mem::take(&mut s.rows)
            .into_iter()
            .map(|mut p| {
                p.row.outcome = outcome.value_for(p.side);
                p.row.margin = game.margin_share(outcome.margin_for(p.side));
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

/// A training row of `pos` with targets still to fill in (outcome and margin).
fn new_row<G: Game>(game: &G, lay: &Layout, pos: &G::Position, policy: Vec<f32>, search_value: f32) -> Row {
    let mut inputs = vec![0.0; lay.inputs()];
    encode(game, lay, pos, &mut inputs);
    Row { inputs, legal: game.legal_moves(pos).0, policy, search_value, outcome: 0.0, margin: 0.0 }
}

/// The game's result with perfect play from here when its position is inside the endgame
/// database; the position itself is then recorded with exact targets (the best moves as
/// its policy, the exact result as its value), so the network learns the database's
/// positions it would otherwise never see, as self-play stops at their door.
fn adjudicate<G: Game>(game: &G, lay: &Layout, tb: &Tablebase, s: &mut Slot<G>) -> Option<Outcome> {
    let pos = *s.line.position();
    let probe = tb.probe(game, &pos)?;
    if probe.best.is_empty() {
        return None;
    }
    let side = game.side_to_move(&pos);
    let margin = probe.final_margin;
    let outcome = Outcome {
        winner: match margin.signum() {
            1 => Some(side),
            -1 => Some(side.opponent()),
            _ => None,
        },
        margin: margin.unsigned_abs().min(u32::from(u16::MAX)) as u16,
    };
    let policy = crate::feed::best_moves_policy(game, &probe);
    s.rows.push(PendingRow { side, row: new_row(game, lay, &pos, policy, probe.result()) });
    Some(outcome)
}
