//! The trainer: ingests shards as they arrive into the replay window, trains at a fixed
//! ratio of samples trained to samples generated (`training.samples_per_row`, KataGo's cap
//! on training per new data: a slow fleet does not overfit, a fast one does not waste games),
//! and publishes a candidate after each `selfplay.games_per_iteration` new games.
//!
//! Its state is the newest candidate record: the model and optimiser it names and the list
//! of shards ingested. A restart loads them and rebuilds the window from those shards, so a
//! shard ingested after the last candidate is ingested again, and counted once.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Instant;

use mancala_encoding::Batch;
use mancala_nn::{Learner, ModelMeta, model_bytes};
use mancala_rules::Game;
use mancala_selfplay::window::push_row;
use mancala_selfplay::{ReplayWindow, Row, database_rows_with, parse_shard};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::Ctl;
use crate::error::TrainError;
use crate::layout::{self, Candidate};
use crate::run::Run;

/// Everything the trainer holds between candidates.
pub struct TrainerState {
    /// The last published candidate (the restart point).
    pub last: Candidate,
    pub learner: Learner,
    pub window: ReplayWindow,
    /// Shards ingested, in order, and the same as a set.
    pub ingested: Vec<String>,
    seen: HashSet<String>,
    pub skipped: Vec<String>,
    pub rows_ingested: u64,
    pub games_ingested: u64,
    /// Rows and games ingested since the last candidate.
    pub pending_rows: u64,
    pub pending_games: u64,
    rng: SmallRng,
    /// The run's endgame database when `endgame.feed` draws a share of each batch from it
    /// (the targets by the game's own end when the run plays to it).
    feed: Option<crate::endgame::Exact>,
    /// Trainer time of the sessions before this one (from the restored candidate).
    elapsed_before: f64,
    session_start: Instant,
    /// The run's limits as last read from `run.json`: candidates, and trainer seconds (0: none).
    pub limits: (u64, f64),
}

impl TrainerState {
    /// Trainer wall time over all sessions.
    pub fn elapsed_seconds(&self) -> f64 {
        self.elapsed_before + self.session_start.elapsed().as_secs_f64()
    }

    pub fn generation(&self) -> u64 {
        self.last.generation
    }

    /// How far the run is towards the nearer of its limits (see [`run_progress`]).
    pub fn run_progress(&self) -> f64 {
        run_progress(self.generation(), self.elapsed_seconds(), self.limits)
    }
}

/// How far a run that has published `generation` candidates in `elapsed_seconds` of trainer
/// time is towards the nearer of its `limits` (candidates, and seconds where above 0): 0 to 1,
/// more once past it.
pub fn run_progress(generation: u64, elapsed_seconds: f64, limits: (u64, f64)) -> f64 {
    let (iterations, budget) = limits;
    let by_candidates = generation as f64 / iterations.max(1) as f64;
    let by_time = if budget > 0.0 { elapsed_seconds / budget } else { 0.0 };
    by_candidates.max(by_time)
}

/// What one ingest pass found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ingested {
    pub shards: usize,
    pub rows: usize,
    pub games: usize,
    /// Shards that could not be used, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Reads an object of the trainer's restart state, checking it against the checksum in its name.
fn restart_object(run: &Run, key: &str) -> Result<Vec<u8>, TrainError> {
    let bytes = run.store.get(key)?;
    if !key.contains(&layout::checksum(&bytes)) {
        return Err(TrainError::Corrupt {
            object: run.store.describe(key),
            reason: "checksum does not match its name".into(),
        });
    }
    Ok(bytes)
}

