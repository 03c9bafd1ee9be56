//! The self-play worker: polls the best pointer, loads and checks a new model when there is
//! one, plays a shard's games with it and uploads them as `shards/ID/SEQ.shard` with a
//! conditional create, then beats its heartbeat. Restarted under the same id it continues
//! after its newest stored shard, so it never writes a sequence number twice; killed, it
//! loses at most the shard it was playing.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use burn::prelude::Device;
use mancala_nn::NeuralEvaluator;
use mancala_rules::Game;
use mancala_selfplay::{Inference, ShardHeader, play_games, play_games_served, shard_bytes};
use mancala_store::Created;

use super::Ctl;
use crate::endgame;
use crate::error::TrainError;
use crate::layout::{self, WorkerBeat};
use crate::run::{Run, StoredModel};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Names its shards and heartbeat.
    pub id: String,
    /// Search threads (each plays `selfplay.parallel_games` games at once).
    pub threads: usize,
    /// Stop after storing this many shards (tests; `None`: until the run ends).
    pub max_shards: Option<u64>,
}

/// What a worker did before it stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerReport {
    /// The shards this worker stored (each created by it, in order).
    pub stored: Vec<String>,
    pub games: u64,
    pub positions: u64,
    /// The generation of the last model it loaded.
    pub model_generation: u64,
}

/// One shard's games, ready to upload.
pub struct PlayedShard {
    pub bytes: Vec<u8>,
    pub games: usize,
    pub positions: usize,
    /// The evaluation cache's lookups and hits (direct inference; zero through the service).
    pub cache: mancala_mcts::evaluator::CacheStats,
}

/// How far a worker is ahead of the trainer. It keeps the newest candidate's list of shards
/// ingested and reads a candidate record (which lists every shard of the run) only when a new
/// one is published: an idle worker polls often, and a fleet of them should not re-read it.
#[derive(Clone, Debug, Default)]
pub struct Lead {
    generation: Option<u64>,
    ingested: std::collections::HashSet<String>,
}

impl Lead {
    /// How many of worker `id`'s stored shards the trainer has not ingested yet (as of its
    /// newest candidate).
    ///
    /// # Errors
    /// A store error.
    pub fn shards_ahead(&mut self, run: &Run, id: &str) -> Result<usize, TrainError> {
        let newest = run.generations(layout::CANDIDATES)?.last().copied().unwrap_or(0);
        if self.generation != Some(newest) {
            let c: layout::Candidate = run.read(&layout::candidate_key(newest))?;
            self.ingested = c.ingested.into_iter().chain(c.skipped).collect();
            self.generation = Some(newest);
        }
        let mine = run.store.list(&format!("{}{id}/", layout::SHARDS))?;
        Ok(mine.iter().filter(|e| !self.ingested.contains(&e.key)).count())
    }
}

/// The most shards a worker runs ahead of the trainer: enough for the next candidate and one
/// more, so the trainer never waits on a worker that waits on it, and a worker faster than
/// the trainer does not pile up games that would leave the window untrained.
pub fn max_ahead(run: &Run) -> usize {
    let sp = &run.config.selfplay;
    sp.games_per_iteration.div_ceil(sp.games_per_shard) + 1
}

/// The sequence number after a worker's newest stored shard (1 for a new worker).
///
/// # Errors
/// A store error.
pub fn next_sequence(run: &Run, id: &str) -> Result<u64, TrainError> {
    let prefix = format!("{}{id}/", layout::SHARDS);
    let newest = run.store.list(&prefix)?.iter().filter_map(|e| layout::shard_of(&e.key)).map(|(_, s)| s).max();
    Ok(newest.map_or(1, |s| s + 1))
}

/// Reads the pointer and, when it names another generation than `current`, loads that model
/// and checks it against the pointer's checksum.
///
/// # Errors
/// A store error, or a model that does not match its checksum or cannot be read.
pub fn poll_best(run: &Run, current: Option<u64>, device: &Device) -> Result<Option<StoredModel>, TrainError> {
    let best = run.best()?;
    if current == Some(best.generation) {
        return Ok(None);
    }
    run.load_model(best.generation, &best.model, &best.checksum, device).map(Some)
}

