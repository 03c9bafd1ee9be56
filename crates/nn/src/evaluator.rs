//! The network behind the search's [`Evaluator`] seam.

use std::marker::PhantomData;

use burn::prelude::*;
use mancala_mcts::{CachedEvaluator, Evaluator};
use mancala_rules::Game;

use crate::encoding::{encode_batch, layout, Layout};
use crate::model::Net;

/// Evaluates batches of positions with a (non-autodiff) network: encodes them from the
/// mover's side, runs one forward pass, masks illegal moves and turns WDL into a value.
pub struct NeuralEvaluator<G: Game> {
    model: Net,
    device: Device,
    layout: Layout,
    inputs: Vec<f32>,
    _game: PhantomData<fn(G)>,
}

impl<G: Game> NeuralEvaluator<G> {
    /// `model` must be a `valid()` (inference) model on `device`.
    pub fn new(game: &G, model: Net, device: Device) -> Self {
        NeuralEvaluator { model, device, layout: layout(game), inputs: Vec::new(), _game: PhantomData }
    }

    /// The same evaluator behind an evaluation cache of `2^log2_slots` entries.
    pub fn cached(self, log2_slots: u32) -> CachedEvaluator<G, Self> {
        CachedEvaluator::new(self, log2_slots)
    }
}

/// Softmax of `logits` over the legal actions, written into `out` (zero elsewhere).
fn masked_softmax(logits: &[f32], legal: mancala_rules::MoveMask, out: &mut [f32]) {
    out.fill(0.0);
    let max = legal.iter().map(|a| logits[usize::from(a)]).fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for a in legal {
        let e = (logits[usize::from(a)] - max).exp();
        out[usize::from(a)] = e;
        sum += e;
    }
    if sum > 0.0 && sum.is_finite() {
        out.iter_mut().for_each(|p| *p /= sum);
    }
}

impl<G: Game> Evaluator<G> for NeuralEvaluator<G> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let n = positions.len();
        if n == 0 {
            return;
        }
        let a = game.action_space();
        encode_batch(game, &self.layout, positions, &mut self.inputs);
        let data = TensorData::new(std::mem::take(&mut self.inputs), [n, self.layout.inputs()]);
        let out = self.model.forward(Tensor::<2>::from_data(data, &self.device));
        let logits: Vec<f32> = out.policy.into_data().try_into_vec::<f32>().expect("policy logits are f32");
        let wdl: Vec<f32> = out.wdl.into_data().try_into_vec::<f32>().expect("wdl logits are f32");
        for (i, pos) in positions.iter().enumerate() {
            masked_softmax(&logits[i * a..(i + 1) * a], game.legal_moves(pos), &mut policies[i * a..(i + 1) * a]);
            let w = &wdl[i * 3..i * 3 + 3];
            let m = w[0].max(w[1]).max(w[2]);
            let e = [(w[0] - m).exp(), (w[1] - m).exp(), (w[2] - m).exp()];
            values[i] = (e[0] - e[2]) / (e[0] + e[1] + e[2]);
        }
    }
}
