//! The objects of a run in its store, one line each, and the records they hold.
//!
//! | key | written by | how |
//! |---|---|---|
//! | `run.json` | `train` | the store format, the run's limits, `finished`; written last at creation |
//! | `config.toml` | `train` | the run's config, at creation |
//! | `models/gen-GGGGGG-CHECKSUM.mzm` | trainer | a candidate network (generation 0: the initial one), immutable |
//! | `optim/gen-GGGGGG-CHECKSUM.bin` | trainer | the optimiser state beside it, for the trainer's restart |
//! | `candidates/gen-GGGGGG.json` | trainer | publishes a candidate, written after its model: step, shards ingested, losses |
//! | `shards/WORKER/SSSSSSSS.shard` | workers | training rows of a batch of games, created once (conditional create) |
//! | `workers/WORKER.json` | workers | heartbeat: games, positions, rates, the model in use |
//! | `gating/gen-GGGGGG.json`, `.jsonl` | gatekeeper | the decision on a candidate, and its games |
//! | `best.json` | gatekeeper | the pointer to the best model, with its checksum, written after the decision |
//! | `eval/gen-GGGGGG.json`, `.jsonl` | evaluator | Elo of a best model against the references, and its games |
//! | `metrics.jsonl` | `train` | one line per record above, rebuilt from them (a view, never the source) |
//!
//! Every object but `run.json`, `best.json`, the heartbeats and the metrics view is
//! immutable; a model's name carries its checksum, so no name is ever written twice with
//! different bytes. The pointer is derived: it always equals the newest promotion among the
//! gating records, and a gatekeeper that restarts rewrites it if a kill left it behind.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of this layout; a store written by another version is refused by name.
pub const STORE_FORMAT: u32 = 2;

pub const RUN: &str = "run.json";
pub const CONFIG: &str = "config.toml";
pub const BEST: &str = "best.json";
pub const METRICS: &str = "metrics.jsonl";
pub const CANDIDATES: &str = "candidates/";
pub const SHARDS: &str = "shards/";
pub const WORKERS: &str = "workers/";
pub const GATING: &str = "gating/";
pub const EVAL: &str = "eval/";
/// The folder of the run's networks ([`model_key`]).
pub const MODELS: &str = "models/";

pub fn model_key(generation: u64, checksum: &str) -> String {
    format!("models/gen-{generation:06}-{checksum}.mzm")
}
pub fn optim_key(generation: u64, checksum: &str) -> String {
    format!("optim/gen-{generation:06}-{checksum}.bin")
}
/// The learner's own weights when the candidate's model is their moving average
/// (`training.average_steps`): trainer restart state beside the optimiser's, so under `optim/`.
pub fn weights_key(generation: u64, checksum: &str) -> String {
    format!("optim/gen-{generation:06}-{checksum}.mzm")
}
pub fn candidate_key(generation: u64) -> String {
    format!("{CANDIDATES}gen-{generation:06}.json")
}
pub fn shard_key(worker: &str, sequence: u64) -> String {
    format!("{SHARDS}{worker}/{sequence:08}.shard")
}
pub fn worker_key(worker: &str) -> String {
    format!("{WORKERS}{worker}.json")
}
pub fn gating_key(generation: u64) -> String {
    format!("{GATING}gen-{generation:06}.json")
}
pub fn gating_games_key(generation: u64) -> String {
    format!("{GATING}gen-{generation:06}.jsonl")
}
pub fn eval_key(generation: u64) -> String {
    format!("{EVAL}gen-{generation:06}.json")
}
pub fn eval_games_key(generation: u64) -> String {
    format!("{EVAL}gen-{generation:06}.jsonl")
}

/// The generation in a `.../gen-GGGGGG.json` key, if it is one.
pub fn generation_of(key: &str) -> Option<u64> {
    let name = key.rsplit('/').next()?;
    name.strip_prefix("gen-")?.strip_suffix(".json")?.parse().ok()
}

