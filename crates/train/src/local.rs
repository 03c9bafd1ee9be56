//! `mancala-zero train`: every role of a run on this machine, as threads of one process
//! (self-play workers `local-1..N`, trainer, gatekeeper, evaluator), with the metrics view
//! kept up to date. With no local workers it serves a fleet of remote ones.
//!
//! The run ends when the trainer reaches its limits: the gatekeeper then decides on the
//! candidates still waiting, the evaluator measures the final best, the local workers stop,
//! and `run.json` is marked finished so remote workers stop too.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

use mancala_store::Store;

use crate::error::TrainError;
use crate::layout::{self, Decision, EvalRecord, GatingRecord};
use crate::metrics::MetricsView;
use crate::roles::evaluator::run_evaluator;
use crate::roles::gatekeeper::run_gatekeeper;
use crate::roles::trainer::{TrainerEnd, run_trainer};
use crate::roles::worker::{WorkerOptions, WorkerReport, run_worker};
use crate::roles::{Ctl, Reporter};
use crate::run::Run;

/// How `train` runs the roles.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Self-play worker threads in this process (0: only remote workers feed the run).
    pub workers: usize,
    /// A local folder for TensorBoard event files (`None`: off).
    pub tensorboard: Option<PathBuf>,
    /// How long an idle role waits before it looks at the store again.
    pub poll: Duration,
}

/// Limits given on resume, on top of what the run has done.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extend {
    /// This many more candidates.
    pub iterations: Option<u64>,
    /// This many more minutes of trainer time.
    pub minutes: Option<f64>,
}

/// How a training session ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Candidates published (generations).
    pub iterations: u64,
    pub best_iteration: u64,
    pub promotions: u64,
    /// The last Elo against each reference (difference, best model minus reference).
    pub elo: BTreeMap<String, f64>,
    /// The last endgame accuracy, when a database referees.
    pub endgame: Option<mancala_tablebase::EndgameAccuracy>,
    /// The last best-move share judged by the game's own end, and on how many positions, when
    /// the run plays to it (`endgame.ends = "own"`) and a database referees.
    pub endgame_own: Option<(f64, usize)>,
    /// What each local worker did.
    pub workers: Vec<WorkerReport>,
    /// Whether the run reached its limits (not stopped early).
    pub finished: bool,
}

/// Creates a run in `store` from `config_text` and trains it.
///
/// # Errors
/// A bad config, a store that already holds a run, or any role's failure.
pub fn start(
    store: Store,
    config_text: &str,
    options: &TrainOptions,
    reporter: &dyn Reporter,
) -> Result<Summary, TrainError> {
    let run = Run::create(store, config_text)?;
    train(&run, options, reporter)
}

/// Continues the run in `store`, with its limits extended when asked.
///
/// # Errors
/// No run there, another store format, or any role's failure.
pub fn resume(
    store: Store,
    extend: Extend,
    options: &TrainOptions,
    reporter: &dyn Reporter,
) -> Result<Summary, TrainError> {
    let run = Run::open(store)?;
    let mut info = run.info()?;
    let newest = run.newest_candidate()?;
    if let Some(n) = extend.iterations {
        info.iterations = newest.generation + n;
        info.finished = false;
    }
    if let Some(m) = extend.minutes {
        if !(m >= 0.0 && m.is_finite()) {
            return Err(TrainError::Config(format!("--minutes {m}: expected 0 or more")));
        }
        info.max_minutes = newest.elapsed_seconds / 60.0 + m;
        info.finished = false;
    }
    run.write_info(&info)?;
    reporter.line(&format!(
        "resuming {} after candidate {} (limits: {} candidates, {:.1} minutes)",
        run.store.url(),
        newest.generation,
        info.iterations,
        info.max_minutes
    ));
    train(&run, options, reporter)
}

