//! `Agent` (any agent spec of the CLI, built by `mancala-agents`) and `arena` (a match by
//! `mancala-arena`). `net:shipped` names the game's shipped model where the binary takes a
//! model file.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use mancala_agents::{AgentKind, AgentSpec, FileError, Guide, Player, PlayerError, SpecError, build_player};
use mancala_arena::{MatchConfig, play_match};
use mancala_mcts::{Agent, NodeId, NodeState, Search};
use mancala_rules::{Action, AnyGame, Game, Line};
use numpy::PyArray1;
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::batch::thread_pool;
use crate::errors::{value_error, value_error_chain};
use crate::game::{GameArg, PyGame, PyState, Rules};

/// The model file name that stands for the game's shipped model in a `net` spec.
const SHIPPED: &str = "shipped";

/// Moves of a principal variation at most.
const PV_PLIES: usize = 32;

/// Why an agent could not be built, kept apart from Python until the interpreter is back.
#[derive(Debug)]
enum BuildError {
    Spec(SpecError),
    Player { spec: String, source: PlayerError },
    File { spec: String, source: FileError },
    NoShipped { spec: String, rules: String },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Spec(e) => write!(f, "{e}"),
            BuildError::Player { spec, source } => write!(f, "agent '{spec}': {source}"),
            BuildError::File { spec, source } => write!(f, "agent '{spec}': {source}"),
            BuildError::NoShipped { spec, rules } => write!(f, "agent '{spec}': no shipped model for {rules}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<BuildError> for PyErr {
    fn from(e: BuildError) -> PyErr {
        let missing = |f: &FileError| matches!(f, FileError::Missing { .. });
        match &e {
            BuildError::File { source, .. } if missing(source) => PyFileNotFoundError::new_err(e.to_string()),
            BuildError::Spec(SpecError::File { source, .. }) if missing(source) => {
                PyFileNotFoundError::new_err(e.to_string())
            }
            BuildError::Spec(inner) => value_error_chain(inner),
            _ => value_error_chain(&e),
        }
    }
}

/// An agent as built: a search whose tree can be read, or any other agent.
enum Built {
    Search(Box<Player<AnyGame>>),
    Plain(Box<dyn Agent<AnyGame>>),
}

impl Built {
    fn agent(&mut self) -> &mut dyn Agent<AnyGame> {
        match self {
            Built::Search(p) => p.as_mut(),
            Built::Plain(a) => a.as_mut(),
        }
    }

    fn into_agent(self) -> Box<dyn Agent<AnyGame>> {
        match self {
            Built::Search(p) => p,
            Built::Plain(a) => a,
        }
    }
}

/// A parsed spec with its files read, ready to build agents from as often as needed.
struct Recipe {
    spec: AgentSpec,
    /// For `net`: the model guiding the search (the shipped one for `net:shipped`).
    guide: Option<Guide>,
    tablebase: Option<Arc<mancala_tablebase::Tablebase>>,
}

impl Recipe {
    /// Parses `text` and reads the files it names for `game`.
    fn read(game: &AnyGame, text: &str) -> Result<Recipe, BuildError> {
        let spec = AgentSpec::parse(text).map_err(BuildError::Spec)?;
        let file = |source: FileError| BuildError::File { spec: text.to_string(), source };
        let (guide, tablebase) = match &spec.kind {
            AgentKind::Net { model, tablebase, .. } => {
                let guide = if model == Path::new(SHIPPED) && !model.exists() {
                    let (meta, net) = mancala_agents::shipped_model(game)
                        .map_err(|e| file(FileError::Model { path: model.clone(), source: Box::new(e) }))?
                        .ok_or_else(|| BuildError::NoShipped { spec: text.to_string(), rules: game.rules_string() })?;
                    Guide::network(meta, net, format!("the shipped {} network", game.name()))
                } else {
                    Guide::model_file(game, model).map_err(file)?
                };
                let tb = tablebase.as_ref().map(|db| mancala_agents::cached_tablebase(game, db)).transpose();
                (Some(guide), tb.map_err(file)?)
            }
            _ => {
                spec.check(game).map_err(BuildError::Spec)?;
                (None, None)
            }
        };
        Ok(Recipe { spec, guide, tablebase })
    }