/// Loads the newest candidate's model and optimiser and rebuilds the window from its shards.
///
/// # Errors
/// A store error, or a model or optimiser object that does not match its record.
pub fn restore(run: &Run, ctl: &Ctl) -> Result<TrainerState, TrainError> {
    let info = run.info()?;
    let last = run.newest_candidate()?;
    let config = &run.config;
    let net_config = config.net_config(&run.game);
    let plain = mancala_nn::inference_device(config.network.device.as_str())?;
    let stored = run.load_model(last.generation, &last.model, &last.checksum, &plain)?;
    if stored.meta.net != net_config {
        return Err(TrainError::Corrupt {
            object: run.store.describe(&last.model),
            reason: "its network is not the config's".into(),
        });
    }
    let device = mancala_nn::training_device(config.network.device.as_str())?;
    // With an average kept, the published model is the average and the learner goes on from
    // its own weights, stored beside the optimiser's state.
    let (weights, average_start) = if last.weights.is_empty() {
        (stored.net, None)
    } else {
        let bytes = restart_object(run, &last.weights)?;
        let name = std::path::PathBuf::from(run.store.describe(&last.weights));
        let (_, own) = mancala_nn::model_from_bytes(&name, &bytes, Some(&run.game.rules_string()), &plain)?;
        (own, Some(stored.net))
    };
    let mut learner = Learner::from_model(net_config, config.optim_config(), device, weights, last.step);
    learner.keep_average(config.training.average_steps, average_start.as_ref());
    if !last.optim.is_empty() {
        learner.load_optimizer_bytes(restart_object(run, &last.optim)?)?;
    }
    let mut window = ReplayWindow::new(config.window_size(last.generation));
    // Newest shards first until the window is full; then added oldest first.
    let mut loaded: Vec<Vec<Row>> = Vec::new();
    let mut rows = 0;
    for key in last.ingested.iter().rev() {
        if rows >= window.capacity() {
            break;
        }
        match read_shard(run, key) {
            Ok((r, _)) => {
                rows += r.len();
                loaded.push(r);
            }
            Err(e) => ctl.reporter.line(&format!("warning: trainer: skipping shard: {e}")),
        }
    }
    for r in loaded.into_iter().rev() {
        window.extend(r);
    }
    let rng = SmallRng::seed_from_u64(config.run.seed ^ last.generation.wrapping_mul(0x51_7cc1_b727_220a));
    let feed = if config.endgame.feed > 0.0 {
        let built = crate::endgame::database(config, &run.game)?
            .ok_or_else(|| TrainError::Config("endgame.feed needs endgame.seeds".into()))?;
        if built.seconds > 0.0 {
            ctl.reporter.line(&format!(
                "trainer: endgame database of at most {} seeds built in {:.1} s for the feed{}",
                built.tablebase.max_seeds(),
                built.seconds,
                if built.scored.is_some() { ", with its targets by the game's own end" } else { "" }
            ));
        }
        Some(built.exact())
    } else {
        None
    };
    Ok(TrainerState {
        seen: last.ingested.iter().chain(&last.skipped).cloned().collect(),
        ingested: last.ingested.clone(),
        skipped: last.skipped.clone(),
        rows_ingested: last.rows_ingested,
        games_ingested: last.games_ingested,
        pending_rows: 0,
        pending_games: 0,
        elapsed_before: last.elapsed_seconds,
        last,
        learner,
        window,
        rng,
        feed,
        session_start: Instant::now(),
        limits: (info.iterations, info.max_minutes * 60.0),
    })
}

/// A shard's rows and games; refused (by name) when its game or its rows' shape is not the
/// run's, which the network could not take.
fn read_shard(run: &Run, key: &str) -> Result<(Vec<Row>, usize), TrainError> {
    let bytes = run.store.get(key)?;
    let name = run.store.describe(key);
    let (header, rows) = parse_shard(Path::new(&name), &bytes, Some(&run.game.rules_string()))?;
    // The shape a worker of this run writes (see `worker::play_shard`).
    header.check_shape(Path::new(&name), mancala_encoding::layout(&run.game).inputs(), run.game.action_space())?;
    Ok((rows, header.games))
}

