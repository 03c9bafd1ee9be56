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
/// # Errors
/// The first role's failure (the others are stopped first).
pub fn train(run: &Run, options: &TrainOptions, reporter: &dyn Reporter) -> Result<Summary, TrainError> {
    let ctl = || {
        let mut c = Ctl::new(reporter);
        c.poll = options.poll;
        c
    };
    let (workers_ctl, trainer_ctl, gate_ctl, eval_ctl) = (ctl(), ctl(), ctl(), ctl());
    let all = [&workers_ctl, &trainer_ctl, &gate_ctl, &eval_ctl];
    let mut metrics = MetricsView::new(run, options.tensorboard.as_deref());
    let result = std::thread::scope(|s| {
        let workers: Vec<_> = (1..=options.workers)
            .map(|k| {
                let opts = WorkerOptions { id: format!("local-{k}"), threads: 1, max_shards: None };
                let ctl = &workers_ctl;
                std::thread::Builder::new()
                    .name(format!("worker-{k}"))
                    .spawn_scoped(s, move || run_worker(run, &opts, ctl))
                    .expect("a thread can be spawned")
            })
            .collect();
        let trainer = std::thread::Builder::new()
            .name("trainer".into())
            .spawn_scoped(s, || run_trainer(run, &trainer_ctl))
            .expect("thread");
        let gatekeeper = std::thread::Builder::new()
            .name("gatekeeper".into())
            .spawn_scoped(s, || run_gatekeeper(run, &gate_ctl))
            .expect("thread");
        let evaluator = std::thread::Builder::new()
            .name("evaluator".into())
            .spawn_scoped(s, || run_evaluator(run, &eval_ctl))
            .expect("thread");

        let stop_all = || all.iter().for_each(|c| c.stop.store(true, Ordering::Relaxed));
        let mut first_error: Option<TrainError> = None;
        let note = |e: TrainError, first: &mut Option<TrainError>| {
            stop_all();
            first.get_or_insert(e);
        };
        let mut last_refresh = Instant::now();
        let mut refresh = |metrics: &mut MetricsView, force: bool| {
            if force || last_refresh.elapsed() >= Duration::from_secs(2) {
                if let Err(e) = metrics.refresh(run) {
                    reporter.line(&format!("warning: metrics: {e}"));
                }
                for w in metrics.warnings.drain(..) {
                    reporter.line(&format!("warning: {w}"));
                }
                last_refresh = Instant::now();
            }
        };
        // The trainer decides when the run ends.
        while !trainer.is_finished() {
            if workers.iter().any(|w| w.is_finished()) || gatekeeper.is_finished() || evaluator.is_finished() {
                break; // a role failed early: stop the others below
            }
            refresh(&mut metrics, false);
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut finished = false;
        if trainer.is_finished() {
            match trainer.join().expect("the trainer does not panic") {
                Ok(TrainerEnd::Done) => finished = true,
                Ok(TrainerEnd::Stopped) => {}
                Err(e) => note(e, &mut first_error),
            }
        } else {
            stop_all();
            match trainer.join().expect("the trainer does not panic") {
                Ok(_) => {}
                Err(e) => note(e, &mut first_error),
            }
        }
        gate_ctl.drain.store(true, Ordering::Relaxed);
        while !gatekeeper.is_finished() {
            refresh(&mut metrics, false);
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Err(e) = gatekeeper.join().expect("the gatekeeper does not panic") {
            note(e, &mut first_error);
        }
        eval_ctl.drain.store(true, Ordering::Relaxed);
        while !evaluator.is_finished() {
            refresh(&mut metrics, false);
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Err(e) = evaluator.join().expect("the evaluator does not panic") {
            note(e, &mut first_error);
        }
        if finished && first_error.is_none() {
            // Remote workers stop when they see this; the local ones are stopped now.
            match run.info() {
                Ok(mut info) => {
                    info.finished = true;
                    if let Err(e) = run.write_info(&info) {
                        note(e, &mut first_error);
                    }
                }
                Err(e) => note(e, &mut first_error),
            }
        }
        workers_ctl.stop.store(true, Ordering::Relaxed);
        let mut reports = Vec::new();
        for w in workers {
            match w.join().expect("a worker does not panic") {
                Ok(r) => reports.push(r),
                Err(e) => note(e, &mut first_error),
            }
        }
        refresh(&mut metrics, true);
        match first_error {
            Some(e) => Err(e),
            None => Ok((reports, finished)),
        }
    });
    let (workers, finished) = result?;
    let mut summary = summarise(run)?;
    summary.workers = workers;
    summary.finished = finished;
    Ok(summary)
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
    let (mut elo, mut endgame) = (BTreeMap::new(), None);
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
        elo = r.elo;
    }
    Ok(Summary {
        iterations: run.newest_candidate()?.generation,
        best_iteration: best.generation,
        promotions,
        elo,
        endgame,
        workers: Vec::new(),
        finished: run.info()?.finished,
    })
}
