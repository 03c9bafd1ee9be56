//! Metrics: `metrics.jsonl` and TensorBoard scalars, both derived from the run's immutable
//! records (candidates, gating decisions, evaluations), so a kill can neither lose a line nor
//! write one twice: the view is rebuilt whole and replaced.
//!
//! tensorboard-rs panics on I/O errors and loses queued events unless dropped, so: one
//! writer per session in its own folder, only scalars, a flush after every refresh, and any
//! panic inside it turns TensorBoard off with a warning instead of ending the run.

use std::collections::{BTreeMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use serde_json::Value;
use tensorboard_rs::summary_writer::SummaryWriter;

use crate::error::TrainError;
use crate::layout::{self, Candidate, Decision, EvalRecord, GatingRecord};
use crate::run::Run;

/// One line of the view: the generation, which record, and its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricLine {
    pub generation: u64,
    pub record: &'static str,
    pub scalars: BTreeMap<String, f64>,
}

impl MetricLine {
    fn to_json(&self) -> String {
        let mut line = serde_json::Map::new();
        line.insert("iteration".into(), self.generation.into());
        line.insert("record".into(), self.record.into());
        for (k, v) in &self.scalars {
            // JSON has no NaN: a figure that is not a number is left out.
            if v.is_finite() {
                line.insert(k.clone(), Value::from(*v));
            }
        }
        Value::Object(line).to_string()
    }
}

/// The metrics of one record (`candidates/`, `gating/` or `eval/`).
fn line_of(run: &Run, key: &str) -> Result<Option<MetricLine>, TrainError> {
    let Some(generation) = layout::generation_of(key) else {
        return Ok(None);
    };
    let line = if key.starts_with(layout::CANDIDATES) {
        if generation == 0 {
            return Ok(None);
        }
        let c: Candidate = run.read(key)?;
        let mut scalars = c.scalars;
        scalars.insert("train/step".into(), c.step as f64);
        scalars.insert("time/minutes".into(), c.elapsed_seconds / 60.0);
        MetricLine { generation, record: "candidate", scalars }
    } else if key.starts_with(layout::GATING) {
        let g: GatingRecord = run.read(key)?;
        if g.decision == Decision::Superseded {
            return Ok(None);
        }
        let mut scalars = BTreeMap::new();
        if g.games > 0 {
            scalars.insert("gating/score".into(), g.score);
        }
        scalars.insert("gating/promoted".into(), f64::from(u8::from(g.decision == Decision::Promoted)));
        scalars.insert("gating/against".into(), g.best as f64);
        MetricLine { generation, record: "gating", scalars }
    } else {
        let e: EvalRecord = run.read(key)?;
        MetricLine { generation, record: "eval", scalars: e.scalars }
    };
    Ok(Some(line))
}

/// Keeps `metrics.jsonl` (and TensorBoard, when on) in step with the records.
pub struct MetricsView {
    lines: BTreeMap<String, Option<MetricLine>>,
    tb: Option<SummaryWriter>,
    logged: HashSet<String>,
    written: String,
    /// Warnings to show once (a metrics failure is reported, never fatal).
    pub warnings: Vec<String>,
}

impl MetricsView {
    /// Starts a view; `tensorboard` is a local folder for event files. Lines already in
    /// `metrics.jsonl` are not sent to TensorBoard again.
    pub fn new(run: &Run, tensorboard: Option<&Path>) -> Self {
        let mut warnings = Vec::new();
        let written = run
            .store
            .get_opt(layout::METRICS)
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).to_string())
            .unwrap_or_default();
        let logged = written
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| Some(format!("{}/{}", v["record"].as_str()?, v["iteration"].as_u64()?)))
            .collect();
        let tb = tensorboard.and_then(|dir| {
            let made = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(".write-test"), b"ok"));
            if let Err(e) = made {
                warnings.push(format!("TensorBoard is off: cannot write {}: {e}", dir.display()));
                return None;
            }
            let _ = std::fs::remove_file(dir.join(".write-test"));
            // Two writers in the same second write the same file name: start in a new second.
            std::thread::sleep(std::time::Duration::from_millis(1100));
            let writer = catch_unwind(AssertUnwindSafe(|| SummaryWriter::new(dir))).ok();
            if writer.is_none() {
                warnings.push(format!("TensorBoard is off: its writer could not start in {}", dir.display()));
            }
            writer
        });
        MetricsView { lines: BTreeMap::new(), tb, logged, written, warnings }
    }

    /// Reads the records not seen yet and rewrites `metrics.jsonl` when it changed.
    ///
    /// # Errors
    /// A store error (a corrupt record is left out with a warning).
    pub fn refresh(&mut self, run: &Run) -> Result<(), TrainError> {
        let mut new = Vec::new();
        for folder in [layout::CANDIDATES, layout::GATING, layout::EVAL] {
            for entry in run.store.list(folder)? {
                if !entry.key.ends_with(".json") || self.lines.contains_key(&entry.key) {
                    continue;
                }
                match line_of(run, &entry.key) {
                    Ok(line) => {
                        new.extend(line.clone());
                        self.lines.insert(entry.key, line);
                    }
                    Err(e @ TrainError::Corrupt { .. }) => {
                        self.warnings.push(e.to_string());
                        self.lines.insert(entry.key, None);
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        self.log_tensorboard(&new);
        let mut all: Vec<&MetricLine> = self.lines.values().flatten().collect();
        let order = |r: &str| ["candidate", "gating", "eval"].iter().position(|x| *x == r).unwrap_or(3);
        all.sort_by_key(|l| (l.generation, order(l.record)));
        let text: String = all.iter().map(|l| l.to_json() + "\n").collect();
        if text != self.written {
            run.store.put(layout::METRICS, text.as_bytes())?;
            self.written = text;
        }
        Ok(())
    }

    fn log_tensorboard(&mut self, new: &[MetricLine]) {
        let Some(tb) = self.tb.as_mut() else { return };
        let logged = &mut self.logged;
        let ok = catch_unwind(AssertUnwindSafe(|| {
            for line in new {
                if !logged.insert(format!("{}/{}", line.record, line.generation)) {
                    continue;
                }
                for (k, v) in &line.scalars {
                    if v.is_finite() {
                        tb.add_scalar(k, *v as f32, line.generation as usize);
                    }
                }
            }
            tb.flush();
        }))
        .is_ok();
        if !ok {
            self.tb = None;
            self.warnings.push("TensorBoard writer failed; TensorBoard logging is off for this session".into());
        }
    }

    /// Whether TensorBoard events are being written.
    pub fn tensorboard_on(&self) -> bool {
        self.tb.is_some()
    }
}

impl Drop for MetricsView {
    fn drop(&mut self) {
        if let Some(mut tb) = self.tb.take() {
            let _ = catch_unwind(AssertUnwindSafe(move || {
                tb.flush();
                drop(tb);
            }));
        }
    }
}
