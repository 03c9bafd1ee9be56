//! A plain-Rust forward pass of the residual MLP, and of the ring convolution tower, for
//! inference on the CPU.
//!
//! Why: on the flex backend every tensor operation has a fixed cost (a dispatch, an output
//! allocation, gemm's packing of the weights), about 2 us for a `[1, 128] x [128, 128]`
//! product on the development machine, and the default network is ~30 such operations
//! (products, bias adds, ReLUs, skip adds). At the batches the search asks for (1 when a
//! single game is played: the engine, `play`, arena matches; tens in self-play) that
//! overhead is most of the time. This module runs the same weights through one kernel per
//! layer instead: the weights are copied once, the products write straight into reused
//! buffers, and bias, ReLU and the skip connection are applied to each result tile while it
//! is still in registers. Nothing is allocated once the buffers have grown to the batch.
//!
//! The kernel is written once over `pulp`'s portable SIMD vectors and dispatched at run
//! time to the widest instruction set the CPU has (AVX-512, AVX2+FMA, NEON, else scalar),
//! so the binary needs no `target-cpu` flag. The two paths agree to float rounding (the
//! order of the sums differs); a test checks that.
//!
//! The convolution tower runs through the same kernel: a circular convolution over the ring
//! of pits is a dense layer on the flattened `[channels][pits]` features whose matrix repeats
//! the kernel's weights along the ring (and is zero elsewhere), and its blocks have the MLP's
//! shape (`relu(x + l2(relu(l1(x))))`). So the tower gets the tiled FP32 products and the int8
//! ones without a kernel of its own, at the price of the zeros: with a kernel of 3 over `P`
//! pits a product does `P / 3` times the multiply-adds the convolution needs.

use burn::nn::Linear;
use burn::nn::conv::Conv1d;
use pulp::{Arch, Simd, WithSimd};

use crate::int8::{Int8Path, QDense, Tower};
use crate::model::{ConvParts, Net, ResMlp};
use crate::precision::Precision;

/// Every layer's output columns are padded to a multiple of this: the widest vector (16
/// `f32` with AVX-512), so the kernel never has a partial vector. Padding columns carry zero
/// weights and biases, so they stay zero through ReLU and skip connections.
const PAD: usize = 16;

/// The widest convolution tower (channels times pits) run as dense layers: the dense form
/// grows with the square of this (4096 is 64 MB a layer), and the int8 sums stay exact up to
/// 4096 inputs. A wider tower runs in burn.
const MAX_RING_WIDTH: usize = 4096;

/// A convolution tower wider than this (channels times pits) as dense layers reads more
/// weights a position than burn's convolution does work, so it takes only batches of
/// `RING_LEAST_ROWS` rows or more (`bench nn`, Oware, one core: 32 channels, 384 wide, ran a
/// batch of 1 at 5.4k positions/s against burn's 17k, and a batch of 32 at 41k in FP32 and
/// 142k in int8 against burn's 35k; 16 channels, 192 wide, was faster at every batch).
const RING_SMALL_WIDTH: usize = 256;

/// See [`RING_SMALL_WIDTH`].
const RING_LEAST_ROWS: usize = 8;

/// Inputs per block of a tile's inner loop (see [`Tiles::tile`]).
const BLOCK: usize = 4;

/// One dense layer, `y = x W + b`, with `W` stored `[d_in][cols]` (burn's `[d_in][d_out]`,
/// each row padded with zeros to `cols`).
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    d_in: usize,
    cols: usize,
}

impl Dense {
    fn from_linear(linear: &Linear) -> Self {
        let [d_in, d_out] = linear.weight.dims();
        let b = linear.bias.as_ref().map(|b| floats(b.val()));
        Self::from_rows(&floats(linear.weight.val()), b.as_deref(), d_in, d_out)
    }

    /// `w` is `[d_in][d_out]`, `bias` `[d_out]` (zeros where `None`).
    fn from_rows(w: &[f32], bias: Option<&[f32]>, d_in: usize, d_out: usize) -> Self {
        let cols = d_out.div_ceil(PAD) * PAD;
        let mut weight = vec![0.0; d_in * cols];
        for (padded, row) in weight.chunks_exact_mut(cols).zip(w.chunks_exact(d_out)) {
            padded[..d_out].copy_from_slice(row);
        }
        let mut padded_bias = vec![0.0; cols];
        if let Some(b) = bias {
            padded_bias[..d_out].copy_from_slice(b);
        }
        Dense { weight, bias: padded_bias, d_in, cols }
    }