/// Adds every shard not seen before to the window, each exactly once; a shard that cannot
/// be read for good (corrupt, truncated, another game) is skipped with a warning and never
/// looked at again.
///
/// # Errors
/// A store error while listing or reading (a retry may mend it; nothing is counted).
pub fn ingest(run: &Run, state: &mut TrainerState) -> Result<Ingested, TrainError> {
    let mut found = Ingested::default();
    for entry in run.store.list(layout::SHARDS)? {
        if state.seen.contains(&entry.key) || layout::shard_of(&entry.key).is_none() {
            continue;
        }
        match read_shard(run, &entry.key) {
            Ok((rows, games)) => {
                found.shards += 1;
                found.rows += rows.len();
                found.games += games;
                state.window.extend(rows);
                state.ingested.push(entry.key.clone());
            }
            Err(e @ TrainError::Store(_)) => return Err(e),
            Err(e) => {
                state.skipped.push(entry.key.clone());
                found.skipped.push((entry.key.clone(), e.to_string()));
            }
        }
        state.seen.insert(entry.key);
    }
    state.rows_ingested += found.rows as u64;
    state.games_ingested += found.games as u64;
    state.pending_rows += found.rows as u64;
    state.pending_games += found.games as u64;
    Ok(found)
}

/// Whether enough new games arrived for the next candidate.
pub fn ready(run: &Run, state: &TrainerState) -> bool {
    state.pending_games >= run.config.selfplay.games_per_iteration as u64
}

/// Training steps for `new_rows` new rows: each is sampled about `samples_per_row` times,
/// within `[min_steps, max_steps]`.
pub fn steps_for(run: &Run, new_rows: u64) -> u64 {
    let t = &run.config.training;
    ((new_rows as f64 * t.samples_per_row / t.batch_size as f64).ceil() as u64).clamp(t.min_steps, t.max_steps)
}

/// Takes `steps` training steps on the window; `None` when stopped before the end (the
/// steps taken are dropped with the process, the restart point is the last candidate).
///
/// # Errors
/// [`TrainError::Run`] for an empty window or a loss that is not finite.
pub fn train(
    run: &Run,
    state: &mut TrainerState,
    steps: u64,
    ctl: &Ctl,
) -> Result<Option<BTreeMap<String, f64>>, TrainError> {
    let t = &run.config.training;
    if state.window.is_empty() {
        return Err(TrainError::Run("trainer: the replay window is empty; no shard could be read".into()));
    }
    // The feed's share of each batch; the rest comes from the window.
    let fed = if state.feed.is_some() { (t.batch_size as f64 * run.config.endgame.feed).round() as usize } else { 0 };
    take_steps(run, state, steps, fed, ctl)
}

/// Takes `endgame.pretrain_steps` steps on the endgame database alone (every row of every
/// batch drawn from it as the feed draws); `None` when stopped before the end (nothing was
/// published, so a restart pretrains again).
///
/// # Errors
/// [`TrainError::Run`] for a loss that is not finite.
pub fn pretrain(run: &Run, state: &mut TrainerState, ctl: &Ctl) -> Result<Option<BTreeMap<String, f64>>, TrainError> {
    let steps = run.config.endgame.pretrain_steps;
    if state.feed.is_none() {
        return Err(TrainError::Run("trainer: endgame.pretrain_steps needs the endgame feed's database".into()));
    }
    take_steps(run, state, steps, run.config.training.batch_size, ctl)
}

/// `steps` training steps with `fed` rows of each batch from the endgame feed and the rest
/// from the window.
fn take_steps(
    run: &Run,
    state: &mut TrainerState,
    steps: u64,
    fed: usize,
    ctl: &Ctl,
) -> Result<Option<BTreeMap<String, f64>>, TrainError> {
    let t = &run.config.training;
    let start = Instant::now();
    let mut batch = Batch::default();
    let lay = mancala_encoding::layout(&run.game);
    let mut sums = [0.0f64; 6];
    let mut lr = 0.0;
    for _ in 0..steps {
        if ctl.stopped() {
            return Ok(None);
        }
        state.learner.set_run_progress(state.run_progress());
        state.window.sample(t.batch_size - fed, t.value_from_search, &mut state.rng, &mut batch);
        if let Some(exact) = &state.feed {
            let draw = run.config.endgame.feed_draw.into();
            let seed = state.rng.random();
            // Positions drawn from the database, their targets from the run's exact values.
            for row in
                database_rows_with(&run.game, &lay, &exact.tablebase, fed, seed, draw, |p| exact.probe(&run.game, p))
            {
                // The database's rows carry the exact result as their root value too.
                push_row(&mut batch, &row, t.value_from_search);
            }
        }
        let l = state.learner.train_step(&batch);
        if !l.total.is_finite() {
            return Err(TrainError::Run(format!(
                "trainer: the loss is {} at step {}; lower training.learning_rate",
                l.total,
                state.learner.step()
            )));
        }
        for (acc, v) in sums.iter_mut().zip([l.policy, l.value, l.margin, l.total, l.policy_entropy, l.value_accuracy])
        {
            *acc += f64::from(v);
        }
        lr = l.learning_rate;
    }
    let n = steps.max(1) as f64;
    let mut s = BTreeMap::new();
    for (k, name) in ["policy", "value", "margin", "total"].iter().enumerate() {
        s.insert(format!("loss/{name}"), sums[k] / n);
    }
    s.insert("train/policy_entropy".into(), sums[4] / n);
    s.insert("train/value_accuracy".into(), sums[5] / n);
    s.insert("train/learning_rate".into(), lr);
    s.insert("train/steps".into(), steps as f64);
    s.insert("train/endgame_feed_rows".into(), fed as f64);
    s.insert("train/steps_per_s".into(), steps as f64 / start.elapsed().as_secs_f64().max(1e-9));
    Ok(Some(s))
}

