//! The run directory, the unit of state: `checkpoints/<run>/` holds
//!
//! - `config.toml`: the run's config, copied at the start;
//! - `models/iter-NNNN.mzm`: the model after each iteration (0000: the initial network);
//! - `optim/iter-NNNN.bin`: the optimiser state beside it (the last two are kept);
//! - `best.json`: the pointer to the current best model;
//! - `shards/iter-NNNN.shard`: the self-play rows of each iteration;
//! - `arena/gating-NNNN.jsonl`, `arena/eval-NNNN.jsonl`: every arena game;
//! - `metrics.jsonl`: one line of figures an iteration; `tb/`: TensorBoard event files;
//! - `state.json`: the resume point, written last in each iteration.
//!
//! Every file is written atomically (temp file, fsync, rename), so a run killed at any
//! instant resumes from its last `state.json` and loses at most the unfinished iteration.

use std::fs;
use std::path::{Path, PathBuf};

use mancala_nn::fsutil::atomic_write;
use serde::{Deserialize, Serialize};

use crate::error::{io, TrainError};

/// The resume point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Iterations completed.
    pub iteration: u64,
    /// Training steps taken.
    pub learner_step: u64,
    /// The iteration whose model is the current best.
    pub best_iteration: u64,
    pub promotions: u64,
    /// Wall time spent in all sessions so far.
    pub elapsed_seconds: f64,
}

/// Where the best model is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestPointer {
    pub iteration: u64,
    /// Relative to the run directory.
    pub model: String,
}

#[derive(Clone, Debug)]
pub struct RunDir {
    pub root: PathBuf,
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RunDir { root: root.into() }
    }

    /// Creates a new run directory; refuses one that already holds a run.
    ///
    /// # Errors
    /// [`TrainError::RunExists`] or an I/O error.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self, TrainError> {
        let dir = RunDir::new(root);
        if dir.root.exists() && fs::read_dir(&dir.root).map_err(io(&dir.root))?.next().is_some() {
            return Err(TrainError::RunExists { path: dir.root.clone() });
        }
        for sub in ["models", "optim", "shards", "arena", "tb"] {
            fs::create_dir_all(dir.root.join(sub)).map_err(io(dir.root.join(sub)))?;
        }
        Ok(dir)
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn state_path(&self) -> PathBuf {
        self.root.join("state.json")
    }
    pub fn best_path(&self) -> PathBuf {
        self.root.join("best.json")
    }
    pub fn metrics_path(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    pub fn tb_dir(&self) -> PathBuf {
        self.root.join("tb")
    }
    pub fn model_rel(iteration: u64) -> String {
        format!("models/iter-{iteration:04}.mzm")
    }
    pub fn model_path(&self, iteration: u64) -> PathBuf {
        self.root.join(Self::model_rel(iteration))
    }
    pub fn optim_path(&self, iteration: u64) -> PathBuf {
        self.root.join(format!("optim/iter-{iteration:04}.bin"))
    }
    pub fn shard_path(&self, iteration: u64) -> PathBuf {
        self.root.join(format!("shards/iter-{iteration:04}.shard"))
    }
    pub fn arena_path(&self, kind: &str, iteration: u64) -> PathBuf {
        self.root.join(format!("arena/{kind}-{iteration:04}.jsonl"))
    }

    /// Writes bytes atomically.
    ///
    /// # Errors
    /// An I/O error naming the file.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
        atomic_write(path, bytes).map_err(io(path))
    }

    pub fn write_json<T: Serialize>(&self, path: &Path, value: &T) -> Result<(), TrainError> {
        let text = serde_json::to_string_pretty(value).expect("state serialises");
        self.write(path, text.as_bytes())
    }

    /// Reads the resume point.
    ///
    /// # Errors
    /// [`TrainError::Resume`] when it is missing or unreadable.
    pub fn read_state(&self) -> Result<RunState, TrainError> {
        let path = self.state_path();
        let text = fs::read_to_string(&path).map_err(|e| TrainError::Resume {
            path: self.root.clone(),
            reason: format!("no resume point {} ({e}); was this run started?", path.display()),
        })?;
        serde_json::from_str(&text)
            .map_err(|e| TrainError::Resume { path: self.root.clone(), reason: format!("{}: {e}", path.display()) })
    }

    /// Reads the best-model pointer.
    ///
    /// # Errors
    /// [`TrainError::Resume`] when it is missing or unreadable.
    pub fn read_best(&self) -> Result<BestPointer, TrainError> {
        let path = self.best_path();
        let text = fs::read_to_string(&path)
            .map_err(|e| TrainError::Resume { path: self.root.clone(), reason: format!("{}: {e}", path.display()) })?;
        serde_json::from_str(&text)
            .map_err(|e| TrainError::Resume { path: self.root.clone(), reason: format!("{}: {e}", path.display()) })
    }

    /// Removes what an unfinished iteration after `completed` may have left.
    pub fn discard_after(&self, completed: u64) {
        for (sub, ext) in [("shards", "shard"), ("models", "mzm"), ("optim", "bin"), ("arena", "jsonl")] {
            let Ok(entries) = fs::read_dir(self.root.join(sub)) else { continue };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if !name.ends_with(ext) {
                    continue;
                }
                let digits: String = name.chars().filter(char::is_ascii_digit).collect();
                if digits.parse::<u64>().is_ok_and(|n| n > completed) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        // Keep only the metric lines of completed iterations.
        let path = self.metrics_path();
        if let Ok(text) = fs::read_to_string(&path) {
            let kept: String = text
                .lines()
                .filter(|l| {
                    serde_json::from_str::<serde_json::Value>(l)
                        .ok()
                        .and_then(|v| v.get("iteration").and_then(serde_json::Value::as_u64))
                        .is_some_and(|i| i <= completed)
                })
                .map(|l| format!("{l}\n"))
                .collect();
            let _ = atomic_write(&path, kept.as_bytes());
        }
    }
}

/// A default run name: `<game>-<UTC date and time>`.
pub fn default_run_name(game_family: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{game_family}-{y:04}{m:02}{d:02}-{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 to a Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