    /// A convolution over the ring of `pits` (the model's: kernel 3, stride 1, its input
    /// padded circularly by one pit on each side) as a dense layer. Its inputs are
    /// `per_pit` channels laid out `[channel][pit]`, then `globals` values that the model
    /// broadcasts to every pit; its outputs are `[channel][pit]`, as the model flattens them.
    ///
    /// Output pit `p` reads input pits `p - 1`, `p`, `p + 1` around the ring, so the weight of
    /// kernel tap `t` from input channel `i` to output channel `o` goes to row
    /// `i * pits + (p + t - 1) mod pits`, column `o * pits + p`; a global, the same value at
    /// every pit, gets the sum of its three taps.
    fn from_ring_conv(conv: &Conv1d, pits: usize, per_pit: usize, globals: usize) -> Self {
        let [c_out, c_in, taps] = conv.weight.dims();
        assert_eq!(c_in, per_pit + globals, "a convolution reads every input channel");
        let k = floats(conv.weight.val());
        let (d_in, d_out) = (per_pit * pits + globals, c_out * pits);
        let mut w = vec![0.0f32; d_in * d_out];
        for o in 0..c_out {
            for i in 0..c_in {
                for t in 0..taps {
                    let tap = k[(o * c_in + i) * taps + t];
                    for p in 0..pits {
                        let row = if i < per_pit {
                            i * pits + (p + pits + t - taps / 2) % pits
                        } else {
                            per_pit * pits + i - per_pit
                        };
                        w[row * d_out + o * pits + p] += tap;
                    }
                }
            }
        }
        let b = conv
            .bias
            .as_ref()
            .map(|b| floats(b.val()).into_iter().flat_map(|b| std::iter::repeat_n(b, pits)).collect::<Vec<f32>>());
        Self::from_rows(&w, b.as_deref(), d_in, d_out)
    }
}

/// A weight or bias tensor's values, in its row-major order.
fn floats<const D: usize>(t: burn::prelude::Tensor<D>) -> Vec<f32> {
    t.into_data().try_to_vec::<f32>().expect("weights and biases are f32")
}

/// What is done to a tile of `x W + b` before it is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Finish {
    /// Store it (the heads' logits).
    Plain,
    /// Store `relu(x W + b)`.
    Relu,
    /// Store `relu(out + x W + b)`: the second layer of a residual block, whose output
    /// buffer holds the block's input (the skip connection).
    AddRelu,
}

/// One layer applied to `rows` rows: `input` is `[rows][stride]` (the first `d_in` of each
/// row are read), `out` is `[rows][cols]`.
struct Apply<'a> {
    layer: &'a Dense,
    input: &'a [f32],
    stride: usize,
    out: &'a mut [f32],
    rows: usize,
    finish: Finish,
}

impl WithSimd for Apply<'_> {
    type Output = ();

    // Inlined into pulp's per-instruction-set entry points, so the loops below are compiled
    // once for each instruction set.
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Apply { layer, input, stride, out, rows, finish } = self;
        if S::IS_SCALAR {
            return row_by_row(layer, input, stride, out, rows, finish);
        }
        let (weight, _) = S::as_simd_f32s(&layer.weight);
        let (bias, _) = S::as_simd_f32s(&layer.bias);
        let vectors = layer.cols / S::F32_LANES;
        let (out, _) = S::as_mut_simd_f32s(&mut out[..rows * layer.cols]);
        let mut tiles = Tiles { simd, weight, bias, vectors, k: layer.d_in, finish, input, stride, out };
        if S::F32_LANES >= 16 {
            tiles.run::<4, 4>(rows);
        } else {
            tiles.run::<4, 3>(rows);
        }
    }
}