/// Publishes the learner as the next candidate: the model and optimiser objects (named by
/// their checksums), then the candidate record that makes them visible.
///
/// # Errors
/// A store or serialisation error.
pub fn publish(
    run: &Run,
    state: &mut TrainerState,
    mut scalars: BTreeMap<String, f64>,
) -> Result<Candidate, TrainError> {
    let generation = state.last.generation + 1;
    let device = mancala_nn::inference_device(run.config.network.device.as_str())?;
    let mut meta = ModelMeta::new(run.game.rules_string(), state.learner.net_config.clone(), state.learner.step());
    meta.extra.insert("iteration".into(), generation.to_string());
    meta.extra.insert(mancala_nn::file::MARGIN_UTILITY_KEY.into(), run.config.search.margin_utility.to_string());
    let bytes = model_bytes(&meta, &state.learner.published_model(&device))?;
    let checksum = layout::checksum(&bytes);
    let model = layout::model_key(generation, &checksum);
    run.store.create(&model, &bytes)?;
    let weights = if state.learner.average().is_some() {
        let own = model_bytes(&meta, &state.learner.inference_model(&device))?;
        let key = layout::weights_key(generation, &layout::checksum(&own));
        run.store.create(&key, &own)?;
        key
    } else {
        String::new()
    };
    let optim_bytes = state.learner.optimizer_bytes()?;
    let optim = layout::optim_key(generation, &layout::checksum(&optim_bytes));
    run.store.create(&optim, &optim_bytes)?;
    scalars.insert("replay/window_rows".into(), state.window.len() as f64);
    scalars.insert("replay/rows_ingested".into(), state.rows_ingested as f64);
    scalars.insert("replay/games_ingested".into(), state.games_ingested as f64);
    scalars.insert("replay/shards_ingested".into(), state.ingested.len() as f64);
    scalars.insert("selfplay/rows".into(), state.pending_rows as f64);
    let candidate = Candidate {
        generation,
        model,
        checksum,
        optim,
        weights,
        step: state.learner.step(),
        elapsed_seconds: state.elapsed_seconds(),
        ingested: state.ingested.clone(),
        skipped: state.skipped.clone(),
        rows_ingested: state.rows_ingested,
        games_ingested: state.games_ingested,
        published: layout::now(),
        scalars,
    };
    run.create_json(&layout::candidate_key(generation), &candidate)?;
    let previous = std::mem::replace(&mut state.last, candidate.clone());
    // Only the newest candidate's optimiser state (and the learner's own weights, when the
    // model is their average) is ever read (it is the restart point), and it is twice the
    // model's size: kept for every candidate, an hour's run stored gigabytes of
    // them. It goes only once the new candidate is visible, so a kill at any moment leaves at
    // worst one object too many, never a restart point without its state; a failed delete
    // costs only space, so it does not fail the publication.
    for (old, new) in [(&previous.optim, &candidate.optim), (&previous.weights, &candidate.weights)] {
        if !old.is_empty() && old != new {
            let _ = run.store.delete(old);
        }
    }
    state.pending_rows = 0;
    state.pending_games = 0;
    state.window.set_capacity(run.config.window_size(generation));
    Ok(candidate)
}