    fn build(&self, game: &AnyGame, seed: u64) -> Result<Built, BuildError> {
        let name = self.spec.text.clone();
        let player = |source| BuildError::Player { spec: name.clone(), source };
        Ok(match (&self.spec.kind, &self.guide) {
            (AgentKind::Mcts { search }, _) => Built::Search(Box::new(
                build_player(game, &Guide::Rollouts, None, search, seed, name.clone()).map_err(player)?,
            )),
            (AgentKind::Net { search, .. }, Some(guide)) => Built::Search(Box::new(
                build_player(game, guide, self.tablebase.as_ref(), search, seed, name.clone()).map_err(player)?,
            )),
            _ => Built::Plain(self.spec.build(game, seed).map_err(BuildError::Spec)?),
        })
    }
}

/// An agent named by a spec, as the CLI's `arena --a` takes it: `random`, `greedy`,
/// `alphabeta:depth=D`, `mcts:sims=N,...`, `net:FILE,...` (`net:shipped,...` for the game's
/// shipped model), `perfect:db=FILE`. `seed` fixes its random choices.
///
/// Raises ValueError for a bad spec, FileNotFoundError for a file it names that is not
/// there, ValueError for a file that cannot be used for the game.
#[pyclass(frozen, name = "Agent", module = "mancala_zero")]
pub struct PyAgent {
    spec: String,
    rules: Arc<Rules>,
    built: Mutex<Built>,
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, game, seed = 0))]
    fn new(py: Python<'_>, spec: &str, game: GameArg<'_>, seed: u64) -> PyResult<PyAgent> {
        let rules = game.rules()?;
        let g = &rules.game;
        let built = py.detach(|| Recipe::read(g, spec).and_then(|r| r.build(g, seed)))?;
        Ok(PyAgent { spec: spec.to_string(), rules, built: Mutex::new(built) })
    }

    /// The spec the agent was made from.
    #[getter]
    fn spec(&self) -> String {
        self.spec.clone()
    }

    #[getter]
    fn game(&self) -> PyGame {
        PyGame { rules: self.rules.clone() }
    }

    /// Starts a new game: fresh random choices from `seed`, no tree kept.
    fn new_game(&self, py: Python<'_>, seed: u64) {
        py.detach(|| self.lock().agent().new_game(seed));
    }

    /// The move the agent plays in `state` (an ongoing game of its game), as an action.
    fn choose(&self, py: Python<'_>, state: PyRef<'_, PyState>) -> PyResult<usize> {
        let line = self.line_of(&state)?;
        drop(state);
        Ok(usize::from(py.detach(|| self.lock().agent().choose(&line))))
    }

    /// The agent's search of `state`, as a dict: `value` (for the side to move, in [-1, 1]),
    /// `visits` (numpy float32 over the action space: the visit shares, summing to 1),
    /// `priors` (the guide's policy at the root), `best` (the action it plays), `label` (its
    /// pit label), `pv` (the line it expects, as labels) and `simulations`. Agents without a
    /// search tree (random, greedy, alphabeta, perfect) give their move alone: `visits` 1.0
    /// on it, `value` and `priors` None.
    fn analyze<'py>(&self, py: Python<'py>, state: PyRef<'py, PyState>) -> PyResult<Bound<'py, PyDict>> {
        let line = self.line_of(&state)?;
        drop(state);
        let a = self.rules.game.action_space();
        let report = py.detach(|| {
            let mut built = self.lock();
            match &mut *built {
                Built::Search(player) => {
                    player.analyse(&line);
                    let search = player.search_mut();
                    let best = search.select_action(0.0);
                    Analysis::of(search, a, best)
                }
                Built::Plain(agent) => Analysis::move_alone(agent.choose(&line), a),
            }
        });
        let side = line.side_to_move();
        let game = &self.rules.game;
        let out = PyDict::new(py);
        out.set_item("value", report.value)?;
        out.set_item("visits", PyArray1::from_vec(py, report.visits))?;
        out.set_item("priors", report.priors.map(|p| PyArray1::from_vec(py, p)))?;
        out.set_item("best", report.best.map(usize::from))?;
        out.set_item("label", report.best.map(|b| game.move_label(side, b)))?;
        let pv: Vec<String> = report.pv.iter().map(|&(mover, a)| game.move_label(mover, a)).collect();
        out.set_item("pv", pv)?;
        out.set_item("simulations", report.simulations)?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?}, {:?})", self.spec, self.rules.game.rules_string())
    }
}

impl PyAgent {
    fn lock(&self) -> std::sync::MutexGuard<'_, Built> {
        self.built.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The line of `state`, checked to be an ongoing game of the agent's game.
    fn line_of(&self, state: &PyState) -> PyResult<Line<AnyGame>> {
        if state.rules.game != self.rules.game {
            return Err(PyValueError::new_err(format!(
                "agent '{}' plays {}, the state is of {}",
                self.spec,
                self.rules.game.rules_string(),
                state.rules.game.rules_string()
            )));
        }
        if let Some(outcome) = state.line.status().outcome() {
            return Err(PyValueError::new_err(format!("the game is over ({outcome}): there is no move to choose")));
        }
        Ok(state.line.clone())
    }
}

/// What `analyze` reports, read from a search or made of a move alone.
struct Analysis {
    value: Option<f32>,
    visits: Vec<f32>,
    priors: Option<Vec<f32>>,
    best: Option<Action>,
    /// (mover, action) of each ply of the principal variation.
    pv: Vec<(mancala_rules::Player, Action)>,
    simulations: u32,
}