/// The fallback without SIMD registers (x86-64 CPUs without AVX2, other targets): each
/// output row is the bias plus the weight rows scaled by the inputs. That inner loop runs
/// over contiguous memory, so the compiler vectorises it with the target's baseline (SSE2 on
/// x86-64), which the register tiles of [`Tiles`] would not get; zero inputs (half of them
/// after a ReLU) are skipped.
fn row_by_row(layer: &Dense, input: &[f32], stride: usize, out: &mut [f32], rows: usize, finish: Finish) {
    let k = layer.d_in;
    for (x, out) in input.chunks(stride).zip(out.chunks_exact_mut(layer.cols)).take(rows) {
        match finish {
            // `out` holds the skip connection.
            Finish::AddRelu => out.iter_mut().zip(&layer.bias).for_each(|(o, b)| *o += b),
            Finish::Plain | Finish::Relu => out.copy_from_slice(&layer.bias),
        }
        for (&x, w) in x[..k].iter().zip(layer.weight.chunks_exact(layer.cols)) {
            if x != 0.0 {
                out.iter_mut().zip(w).for_each(|(o, w)| *o += x * w);
            }
        }
        if finish != Finish::Plain {
            out.iter_mut().for_each(|o| *o = o.max(0.0));
        }
    }
}

/// One layer applied to a batch, with its weights seen as vectors of the instruction set
/// `S`; the output is `[rows][vectors]`.
struct Tiles<'a, S: Simd> {
    simd: S,
    weight: &'a [S::f32s],
    bias: &'a [S::f32s],
    /// Vectors per weight row (and per output row).
    vectors: usize,
    /// Inputs per row.
    k: usize,
    finish: Finish,
    /// `[rows][stride]`, the first `k` of each row read.
    input: &'a [f32],
    stride: usize,
    out: &'a mut [S::f32s],
}

impl<S: Simd> Tiles<'_, S> {
    /// All `rows`, cut into tiles. A tile accumulates `R` rows by `C` vectors of output
    /// columns in registers over the whole input, so each broadcast input value feeds `C`
    /// multiply-adds and each loaded weight vector feeds `R`.
    ///
    /// - Whole groups of `R` rows go column strip by column strip, each strip over every row
    ///   group: a strip of weights (`C` vectors wide: 32 KiB for the default width with
    ///   AVX-512, 12 KiB with AVX2) stays in the L1 cache while the whole batch reads it.
    /// - The rows left over (and batches under `R`) go in groups of 4 rows (tiles `C` vectors
    ///   wide) and at most one of 3 or 2 (4 wide) or 1 (8 wide), each across all columns: few
    ///   rows cannot share a strip anyway, and wider tiles keep enough independent sums in
    ///   flight to hide the multiply-add latency. Each group reads all the weights from the L2
    ///   cache, which dominates small batches, hence one group of 3 rather than 2 + 1.
    ///
    /// The callers pick 4x4 strips with 32 vector registers (AVX-512) and 4x3 with 16 (AVX2,
    /// NEON): the fastest shapes whose accumulators all stay in registers (shapes of 24
    /// accumulators spill and fall several times behind), the columns-outer order beat
    /// rows-outer, and a small batch runs fastest as one tile. docs/experiments.md, "The CPU
    /// kernel's tile shapes", has the comparison.
    #[inline(always)]
    fn run<const R: usize, const C: usize>(&mut self, rows: usize) {
        let mut r = rows / R * R;
        if r > 0 {
            self.strips::<R, C>(r);
        }
        while rows - r >= 4 {
            self.sweep::<4, C>(r);
            r += 4;
        }
        match rows - r {
            3 => self.sweep::<3, 4>(r),
            2 => self.sweep::<2, 4>(r),
            1 => self.sweep::<1, 8>(r),
            _ => {}
        }
    }

    /// Rows `0..rows` (a multiple of `R`), strip by strip of `C` vectors.
    #[inline(always)]
    fn strips<const R: usize, const C: usize>(&mut self, rows: usize) {
        let mut v = 0;
        while v + C <= self.vectors {
            for r in (0..rows).step_by(R) {
                self.tile::<R, C>(r, v);
            }
            v += C;
        }
        while v < self.vectors {
            for r in (0..rows).step_by(R) {
                self.tile::<R, 1>(r, v);
            }
            v += 1;
        }
    }

    /// Every output column of rows `r..r + R`, `C` vectors at a time, then one at a time.
    #[inline(always)]
    fn sweep<const R: usize, const C: usize>(&mut self, r: usize) {
        let mut v = 0;
        while v + C <= self.vectors {
            self.tile::<R, C>(r, v);
            v += C;
        }
        while v < self.vectors {
            self.tile::<R, 1>(r, v);
            v += 1;
        }
    }

    /// Rows `r..r + R` by vectors `v..v + C` of output, accumulated in registers over the
    /// whole input, then finished and stored.
    #[inline(always)]
    fn tile<const R: usize, const C: usize>(&mut self, r: usize, v: usize) {
        let Tiles { simd, weight, bias, vectors: n, k, finish, input, stride, .. } = *self;
        let mut acc = [[simd.splat_f32s(0.0); C]; R];
        for row in acc.iter_mut() {
            row.copy_from_slice(&bias[v..v + C]);
        }
        // Inputs `BLOCK` at a time, copied out of the group's rows: each row's index is
        // checked once a block rather than once an input. Checked every input, the loop was
        // bound by its instruction count, not by its multiply-adds (AVX-512, batch 32: ~355k
        // positions/s before, ~400k after).
        let mut w = weight[v..].chunks(n);
        let blocks = k / BLOCK;
        let mut xb = [[0.0; BLOCK]; R];
        for b in 0..blocks {
            for (j, xb) in xb.iter_mut().enumerate() {
                xb.copy_from_slice(&input[(r + j) * stride + b * BLOCK..][..BLOCK]);
            }
            for u in 0..BLOCK {
                accumulate(simd, &mut acc, &xb, u, w.next().expect("a weight row per input"));
            }
        }
        let mut x1 = [[0.0; 1]; R];
        for i in blocks * BLOCK..k {
            for (j, x1) in x1.iter_mut().enumerate() {
                x1[0] = input[(r + j) * stride + i];
            }
            accumulate(simd, &mut acc, &x1, 0, w.next().expect("a weight row per input"));
        }
        let zero = simd.splat_f32s(0.0);
        for (i, row) in acc.iter().enumerate() {
            let dst = &mut self.out[(r + i) * n + v..(r + i) * n + v + C];
            for (d, &a) in dst.iter_mut().zip(row) {
                *d = match finish {
                    Finish::Plain => a,
                    Finish::Relu => simd.max_f32s(a, zero),
                    Finish::AddRelu => simd.max_f32s(simd.add_f32s(*d, a), zero),
                };
            }
        }
    }
}

