//! Policy/value networks. Each module has its `Config` beside it with defaults and an
//! `init(&device)`. Heads: policy logits over the action space, win/draw/loss logits, and
//! the final seed margin (auxiliary, scaled to [-1, 1] by the total seeds): one number through
//! tanh, or with [`NetConfig::margin_bins`] a distribution over that range whose mean is the
//! margin.

use burn::module::Param;
use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::{relu, softmax};

use mancala_encoding::Layout;

/// Which network body to use.
#[derive(Config, Debug, PartialEq, Eq, Copy)]
pub enum Architecture {
    /// Residual MLP over the flat features (the default).
    Mlp,
    /// Residual 1-D convolutions over the ring of pits.
    Conv,
}

/// Sizes of a network; the input and action sizes come from the game.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Number of pits (the conv tower's length).
    pub pits: usize,
    /// Feature channels per pit.
    pub pit_channels: usize,
    /// Features that are not per pit.
    pub globals: usize,
    /// Size of the action space.
    pub actions: usize,
    #[config(default = "Architecture::Mlp")]
    pub architecture: Architecture,
    /// MLP width, or conv channels.
    #[config(default = 128)]
    pub width: usize,
    /// Residual blocks.
    #[config(default = 4)]
    pub blocks: usize,
    /// The margin head: 0 for one number through tanh; `N` (2 or more) for logits over `N`
    /// margins evenly spaced over [-1, 1] ([`margin_support`]), trained by cross-entropy
    /// against the final margin and read as their softmax's mean. With `2 * seeds + 1` bins
    /// each bin is one seed, so a seed given away is a whole class apart rather than a
    /// squared error of `(1 / seeds)^2`, which the other losses drown.
    #[config(default = 0)]
    pub margin_bins: usize,
}

impl NetConfig {
    /// A config for a game's input layout.
    pub fn for_layout(layout: &Layout, actions: usize) -> Self {
        NetConfig::new(layout.pits, layout.pit_channels, layout.globals, actions)
    }

    pub fn inputs(&self) -> usize {
        self.pits * self.pit_channels + self.globals
    }

    /// The network's shape in a run config's words, then the game's sizes, for an error that
    /// tells two networks apart.
    pub fn shape(&self) -> String {
        let architecture = match self.architecture {
            Architecture::Mlp => "mlp",
            Architecture::Conv => "conv",
        };
        format!(
            "architecture = \"{architecture}\", width = {}, blocks = {}, margin_bins = {} ({} pits x {} channels + {} inputs, {} actions)",
            self.width, self.blocks, self.margin_bins, self.pits, self.pit_channels, self.globals, self.actions
        )
    }

    /// A fresh network from the backend's random generator as it stands.
    pub fn init(&self, device: &Device) -> Net {
        let _draws = draws();
        self.init_drawing(device)
    }

    /// A fresh network whose weights `seed` alone decides, whatever other threads draw.
    pub fn init_seeded(&self, device: &Device, seed: u64) -> Net {
        let _draws = draws();
        device.seed(seed);
        self.init_drawing(device)
    }

    /// burn draws a parameter's weights when it is first read, not at `init`: each one is
    /// read here, inside the caller's hold on [`DRAWS`].
    fn init_drawing(&self, device: &Device) -> Net {
        let net = self.init_lazy(device);
        net.visit(&mut Draw);
        net
    }

    /// The network's shape with no weights drawn yet (burn draws a parameter at its first
    /// read), for weights about to be loaded over it: loading draws nothing and takes no lock.
    pub(crate) fn init_lazy(&self, device: &Device) -> Net {
        match self.architecture {
            Architecture::Mlp => Net::Mlp(
                ResMlpConfig::new(self.inputs(), self.actions)
                    .with_width(self.width)
                    .with_blocks(self.blocks)
                    .with_margin_bins(self.margin_bins)
                    .init(device),
            ),
            Architecture::Conv => Net::Conv(
                ResConvConfig::new(self.pits, self.pit_channels, self.globals, self.actions)
                    .with_channels(self.width)
                    .with_blocks(self.blocks)
                    .with_margin_bins(self.margin_bins)
                    .init(device),
            ),
        }
    }
}