/// Plays one shard's games with `model`; `None` when stopped before they all finished.
///
/// # Errors
/// [`TrainError::Nn`] for a device this machine lacks; [`TrainError::SelfPlay`] when the
/// inference service could not start or its network panicked.
pub fn play_shard(
    run: &Run,
    model: &StoredModel,
    endgame: Option<&endgame::Exact>,
    threads: usize,
    seed: u64,
    stop: &AtomicBool,
) -> Result<Option<PlayedShard>, TrainError> {
    // Played by the game's own engine, not through `AnyGame`: its positions are the game's
    // size, not a described game's 64 pits, so the search trees are smaller and faster.
    mancala_rules::with_concrete_game!(&run.game, game => play_shard_of(game, run, model, endgame, threads, seed, stop))
}

/// [`play_shard`] for the concrete game `game` (the run's).
fn play_shard_of<G: Game>(
    game: &G,
    run: &Run,
    model: &StoredModel,
    endgame: Option<&endgame::Exact>,
    threads: usize,
    seed: u64,
    stop: &AtomicBool,
) -> Result<Option<PlayedShard>, TrainError> {
    let sp = &run.config.selfplay;
    let mut config = sp.clone();
    config.threads = threads.max(1);
    let search = run.config.search_config(sp.simulations);
    let device = mancala_nn::inference_device(run.config.network.device.as_str())?;
    // The database always answers the search's leaves; it ends games only when asked to.
    // (Never with a scored database: validation refuses `adjudicate` with `ends = "own"`.)
    let adjudicator = endgame.filter(|_| run.config.endgame.adjudicate).map(|e| &*e.tablebase);
    let precision = run.config.network.inference_precision;
    // One evaluation cache for all of the shard's threads (direct inference).
    let cache = Arc::new(mancala_mcts::evaluator::EvalCache::new(16));
    let out = match sp.inference {
        Inference::Direct => play_games(
            game,
            &config,
            &search,
            adjudicator,
            sp.games_per_shard,
            seed,
            |_| {
                let net = NeuralEvaluator::new(game, model.net.clone(), device.clone()).with_precision(precision);
                let net = net.with_margin_utility(search.margin_utility);
                endgame::leaves(
                    game,
                    endgame,
                    search.margin_utility,
                    mancala_mcts::CachedEvaluator::sharing(net, Arc::clone(&cache)),
                )
            },
            &|_| {},
            stop,
        ),
        // One service for all of this worker's threads, owning the only copy of the network
        // on the device; it ends with the shard, so a new model never meets an old service.
        Inference::Service => {
            play_games_served(
                game,
                &config,
                &search,
                adjudicator,
                sp.games_per_shard,
                seed,
                endgame::leaves(
                    game,
                    endgame,
                    search.margin_utility,
                    NeuralEvaluator::new(game, model.net.clone(), device)
                        .with_precision(precision)
                        .with_margin_utility(search.margin_utility),
                ),
                16,
                &|_| {},
                stop,
            )?
            // Its thread could not start, or the network panicked in it: the worker's error,
            // which ends the run as a panic in a search thread of the direct path does.
            .0
        }
    };
    if out.games.len() < sp.games_per_shard {
        return Ok(None);
    }
    let rows: Vec<_> = out.games.iter().flat_map(|g| g.rows.iter().cloned()).collect();
    let header = ShardHeader {
        rules: game.rules_string(),
        inputs: mancala_encoding::layout(game).inputs(),
        actions: game.action_space(),
        rows: rows.len(),
        games: out.games.len(),
        iteration: model.generation,
    };
    Ok(Some(PlayedShard {
        bytes: shard_bytes(&header, &rows),
        games: out.games.len(),
        positions: out.moves,
        cache: cache.stats(),
    }))
}

/// Stores a shard under the worker's id and sequence number, once.
///
/// # Errors
/// A store error.
pub fn upload_shard(run: &Run, id: &str, sequence: u64, bytes: &[u8]) -> Result<(String, Created), TrainError> {
    let key = layout::shard_key(id, sequence);
    let created = run.store.create(&key, bytes)?;
    Ok((key, created))
}