/// The self-play rates of the workers heard from in the last minute, summed
/// (`selfplay/games_per_s`, `selfplay/positions_per_s`, `selfplay/workers`).
///
/// # Errors
/// A store error.
pub fn fleet_rates(run: &Run) -> Result<BTreeMap<String, f64>, TrainError> {
    let now = layout::now();
    let (mut workers, mut games, mut positions) = (0.0, 0.0, 0.0);
    for e in run.store.list(layout::WORKERS)? {
        let Ok(beat) = run.read::<layout::WorkerBeat>(&e.key) else {
            continue;
        };
        if now - beat.time <= 60.0 {
            workers += 1.0;
            games += beat.games_per_s;
            positions += beat.positions_per_s;
        }
    }
    Ok(BTreeMap::from([
        ("selfplay/workers".to_string(), workers),
        ("selfplay/games_per_s".to_string(), games),
        ("selfplay/positions_per_s".to_string(), positions),
    ]))
}

/// Why the trainer stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainerEnd {
    /// The run's limit (candidates or minutes) is reached.
    Done,
    /// It was told to stop.
    Stopped,
}

/// The trainer's loop: ingest, train when a generation's games are in, publish; until the
/// run's limits (read from `run.json`, so a resume can extend them) are reached.
///
/// # Errors
/// A store error a retry cannot mend, an empty window or a non-finite loss.
pub fn run_trainer(run: &Run, ctl: &Ctl) -> Result<TrainerEnd, TrainError> {
    let mut state = ctl.retry("trainer", || restore(run, ctl))?;
    if state.generation() == 0 && run.config.endgame.pretrain_steps > 0 {
        ctl.reporter.line(&format!(
            "trainer: {} steps on the endgame database before the first candidate",
            run.config.endgame.pretrain_steps
        ));
        let Some(mut scalars) = pretrain(run, &mut state, ctl)? else {
            return Ok(TrainerEnd::Stopped);
        };
        scalars.insert("train/pretrain".into(), 1.0);
        let c = ctl.retry("trainer", || publish(run, &mut state, scalars.clone()))?;
        ctl.reporter.line(&format!(
            "candidate {:>4} | step {:>6} | pretrained on the endgame database | {:.1} min",
            c.generation,
            c.step,
            c.elapsed_seconds / 60.0
        ));
    }
    loop {
        if ctl.stopped() {
            return Ok(TrainerEnd::Stopped);
        }
        let info = ctl.retry("trainer", || run.info())?;
        let budget = info.max_minutes * 60.0;
        state.limits = (info.iterations, budget);
        if state.generation() >= info.iterations || (budget > 0.0 && state.elapsed_seconds() >= budget) {
            return Ok(TrainerEnd::Done);
        }
        let found = ctl.retry("trainer", || ingest(run, &mut state))?;
        for (key, why) in &found.skipped {
            ctl.reporter.line(&format!("warning: trainer: skipping shard {}: {why}", run.store.describe(key)));
        }
        if !ready(run, &state) {
            ctl.idle();
            continue;
        }
        let steps = steps_for(run, state.pending_rows);
        let Some(mut scalars) = train(run, &mut state, steps, ctl)? else {
            return Ok(TrainerEnd::Stopped);
        };
        scalars.extend(ctl.retry("trainer", || fleet_rates(run))?);
        let c = ctl.retry("trainer", || publish(run, &mut state, scalars.clone()))?;
        let get = |k: &str| c.scalars.get(k).copied().unwrap_or(f64::NAN);
        ctl.reporter.line(&format!(
            "candidate {:>4} | step {:>6} | window {:>6} rows | {} shards, {} games | loss p {:.3} v {:.3} m {:.3} | vacc {:.2} | {:.1} min",
            c.generation,
            c.step,
            state.window.len(),
            c.ingested.len(),
            c.games_ingested,
            get("loss/policy"),
            get("loss/value"),
            get("loss/margin"),
            get("train/value_accuracy"),
            c.elapsed_seconds / 60.0,
        ));
    }
}
