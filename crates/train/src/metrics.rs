//! Metrics: TensorBoard scalars (tensorboard-rs) and the same figures as JSON lines.
//!
//! tensorboard-rs panics on I/O errors and loses queued events unless dropped, so: one
//! writer per run in its own folder, only scalars, a writability check before training, a
//! flush every iteration, and any panic inside it turns TensorBoard off with a warning
//! instead of ending the run.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use tensorboard_rs::summary_writer::SummaryWriter;

use crate::error::{io, TrainError};

pub struct Metrics {
    tb: Option<SummaryWriter>,
    jsonl: PathBuf,
    /// Warnings to show once (a metrics failure is reported, never fatal).
    pub warnings: Vec<String>,
}

impl Metrics {
    /// Opens the writers; checks that the TensorBoard folder is writable.
    ///
    /// # Errors
    /// When the folders cannot be written at all.
    pub fn open(tb_dir: &Path, jsonl: PathBuf, tensorboard: bool) -> Result<Self, TrainError> {
        std::fs::create_dir_all(tb_dir).map_err(io(tb_dir))?;
        let probe = tb_dir.join(".write-test");
        std::fs::write(&probe, b"ok").map_err(io(&probe))?;
        let _ = std::fs::remove_file(&probe);
        let tb = if tensorboard {
            // Two writers in the same second would write the same file name: wait a second
            // when a previous session's file could collide.
            wait_for_new_second(tb_dir);
            match catch_unwind(AssertUnwindSafe(|| SummaryWriter::new(tb_dir))) {
                Ok(w) => Some(w),
                Err(_) => None,
            }
        } else {
            None
        };
        Ok(Metrics { tb, jsonl, warnings: Vec::new() })
    }

    /// Logs one iteration's figures to both sinks.
    pub fn log(&mut self, iteration: u64, scalars: &BTreeMap<String, f64>) {
        if let Some(tb) = self.tb.as_mut() {
            let ok = catch_unwind(AssertUnwindSafe(|| {
                for (k, v) in scalars {
                    tb.add_scalar(k, *v as f32, iteration as usize);
                }
                tb.flush();
            }))
            .is_ok();
            if !ok {
                self.tb = None;
                self.warnings.push("TensorBoard writer failed; TensorBoard logging is off for this session".into());
            }
        }
        let mut line = serde_json::Map::new();
        line.insert("iteration".into(), iteration.into());
        for (k, v) in scalars {
            line.insert(k.clone(), serde_json::Value::from(*v));
        }
        let text = serde_json::Value::Object(line).to_string();
        let res = OpenOptions::new().create(true).append(true).open(&self.jsonl).and_then(|mut f| {
            writeln!(f, "{text}")?;
            f.sync_data()
        });
        if let Err(e) = res {
            self.warnings.push(format!("cannot append to {}: {e}", self.jsonl.display()));
        }
    }
}

impl Drop for Metrics {
    fn drop(&mut self) {
        if let Some(mut tb) = self.tb.take() {
            let _ = catch_unwind(AssertUnwindSafe(move || {
                tb.flush();
                drop(tb);
            }));
        }
    }
}

fn wait_for_new_second(dir: &Path) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let clash = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().any(|e| e.file_name().to_string_lossy().contains(&now.to_string())))
        .unwrap_or(false);
    if clash {
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
}
