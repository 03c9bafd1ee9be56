//! Training runs in a store (`serve --runs URL`: a directory, `s3://BUCKET/PREFIX` or
//! `memory://NAME`), read through the run layout of `mancala_train::layout`: a run is a
//! folder of the store holding `config.toml`; its curves come from `metrics.jsonl` (one JSON
//! object a line, `iteration` plus numeric keys such as `elo/<reference>` or `loss/policy`,
//! any of them possibly absent), its checkpoints are `models/*.mzm`, and `best.json` (when
//! there) names the best one.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mancala_store::{Store, StoreError};
use mancala_train::layout;
use serde::Serialize;

use crate::error::WebError;

/// Every numeric metric of a run as (iteration, value) points, by key.
pub type Series = BTreeMap<String, Vec<(f64, f64)>>;

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
    pub series: Series,
    /// Lines of `metrics.jsonl` that were not a JSON object with an iteration (a line being
    /// written, say).
    pub skipped_lines: usize,
}

/// Every run in `runs`, by name.
///
/// # Errors
/// The store cannot be listed or read.
pub fn list(runs: &Store) -> Result<Vec<RunSummary>, WebError> {
    let mut summaries = Vec::new();
    for name in runs.folders("").map_err(store_error)? {
        let run = runs.folder(&name).map_err(store_error)?;
        if run.exists(layout::CONFIG).map_err(store_error)? {
            let (series, _) = curves(&run).map_err(store_error)?;
            summaries.push(summary(&run, &name, &series)?);
        }
    }
    Ok(summaries)
}

/// One run with its curves.
///
/// # Errors
/// [`WebError::NotFound`] when `name` is not a run in `runs`.
pub fn detail(runs: &Store, name: &str) -> Result<RunDetail, WebError> {
    let run = run_folder(runs, name)?;
    let (series, skipped_lines) = curves(&run).map_err(store_error)?;
    Ok(RunDetail { summary: summary(&run, name, &series)?, series, skipped_lines })
}

/// A local file holding checkpoint `model` of run `run`, both checked against what the store
/// holds (so no name can reach outside the run's `models/`). A directory store's own file;
/// from any other store the model is copied once into a cache under the system's temporary
/// folder, where its name (which carries its checksum) keeps it from going stale.
///
/// # Errors
/// [`WebError::NotFound`] naming the run or checkpoint; [`WebError::Internal`] when the
/// model cannot be read or cached, or its bytes do not match the checksum in its name.
pub fn checkpoint(runs: &Store, run: &str, model: &str) -> Result<PathBuf, WebError> {
    let folder = run_folder(runs, run)?;
    let models = model_files(&folder)?;
    if !models.iter().any(|m| m == model) {
        return Err(WebError::NotFound(format!(
            "run '{run}' has no checkpoint '{model}'; it has: {}",
            if models.is_empty() { "none".to_string() } else { models.join(", ") }
        )));
    }
    let key = format!("{}{model}", layout::MODELS);
    if let Some(dir) = folder.local_dir() {
        return Ok(dir.join(key));
    }
    let cached = std::env::temp_dir()
        .join("mancala-web-runs")
        .join(format!("{:016x}", mancala_container::fnv1a64(folder.url().as_bytes())))
        .join(model);
    if cached.is_file() {
        return Ok(cached);
    }
    let bytes = folder.get(&key).map_err(store_error)?;
    let named = model.strip_suffix(".mzm").and_then(|stem| stem.rsplit_once('-')).map(|(_, sum)| sum);
    if named != Some(layout::checksum(&bytes).as_str()) {
        return Err(WebError::Internal(format!("{}: its bytes do not match its checksum", folder.describe(&key))));
    }
    let parent = cached.parent().expect("the cache path has a parent");
    std::fs::create_dir_all(parent)
        .and_then(|()| mancala_container::atomic_write(&cached, &bytes))
        .map_err(|e| WebError::Internal(format!("caching {} in {}: {e}", folder.describe(&key), cached.display())))?;
    Ok(cached)
}

/// The numeric series of a run's `metrics.jsonl` and how many lines were skipped; none yet
/// is an empty series.
///
/// # Errors
/// The store cannot be read.
pub fn curves(run: &Store) -> Result<(Series, usize), StoreError> {
    let mut series = Series::new();
    let mut skipped = 0;
    let Some(bytes) = run.get_opt(layout::METRICS)? else { return Ok((series, 0)) };
    for line in String::from_utf8_lossy(&bytes).lines().filter(|l| !l.trim().is_empty()) {
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
    Ok((series, skipped))
}

fn run_folder(runs: &Store, name: &str) -> Result<Store, WebError> {
    let missing = || WebError::NotFound(format!("no run '{name}' in {}", runs.url()));
    let run = runs.folder(name).map_err(|_| missing())?;
    if !run.exists(layout::CONFIG).map_err(store_error)? {
        return Err(missing());
    }
    Ok(run)
}

fn model_files(run: &Store) -> Result<Vec<String>, WebError> {
    let entries = run.list(layout::MODELS).map_err(store_error)?;
    // Listed in key order; only the folder's own files, not anything below them.
    Ok(entries
        .into_iter()
        .filter_map(|e| e.key.strip_prefix(layout::MODELS).map(str::to_string))
        .filter(|n| n.ends_with(".mzm") && !n.contains('/'))
        .collect())
}

fn summary(run: &Store, name: &str, series: &Series) -> Result<RunSummary, WebError> {
    let rules = run
        .get_opt(layout::CONFIG)
        .map_err(store_error)?
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|t| t.get("game")?.get("rules")?.as_str().map(str::to_string));
    let models = model_files(run)?;
    let best = run
        .get_opt(layout::BEST)
        .map_err(store_error)?
        // Only the model's key of the pointer (`layout::BestPointer`), so a pointer of an
        // older layout still shows its best checkpoint.
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|best| best.get("model")?.as_str()?.strip_prefix(layout::MODELS).map(str::to_string))
        .filter(|file| models.contains(file));
    let elo = series
        .iter()
        .filter(|(k, _)| k.starts_with("elo/"))
        .filter_map(|(k, points)| Some((k["elo/".len()..].to_string(), points.last()?.1)))
        .collect();
    Ok(RunSummary { name: name.to_string(), rules, models, best, elo })
}

fn store_error(e: StoreError) -> WebError {
    match e {
        StoreError::NotFound { .. } => WebError::NotFound(e.to_string()),
        e => WebError::Internal(e.to_string()),
    }
}
