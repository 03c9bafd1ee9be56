//! A network-guided MCTS player behind the arena's `Agent` trait.

use burn::prelude::Device;
use mancala_mcts::{Agent, CachedEvaluator, Search, SearchConfig};
use mancala_rules::{Action, Game, Line};

use crate::evaluator::NeuralEvaluator;
use crate::model::Net;

/// Plays the most visited move of a search guided by a network (no noise).
pub struct NeuralAgent<G: Game> {
    search: Search<G>,
    evaluator: CachedEvaluator<G, NeuralEvaluator<G>>,
    name: String,
}

impl<G: Game> NeuralAgent<G> {
    /// `model` must be an inference (`valid()`) model on `device`.
    pub fn new(game: &G, model: Net, device: Device, config: SearchConfig, seed: u64, name: String) -> Self {
        let evaluator = NeuralEvaluator::new(game, model, device).cached(14);
        NeuralAgent { search: Search::new(game.clone(), config, seed), evaluator, name }
    }

    /// The search after the last `choose`, for analysis output.
    pub fn search(&self) -> &Search<G> {
        &self.search
    }

    /// Searches the current position of `line` without choosing.
    pub fn analyse(&mut self, line: &Line<G>) -> &Search<G> {
        self.search.set_root_line(line);
        self.search.run(&mut self.evaluator);
        &self.search
    }
}

impl<G: Game> Agent<G> for NeuralAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, line: &Line<G>) -> Action {
        self.search.set_root_line(line);
        self.search.run(&mut self.evaluator);
        self.search.select_action(0.0).expect("an ongoing game has a legal move")
    }

    fn new_game(&mut self, seed: u64) {
        self.search.reseed(seed);
    }
}
