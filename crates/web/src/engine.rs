//! The engine behind the page: what guides the search in a game (a model file, a run's
//! checkpoint, the shipped network, or random rollouts), and one bounded search that both the
//! engine's moves and the analysis use: the player every front-end builds
//! (`mancala_agents::build_player`), on [`browser_threads`] threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use burn::prelude::{Device, Tensor, TensorData};
use mancala_agents::{Guide, MAX_SIMULATIONS, PlayerSettings, build_player};
use mancala_encoding::{Layout, layout_for};
use mancala_mcts::{NodeId, NodeState, Search};
use mancala_nn::{ModelMeta, Net, load_model};
use mancala_rules::{Action, AnyGame, Game, Line};
use mancala_tablebase::Tablebase;
use serde::{Deserialize, Serialize};

use crate::error::WebError;

/// Finds the network built into the binary for a game, if any (the CLI passes its shipped
/// models; the library has none of its own); one that does not load is an error.
pub type ShippedModels = fn(&AnyGame) -> Result<Option<(ModelMeta, Net)>, mancala_nn::NnError>;

/// Run checkpoints kept loaded at once; more are read again from disk when asked for.
const LOADED_CHECKPOINTS: usize = 8;

/// Who plays for the engine in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// `--model` when it is for this game, else the shipped network, else rollouts.
    Default,
    /// A model file of a run (already checked to be one).
    Checkpoint { path: PathBuf, name: String },
}

/// Everything the engine may judge positions with, loaded once and shared.
pub struct Brains {
    model: Option<(PathBuf, ModelMeta, Net)>,
    shipped: Option<ShippedModels>,
    /// Shipped networks already decoded, by rules string. Only found ones are kept, so the
    /// table cannot grow with the rules strings people try (looking up a miss is cheap).
    shipped_cache: Mutex<HashMap<String, (ModelMeta, Net)>>,
    checkpoints: Mutex<Vec<(PathBuf, ModelMeta, Net)>>,
    pub tablebase: Option<Arc<Tablebase>>,
}

impl Brains {
    /// # Errors
    /// A model or database file that cannot be read.
    pub fn new(model: Option<&Path>, db: Option<&Path>, shipped: Option<ShippedModels>) -> Result<Brains, WebError> {
        let model = match model {
            Some(path) => {
                let (meta, net) = load_model(path, None, None, &Device::flex())
                    .map_err(|e| WebError::BadRequest(format!("--model {}: {e}", path.display())))?;
                Some((path.to_path_buf(), meta, net))
            }
            None => None,
        };
        let tablebase = match db {
            Some(path) => Some(Arc::new(
                Tablebase::read(path).map_err(|e| WebError::BadRequest(format!("--db {}: {e}", path.display())))?,
            )),
            None => None,
        };
        Ok(Brains {
            model,
            shipped,
            shipped_cache: Mutex::new(HashMap::new()),
            checkpoints: Mutex::new(Vec::new()),
            tablebase,
        })
    }

    /// The game a checkpoint plays, read from its metadata (and the network kept loaded).
    ///
    /// # Errors
    /// A file that is not a model of a known game.
    pub fn checkpoint_game(&self, path: &Path) -> Result<AnyGame, WebError> {
        let (meta, _) = self.checkpoint(path)?;
        mancala_rules::parse_rules(&meta.rules).map_err(|e| {
            WebError::BadRequest(format!("{} plays '{}', which is not a game here: {e}", path.display(), meta.rules))
        })
    }

    fn checkpoint(&self, path: &Path) -> Result<(ModelMeta, Net), WebError> {
        let mut loaded = self.checkpoints.lock().expect("checkpoint cache lock");
        if let Some(k) = loaded.iter().position(|(p, _, _)| p == path) {
            // Most recently used last, so the first one is dropped when the cache is full.
            let entry = loaded.remove(k);
            let out = (entry.1.clone(), entry.2.clone());
            loaded.push(entry);
            return Ok(out);
        }
        let (meta, net) = load_model(path, None, None, &Device::flex())
            .map_err(|e| WebError::BadRequest(format!("cannot load checkpoint {}: {e}", path.display())))?;
        if loaded.len() >= LOADED_CHECKPOINTS {
            loaded.remove(0);
        }
        loaded.push((path.to_path_buf(), meta.clone(), net.clone()));
        Ok((meta, net))
    }

