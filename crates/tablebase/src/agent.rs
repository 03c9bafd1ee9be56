//! The arena agent `perfect`: optimal moves inside the database, alpha-beta outside it.

use std::sync::Arc;

use mancala_mcts::Agent;
use mancala_rules::{Action, Game, Line};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::Tablebase;

/// Plays a best move of the database (ties broken at random, seeded by `new_game`) whenever
/// the position is inside it; elsewhere asks its fallback agent (alpha-beta in the `perfect`
/// spec, which mancala-agents parses and builds), because a database of N seeds says nothing
/// about positions with more.
pub struct PerfectAgent<G: Game> {
    game: G,
    tablebase: Arc<Tablebase>,
    fallback: Box<dyn Agent<G>>,
    rng: SmallRng,
    /// Moves answered by the database, and all moves.
    pub probed: u64,
    pub moves: u64,
}

impl<G: Game> PerfectAgent<G> {
    /// The agent for `game` over `tablebase`, with `fallback` outside it.
    ///
    /// # Errors
    /// [`crate::TablebaseError::WrongGame`] when the database is for other rules.
    pub fn new(
        game: G,
        tablebase: Arc<Tablebase>,
        fallback: Box<dyn Agent<G>>,
        seed: u64,
    ) -> Result<Self, crate::TablebaseError> {
        tablebase.check_game(&game)?;
        Ok(PerfectAgent { game, tablebase, fallback, rng: SmallRng::seed_from_u64(seed), probed: 0, moves: 0 })
    }
}

impl<G: Game> Agent<G> for PerfectAgent<G> {
    fn name(&self) -> String {
        "perfect".into()
    }

    fn choose(&mut self, line: &Line<G>) -> Action {
        self.moves += 1;
        if let Some(probe) = self.tablebase.probe(&self.game, line.position())
            && !probe.best.is_empty()
        {
            self.probed += 1;
            let k = self.rng.random_range(0..probe.best.len());
            return probe.best.nth(k).expect("k is below the number of best moves");
        }
        self.fallback.choose(line)
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.fallback.new_game(seed);
    }
}