/// Runs every role of `run` until it ends; returns when all have stopped.
///
/// A role that fails or panics ends the session: the others are told to stop, each is
/// joined, and the first failure is returned. Nothing stored is touched, so `--resume`
/// continues from the last candidate.
///
/// # Errors
/// The first role's failure (the others are stopped first), a panic as
/// [`TrainError::Panicked`] naming the role.
pub fn train(run: &Run, options: &TrainOptions, reporter: &dyn Reporter) -> Result<Summary, TrainError> {
    let controls = Controls::new(reporter, options.poll);
    let mut watch = Watch::new(run, options, reporter);
    let (workers, finished) = std::thread::scope(|s| {
        let roles = spawn_roles(s, run, options.workers, &controls)?;
        watch.until_trainer_ends_or_a_role_fails(&roles);
        let mut ending = Ending::default();
        let finished = wind_down(run, roles, &controls, &mut watch, &mut ending);
        ending.into_result(finished)
    })?;
    let mut summary = summarise(run)?;
    summary.workers = workers;
    summary.finished = finished;
    Ok(summary)
}

/// What each role is told: one `Ctl` for all workers, one for each other role.
struct Controls<'a> {
    workers: Ctl<'a>,
    trainer: Ctl<'a>,
    gatekeeper: Ctl<'a>,
    evaluator: Ctl<'a>,
}

impl<'a> Controls<'a> {
    fn new(reporter: &'a dyn Reporter, poll: Duration) -> Self {
        let ctl = || {
            let mut c = Ctl::new(reporter);
            c.poll = poll;
            c
        };
        Controls { workers: ctl(), trainer: ctl(), gatekeeper: ctl(), evaluator: ctl() }
    }

    fn stop_all(&self) {
        for c in [&self.workers, &self.trainer, &self.gatekeeper, &self.evaluator] {
            c.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// The role threads of a session.
struct Roles<'scope> {
    workers: Vec<ScopedJoinHandle<'scope, Result<WorkerReport, TrainError>>>,
    trainer: ScopedJoinHandle<'scope, Result<TrainerEnd, TrainError>>,
    gatekeeper: ScopedJoinHandle<'scope, Result<(), TrainError>>,
    evaluator: ScopedJoinHandle<'scope, Result<(), TrainError>>,
}

impl Roles<'_> {
    /// Whether a role other than the trainer has ended: it failed, since they all run
    /// until told to stop.
    fn one_ended_early(&self) -> bool {
        self.workers.iter().any(|w| w.is_finished()) || self.gatekeeper.is_finished() || self.evaluator.is_finished()
    }
}

/// Starts the local workers, the trainer, the gatekeeper and the evaluator.
///
/// # Errors
/// [`TrainError::Run`] when a thread cannot be started (those already started are stopped).
fn spawn_roles<'scope, 'env>(
    s: &'scope std::thread::Scope<'scope, 'env>,
    run: &'env Run,
    workers: usize,
    controls: &'env Controls<'env>,
) -> Result<Roles<'scope>, TrainError> {
    let failed = |name: &str, e: std::io::Error| {
        controls.stop_all();
        TrainError::Run(format!("cannot start the {name} thread: {e}"))
    };
    let mut worker_threads = Vec::with_capacity(workers);
    for k in 1..=workers {
        let opts = WorkerOptions { id: format!("local-{k}"), threads: 1, max_shards: None };
        let ctl = &controls.workers;
        let thread = std::thread::Builder::new()
            .name(format!("worker-{k}"))
            .spawn_scoped(s, move || run_worker(run, &opts, ctl))
            .map_err(|e| failed("worker", e))?;
        worker_threads.push(thread);
    }
    let trainer = std::thread::Builder::new()
        .name("trainer".into())
        .spawn_scoped(s, || run_trainer(run, &controls.trainer))
        .map_err(|e| failed("trainer", e))?;
    let gatekeeper = std::thread::Builder::new()
        .name("gatekeeper".into())
        .spawn_scoped(s, || run_gatekeeper(run, &controls.gatekeeper))
        .map_err(|e| failed("gatekeeper", e))?;
    let evaluator = std::thread::Builder::new()
        .name("evaluator".into())
        .spawn_scoped(s, || run_evaluator(run, &controls.evaluator))
        .map_err(|e| failed("evaluator", e))?;
    Ok(Roles { workers: worker_threads, trainer, gatekeeper, evaluator })
}