    /// What guides the engine's search in `game` for `opponent`.
    fn guide(&self, game: &AnyGame, opponent: &Opponent) -> Result<Guide, WebError> {
        let rules = game.rules_string();
        if let Opponent::Checkpoint { path, name } = opponent {
            let (meta, net) = self.checkpoint(path)?;
            if meta.rules != rules {
                return Err(WebError::BadRequest(format!("checkpoint {name} plays '{}', not '{rules}'", meta.rules)));
            }
            model_layout(game, &meta, name)?;
            return Ok(Guide::network(meta, net, name.clone()));
        }
        if let Some((path, meta, net)) = &self.model
            && meta.rules == rules
        {
            let name = path.display().to_string();
            model_layout(game, meta, &name)?;
            return Ok(Guide::network(meta.clone(), net.clone(), format!("the {name}")));
        }
        let Some(find) = self.shipped else { return Ok(Guide::Rollouts) };
        let mut cache = self.shipped_cache.lock().expect("shipped model cache lock");
        let name = format!("the shipped {} network", game.family());
        let found = match cache.get(&rules) {
            Some(found) => Some(found.clone()),
            None => {
                match find(game).map_err(|e| WebError::Internal(format!("the shipped network does not load: {e}")))? {
                    Some((meta, net)) => {
                        model_layout(game, &meta, &name)?;
                        cache.insert(rules, (meta.clone(), net.clone()));
                        Some((meta, net))
                    }
                    None => None,
                }
            }
        };
        Ok(match found {
            Some((meta, net)) => Guide::network(meta, net, name),
            None => Guide::Rollouts,
        })
    }

    /// In words, what plays `game` for the engine.
    ///
    /// # Errors
    /// As loading the opponent's network.
    pub fn describe(&self, game: &AnyGame, opponent: &Opponent) -> Result<String, WebError> {
        Ok(describe(&self.guide(game, opponent)?))
    }
}

/// The layout of a model's own input encoding version (every loaded model has a known one).
fn model_layout(game: &AnyGame, meta: &ModelMeta, name: &str) -> Result<Layout, WebError> {
    layout_for(game, meta.encoding_version).map_err(|e| WebError::Internal(format!("{name}: {e}")))
}

/// What plays for the engine, in the page's words.
fn describe(guide: &Guide) -> String {
    match guide {
        Guide::Network { .. } => guide.describe(),
        Guide::Rollouts => "MCTS with random rollouts (no network for these rules)".into(),
    }
}

/// The most threads the page's engine searches one position on.
pub const MAX_BROWSER_THREADS: usize = 4;

/// Threads the page's engine searches one position on: the machine's cores, up to
/// [`MAX_BROWSER_THREADS`] (a server answers several pages at once).
pub fn browser_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_BROWSER_THREADS)
}

/// How long the engine thinks: a number of simulations or of milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Strength {
    Simulations(u32),
    Milliseconds(u32),
}

impl Default for Strength {
    fn default() -> Self {
        Strength::Simulations(400)
    }
}

/// The server's caps on one search.
#[derive(Clone, Copy, Debug)]
pub struct SearchLimits {
    pub max_simulations: u32,
    /// Wall-clock time one search may take, whatever was asked for.
    pub max_think: Duration,
}

impl SearchLimits {
    /// The server's limit on simulations, never above the cap every search shares.
    pub fn simulation_cap(&self) -> u32 {
        self.max_simulations.min(MAX_SIMULATIONS)
    }