/// burn's CPU backend keeps one random generator for the whole process. Two threads that
/// seed it and then draw a network's weights could otherwise interleave, and a seeded network
/// would then differ from run to run (tests running side by side did).
static DRAWS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn draws() -> std::sync::MutexGuard<'static, ()> {
    // The guard holds no data, so a thread that panicked while holding it left nothing broken.
    DRAWS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads every parameter, which makes burn draw the ones not drawn yet. (`flat_weights`
/// would too, but copies every weight out to do it.)
struct Draw;

impl burn::module::ModuleVisitor for Draw {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}

/// What a forward pass returns.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// `[batch, actions]`
    pub policy: Tensor<2>,
    /// `[batch, 3]`: win, draw, loss for the player to move.
    pub wdl: Tensor<2>,
    /// `[batch, 1]`: final seed margin / total seeds.
    pub margin: Tensor<2>,
    /// `[batch, bins]`: the margin head's logits, where it is a distribution (the loss reads
    /// them); `None` for the tanh head.
    pub margin_logits: Option<Tensor<2>>,
}

/// Any shipped architecture.
// A model holds one of these, so the variants' size difference costs nothing; boxing would
// only add an indirection to every forward pass.
#[allow(clippy::large_enum_variant)]
#[derive(Module, Debug)]
pub enum Net {
    Mlp(ResMlp),
    Conv(ResConv),
}

impl Net {
    /// `input`: `[batch, inputs]`.
    pub fn forward(&self, input: Tensor<2>) -> NetOutput {
        self.heads().forward(self.features(input))
    }

    /// The body's output, `[batch, features]`, that the heads read.
    pub fn features(&self, input: Tensor<2>) -> Tensor<2> {
        match self {
            Net::Mlp(m) => m.features(input),
            Net::Conv(m) => m.features(input),
        }
    }

    /// The length of the input vector the network takes.
    pub fn inputs(&self) -> usize {
        match self {
            Net::Mlp(m) => m.input.weight.dims()[0],
            Net::Conv(m) => m.pits * m.pit_channels + m.globals,
        }
    }

    pub fn heads(&self) -> &Heads {
        match self {
            Net::Mlp(m) => &m.heads,
            Net::Conv(m) => &m.heads,
        }
    }
}

/// Two linear layers with a skip connection: `relu(x + l2(relu(l1(x))))`.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    l1: Linear,
    l2: Linear,
}

#[derive(Config, Debug)]
pub struct ResidualBlockConfig {
    pub width: usize,
}

impl ResidualBlockConfig {
    pub fn init(&self, device: &Device) -> ResidualBlock {
        ResidualBlock {
            l1: LinearConfig::new(self.width, self.width).init(device),
            l2: LinearConfig::new(self.width, self.width).init(device),
        }
    }
}

impl ResidualBlock {
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let y = self.l2.forward(relu(self.l1.forward(x.clone())));
        relu(x + y)
    }
}

/// The three heads over a body's features.
#[derive(Module, Debug)]
pub struct Heads {
    policy: Linear,
    wdl: Linear,
    margin: Linear,
}

#[derive(Config, Debug)]
pub struct HeadsConfig {
    pub features: usize,
    pub actions: usize,
    /// See [`NetConfig::margin_bins`].
    #[config(default = 0)]
    pub margin_bins: usize,
}

impl HeadsConfig {
    pub fn init(&self, device: &Device) -> Heads {
        Heads {
            policy: LinearConfig::new(self.features, self.actions).init(device),
            wdl: LinearConfig::new(self.features, 3).init(device),
            // One column is the tanh head; a distribution needs two bins at least.
            margin: LinearConfig::new(self.features, self.margin_bins.max(1)).init(device),
        }
    }
}

/// The margins (shares of the total seeds) that a head of `bins` bins spreads its
/// probability over: `bins` values evenly spaced from -1 to 1.
pub fn margin_support(bins: usize) -> Vec<f32> {
    (0..bins).map(|k| bin_margin(k, bins)).collect()
}

/// The margin of bin `k` of `bins` (at least 2): evenly spaced from -1 (bin 0) to 1.
fn bin_margin(k: usize, bins: usize) -> f32 {
    2.0 * k as f32 / (bins - 1) as f32 - 1.0
}

/// The margin a head's raw outputs say (the columns after the win/draw/loss logits): `tanh`
/// of the one column of the tanh head, or the mean of the softmax over the bins.
pub fn margin_from_head(columns: &[f32]) -> f32 {
    match columns {
        [] => 0.0,
        [one] => one.tanh(),
        bins => {
            let max = bins.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let (mut sum, mut mean) = (0.0, 0.0);
            for (k, &l) in bins.iter().enumerate() {
                let e = (l - max).exp();
                sum += e;
                mean += e * bin_margin(k, bins.len());
            }
            mean / sum
        }
    }
}