/// The metrics view, refreshed while the roles run.
struct Watch<'a> {
    run: &'a Run,
    metrics: MetricsView,
    reporter: &'a dyn Reporter,
    last_refresh: Instant,
}

impl<'a> Watch<'a> {
    fn new(run: &'a Run, options: &TrainOptions, reporter: &'a dyn Reporter) -> Self {
        Watch {
            run,
            metrics: MetricsView::new(run, options.tensorboard.as_deref()),
            reporter,
            last_refresh: Instant::now(),
        }
    }

    /// Brings the metrics up to date, every 2 s or now when `force`d.
    fn refresh(&mut self, force: bool) {
        if !force && self.last_refresh.elapsed() < Duration::from_secs(2) {
            return;
        }
        if let Err(e) = self.metrics.refresh(self.run) {
            self.reporter.line(&format!("warning: metrics: {e}"));
        }
        for w in self.metrics.warnings.drain(..) {
            self.reporter.line(&format!("warning: {w}"));
        }
        self.last_refresh = Instant::now();
    }

    /// Refreshes the metrics until `done` says so.
    fn wait(&mut self, done: impl Fn() -> bool) {
        while !done() {
            self.refresh(false);
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The trainer decides when the run ends; any other role ending first has failed.
    fn until_trainer_ends_or_a_role_fails(&mut self, roles: &Roles) {
        self.wait(|| roles.trainer.is_finished() || roles.one_ended_early());
    }
}

/// The first failure of a session, and the workers' reports.
#[derive(Default)]
struct Ending {
    first_error: Option<TrainError>,
    reports: Vec<WorkerReport>,
}

impl Ending {
    /// Keeps the first failure; the caller has stopped (or stops) the other roles.
    fn note(&mut self, e: TrainError) {
        self.first_error.get_or_insert(e);
    }

    fn into_result(self, finished: bool) -> Result<(Vec<WorkerReport>, bool), TrainError> {
        match self.first_error {
            Some(e) => Err(e),
            None => Ok((self.reports, finished)),
        }
    }
}

/// Joins a role's thread; a panic becomes [`TrainError::Panicked`] naming the role.
fn join_role<T>(thread: ScopedJoinHandle<'_, Result<T, TrainError>>, role: &str) -> Result<T, TrainError> {
    thread.join().unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|m| m.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(TrainError::Panicked { role: role.to_string(), message })
    })
}

/// Ends the session in the order that keeps every finished piece: the trainer stops (or has
/// reached the run's limits), the gatekeeper decides the candidates still waiting, the
/// evaluator measures the final best, `run.json` is marked finished when the limits were
/// reached, then the workers stop. After a failure every role is stopped instead of drained.
/// Returns whether the run reached its limits.
fn wind_down(run: &Run, roles: Roles, controls: &Controls, watch: &mut Watch, ending: &mut Ending) -> bool {
    let Roles { workers, trainer, gatekeeper, evaluator } = roles;
    let fail = |e: TrainError, ending: &mut Ending| {
        controls.stop_all();
        ending.note(e);
    };
    if !trainer.is_finished() {
        controls.stop_all();
    }
    let finished = match join_role(trainer, "trainer") {
        Ok(end) => end == TrainerEnd::Done,
        Err(e) => {
            fail(e, ending);
            false
        }
    };
    controls.gatekeeper.drain.store(true, Ordering::Relaxed);
    watch.wait(|| gatekeeper.is_finished());
    if let Err(e) = join_role(gatekeeper, "gatekeeper") {
        fail(e, ending);
    }
    controls.evaluator.drain.store(true, Ordering::Relaxed);
    watch.wait(|| evaluator.is_finished());
    if let Err(e) = join_role(evaluator, "evaluator") {
        fail(e, ending);
    }
    let finished = finished && ending.first_error.is_none();
    if finished {
        // Remote workers stop when they see this; the local ones are stopped now.
        if let Err(e) = mark_finished(run) {
            fail(e, ending);
        }
    }
    controls.workers.stop.store(true, Ordering::Relaxed);
    for (k, w) in workers.into_iter().enumerate() {
        match join_role(w, &format!("worker local-{}", k + 1)) {
            Ok(r) => ending.reports.push(r),
            Err(e) => fail(e, ending),
        }
    }
    watch.refresh(true);
    finished && ending.first_error.is_none()
}

