//! The network behind the search's [`Evaluator`] seam.

use std::marker::PhantomData;

use burn::nn::Linear;
use burn::prelude::*;
use mancala_mcts::{CachedEvaluator, Evaluator, utility};
use mancala_rules::Game;

use crate::cpu::CpuMlp;
use crate::error::NnError;
use crate::int8::Int8Path;
use crate::model::{Net, margin_from_head};
use crate::precision::Precision;
use mancala_encoding::{Layout, encode_batch, layout};

/// Evaluates batches of positions with a (non-autodiff) network: encodes them from the
/// mover's side, runs one forward pass, masks illegal moves and turns WDL (and the margin,
/// when the search weighs it) into a value.
pub struct NeuralEvaluator<G: Game> {
    model: Net,
    /// The three heads as one layer (see [`crate::model::Heads::fused`]).
    heads: Linear,
    /// Its outputs a position: `a` policy logits, win, draw, loss logits, the margin's columns.
    outputs: usize,
    /// Weight of the predicted margin in the value (see [`mancala_mcts::utility`]).
    margin_utility: f32,
    device: Device,
    layout: Layout,
    inputs: Vec<f32>,
    /// The same MLP in plain Rust, for the CPU (see [`crate::cpu`] and [`CpuMlp::takes`]).
    cpu: Option<CpuMlp>,
    _game: PhantomData<fn(G)>,
}

impl<G: Game> NeuralEvaluator<G> {
    /// A network made for this build's input encoding
    /// ([`mancala_encoding::ENCODING_VERSION`]: a new one, or one of a run, which keeps to
    /// that version); `model` must be a `valid()` (inference) model on `device`. A model read
    /// from a file may be older: give it its own version's layout with
    /// [`NeuralEvaluator::with_layout`].
    ///
    /// # Panics
    /// As [`NeuralEvaluator::with_layout`]; [`NeuralEvaluator::try_new`] returns the error.
    pub fn new(game: &G, model: Net, device: Device) -> Self {
        Self::with_layout(game, layout(game), model, device)
    }

    /// [`NeuralEvaluator::new`], or the error of [`NeuralEvaluator::try_with_layout`].
    ///
    /// # Errors
    /// As [`NeuralEvaluator::try_with_layout`].
    pub fn try_new(game: &G, model: Net, device: Device) -> Result<Self, NnError> {
        Self::try_with_layout(game, layout(game), model, device)
    }

    /// A network that reads positions encoded with `layout` (for a model file:
    /// `layout_for(game, meta.encoding_version)`).
    ///
    /// # Panics
    /// With the message of [`NeuralEvaluator::try_with_layout`]'s error, for callers that
    /// built the pair themselves; code that pairs a file's network with a layout should call
    /// that one.
    pub fn with_layout(game: &G, layout: Layout, model: Net, device: Device) -> Self {
        Self::try_with_layout(game, layout, model, device).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A network that reads positions encoded with `layout`, checked to fit it.
    ///
    /// # Errors
    /// [`NnError::InputsMismatch`], naming both widths, if the network does not take
    /// `layout.inputs()` inputs: a model paired with another encoding version's layout, which
    /// would otherwise misread every position.
    pub fn try_with_layout(game: &G, layout: Layout, model: Net, device: Device) -> Result<Self, NnError> {
        if model.inputs() != layout.inputs() {
            return Err(NnError::InputsMismatch {
                rules: game.rules_string(),
                network: model.inputs(),
                version: layout.version,
                encoding: layout.inputs(),
            });
        }
        let heads = model.heads().fused();
        let cpu = if device == Device::flex() { CpuMlp::new(&model, &heads) } else { None };
        let outputs = heads.weight.dims()[1];
        Ok(NeuralEvaluator {
            model,
            heads,
            outputs,
            margin_utility: 0.0,
            device,
            layout,
            inputs: Vec::new(),
            cpu,
            _game: PhantomData,
        })
    }

    /// The same evaluator running in `precision` (see [`Precision`]); the model stays FP32,
    /// an int8 copy of its residual blocks is made here. Only the plain-Rust CPU kernel (any
    /// network on the flex device) has int8: other evaluators stay FP32, as
    /// [`NeuralEvaluator::precision`] then says.
    pub fn with_precision(mut self, precision: Precision) -> Self {
        if let Some(cpu) = &mut self.cpu {
            cpu.use_precision(precision);
        }
        self
    }

    /// `Fp32` or `Int8`: the precision this evaluator runs in.
    pub fn precision(&self) -> Precision {
        self.cpu.as_ref().map_or(Precision::Fp32, CpuMlp::precision)
    }

    /// The path of the int8 products (see [`Int8Path`]) when the evaluator runs in int8.
    pub fn int8_path(&self) -> Option<Int8Path> {
        self.cpu.as_ref().and_then(CpuMlp::int8_path)
    }

    /// Runs the int8 products on `path`; `false`, and no change, when the evaluator is not in
    /// int8 or this CPU lacks the path.
    pub fn use_int8_path(&mut self, path: Int8Path) -> bool {
        self.cpu.as_mut().is_some_and(|cpu| cpu.use_int8_path(path))
    }

    /// The same evaluator giving [`mancala_mcts::utility`] with this margin weight as its
    /// value, for a search whose `margin_utility` is the same.
    pub fn with_margin_utility(mut self, weight: f32) -> Self {
        self.margin_utility = weight;
        self
    }

    /// The instruction set of the plain-Rust CPU kernel when this evaluator uses it (on the
    /// flex device), `None` when it runs burn.
    pub fn cpu_kernel(&self) -> Option<&'static str> {
        self.cpu.as_ref().map(CpuMlp::instruction_set)
    }

