//! What guides the engine's search for each game it plays: the model given with `--model`
//! (for its own game only), else the shipped network of the game, else random rollouts. The
//! player itself is built by `mancala_agents::build_player`, as every front-end's is.

use std::path::{Path, PathBuf};

use anyhow::Context;
use mancala_agents::Guide;
use mancala_rules::AnyGame;

/// Where the engine's guides come from.
#[derive(Clone, Debug, Default)]
pub struct Guides {
    /// `--model FILE`: it guides its own game, and other games are refused.
    model: Option<PathBuf>,
    /// `--no-model`: rollouts everywhere.
    no_model: bool,
}

impl Guides {
    /// The guides the command line asks for; a model file is read now, so a bad one is
    /// reported before the protocol starts.
    ///
    /// # Errors
    /// A model file that cannot be read.
    pub fn new(model: Option<&Path>, no_model: bool) -> anyhow::Result<Guides> {
        let model = model.filter(|_| !no_model);
        if let Some(path) = model {
            mancala_nn::read_model_file(path).with_context(|| format!("--model {}", path.display()))?;
        }
        Ok(Guides { model: model.map(Path::to_path_buf), no_model })
    }

    /// Random rollouts for every game.
    #[cfg(test)]
    pub fn rollouts() -> Guides {
        Guides { model: None, no_model: true }
    }

    /// The guide for `game`.
    ///
    /// # Errors
    /// A `--model` file for another game (its message says it is "not for" these rules), or a
    /// shipped network that does not load.
    pub fn for_game(&self, game: &AnyGame) -> anyhow::Result<Guide> {
        if self.no_model {
            return Ok(Guide::Rollouts);
        }
        if let Some(path) = &self.model {
            return Ok(Guide::model_file(game, path)?);
        }
        Ok(match crate::shipped::shipped_model(game)? {
            Some((meta, net)) => Guide::network(meta, net, format!("the shipped {} network", game.family())),
            None => Guide::Rollouts,
        })
    }

    /// What judges positions in a game `guide` guides, in a few words (the start-up line).
    pub fn describe(&self, guide: &Guide) -> String {
        match guide {
            Guide::Rollouts if !self.no_model => {
                "MCTS with random rollouts (no shipped network for these rules)".into()
            }
            guide => guide.describe(),
        }
    }
}