    /// The player settings for `strength` under these limits: simulations with the longest
    /// think as a deadline, or a time with the simulation limit as a cap.
    fn settings(&self, guide: &Guide, strength: Strength, threads: usize) -> PlayerSettings {
        let (simulations, time) = match strength {
            Strength::Simulations(n) => (n.min(self.simulation_cap()), self.max_think),
            Strength::Milliseconds(ms) => {
                (self.simulation_cap(), Duration::from_millis(u64::from(ms)).min(self.max_think))
            }
        };
        PlayerSettings {
            simulations: simulations.max(1),
            time: Some(time.max(Duration::from_millis(1))),
            threads,
            // Every request searches afresh: there is no tree kept between requests.
            reuse: false,
            ..PlayerSettings::for_guide(guide)
        }
    }
}

impl Strength {
    /// # Errors
    /// A budget of zero or above the server's caps, naming both.
    pub fn check(self, limits: &SearchLimits) -> Result<Strength, WebError> {
        let max_ms = u32::try_from(limits.max_think.as_millis()).unwrap_or(u32::MAX);
        match self {
            Strength::Simulations(n) if (1..=limits.simulation_cap()).contains(&n) => Ok(self),
            Strength::Milliseconds(ms) if (1..=max_ms).contains(&ms) => Ok(self),
            Strength::Simulations(n) => Err(WebError::BadRequest(format!(
                "strength: {n} simulations is out of range: expected 1 to {} (this server's limit; \
                 the cap of every search is MAX_SIMULATIONS = {MAX_SIMULATIONS})",
                limits.simulation_cap()
            ))),
            Strength::Milliseconds(ms) => Err(WebError::BadRequest(format!(
                "strength: {ms} milliseconds is out of range: expected 1 to {max_ms}"
            ))),
        }
    }
}

/// One root move as the search saw it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveStats {
    pub house: String,
    /// The evaluator's prior (the network's policy; uniform for rollouts).
    pub policy: f32,
    pub visits: u32,
    /// Share of the root's visits.
    pub visit_share: f32,
    /// Mean value after this move for the side to move, if it was visited.
    pub value: Option<f32>,
}

/// The network's own judgement of the position, before any search.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct NetJudgement {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
    /// Expected final margin in seeds for the side to move.
    pub margin: f32,
}

/// What one search found.
#[derive(Clone, Debug, Serialize)]
pub struct Thought {
    /// The move the engine plays (the search's final pick); `None` when the game is over.
    pub best: Option<String>,
    #[serde(skip)]
    pub best_action: Option<Action>,
    /// Search value for the side to move, in [-1, 1].
    pub value: f32,
    pub network: Option<NetJudgement>,
    pub moves: Vec<MoveStats>,
    /// Principal variation: the most visited line from the root.
    pub pv: Vec<String>,
    pub simulations: u32,
    /// Wall time of the whole request's thinking, in milliseconds (fractions kept: small
    /// budgets take well under one).
    pub milliseconds: f64,
    pub engine: String,
}

/// Searches the current position of `line` within `strength` and the server's caps, on
/// `threads` threads ([`browser_threads`] for the page).
///
/// # Errors
/// The opponent's network cannot be loaded or does not fit the game.
pub fn think(
    brains: &Brains,
    opponent: &Opponent,
    line: &Line<AnyGame>,
    strength: Strength,
    limits: &SearchLimits,
    seed: u64,
    threads: usize,
) -> Result<Thought, WebError> {
    let game = line.game().clone();
    let guide = brains.guide(&game, opponent)?;
    let engine = describe(&guide);
    let started = Instant::now();
    let network = match &guide {
        Guide::Network { meta, net, name } => judge(&game, line, net, &model_layout(&game, meta, name)?),
        Guide::Rollouts => None,
    };
    let settings = limits.settings(&guide, strength, threads);
    let mut player = build_player(&game, &guide, None, &settings, seed, engine.clone())
        .map_err(|e| WebError::BadRequest(format!("{engine}: {e}")))?;
    player.analyse(line);
    Ok(summarise(player.search_mut(), line, network, started, engine))
}