/// Input `u` of each row of `x` times one row of weights (from the tile's first vector on),
/// added into the tile's accumulators. (Everything the kernel calls is inlined into pulp's
/// per-instruction-set entry points; a closure here was not always, and then every vector
/// operation became a call, many times slower.)
#[inline(always)]
fn accumulate<S: Simd, const R: usize, const C: usize, const B: usize>(
    simd: S,
    acc: &mut [[S::f32s; C]; R],
    x: &[[f32; B]; R],
    u: usize,
    w: &[S::f32s],
) {
    let w = &w[..C];
    for (row, x) in acc.iter_mut().zip(x) {
        let x = simd.splat_f32s(x[u]);
        for (a, &w) in row.iter_mut().zip(w) {
            *a = simd.mul_add_e_f32s(x, w, *a);
        }
    }
}

/// The environment variable naming the instruction set the FP32 kernel starts with (one of
/// [`CpuMlp::instruction_sets`], e.g. `avx2`), to measure an older CPU on a newer one as
/// [`crate::int8::PATH_VARIABLE`] does for the int8 products; a set this CPU lacks is ignored.
pub const KERNEL_VARIABLE: &str = "MANCALA_CPU_KERNEL";

/// The instruction sets this CPU can run the kernel with, widest (the default) first, by
/// name; `scalar` is always there. Tests run the kernel with each, and `bench nn` names the
/// one in use.
fn instruction_sets() -> Vec<(&'static str, Arch)> {
    let mut sets = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(simd) = pulp::x86::V4::try_new() {
            sets.push(("avx512", Arch::V4(simd)));
        }
        if let Some(simd) = pulp::x86::V3::try_new() {
            sets.push(("avx2", Arch::V3(simd)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let detected = Arch::new();
        if !matches!(detected, Arch::Scalar) {
            sets.push((if cfg!(target_arch = "aarch64") { "neon" } else { "simd" }, detected));
        }
    }
    sets.push(("scalar", Arch::Scalar));
    sets
}

/// The network's weights copied out of burn (the residual MLP's, or the convolution tower's
/// as dense layers), with activation buffers that grow to the largest batch seen.
pub struct CpuMlp {
    arch: Arch,
    /// `arch`'s name in [`instruction_sets`].
    arch_name: &'static str,
    input: Dense,
    /// Two layers per residual block.
    blocks: Vec<(Dense, Dense)>,
    /// The convolution tower's dense layer (with ReLU) between the blocks and the heads.
    neck: Option<Dense>,
    /// Policy logits, win/draw/loss logits, then the margin head's columns.
    heads: Dense,
    /// Real outputs of `heads` (before padding).
    outputs: usize,
    /// The fewest rows a batch needs for this kernel to run it: [`RING_LEAST_ROWS`] for a
    /// convolution tower wider than [`RING_SMALL_WIDTH`], 1 otherwise.
    least_rows: usize,
    /// The residual blocks quantized, when they run in int8 (see [`crate::int8`]).
    int8: Option<Int8Body>,
    x: Vec<f32>,
    h: Vec<f32>,
    /// The neck's output.
    n: Vec<f32>,
    out: Vec<f32>,
}

/// The residual blocks in int8, and the path they run on.
struct Int8Body {
    path: Int8Path,
    tower: Tower,
}

impl Int8Body {
    fn new(blocks: &[(Dense, Dense)], width: usize) -> Self {
        let q = |d: &Dense| QDense::new(&d.weight, &d.bias, d.d_in, d.cols);
        let mut tower = Tower::new(blocks.iter().map(|(l1, l2)| (q(l1), q(l2))).collect(), width);
        Int8Body { path: tower.fastest_path(), tower }
    }
}

impl CpuMlp {
    /// A copy of `net`'s weights, with `heads` its three heads as one layer
    /// ([`crate::model::Heads::fused`]); `None` for a convolution tower wider than
    /// `MAX_RING_WIDTH` (channels times pits), which runs in burn.
    pub fn new(net: &Net, heads: &Linear) -> Option<Self> {
        match net {
            Net::Mlp(mlp) => Some(Self::from_mlp(mlp, heads)),
            Net::Conv(conv) => {
                let parts = conv.parts();
                let width = parts.stem.weight.dims()[0] * parts.pits;
                (width <= MAX_RING_WIDTH).then(|| Self::from_conv(&parts, heads))
            }
        }
    }

    fn from_mlp(mlp: &ResMlp, heads: &Linear) -> Self {
        let (input, blocks) = mlp.parts();
        let blocks = blocks.iter().map(|(l1, l2)| (Dense::from_linear(l1), Dense::from_linear(l2))).collect();
        Self::from_layers(Dense::from_linear(input), blocks, None, heads)
    }

    fn from_conv(conv: &ConvParts<'_>, heads: &Linear) -> Self {
        let ConvParts { stem, blocks, head_in, pits, pit_channels, globals } = conv;
        let stem = Dense::from_ring_conv(stem, *pits, *pit_channels, *globals);
        let ring = |c: &Conv1d| Dense::from_ring_conv(c, *pits, c.weight.dims()[1], 0);
        let blocks = blocks.iter().map(|(c1, c2)| (ring(c1), ring(c2))).collect();
        let mut kernel = Self::from_layers(stem, blocks, Some(Dense::from_linear(head_in)), heads);
        if kernel.input.cols > RING_SMALL_WIDTH {
            kernel.least_rows = RING_LEAST_ROWS;
        }
        kernel
    }

    fn from_layers(input: Dense, blocks: Vec<(Dense, Dense)>, neck: Option<Dense>, heads: &Linear) -> Self {
        let sets = instruction_sets();
        let named = std::env::var(KERNEL_VARIABLE).ok();
        let (arch_name, arch) =
            named.and_then(|name| sets.iter().copied().find(|(n, _)| *n == name)).unwrap_or(sets[0]);
        CpuMlp {
            arch,
            arch_name,
            input,
            blocks,
            neck,
            heads: Dense::from_linear(heads),
            outputs: heads.weight.dims()[1],
            least_rows: 1,
            int8: None,
            x: Vec::new(),
            h: Vec::new(),
            n: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The names of the instruction sets this CPU can run the kernel with, widest first.
    pub fn instruction_sets() -> Vec<&'static str> {
        instruction_sets().into_iter().map(|(name, _)| name).collect()
    }

    /// The instruction set in use: the widest this CPU has, unless changed.
    pub fn instruction_set(&self) -> &'static str {
        self.arch_name
    }

    /// Runs the kernel with the named instruction set (one of [`Self::instruction_sets`]);
    /// `false`, and no change, if this CPU has no such set.
    pub fn use_instruction_set(&mut self, name: &str) -> bool {
        match instruction_sets().into_iter().find(|(n, _)| *n == name) {
            Some((n, arch)) => {
                (self.arch_name, self.arch) = (n, arch);
                true
            }
            None => false,
        }
    }

    /// Runs the residual blocks in `precision` (`Auto` as [`Precision::resolve`] says): in
    /// int8 the weights are quantized here, once, from the FP32 ones.
    pub fn use_precision(&mut self, precision: Precision) {
        match precision.resolve() {
            Precision::Int8 if self.int8.is_none() => self.int8 = Some(Int8Body::new(&self.blocks, self.input.cols)),
            Precision::Int8 => {}
            _ => self.int8 = None,
        }
    }

    /// `Fp32` or `Int8`: the precision the residual blocks run in.
    pub fn precision(&self) -> Precision {
        if self.int8.is_some() { Precision::Int8 } else { Precision::Fp32 }
    }

    /// The path of the int8 products, when the blocks run in int8.
    pub fn int8_path(&self) -> Option<Int8Path> {
        self.int8.as_ref().map(|b| b.path)
    }

    /// Runs the int8 products on `path` (tests compare every path the CPU has); `false`, and
    /// no change, when the blocks are not in int8 or the CPU lacks the path.
    pub fn use_int8_path(&mut self, path: Int8Path) -> bool {
        match &mut self.int8 {
            Some(body) if Int8Path::available().contains(&path) => {
                body.path = path;
                true
            }
            _ => false,
        }
    }

    /// Whether this kernel should run a batch of `rows`: always with SIMD registers or in
    /// int8 (the blocks do not use `arch` then); otherwise only for 1 or 2 rows, as burn's
    /// matrix products are faster from 3 rows on (docs/experiments.md, "The CPU kernel's tile
    /// shapes"); and a wide convolution tower only from `RING_LEAST_ROWS` rows on.
    pub fn takes(&self, rows: usize) -> bool {
        if rows < self.least_rows {
            return false;
        }
        !matches!(self.arch, Arch::Scalar) || self.int8.is_some() || rows <= 2
    }

    /// Outputs per position: the policy logits, the win, draw and loss logits, then the
    /// margin head's columns (see [`crate::model::margin_from_head`]).
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The distance between two positions' outputs in [`Self::forward`]'s result.
    pub fn row_stride(&self) -> usize {
        self.heads.cols
    }

    /// The network on `rows` positions whose features are `features` (`[rows][inputs]`).
    /// Position `i`'s outputs are `result[i * row_stride()..][..outputs()]`.
    pub fn forward(&mut self, features: &[f32], rows: usize) -> &[f32] {
        let CpuMlp { arch, input, blocks, neck, heads, int8, x, h, n, out, .. } = self;
        let grow = |buf: &mut Vec<f32>, len: usize| {
            if buf.len() < len {
                buf.resize(len, 0.0);
            }
        };
        grow(x, rows * input.cols);
        grow(h, rows * input.cols);
        grow(out, rows * heads.cols);
        let apply = |layer: &Dense, input: &[f32], stride: usize, out: &mut [f32], finish: Finish| {
            arch.dispatch(Apply { layer, input, stride, out, rows, finish });
        };
        // The hidden activations are `[rows][width]`, `width` being the padded layer width.
        let width = input.cols;
        apply(input, features, input.d_in, x, Finish::Relu);
        match int8 {
            Some(Int8Body { path, tower }) => tower.run(*path, &mut x[..rows * width]),
            None => {
                for (l1, l2) in blocks.iter() {
                    apply(l1, x, width, h, Finish::Relu);
                    apply(l2, h, width, x, Finish::AddRelu);
                }
            }
        }
        match neck {
            Some(neck) => {
                grow(n, rows * neck.cols);
                apply(neck, x, width, n, Finish::Relu);
                apply(heads, n, neck.cols, out, Finish::Plain);
            }
            None => apply(heads, x, width, out, Finish::Plain),
        }
        &out[..rows * heads.cols]
    }
}