/// Marks `run.json` finished.
///
/// # Errors
/// A store error.
fn mark_finished(run: &Run) -> Result<(), TrainError> {
    let mut info = run.info()?;
    info.finished = true;
    run.write_info(&info)
}

/// What the run's records say: generations, best, promotions, the newest Elo.
///
/// # Errors
/// A store error or a corrupt record.
pub fn summarise(run: &Run) -> Result<Summary, TrainError> {
    let best = run.best()?;
    let mut promotions = 0;
    for g in run.generations(layout::GATING)? {
        let r: GatingRecord = run.read(&layout::gating_key(g))?;
        promotions += u64::from(r.decision == Decision::Promoted);
    }
    let (mut elo, mut endgame, mut endgame_own) = (BTreeMap::new(), None, None);
    if let Some(g) = run.generations(layout::EVAL)?.last() {
        let r: EvalRecord = run.read(&layout::eval_key(*g))?;
        if let (Some(v), Some(b), Some(p)) = (
            r.scalars.get("endgame/value_sign"),
            r.scalars.get("endgame/best_move"),
            r.scalars.get("endgame/positions"),
        ) {
            // Records of runs before these two figures read 0 for them.
            let figure = |key: &str| r.scalars.get(key).copied().unwrap_or(0.0);
            endgame = Some(mancala_tablebase::EndgameAccuracy {
                positions: *p as usize,
                value_sign: *v,
                best_move: *b,
                result_kept: figure("endgame/result_kept"),
                seeds_given: figure("endgame/seeds_given"),
            });
        }
        if let (Some(b), Some(p)) = (r.scalars.get("endgame/best_move_own"), r.scalars.get("endgame/positions_own")) {
            endgame_own = Some((*b, *p as usize));
        }
        elo = r.elo;
    }
    Ok(Summary {
        iterations: run.newest_candidate()?.generation,
        best_iteration: best.generation,
        promotions,
        elo,
        endgame,
        endgame_own,
        workers: Vec::new(),
        finished: run.info()?.finished,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_that_panics_is_an_error_naming_it() {
        let result: Result<(), TrainError> = std::thread::scope(|s| {
            let thread = s.spawn(|| -> Result<(), TrainError> { panic!("the network broke at step {}", 3) });
            join_role(thread, "trainer")
        });
        let err = result.unwrap_err();
        assert!(matches!(err, TrainError::Panicked { .. }), "{err}");
        assert_eq!(err.to_string(), "the trainer stopped on a panic: the network broke at step 3");
        let result: Result<(), TrainError> = std::thread::scope(|s| {
            let thread = s.spawn(|| -> Result<(), TrainError> { std::panic::panic_any(7u8) });
            join_role(thread, "worker local-1")
        });
        assert_eq!(result.unwrap_err().to_string(), "the worker local-1 stopped on a panic: no message");
    }

    #[test]
    fn a_role_that_fails_keeps_its_error() {
        let result: Result<u8, TrainError> = std::thread::scope(|s| {
            let thread = s.spawn(|| -> Result<u8, TrainError> { Err(TrainError::Run("gone".into())) });
            join_role(thread, "evaluator")
        });
        assert_eq!(result.unwrap_err().to_string(), "gone");
    }
}
