//! A plain-Rust forward pass of the residual MLP, for small batches on the CPU.
//!
//! Why: on the flex backend every tensor operation has a fixed cost (a dispatch, an output
//! allocation, gemm's packing), about 2 us for a `[1, 128] x [128, 128]` product on the
//! development machine. The default network is ~30 such operations, so a batch-1 call
//! through burn costs 30 us or more of overhead for 135k multiply-adds. The search asks for
//! batch 1 whenever a single game is played (the engine, `play`, arena matches), so those
//! calls run the same weights through the loops below instead: no operation overhead, no
//! allocation, and rows after a ReLU skip their zero inputs.
//!
//! Larger batches stay on burn, whose gemm is faster once the batch amortises its set-up
//! (see [`SMALL_BATCH`]). The two paths agree to float rounding (the order of the sums
//! differs); a test checks that.

use burn::nn::Linear;

use crate::model::{Net, ResMlp};

/// Batches up to this size take the plain-Rust path on the CPU (measured: the plain path
/// costs ~14 us a position, burn ~37 us for a call of 1 to 4, so they cross near 2.5).
pub const SMALL_BATCH: usize = 2;

/// One dense layer, `y = x W + b`, with `W` stored `[d_in][d_out]` as burn stores it.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    d_out: usize,
}

impl Dense {
    fn from_linear(linear: &Linear) -> Self {
        let [_, d_out] = linear.weight.dims();
        let weight = linear.weight.val().into_data().try_to_vec::<f32>().expect("weights are f32");
        let bias = match &linear.bias {
            Some(b) => b.val().into_data().try_to_vec::<f32>().expect("biases are f32"),
            None => vec![0.0; d_out],
        };
        Dense { weight, bias, d_out }
    }

    /// `out = input W + b`. Written as a sum of weight rows scaled by each input, so the
    /// inner loop runs over contiguous memory and vectorises; zero inputs (half the
    /// activations after a ReLU) are skipped.
    fn apply(&self, input: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        for (&x, row) in input.iter().zip(self.weight.chunks_exact(self.d_out)) {
            if x != 0.0 {
                for (o, &w) in out.iter_mut().zip(row) {
                    *o += x * w;
                }
            }
        }
    }
}

fn relu_in_place(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

/// The residual MLP's weights copied out of burn, with scratch rows for one position.
pub struct CpuMlp {
    input: Dense,
    /// Two layers per residual block.
    blocks: Vec<(Dense, Dense)>,
    /// Policy logits then win/draw/loss logits (the margin head is not needed to play).
    heads: Dense,
    x: Vec<f32>,
    h: Vec<f32>,
    y: Vec<f32>,
}

impl CpuMlp {
    /// A copy of `net`'s weights, for an MLP (`None` for other architectures), with `heads`
    /// its policy and WDL heads as one layer ([`crate::model::Heads::fused_policy_wdl`]).
    pub fn new(net: &Net, heads: &Linear) -> Option<Self> {
        let Net::Mlp(mlp) = net else { return None };
        Some(Self::from_mlp(mlp, heads))
    }

    fn from_mlp(mlp: &ResMlp, heads: &Linear) -> Self {
        let (input, blocks) = mlp.parts();
        let input = Dense::from_linear(input);
        let width = input.d_out;
        CpuMlp {
            input,
            blocks: blocks.iter().map(|(l1, l2)| (Dense::from_linear(l1), Dense::from_linear(l2))).collect(),
            heads: Dense::from_linear(heads),
            x: vec![0.0; width],
            h: vec![0.0; width],
            y: vec![0.0; width],
        }
    }

    /// Outputs per position: the policy logits, then the win, draw and loss logits.
    pub fn outputs(&self) -> usize {
        self.heads.d_out
    }

    /// One position's features in, its [`Self::outputs`] values out.
    pub fn forward(&mut self, features: &[f32], out: &mut [f32]) {
        let CpuMlp { input, blocks, heads, x, h, y } = self;
        input.apply(features, x);
        relu_in_place(x);
        for (l1, l2) in blocks.iter() {
            l1.apply(x, h);
            relu_in_place(h);
            l2.apply(h, y);
            for (a, &b) in x.iter_mut().zip(y.iter()) {
                *a = (*a + b).max(0.0);
            }
        }
        heads.apply(x, out);
    }
}
