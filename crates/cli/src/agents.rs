//! Every kind of agent the binary can build from a spec string: the reference agents of the
//! search crate, `net:FILE[,sims=N]` (a trained model with MCTS) and
//! `perfect:db=FILE[,depth=D|ms=T]` (an endgame database). Model and database files are
//! loaded once a process and shared, because the arena builds agents for every game.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use anyhow::{bail, Context};
use burn::prelude::Device;
use mancala_mcts::alphabeta::Limit;
use mancala_mcts::agents::AlphaBetaAgent;
use mancala_mcts::{parse_agent, Agent, AgentSpec, SearchConfig};
use mancala_nn::{load_model, neural_agent as make_neural_agent, ModelMeta, Net, NeuralAgent};
use mancala_rules::{AnyGame, Game};
use mancala_tablebase::{PerfectAgent, Tablebase};

/// Specs this binary understands, for error messages.
pub const ALL_AGENTS: &str =
    "random, greedy, alphabeta:depth=D, alphabeta:ms=T, mcts:sims=N, net:FILE[,sims=N][,tb=DB], perfect:db=FILE[,depth=D|ms=T]";

type ModelCache = Mutex<HashMap<PathBuf, (ModelMeta, Net)>>;

fn models() -> &'static ModelCache {
    static CACHE: OnceLock<ModelCache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn tablebases() -> &'static Mutex<HashMap<PathBuf, Arc<Tablebase>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Tablebase>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Loads a model file for `game` once; later calls share it.
///
/// # Errors
/// Any model-file error (missing, not a model, truncated, other game or encoding version).
pub fn cached_model(game: &AnyGame, path: &Path) -> anyhow::Result<(ModelMeta, Net)> {
    let mut cache = models().lock().expect("model cache lock");
    if let Some(m) = cache.get(path) {
        let rules = game.rules_string();
        if m.0.rules != rules {
            bail!("{} is a model for '{}', not for '{rules}'", path.display(), m.0.rules);
        }
        return Ok(m.clone());
    }
    let loaded = load_model(path, Some(&game.rules_string()), None, &Device::flex())
        .with_context(|| format!("loading model {}", path.display()))?;
    cache.insert(path.to_path_buf(), loaded.clone());
    Ok(loaded)
}

fn cached_tablebase(path: &Path) -> anyhow::Result<Arc<Tablebase>> {
    let mut cache = tablebases().lock().expect("tablebase cache lock");
    if let Some(t) = cache.get(path) {
        return Ok(t.clone());
    }
    let tb = Arc::new(Tablebase::read(path).with_context(|| format!("loading endgame database {}", path.display()))?);
    cache.insert(path.to_path_buf(), tb.clone());
    Ok(tb)
}

/// A network-guided MCTS agent over a model file.
///
/// # Errors
/// A bad model file.
pub fn neural_agent(game: &AnyGame, path: &Path, simulations: u32, seed: u64, name: String) -> anyhow::Result<NeuralAgent<AnyGame>> {
    let (_, net) = cached_model(game, path)?;
    let config = SearchConfig { simulations, leaves_per_gather: 8, ..SearchConfig::default() };
    Ok(make_neural_agent(game, net, Device::flex(), config, seed, name))
}

/// Builds any agent from its spec.
///
/// # Errors
/// An unknown agent, a bad parameter, or a file that cannot be used.
pub fn make_agent(game: &AnyGame, spec_text: &str, seed: u64) -> anyhow::Result<Box<dyn Agent<AnyGame>>> {
    // `net:FILE,...` has a key-less first parameter, so it is read before the generic parser.
    let name = spec_text.trim().split(':').next().unwrap_or("").to_ascii_lowercase();
    let spec = if name == "net" { AgentSpec { text: spec_text.to_string(), name, params: Vec::new() } } else { AgentSpec::parse(spec_text)? };
    match spec.name.as_str() {
        "net" => {
            // net:FILE or net:FILE,sims=N (the file is the first, key-less parameter)
            let rest = spec_text.trim().split_once(':').map(|(_, r)| r).unwrap_or("");
            let mut parts = rest.split(',');
            let file = parts.next().filter(|f| !f.is_empty() && !f.contains('='));
            let Some(file) = file else { bail!("agent '{spec_text}': write net:FILE[,sims=N]") };
            let mut sims = 200u32;
            let mut db = None;
            for p in parts {
                match p.split_once('=') {
                    Some(("sims", v)) => {
                        sims = v.parse().ok().filter(|&n| n > 0).with_context(|| format!("agent '{spec_text}': sims={v} is not a positive number"))?;
                    }
                    Some(("tb", v)) => db = Some(PathBuf::from(v)),
                    _ => bail!("agent '{spec_text}': unknown parameter '{p}', allowed: sims, tb"),
                }
            }
            let Some(db) = db else {
                return Ok(Box::new(neural_agent(game, Path::new(file), sims, seed, spec_text.to_string())?));
            };
            // Exact values at the leaves inside the database, the network elsewhere.
            let (_, net) = cached_model(game, Path::new(file))?;
            let inner = mancala_nn::NeuralEvaluator::new(game, net, Device::flex()).cached(14);
            let evaluator = mancala_tablebase::TablebaseEvaluator::new(game, cached_tablebase(&db)?, inner)
                .with_context(|| format!("agent '{spec_text}'"))?;
            let config = SearchConfig { simulations: sims, leaves_per_gather: 8, ..SearchConfig::default() };
            Ok(Box::new(mancala_mcts::SearchAgent::new(game.clone(), config, evaluator, seed, spec_text.to_string())))
        }
        "perfect" => {
            spec.only(&["db", "depth", "ms"])?;
            let Some(db) = spec.get("db") else { bail!("agent '{spec_text}': db=FILE is required") };
            let tb = cached_tablebase(Path::new(db))?;
            let limit = match (spec.get("depth"), spec.get("ms")) {
                (Some(_), Some(_)) => bail!("agent '{spec_text}': give depth or ms, not both"),
                (_, Some(_)) => Limit::Time(Duration::from_millis(spec.number("ms", 100u64)?)),
                _ => Limit::Depth(spec.number("depth", 8u32)?.clamp(1, 64)),
            };
            let fallback = Box::new(AlphaBetaAgent::new(game.clone(), limit, "alphabeta".into()));
            Ok(Box::new(PerfectAgent::new(game.clone(), tb, fallback, seed).with_context(|| format!("agent '{spec_text}'"))?))
        }
        _ => parse_agent(game, spec_text, seed).map_err(|e| match e {
            mancala_mcts::AgentError::Unknown { name, .. } => anyhow::anyhow!("unknown agent '{name}': expected one of {ALL_AGENTS}"),
            other => other.into(),
        }),
    }
}