/// The target distribution of a margin head of `bins` bins for a margin `t` in [-1, 1]: its
/// weight split between the two bins around `t` so that their mean is `t` (one bin where `t`
/// falls on one).
///
/// # Panics
/// If `bins` is below 2 or `out` shorter than `bins`.
pub fn margin_target(t: f32, bins: usize, out: &mut [f32]) {
    assert!(bins >= 2, "a margin distribution has 2 bins at least");
    out[..bins].fill(0.0);
    // Where `t` falls on the bins' scale, 0 to `bins - 1` (the inverse of `bin_margin`).
    let at = (t.clamp(-1.0, 1.0) + 1.0) * 0.5 * (bins - 1) as f32;
    let lo = (at.floor() as usize).min(bins - 2);
    let frac = at - lo as f32;
    out[lo] = 1.0 - frac;
    out[lo + 1] += frac;
}

impl Heads {
    /// Columns of the margin head: 1 for the tanh head, else its bins.
    pub fn margin_columns(&self) -> usize {
        self.margin.weight.dims()[1]
    }

    /// The three heads as one linear layer giving `[policy logits | wdl logits | margin
    /// before tanh, or its bins' logits]` (`actions + 3 + margin_columns()` columns; read the
    /// margin with [`margin_from_head`]). Inference uses it: one matrix product and one
    /// read-back instead of three of each, on a GPU or through burn, and as the plain-Rust
    /// CPU kernel's last layer. The margin columns cost a dot product each a position; a
    /// search that weighs the margin ([`mancala_mcts::utility`]) reads them.
    pub fn fused(&self) -> Linear {
        let weight = Tensor::cat(vec![self.policy.weight.val(), self.wdl.weight.val(), self.margin.weight.val()], 1);
        let bias = match (&self.policy.bias, &self.wdl.bias, &self.margin.bias) {
            (Some(p), Some(w), Some(m)) => Some(Param::from_tensor(Tensor::cat(vec![p.val(), w.val(), m.val()], 0))),
            _ => None,
        };
        Linear { weight: Param::from_tensor(weight), bias }
    }

    /// `x`: `[batch, features]`.
    pub fn forward(&self, x: Tensor<2>) -> NetOutput {
        let policy = self.policy.forward(x.clone());
        let wdl = self.wdl.forward(x.clone());
        let raw = self.margin.forward(x);
        let bins = self.margin_columns();
        if bins == 1 {
            return NetOutput { policy, wdl, margin: raw.tanh(), margin_logits: None };
        }
        let support = Tensor::<2>::from_data(TensorData::new(margin_support(bins), [bins, 1]), &raw.device());
        let margin = softmax(raw.clone(), 1).matmul(support); // [batch, 1]
        NetOutput { policy, wdl, margin, margin_logits: Some(raw) }
    }
}

/// Residual MLP: input layer, `blocks` residual blocks, three heads.
#[derive(Module, Debug)]
pub struct ResMlp {
    input: Linear,
    blocks: Vec<ResidualBlock>,
    heads: Heads,
}

#[derive(Config, Debug)]
pub struct ResMlpConfig {
    pub inputs: usize,
    pub actions: usize,
    #[config(default = 128)]
    pub width: usize,
    #[config(default = 4)]
    pub blocks: usize,
    /// See [`NetConfig::margin_bins`].
    #[config(default = 0)]
    pub margin_bins: usize,
}

impl ResMlpConfig {
    pub fn init(&self, device: &Device) -> ResMlp {
        ResMlp {
            input: LinearConfig::new(self.inputs, self.width).init(device),
            blocks: (0..self.blocks).map(|_| ResidualBlockConfig::new(self.width).init(device)).collect(),
            heads: HeadsConfig::new(self.width, self.actions).with_margin_bins(self.margin_bins).init(device),
        }
    }
}

impl ResMlp {
    /// The body's layers, for the plain-Rust forward pass ([`crate::cpu::CpuMlp`]): the input
    /// layer and the two layers of each residual block.
    pub(crate) fn parts(&self) -> (&Linear, Vec<(&Linear, &Linear)>) {
        (&self.input, self.blocks.iter().map(|b| (&b.l1, &b.l2)).collect())
    }

    /// `[batch, width]`
    pub fn features(&self, input: Tensor<2>) -> Tensor<2> {
        let mut x = relu(self.input.forward(input)); // [batch, width]
        for b in &self.blocks {
            x = b.forward(x);
        }
        x
    }
}