impl Analysis {
    fn of(search: &Search<AnyGame>, actions: usize, best: Option<Action>) -> Analysis {
        let children = search.root_children();
        let total: u32 = children.iter().map(|c| c.visits).sum();
        let mut visits = vec![0.0f32; actions];
        let mut priors = vec![0.0f32; actions];
        for c in &children {
            if total > 0 {
                visits[usize::from(c.action)] = c.visits as f32 / total as f32;
            }
            priors[usize::from(c.action)] = c.prior;
        }
        Analysis {
            value: Some(search.root_value().clamp(-1.0, 1.0)),
            visits,
            priors: Some(priors),
            best,
            pv: principal_variation(search, best),
            simulations: search.simulations_done(),
        }
    }

    fn move_alone(best: Action, actions: usize) -> Analysis {
        let mut visits = vec![0.0f32; actions];
        visits[usize::from(best)] = 1.0;
        Analysis { value: None, visits, priors: None, best: Some(best), pv: Vec::new(), simulations: 0 }
    }
}

/// The line the search expects: the move it plays (`first`), then the most visited path
/// below it.
fn principal_variation(search: &Search<AnyGame>, first: Option<Action>) -> Vec<(mancala_rules::Player, Action)> {
    let tree = search.tree();
    let mut pv = Vec::new();
    let mut node = NodeId::ROOT;
    while tree.state(node) == NodeState::Expanded && pv.len() < PV_PLIES {
        let mut visited = tree.children(node).filter(|&c| tree.visits(c) > 0);
        let chosen = match first {
            Some(a) if node == NodeId::ROOT => visited.find(|&c| tree.action(c) == a),
            _ => visited.max_by_key(|&c| tree.visits(c)),
        };
        let Some(best) = chosen else {
            break;
        };
        pv.push((tree.mover(best), tree.action(best)));
        node = best;
    }
    pv
}

/// An agent given to `arena`: an `Agent` (its spec) or a spec string.
#[derive(FromPyObject)]
pub enum AgentArg<'py> {
    Agent(PyRef<'py, PyAgent>),
    Spec(String),
}

impl AgentArg<'_> {
    fn spec(&self) -> String {
        match self {
            AgentArg::Agent(a) => a.spec.clone(),
            AgentArg::Spec(s) => s.clone(),
        }
    }
}

/// A match between agents `a` and `b` (Agents or spec strings) as `mancala-zero arena`
/// plays it: `games` games (even) in pairs from shared random openings of `opening_plies`
/// plies with colours swapped, on `threads` threads (all cores by default; the results do
/// not depend on it). Returns the report as a dict, counts from A's view: `wins`, `draws`,
/// `losses`, `score`, `elo` with its 95% interval `elo_low`, `elo_high`, `a_south` and
/// `a_north` (each `{wins, draws, losses}`) and `records` (one dict a game: `south`,
/// `north`, `opening`, `moves`, `result`, `plies`).
#[pyfunction]
#[pyo3(signature = (a, b, game, games = 100, seed = 1, threads = None, opening_plies = 4))]
#[allow(clippy::too_many_arguments)]
pub fn arena<'py>(
    py: Python<'py>,
    a: AgentArg<'_>,
    b: AgentArg<'_>,
    game: GameArg<'_>,
    games: u32,
    seed: u64,
    threads: Option<usize>,
    opening_plies: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let rules = game.rules()?;
    let (a, b) = (a.spec(), b.spec());
    // Checked like any other argument, before a thread starts.
    thread_pool(threads.or(Some(1)))?;
    let config = MatchConfig { games, opening_plies, seed, threads, ..MatchConfig::default() };
    config.validate().map_err(value_error)?;
    let g = &rules.game;
    let result = py.detach(|| -> Result<_, PyErr> {
        let recipes = [Recipe::read(g, &a)?, Recipe::read(g, &b)?];
        let factory = |spec: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, BuildError> {
            let recipe = if spec == a { &recipes[0] } else { &recipes[1] };
            recipe.build(g, seed).map(Built::into_agent)
        };
        play_match(g, &a, &b, &factory, &config, &mut |_| Ok(())).map_err(|e| value_error_chain(&e))
    })?;
    let out = PyDict::new(py);
    let wdl = |w: mancala_arena::Wdl| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("wins", w.wins)?;
        d.set_item("draws", w.draws)?;
        d.set_item("losses", w.losses)?;
        Ok(d)
    };
    out.set_item("a", &result.a)?;
    out.set_item("b", &result.b)?;
    out.set_item("rules", rules.game.rules_string())?;
    out.set_item("games", result.games())?;
    out.set_item("wins", result.total.wins)?;
    out.set_item("draws", result.total.draws)?;
    out.set_item("losses", result.total.losses)?;
    out.set_item("score", result.score())?;
    let (elo, lo, hi) = result.elo();
    out.set_item("elo", elo)?;
    out.set_item("elo_low", lo)?;
    out.set_item("elo_high", hi)?;
    out.set_item("a_south", wdl(result.a_south)?)?;
    out.set_item("a_north", wdl(result.a_north)?)?;
    let records = result
        .records
        .iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("south", &r.south)?;
            d.set_item("north", &r.north)?;
            d.set_item("opening", &r.opening)?;
            d.set_item("moves", &r.moves)?;
            d.set_item("result", &r.result)?;
            d.set_item("plies", r.plies)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("records", records)?;
    Ok(out)
}