/// The worker and sequence number of a shard key.
pub fn shard_of(key: &str) -> Option<(&str, u64)> {
    let rest = key.strip_prefix(SHARDS)?;
    let (worker, file) = rest.split_once('/')?;
    Some((worker, file.strip_suffix(".shard")?.parse().ok()?))
}

/// A worker id names objects: letters, digits, `-`, `_` and `.` only.
///
/// # Errors
/// A message naming the id and the allowed characters.
pub fn check_worker_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok { Ok(()) } else { Err(format!("worker id '{id}': use 1 to 64 letters, digits, '-', '_' or '.'")) }
}

/// FNV-1a-64 of a whole model file as 16 hex digits: names the object and is checked by
/// every reader before use.
pub fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", mancala_container::fnv1a64(bytes))
}

/// `run.json`: what the store is and how long the run goes on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub format: u32,
    /// Canonical rules string of the game.
    pub rules: String,
    /// Candidates to publish before the run ends.
    pub iterations: u64,
    /// Trainer wall time, over all its sessions, after which the run ends (0: none).
    pub max_minutes: f64,
    /// Set when the run has ended; workers stop when they see it.
    pub finished: bool,
}

/// `best.json`: the model self-play uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestPointer {
    pub generation: u64,
    /// Key of the model object.
    pub model: String,
    pub checksum: String,
}

/// `candidates/gen-G.json`: a published candidate and the trainer's state when it was made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub generation: u64,
    pub model: String,
    pub checksum: String,
    /// Key of the optimiser state (empty for generation 0).
    pub optim: String,
    /// Key of the learner's own weights when `model` is their moving average (empty when the
    /// run keeps no average, and in records written before it could).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub weights: String,
    pub step: u64,
    /// Trainer wall time over all its sessions, in seconds.
    pub elapsed_seconds: f64,
    /// Every shard ingested so far, in the order ingested (each exactly once).
    pub ingested: Vec<String>,
    /// Shards that could not be read, skipped for good.
    pub skipped: Vec<String>,
    pub rows_ingested: u64,
    pub games_ingested: u64,
    /// Unix time of publication.
    pub published: f64,
    /// Losses and rates of the training that made it.
    pub scalars: BTreeMap<String, f64>,
}

/// What the gatekeeper decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Promoted,
    Rejected,
    /// A newer candidate arrived before this one was gated.
    Superseded,
}

/// `gating/gen-G.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GatingRecord {
    pub generation: u64,
    /// The best model's generation it was measured against.
    pub best: u64,
    pub decision: Decision,
    pub score: f64,
    pub games: u32,
    pub published: f64,
}

impl GatingRecord {
    /// A decision taken without a match (a superseded candidate, or every candidate with
    /// `gating.games = 0`): no games, score 0.
    pub fn without_match(generation: u64, best: u64, decision: Decision) -> Self {
        GatingRecord { generation, best, decision, score: 0.0, games: 0, published: now() }
    }
}

/// `eval/gen-G.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalRecord {
    pub generation: u64,
    /// Elo difference (model minus reference) by reference spec.
    pub elo: BTreeMap<String, f64>,
    pub scalars: BTreeMap<String, f64>,
    pub published: f64,
}

/// `workers/ID.json`, overwritten after every shard.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerBeat {
    pub id: String,
    pub threads: usize,
    /// Unix time of this beat.
    pub time: f64,
    /// Shards, games and positions this worker has stored since it (re)started.
    pub shards: u64,
    pub games: u64,
    pub positions: u64,
    pub games_per_s: f64,
    pub positions_per_s: f64,
    /// The generation of the model it plays with.
    pub model_generation: u64,
    /// The last shard it stored.
    pub last_shard: String,
    /// The share of its last shard's network lookups its evaluation cache answered.
    #[serde(default)]
    pub cache_hit_rate: f64,
}

/// Seconds since the Unix epoch.
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}
