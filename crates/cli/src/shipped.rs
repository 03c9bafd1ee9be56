//! The shipped models (built into `mancala-agents`), and the commands' choice between a
//! given model file and the shipped one.

use std::path::Path;

use mancala_nn::{ModelMeta, Net};
use mancala_rules::{AnyGame, Game};

pub use mancala_agents::shipped_model;

/// The model in `path`, or without one the shipped model of `game`, for the commands that
/// judge a model and default to the shipped one.
///
/// # Errors
/// The file's error; or no shipped model for these rules, naming them and `--model FILE`.
pub fn given_or_shipped(game: &AnyGame, path: Option<&Path>) -> anyhow::Result<(ModelMeta, Net)> {
    match path {
        Some(path) => Ok(mancala_agents::cached_model(game, path)?),
        None => shipped_model(game)?
            .ok_or_else(|| anyhow::anyhow!("no shipped network for {}: give --model FILE", game.rules_string())),
    }
}
