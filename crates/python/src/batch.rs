//! Batched calls: many random games, many encodings, in one call with the interpreter
//! detached.

use mancala_arena::matches::mix;
use mancala_mcts::Agent;
use mancala_mcts::agents::RandomAgent;
use mancala_rules::{AnyGame, Game, Line, Player};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::errors::value_error;
use crate::game::{GameArg, PyState, Rules};

/// Most games one `play_random_games` call plays.
const MAX_GAMES: usize = 10_000_000;

/// Most threads one batched call may use.
const MAX_THREADS: usize = 1024;

/// One random game from the start: (plies, outcome for South as +1/0/-1, South's margin).
fn random_game(game: &AnyGame, seed: u64) -> (u32, i8, i32) {
    let mut line = Line::new(game.clone());
    let mut agent = RandomAgent::new(seed);
    while !line.status().is_over() {
        let action = agent.choose(&line);
        line.play(action).expect("a random agent plays a legal move");
    }
    let outcome = line.status().outcome().expect("the loop ends a game");
    (line.len() as u32, outcome.value_for(Player::South) as i8, outcome.margin_for(Player::South))
}

/// Plays `n` games of uniformly random legal moves from the start, in parallel on `threads`
/// threads (all cores by default); game `i` is seeded by `seed` and `i` alone, so the
/// results do not depend on the thread count.
///
/// Returns a dict: `games`, `moves` (plies in all), and numpy arrays over the games:
/// `plies` (int32), `results` (int8: +1 South won, 0 draw, -1 North won) and `margins`
/// (int32, South's seeds minus North's).
#[pyfunction]
#[pyo3(signature = (game, n, seed = 0, threads = None))]
pub fn play_random_games<'py>(
    py: Python<'py>,
    game: GameArg<'_>,
    n: usize,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let rules = game.rules()?;
    if n > MAX_GAMES {
        return Err(PyValueError::new_err(format!("n={n} games is above the most one call plays, {MAX_GAMES}")));
    }
    let pool = thread_pool(threads)?;
    let game = &rules.game;
    let played: Vec<(u32, i8, i32)> =
        py.detach(|| pool.install(|| (0..n).into_par_iter().map(|i| random_game(game, mix(seed, i as u64))).collect()));
    let moves: u64 = played.iter().map(|g| u64::from(g.0)).sum();
    let out = PyDict::new(py);
    out.set_item("games", n)?;
    out.set_item("moves", moves)?;
    out.set_item("plies", PyArray1::from_iter(py, played.iter().map(|g| g.0 as i32)))?;
    out.set_item("results", PyArray1::from_iter(py, played.iter().map(|g| g.1)))?;
    out.set_item("margins", PyArray1::from_iter(py, played.iter().map(|g| g.2)))?;
    Ok(out)
}

/// A pool of `threads` threads, or of one a core.
pub fn thread_pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    if let Some(t) = threads
        && !(1..=MAX_THREADS).contains(&t)
    {
        return Err(PyValueError::new_err(format!("threads={t} is out of range: expected 1 to {MAX_THREADS}")));
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        builder = builder.num_threads(t);
    }
    builder.build().map_err(value_error)
}

/// The positions of `states`, all of one game, with that game.
pub fn positions_of(
    states: &[PyRef<'_, PyState>],
    what: &str,
) -> PyResult<(std::sync::Arc<Rules>, Vec<mancala_rules::AnyPosition>)> {
    let Some(first) = states.first() else {
        return Err(PyValueError::new_err(format!("{what} needs at least one state")));
    };
    let rules = first.rules.clone();
    let mut positions = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        if !std::sync::Arc::ptr_eq(&s.rules, &rules) && s.rules.game != rules.game {
            return Err(PyValueError::new_err(format!(
                "{what}: state {i} is of {}, state 0 of {}",
                s.rules.game.rules_string(),
                rules.game.rules_string()
            )));
        }
        positions.push(*s.position());
    }
    Ok((rules, positions))
}

/// The network inputs of `states` (all of one game) as one numpy float32 array
/// `[len(states), inputs]`, in encoding `version` (this build's by default).
#[pyfunction]
#[pyo3(signature = (states, version = None))]
pub fn encode_batch<'py>(
    py: Python<'py>,
    states: Vec<PyRef<'py, PyState>>,
    version: Option<u32>,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let (rules, positions) = positions_of(&states, "encode_batch")?;
    let layout = rules.layout(version)?;
    let inputs = layout.inputs();
    let game = &rules.game;
    let flat = py.detach(|| {
        let mut out = Vec::new();
        mancala_encoding::encode_batch(game, &layout, &positions, &mut out);
        out
    });
    let array = Array2::from_shape_vec((positions.len(), inputs), flat).map_err(value_error)?;
    Ok(array.into_pyarray(py))
}
