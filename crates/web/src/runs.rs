//! Training runs under `--checkpoints DIR`, read straight from the file system: a run is a
//! folder holding `config.toml`; its curves come from `metrics.jsonl` (one JSON object a
//! line, `iteration` plus numeric keys such as `elo/<reference>` or `loss/policy`, any of
//! them possibly absent), its checkpoints are `models/*.mzm`, and `best.json` (when there)
//! names the best one. Nothing else of the run layout is assumed.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::WebError;

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub name: String,
    /// `[game] rules` of the run's config, when it has one.
    pub rules: Option<String>,
    /// Checkpoint file names in `models/`, in name order.
    pub models: Vec<String>,
    /// The checkpoint `best.json` points at, when it is one of `models`.
    pub best: Option<String>,
    /// The last Elo figure of every reference.
    pub elo: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunDetail {
    #[serde(flatten)]
    pub summary: RunSummary,
    /// Every numeric metric as (iteration, value) points, by key.
    pub series: BTreeMap<String, Vec<(f64, f64)>>,
    /// Lines of `metrics.jsonl` that were not a JSON object with an iteration (a line being
    /// written, say).
    pub skipped_lines: usize,
}

/// Every run under `dir`, by name.
///
/// # Errors
/// `dir` cannot be read.
pub fn list(dir: &Path) -> Result<Vec<RunSummary>, WebError> {
    let entries = fs::read_dir(dir)
        .map_err(|e| WebError::Internal(format!("cannot read --checkpoints {}: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("config.toml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names.iter().map(|name| summary(&dir.join(name), name, &metrics(&dir.join(name)).0)).collect())
}

/// One run with its curves.
///
/// # Errors
/// [`WebError::NotFound`] when `name` is not a run under `dir`.
pub fn detail(dir: &Path, name: &str) -> Result<RunDetail, WebError> {
    let folder = run_folder(dir, name)?;
    let (series, skipped_lines) = metrics(&folder);
    Ok(RunDetail { summary: summary(&folder, name, &series), series, skipped_lines })
}

/// The path of checkpoint `model` of run `run`, both checked against what is on disk (so no
/// name can reach outside the run's `models/`).
///
/// # Errors
/// [`WebError::NotFound`] naming the run or checkpoint.
pub fn checkpoint(dir: &Path, run: &str, model: &str) -> Result<PathBuf, WebError> {
    let folder = run_folder(dir, run)?;
    let models = model_files(&folder);
    if !models.iter().any(|m| m == model) {
        return Err(WebError::NotFound(format!(
            "run '{run}' has no checkpoint '{model}'; it has: {}",
            if models.is_empty() { "none".to_string() } else { models.join(", ") }
        )));
    }
    Ok(folder.join("models").join(model))
}

fn run_folder(dir: &Path, name: &str) -> Result<PathBuf, WebError> {
    let plain = !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..";
    let folder = dir.join(name);
    if !plain || !folder.join("config.toml").is_file() {
        return Err(WebError::NotFound(format!("no run '{name}' under {}", dir.display())));
    }
    Ok(folder)
}

fn model_files(folder: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(folder.join("models")) else { return Vec::new() };
    let mut models: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".mzm"))
        .collect();
    models.sort();
    models
}

fn summary(folder: &Path, name: &str, series: &BTreeMap<String, Vec<(f64, f64)>>) -> RunSummary {
    let rules = fs::read_to_string(folder.join("config.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|t| t.get("game")?.get("rules")?.as_str().map(str::to_string));
    let models = model_files(folder);
    let best = fs::read_to_string(folder.join("best.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v.get("model")?.as_str().map(str::to_string))
        .and_then(|path| Path::new(&path).file_name()?.to_str().map(str::to_string))
        .filter(|file| models.contains(file));
    let elo = series
        .iter()
        .filter(|(k, _)| k.starts_with("elo/"))
        .filter_map(|(k, points)| Some((k["elo/".len()..].to_string(), points.last()?.1)))
        .collect();
    RunSummary { name: name.to_string(), rules, models, best, elo }
}

/// The numeric series of `metrics.jsonl` and how many lines were skipped.
fn metrics(folder: &Path) -> (BTreeMap<String, Vec<(f64, f64)>>, usize) {
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut skipped = 0;
    let Ok(text) = fs::read_to_string(folder.join("metrics.jsonl")) else { return (series, 0) };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(line) else {
            skipped += 1;
            continue;
        };
        let Some(iteration) = map.get("iteration").and_then(serde_json::Value::as_f64) else {
            skipped += 1;
            continue;
        };
        for (key, value) in &map {
            if let (false, Some(v)) = (key == "iteration", value.as_f64()) {
                series.entry(key.clone()).or_default().push((iteration, v));
            }
        }
    }
    (series, skipped)
}