    /// Runs the CPU kernel with the named instruction set (see
    /// [`CpuMlp::instruction_sets`]); `false`, and no change, if this evaluator has no CPU
    /// kernel or this CPU no such set.
    pub fn use_cpu_kernel(&mut self, name: &str) -> bool {
        self.cpu.as_mut().is_some_and(|cpu| cpu.use_instruction_set(name))
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

/// One position's network row (`a` policy logits, then win, draw, loss logits, then the
/// margin head's columns) turned into the search's prior over the legal moves and a value in
/// [-1, 1] for the mover.
fn write_outputs<G: Game>(
    game: &G,
    pos: &G::Position,
    row: &[f32],
    margin_utility: f32,
    policy: &mut [f32],
    value: &mut f32,
) {
    let a = policy.len();
    masked_softmax(&row[..a], game.legal_moves(pos), policy);
    let w = &row[a..];
    let m = w[0].max(w[1]).max(w[2]);
    let e = [(w[0] - m).exp(), (w[1] - m).exp(), (w[2] - m).exp()];
    let result = (e[0] - e[2]) / (e[0] + e[1] + e[2]);
    // The margin is read only where the search weighs it: a distribution's softmax costs an
    // exponential a bin.
    *value = if margin_utility == 0.0 { result } else { utility(result, margin_from_head(&w[3..]), margin_utility) };
}

impl<G: Game> NeuralEvaluator<G> {
    /// As [`Evaluator::evaluate`], and also the margin head's prediction for the mover (the
    /// final seed margin as a share of all the game's seeds, in [-1, 1]) into `margins[i]`:
    /// for callers that show or train on the network's outputs rather than search with them.
    pub fn evaluate_with_margins(
        &mut self,
        game: &G,
        positions: &[G::Position],
        policies: &mut [f32],
        values: &mut [f32],
        margins: &mut [f32],
    ) {
        self.run(game, positions, policies, values, Some(margins));
    }

    fn run(
        &mut self,
        game: &G,
        positions: &[G::Position],
        policies: &mut [f32],
        values: &mut [f32],
        mut margins: Option<&mut [f32]>,
    ) {
        let n = positions.len();
        if n == 0 {
            return;
        }
        let a = game.action_space();
        encode_batch(game, &self.layout, positions, &mut self.inputs);
        let margin_utility = self.margin_utility;
        let mut write = |i: usize, pos: &G::Position, row: &[f32]| {
            write_outputs(game, pos, row, margin_utility, &mut policies[i * a..(i + 1) * a], &mut values[i]);
            if let Some(margins) = margins.as_deref_mut() {
                margins[i] = margin_from_head(&row[a + 3..]);
            }
        };
        if let Some(cpu) = &mut self.cpu
            && cpu.takes(n)
        {
            let stride = cpu.row_stride();
            let out = cpu.forward(&self.inputs, n);
            for (i, (pos, row)) in positions.iter().zip(out.chunks_exact(stride)).enumerate() {
                write(i, pos, &row[..self.outputs]);
            }
            return;
        }
        let data = TensorData::new(std::mem::take(&mut self.inputs), [n, self.layout.inputs()]);
        let features = self.model.features(Tensor::<2>::from_data(data, &self.device));
        let out = self.heads.forward(features).into_data();
        let out: &[f32] = out.as_slice().expect("network outputs are f32");
        for (i, (pos, row)) in positions.iter().zip(out.chunks_exact(self.outputs)).enumerate() {
            write(i, pos, row);
        }
    }
}

impl<G: Game> Evaluator<G> for NeuralEvaluator<G> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        self.run(game, positions, policies, values, None);
    }
}
