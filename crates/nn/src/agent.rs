//! A network-guided MCTS player behind the arena's `Agent` trait.

use burn::prelude::Device;
use mancala_mcts::{CachedEvaluator, SearchAgent, SearchConfig};
use mancala_rules::Game;

use crate::evaluator::NeuralEvaluator;
use crate::model::Net;
use crate::precision::Precision;

/// Plays the most visited move of a search guided by a network (no noise).
pub type NeuralAgent<G> = SearchAgent<G, CachedEvaluator<G, NeuralEvaluator<G>>>;

/// A network-guided agent; `model` must be an inference (`valid()`) model on `device`, made
/// for this build's input encoding (as [`NeuralEvaluator::new`]), its CPU kernel running in
/// `precision` (a training run passes its `network.inference_precision`, so that gating and
/// evaluation search as fast as its self-play). A model file of an older version: a
/// `SearchAgent` over [`NeuralEvaluator::with_layout`].
pub fn neural_agent<G: Game>(
    game: &G,
    model: Net,
    device: Device,
    precision: Precision,
    config: SearchConfig,
    seed: u64,
    name: String,
) -> NeuralAgent<G> {
    let evaluator = NeuralEvaluator::new(game, model, device)
        .with_precision(precision)
        .with_margin_utility(config.margin_utility)
        .cached(14);
    SearchAgent::new(game.clone(), config, evaluator, seed, name)
}