/// Two circular convolutions with a skip connection, over `[batch, channels, pits]`.
#[derive(Module, Debug)]
pub struct ConvBlock {
    c1: Conv1d,
    c2: Conv1d,
}

impl ConvBlock {
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let y = relu(self.c1.forward(ring_pad(x.clone())));
        let y = self.c2.forward(ring_pad(y));
        relu(x + y)
    }
}

/// Pads the pit axis circularly by one on each side, so a kernel of 3 sees the pits around
/// the board as the seeds travel (the last pit is followed by the first).
fn ring_pad(x: Tensor<3>) -> Tensor<3> {
    let [_, _, len] = x.dims();
    let last = x.clone().narrow(2, len - 1, 1);
    let first = x.clone().narrow(2, 0, 1);
    Tensor::cat(vec![last, x, first], 2) // [batch, channels, len + 2]
}

/// Residual 1-D convolution tower over the ring of pits, globals broadcast to every pit.
#[derive(Module, Debug)]
pub struct ResConv {
    stem: Conv1d,
    blocks: Vec<ConvBlock>,
    head_in: Linear,
    heads: Heads,
    pits: usize,
    pit_channels: usize,
    globals: usize,
}

#[derive(Config, Debug)]
pub struct ResConvConfig {
    pub pits: usize,
    pub pit_channels: usize,
    pub globals: usize,
    pub actions: usize,
    #[config(default = 32)]
    pub channels: usize,
    #[config(default = 4)]
    pub blocks: usize,
    /// See [`NetConfig::margin_bins`].
    #[config(default = 0)]
    pub margin_bins: usize,
}

impl ResConvConfig {
    pub fn init(&self, device: &Device) -> ResConv {
        let conv = |cin, cout| Conv1dConfig::new(cin, cout, 3).init(device);
        let flat = self.channels * self.pits;
        ResConv {
            stem: conv(self.pit_channels + self.globals, self.channels),
            blocks: (0..self.blocks)
                .map(|_| ConvBlock { c1: conv(self.channels, self.channels), c2: conv(self.channels, self.channels) })
                .collect(),
            head_in: LinearConfig::new(flat, 128).init(device),
            heads: HeadsConfig::new(128, self.actions).with_margin_bins(self.margin_bins).init(device),
            pits: self.pits,
            pit_channels: self.pit_channels,
            globals: self.globals,
        }
    }
}

/// A ring convolution tower's layers, for the plain-Rust forward pass
/// ([`crate::cpu::CpuMlp`], which runs each convolution as the dense layer it is).
pub(crate) struct ConvParts<'a> {
    pub stem: &'a Conv1d,
    pub blocks: Vec<(&'a Conv1d, &'a Conv1d)>,
    /// The dense layer from the flattened tower (`[channels][pits]`) to the heads' features.
    pub head_in: &'a Linear,
    pub pits: usize,
    pub pit_channels: usize,
    pub globals: usize,
}

impl ResConv {
    pub(crate) fn parts(&self) -> ConvParts<'_> {
        ConvParts {
            stem: &self.stem,
            blocks: self.blocks.iter().map(|b| (&b.c1, &b.c2)).collect(),
            head_in: &self.head_in,
            pits: self.pits,
            pit_channels: self.pit_channels,
            globals: self.globals,
        }
    }

    /// `[batch, 128]`
    pub fn features(&self, input: Tensor<2>) -> Tensor<2> {
        let [batch, _] = input.dims();
        let (p, c, g) = (self.pits, self.pit_channels, self.globals);
        let per_pit = input.clone().narrow(1, 0, p * c).reshape([batch, c, p]); // [batch, c, pits]
        // Broadcast to every pit by a product with ones rather than `repeat_dim`, which the
        // ONNX exporter cannot lower; the values are the same.
        let ones = Tensor::<3>::ones([1, 1, p], &input.device());
        let globals = input.narrow(1, p * c, g).unsqueeze_dim::<3>(2) * ones; // [batch, g, pits]
        let x = Tensor::cat(vec![per_pit, globals], 1); // [batch, c + g, pits]
        let mut x = relu(self.stem.forward(ring_pad(x))); // [batch, channels, pits]
        for b in &self.blocks {
            x = b.forward(x);
        }
        let flat: Tensor<2> = x.flatten(1, 2); // [batch, channels * pits]
        relu(self.head_in.forward(flat))
    }
}
