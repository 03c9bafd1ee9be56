//! `mancala_zero`, the Python package: the rules, the input encoding, the search, the trained
//! models, every agent spec and the arena, through the same library calls the binary makes
//! (docs/python.md). This crate only converts: Python values in, the libraries' calls,
//! numpy arrays and Python exceptions out. Searches and batched calls run with the
//! interpreter detached (the GIL released), so other Python threads go on meanwhile.
//!
//! The compiled module is `mancala_zero._core`; the package (`python/mancala_zero/`) re-exports
//! it and adds the PettingZoo and Gymnasium environments, written in Python on top of it.

mod agent;
mod batch;
mod errors;
mod game;
mod model;

use pyo3::prelude::*;

/// The compiled part of the `mancala_zero` package.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("IllegalMoveError", py.get_type::<errors::IllegalMoveError>())?;
    m.add("ENCODING_VERSION", mancala_encoding::ENCODING_VERSION)?;
    m.add("PRESETS", mancala_rules::PRESETS.to_vec())?;
    m.add("ALL_AGENTS", mancala_agents::ALL_AGENTS)?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyState>()?;
    m.add_class::<model::PyModel>()?;
    m.add_class::<agent::PyAgent>()?;
    m.add_function(wrap_pyfunction!(batch::play_random_games, m)?)?;
    m.add_function(wrap_pyfunction!(batch::encode_batch, m)?)?;
    m.add_function(wrap_pyfunction!(agent::arena, m)?)?;
    Ok(())
}
