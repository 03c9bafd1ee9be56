//! Where the engine's evaluator comes from. The engine asks its [`EvaluatorSource`] for a
//! fresh evaluator whenever the game or the seed changes, so a source that is costly to
//! build (a network read from a file) should keep that cost in itself and hand out cheap
//! evaluators over it.

use std::path::PathBuf;

use burn::prelude::Device;
use mancala_mcts::{Evaluator, RolloutEvaluator};
use mancala_nn::NeuralEvaluator;
use mancala_rules::AnyGame;

/// Hands the engine an evaluator for each game it plays.
pub trait EvaluatorSource {
    /// What judges positions, in a few words (for the start-up line).
    fn describe(&self) -> String;

    /// An evaluator for `game`; `seed` seeds whatever random numbers it draws.
    ///
    /// # Errors
    /// When this source cannot judge `game` (a network trained for another game); the
    /// engine then refuses the `game` command and keeps its current game.
    fn for_game(&mut self, game: &AnyGame, seed: u64) -> anyhow::Result<Box<dyn Evaluator<AnyGame>>>;

    /// Whether the evaluator `for_game` last handed out is a network: the search over it
    /// then plays with the network's play-time settings ([`mancala_mcts::SearchConfig::in_play`]).
    fn network(&self) -> bool {
        false
    }
}

/// Uniform priors and one random playout as the value: plain MCTS, which plays every game
/// without any training.
#[derive(Clone, Copy, Debug, Default)]
pub struct RolloutSource;

/// Kept apart from the search's own seed so that the playouts and the move sampling do not
/// draw the same numbers.
const ROLLOUT_SEED_SALT: u64 = 0x5eed_0f70_1100_75aa;

impl EvaluatorSource for RolloutSource {
    fn describe(&self) -> String {
        "MCTS with random rollouts".to_string()
    }

    fn for_game(&mut self, _game: &AnyGame, seed: u64) -> anyhow::Result<Box<dyn Evaluator<AnyGame>>> {
        Ok(Box::new(RolloutEvaluator::new(seed ^ ROLLOUT_SEED_SALT)))
    }
}

/// A trained network: the file given with `--model` for its own game only, or else the
/// shipped model of the game where there is one, and rollouts for the other games.
pub struct ModelSource {
    /// `--model FILE`.
    pub file: Option<PathBuf>,
    last: String,
    /// Whether `for_game` last handed out a network.
    network: bool,
}

impl ModelSource {
    pub fn new(file: Option<PathBuf>) -> Self {
        ModelSource { file, last: String::new(), network: false }
    }
}

impl EvaluatorSource for ModelSource {
    fn describe(&self) -> String {
        match (&self.file, self.last.is_empty()) {
            (Some(f), _) => format!("MCTS guided by the network {}", f.display()),
            (None, false) => self.last.clone(),
            (None, true) => "MCTS guided by the shipped network where there is one, else random rollouts".into(),
        }
    }

    fn for_game(&mut self, game: &AnyGame, seed: u64) -> anyhow::Result<Box<dyn Evaluator<AnyGame>>> {
        // Each model with its own input encoding version: shipped ones are of version 1 or 2.
        self.network = false;
        if let Some(path) = &self.file {
            let evaluator = mancala_agents::model_evaluator(game, path)?.cached(16);
            self.network = true;
            return Ok(Box::new(evaluator));
        }
        match crate::shipped::shipped_model(game)? {
            Some((meta, net)) => {
                self.network = true;
                self.last = format!("MCTS guided by the shipped {} network", game.family());
                let layout = mancala_nn::layout_for(game, meta.encoding_version)?;
                Ok(Box::new(NeuralEvaluator::with_layout(game, layout, net, Device::flex()).cached(16)))
            }
            None => {
                self.last = "MCTS with random rollouts (no shipped network for these rules)".into();
                RolloutSource.for_game(game, seed)
            }
        }
    }

    fn network(&self) -> bool {
        self.network
    }
}
