//! `mancala-zero status`: what a run is doing, read from its store alone.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::error::TrainError;
use crate::layout::{self, BestPointer, Candidate, Decision, EvalRecord, GatingRecord, RunInfo, WorkerBeat};
use crate::run::Run;

/// Workers not heard from for this long are listed as gone.
pub const RECENT_SECONDS: f64 = 300.0;

#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub url: String,
    pub info: RunInfo,
    /// The newest candidate: generation, step, trainer time, shards and rows ingested.
    pub generation: u64,
    pub step: u64,
    pub trainer_minutes: f64,
    pub window_rows: f64,
    pub shards_ingested: usize,
    pub shards_skipped: usize,
    pub rows_ingested: u64,
    pub games_ingested: u64,
    /// Shards and rows ingested a second over the last candidates (up to 5).
    pub shards_per_s: f64,
    pub rows_per_s: f64,
    pub shards_stored: usize,
    pub best: BestPointer,
    pub gated: usize,
    pub promotions: usize,
    /// The newest evaluation: its generation and Elo by reference.
    pub evaluated: Option<u64>,
    pub elo: BTreeMap<String, f64>,
    /// Every worker with a heartbeat, and seconds since it beat.
    pub workers: Vec<(WorkerBeat, f64)>,
}

/// Reads the run's state from its records.
///
/// # Errors
/// A store error or a corrupt record, naming the object.
pub fn status(run: &Run) -> Result<Status, TrainError> {
    let info = run.info()?;
    let gens = run.generations(layout::CANDIDATES)?;
    let newest: Candidate = run.read(&layout::candidate_key(gens.last().copied().unwrap_or(0)))?;
    let (mut shards_per_s, mut rows_per_s) = (0.0, 0.0);
    if gens.len() >= 3 {
        let back = gens[gens.len().saturating_sub(6).max(1)];
        let older: Candidate = run.read(&layout::candidate_key(back))?;
        let dt = (newest.published - older.published).max(1e-9);
        shards_per_s = (newest.ingested.len() - older.ingested.len().min(newest.ingested.len())) as f64 / dt;
        rows_per_s = newest.rows_ingested.saturating_sub(older.rows_ingested) as f64 / dt;
    }
    let (mut gated, mut promotions) = (0, 0);
    for g in run.generations(layout::GATING)? {
        let r: GatingRecord = run.read(&layout::gating_key(g))?;
        gated += usize::from(r.decision != Decision::Superseded);
        promotions += usize::from(r.decision == Decision::Promoted);
    }
    let evaluated = run.generations(layout::EVAL)?.last().copied();
    let elo = match evaluated {
        Some(g) => run.read::<EvalRecord>(&layout::eval_key(g))?.elo,
        None => BTreeMap::new(),
    };
    let now = layout::now();
    let mut workers = Vec::new();
    for e in run.store.list(layout::WORKERS)? {
        let beat: WorkerBeat = run.read(&e.key)?;
        let age = now - beat.time;
        workers.push((beat, age));
    }
    Ok(Status {
        url: run.store.url().to_string(),
        generation: newest.generation,
        step: newest.step,
        trainer_minutes: newest.elapsed_seconds / 60.0,
        window_rows: newest.scalars.get("replay/window_rows").copied().unwrap_or(0.0),
        shards_ingested: newest.ingested.len(),
        shards_skipped: newest.skipped.len(),
        rows_ingested: newest.rows_ingested,
        games_ingested: newest.games_ingested,
        shards_per_s,
        rows_per_s,
        shards_stored: run.store.list(layout::SHARDS)?.len(),
        best: run.best()?,
        gated,
        promotions,
        evaluated,
        elo,
        workers,
        info,
    })
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.info;
        writeln!(f, "run {}: {}", self.url, i.rules)?;
        writeln!(
            f,
            "  {}; limits {} candidates, {} minutes",
            if i.finished { "finished" } else { "running or resumable" },
            i.iterations,
            if i.max_minutes > 0.0 { format!("{:.1}", i.max_minutes) } else { "no limit on".into() }
        )?;
        writeln!(
            f,
            "trainer: candidate {} at step {}, {:.1} minutes; window {:.0} rows",
            self.generation, self.step, self.trainer_minutes, self.window_rows
        )?;
        writeln!(
            f,
            "  ingested {} shards ({} games, {} rows; {} skipped) of {} stored; {:.2} shards/s, {:.0} rows/s lately",
            self.shards_ingested,
            self.games_ingested,
            self.rows_ingested,
            self.shards_skipped,
            self.shards_stored,
            self.shards_per_s,
            self.rows_per_s
        )?;
        writeln!(
            f,
            "best: generation {} ({}); {} gated, {} promoted",
            self.best.generation, self.best.model, self.gated, self.promotions
        )?;
        match self.evaluated {
            Some(g) => {
                let elo: Vec<String> = self.elo.iter().map(|(r, e)| format!("{r} {e:+.0}")).collect();
                writeln!(f, "elo of generation {g}: {}", elo.join(", "))?;
            }
            None => writeln!(f, "elo: not measured yet")?,
        }
        let recent: Vec<_> = self.workers.iter().filter(|(_, age)| *age <= RECENT_SECONDS).collect();
        writeln!(f, "workers seen in the last {} minutes: {}", RECENT_SECONDS / 60.0, recent.len())?;
        for (w, age) in &self.workers {
            writeln!(
                f,
                "  {:<16} {:>4} shards {:>6} games {:>6.2} games/s {:>7.0} positions/s  generation {:<4} {:.0} s ago{}",
                w.id,
                w.shards,
                w.games,
                w.games_per_s,
                w.positions_per_s,
                w.model_generation,
                age,
                if *age > RECENT_SECONDS { " (gone)" } else { "" }
            )?;
        }
        Ok(())
    }
}
