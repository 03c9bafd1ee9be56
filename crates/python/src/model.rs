//! `Model`: a trained network read from a model file or built in (the shipped models), and
//! its batched evaluation through the same evaluator the search uses.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use burn::prelude::Device;
use mancala_nn::{ModelMeta, NeuralEvaluator, load_model};
use mancala_rules::{AnyGame, Game};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use crate::batch::positions_of;
use crate::errors::{value_error, value_error_chain};
use crate::game::{GameArg, PyGame, PyState, Rules, read_rules};

/// A trained network with its game. `evaluate` runs the network as the search does: the
/// model's own input encoding version, the plain-Rust CPU kernel where it applies.
#[pyclass(frozen, name = "Model", module = "mancala_zero")]
pub struct PyModel {
    pub rules: Arc<Rules>,
    pub meta: ModelMeta,
    /// Where it came from, for messages and `repr`.
    pub name: String,
    net: mancala_nn::Net,
    evaluator: Mutex<NeuralEvaluator<AnyGame>>,
}

impl PyModel {
    fn new(rules: Arc<Rules>, meta: ModelMeta, net: mancala_nn::Net, name: String) -> PyResult<PyModel> {
        let layout = mancala_encoding::layout_for(&rules.game, meta.encoding_version)
            .map_err(|e| PyValueError::new_err(format!("model {name}: {e}")))?;
        let evaluator = NeuralEvaluator::try_with_layout(&rules.game, layout, net.clone(), Device::flex())
            .map_err(|e| PyValueError::new_err(format!("model {name}: {e}")))?;
        Ok(PyModel { rules, meta, name, net, evaluator: Mutex::new(evaluator) })
    }

    /// The model's (meta, net), for agents built on it.
    pub fn parts(&self) -> (ModelMeta, mancala_nn::Net) {
        (self.meta.clone(), self.net.clone())
    }

    /// The shipped model of `game`, if these rules have one.
    pub fn shipped_for(rules: &Arc<Rules>) -> PyResult<Option<PyModel>> {
        match mancala_agents::shipped_model(&rules.game).map_err(value_error)? {
            Some((meta, net)) => {
                let name = format!("the shipped {} network", rules.game.name());
                Ok(Some(PyModel::new(rules.clone(), meta, net, name)?))
            }
            None => Ok(None),
        }
    }
}

#[pymethods]
impl PyModel {
    /// Reads a model file (`.mzm`). Its game is the one the file names; with `game` (a Game
    /// or a rules string) the file must be for that game.
    ///
    /// Raises FileNotFoundError when there is no such file, ValueError when it is not a
    /// model this build reads (truncated, corrupt, another format) or is for another game.
    #[staticmethod]
    #[pyo3(signature = (path, game = None))]
    fn load(py: Python<'_>, path: PathBuf, game: Option<GameArg<'_>>) -> PyResult<PyModel> {
        if !path.is_file() {
            return Err(PyFileNotFoundError::new_err(format!("no model file {}", path.display())));
        }
        let expected = game.map(|g| g.rules()).transpose()?;
        let rules_string = expected.as_ref().map(|r| r.game.rules_string());
        let (meta, net) = py
            .detach(|| load_model(&path, rules_string.as_deref(), None, &Device::flex()))
            .map_err(|e| value_error_chain(&e))?;
        let rules = match expected {
            Some(rules) => rules,
            None => Rules::new(
                read_rules(&meta.rules)
                    .map_err(|e| PyValueError::new_err(format!("model {}: its rules: {e}", path.display())))?,
            ),
        };
        PyModel::new(rules, meta, net, path.display().to_string())
    }

    /// The model shipped with mancala-zero for `game` (a Game or a rules string): every
    /// preset with its default options has one.
    ///
    /// Raises ValueError for rules without a shipped model.
    #[staticmethod]
    fn shipped(game: GameArg<'_>) -> PyResult<PyModel> {
        let rules = game.rules()?;
        PyModel::shipped_for(&rules)?.ok_or_else(|| {
            let presets: Vec<&str> = mancala_agents::shipped_presets().collect();
            PyValueError::new_err(format!(
                "no shipped model for {}: models ship for {}",
                rules.game.rules_string(),
                presets.join(", ")
            ))
        })
    }

    /// The game the model plays.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame { rules: self.rules.clone() }
    }

    /// The input encoding version it was trained with (what `State.encode(version)` gives it).
    #[getter]
    fn encoding_version(&self) -> u32 {
        self.meta.encoding_version
    }

    /// Training steps taken.
    #[getter]
    fn step(&self) -> u64 {
        self.meta.step
    }

    /// Where the model came from: its file, or the shipped network it is.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The network on `states` (all of its game), as one batch: `(policy, value, margin)`,
    /// numpy float32 arrays `[n, action_space]`, `[n]`, `[n]`. The policy is the softmax over
    /// the legal moves (zero elsewhere), the value P(win) - P(loss) for the side to move, the
    /// margin the predicted final seed margin for the side to move as a share of all seeds.
    /// Finished games are evaluated as the network sees them (their policy is all zeros).
    #[allow(clippy::type_complexity)]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        states: Vec<PyRef<'py, PyState>>,
    ) -> PyResult<(Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>)> {
        let (rules, positions) = positions_of(&states, "Model.evaluate")?;
        if rules.game != self.rules.game {
            return Err(PyValueError::new_err(format!(
                "Model.evaluate: the states are of {}, the model plays {}",
                rules.game.rules_string(),
                self.rules.game.rules_string()
            )));
        }
        let n = positions.len();
        let a = self.rules.game.action_space();
        let game = &self.rules.game;
        let (policy, value, margin) = py.detach(|| {
            let (mut policy, mut value, mut margin) = (vec![0.0f32; n * a], vec![0.0f32; n], vec![0.0f32; n]);
            let mut evaluator = self.evaluator.lock().unwrap_or_else(PoisonError::into_inner);
            evaluator.evaluate_with_margins(game, &positions, &mut policy, &mut value, &mut margin);
            (policy, value, margin)
        });
        let policy = Array2::from_shape_vec((n, a), policy).map_err(value_error)?;
        Ok((policy.into_pyarray(py), PyArray1::from_vec(py, value), PyArray1::from_vec(py, margin)))
    }

    fn __repr__(&self) -> String {
        format!("Model({:?}, game={:?})", self.name, self.rules.game.rules_string())
    }
}
