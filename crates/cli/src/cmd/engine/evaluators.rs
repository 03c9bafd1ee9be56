//! Where the engine's evaluator comes from. The engine asks its [`EvaluatorSource`] for a
//! fresh evaluator whenever the game or the seed changes, so a source that is costly to
//! build (a network read from a file) should keep that cost in itself and hand out cheap
//! evaluators over it.

use mancala_mcts::{Evaluator, RolloutEvaluator};
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