fn summarise(
    search: &mut Search<AnyGame>,
    line: &Line<AnyGame>,
    network: Option<NetJudgement>,
    started: Instant,
    engine: String,
) -> Thought {
    let game = line.game();
    let side = line.side_to_move();
    let children = search.root_children();
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let moves = children
        .iter()
        .map(|c| MoveStats {
            house: game.move_label(side, c.action),
            policy: c.prior,
            visits: c.visits,
            visit_share: if total > 0 { c.visits as f32 / total as f32 } else { 0.0 },
            value: c.q,
        })
        .collect();
    // Temperature 0: the search's final pick (the value pick with a network, the most visited
    // move with rollouts), as `engine`'s genmove plays by default.
    let best_action = if line.status().is_over() { None } else { search.select_action(0.0) };
    Thought {
        best: best_action.map(|a| game.move_label(side, a)),
        best_action,
        value: search.root_value().clamp(-1.0, 1.0),
        network,
        moves,
        pv: principal_variation(search, best_action),
        simulations: search.simulations_done(),
        milliseconds: started.elapsed().as_secs_f64() * 1000.0,
        engine,
    }
}

/// The line the search expects, as move labels: the move it plays (`first`, its final pick),
/// then the most visited path below it.
fn principal_variation(search: &Search<AnyGame>, first: Option<Action>) -> Vec<String> {
    let tree = search.tree();
    let game = search.game();
    let mut pv = Vec::new();
    let mut node = NodeId::ROOT;
    while tree.state(node) == NodeState::Expanded && pv.len() < 32 {
        let mut visited = tree.children(node).filter(|&c| tree.visits(c) > 0);
        let chosen = match first {
            Some(a) if node == NodeId::ROOT => visited.find(|&c| tree.action(c) == a),
            _ => visited.max_by_key(|&c| tree.visits(c)),
        };
        let Some(best) = chosen else {
            break;
        };
        pv.push(game.move_label(tree.mover(best), tree.action(best)));
        node = best;
    }
    pv
}

/// The network's win/draw/loss and margin heads on the current position.
fn judge(game: &AnyGame, line: &Line<AnyGame>, net: &Net, layout: &Layout) -> Option<NetJudgement> {
    if line.status().is_over() {
        return None;
    }
    let mut input = vec![0.0f32; layout.inputs()];
    mancala_encoding::encode(game, layout, line.position(), &mut input);
    let device = Device::flex();
    let x = Tensor::<2>::from_data(TensorData::new(input, [1, layout.inputs()]), &device);
    let out = net.forward(x);
    let wdl: Vec<f32> = out.wdl.into_data().try_to_vec::<f32>().ok()?;
    let margin: Vec<f32> = out.margin.into_data().try_to_vec::<f32>().ok()?;
    let m = wdl.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = wdl.iter().map(|w| (w - m).exp()).collect();
    let sum: f32 = e.iter().sum();
    // The margin head predicts the final margin divided by the seeds in the game.
    Some(NetJudgement {
        win: e[0] / sum,
        draw: e[1] / sum,
        loss: e[2] / sum,
        margin: margin[0] * f32::from(game.total_seeds()),
    })
}

/// What the endgame database says about a position.
#[derive(Clone, Debug, Serialize)]
pub struct Exact {
    /// Seeds still to be won with perfect play, mover minus opponent.
    pub value: i32,
    /// The mover's final margin in the whole game with perfect play.
    pub final_margin: i32,
    pub best: Vec<String>,
    /// Every legal move with its exact value.
    pub moves: Vec<(String, i32)>,
}

/// The database's answer for the current position, when it covers it.
pub fn exact(brains: &Brains, line: &Line<AnyGame>) -> Option<Exact> {
    let tb = brains.tablebase.as_ref()?;
    let game = line.game();
    tb.check_game(game).ok()?;
    let probe = tb.probe(game, line.position())?;
    let side = line.side_to_move();
    let moves =
        probe.legal.iter().map(|a| (game.move_label(side, a), i32::from(probe.move_values[usize::from(a)]))).collect();
    Some(Exact {
        value: i32::from(probe.value),
        final_margin: probe.final_margin,
        best: probe.best.iter().map(|a| game.move_label(side, a)).collect(),
        moves,
    })
}