/// The worker's loop, until the run is finished, `max_shards` are stored or it is told to
/// stop. Store errors that may pass are retried with backoff; a corrupt model is reported
/// and the worker keeps playing with the one it has.
///
/// # Errors
/// A store error a retry cannot mend, or no usable model at all.
pub fn run_worker(run: &Run, opts: &WorkerOptions, ctl: &Ctl) -> Result<WorkerReport, TrainError> {
    layout::check_worker_id(&opts.id).map_err(TrainError::Run)?;
    let role = format!("worker {}", opts.id);
    let device = mancala_nn::inference_device(run.config.network.device.as_str())?;
    let mut sequence = ctl.retry(&role, || next_sequence(run, &opts.id))?;
    let endgame = endgame::database(&run.config, &run.game)?;
    if let Some(built) = &endgame
        && built.seconds > 0.0
    {
        ctl.reporter.line(&format!(
            "{role}: endgame database of at most {} seeds built in {:.1} s ({} positions{})",
            built.tablebase.max_seeds(),
            built.seconds,
            built.tablebase.values().len(),
            if built.scored.is_some() { ", and its values by the game's own end" } else { "" }
        ));
    }
    let endgame = endgame.map(|built| built.exact());
    let mut model: Option<StoredModel> = None;
    let mut report = WorkerReport::default();
    let mut lead = Lead::default();
    let started = Instant::now();
    let mut beat = WorkerBeat { id: opts.id.clone(), threads: opts.threads, ..WorkerBeat::default() };
    loop {
        match ctl.retry(&role, || poll_best(run, model.as_ref().map(|m| m.generation), &device)) {
            Ok(Some(m)) => {
                ctl.reporter.line(&format!("{role}: playing with generation {}", m.generation));
                report.model_generation = m.generation;
                model = Some(m);
            }
            Ok(None) => {}
            Err(e) if model.is_some() && !ctl.stopped() => {
                ctl.reporter.line(&format!("warning: {role}: {e}; keeping generation {}", report.model_generation));
            }
            Err(e) => return Err(e),
        }
        let finished = ctl.retry(&role, || run.info())?.finished;
        if finished || ctl.stopped() || opts.max_shards.is_some_and(|n| report.stored.len() as u64 >= n) {
            beat.model_generation = report.model_generation;
            beat.time = layout::now();
            let _ = run.store.put(&layout::worker_key(&opts.id), &crate::run::json(&beat));
            return Ok(report);
        }
        if ctl.retry(&role, || lead.shards_ahead(run, &opts.id))? >= max_ahead(run) {
            ctl.idle();
            continue;
        }
        // The poll above returned an error unless a model is loaded.
        let Some(m) = model.as_ref() else { continue };
        let seed = mancala_rules::hash::mix64(
            run.config.run.seed ^ mancala_rules::hash::mix64(sequence) ^ mancala_container::fnv1a64(opts.id.as_bytes()),
        );
        let Some(shard) = play_shard(run, m, endgame.as_ref(), opts.threads, seed, &ctl.stop)? else {
            continue;
        };
        let (key, created) = ctl.retry(&role, || upload_shard(run, &opts.id, sequence, &shard.bytes))?;
        sequence += 1;
        if created == Created::Existed {
            // Another process with this id stored it first; ours is dropped, not counted.
            ctl.reporter
                .line(&format!("warning: {role}: {key} already exists; is another worker using id '{}'?", opts.id));
            continue;
        }
        report.stored.push(key.clone());
        report.games += shard.games as u64;
        report.positions += shard.positions as u64;
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        beat = WorkerBeat {
            id: opts.id.clone(),
            threads: opts.threads,
            time: layout::now(),
            shards: report.stored.len() as u64,
            games: report.games,
            positions: report.positions,
            games_per_s: report.games as f64 / secs,
            positions_per_s: report.positions as f64 / secs,
            model_generation: m.generation,
            last_shard: key,
            cache_hit_rate: shard.cache.hit_rate(),
        };
        if let Err(e) = run.store.put(&layout::worker_key(&opts.id), &crate::run::json(&beat)) {
            ctl.reporter.line(&format!("warning: {role}: heartbeat: {e}"));
        }
    }
}
