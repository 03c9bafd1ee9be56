//! The residual blocks of the CPU kernel in integers (`inference_precision = "int8"`).
//!
//! Why: the blocks' products are nearly all of the network's work, and integer products do
//! more multiply-adds an instruction than FP32 FMAs: AVX-512 VNNI's `vpdpwssd` 32 (an FP32
//! FMA 16), AVX2's `vpmaddwd` 16 (an FP32 FMA 8). The model file stays FP32: the weights are
//! quantized, and packed in the layout the paths read, once when the kernel is built.
//!
//! - Activations: every block layer's input is a ReLU output, so non-negative; each row is
//!   quantized to `[0, levels]` with its own scale (its largest value maps to `levels`),
//!   right after the layer before is finished; they are kept as pairs of `u16` in a `u32`,
//!   which a SIMD lane multiplies with two weights, so one `i32` broadcast feeds a vector.
//!   `levels` is the most the exact `i32` sums allow (see [`activation_levels`]): 8191
//!   (13 bits) for the default 128-wide blocks, 255 (8 bits) at the widest 4096. The lanes
//!   multiply 16-bit values, so more levels cost no instruction; 8 bits gave a shipped
//!   Owela model FP32's best move in only 98.9% of the int8 test's positions, 13 bits 99.6%
//!   (docs/experiments.md, "More levels for the activations").
//! - Weights: 12 bits, `i16` in [-2047, 2047], with one scale per output column (its largest
//!   magnitude maps to 2047), so a column of small weights keeps its precision. 8-bit
//!   weights were measured first and miss the target of the same best move as FP32 in 99%
//!   of positions (94.6% to 98.8% by preset, with 8-bit activations); 12 bits reach it, and
//!   the `i16 x i16` products cost the same instructions as 8-bit ones on AVX2 and half of
//!   `vpdpbusd`'s on AVX-512 VNNI.
//! - Sums in `i32`, exact: `levels` is chosen so that a layer's sum cannot leave it.
//!   Then FP32: the two scales, the bias, the ReLU and the skip connection (the residual
//!   stream between blocks stays FP32). The input layer (a few dozen inputs, some of them
//!   signed) and the three heads (policy, value, margin) stay FP32 in [`crate::cpu`].
//!
//! The whole tower runs in buffers that grow to the largest batch seen and are then reused:
//! nothing is allocated a call. Each step (product, finish, quantization) runs on the best
//! path the CPU has (AVX-512 VNNI; AVX2; else a scalar reference), chosen at run time, or
//! the one named by `MANCALA_INT8_PATH`; where the CPU and the OS have AMX (see `amx`), a
//! trial when the network is loaded picks AMX or VNNI for the products, whichever runs that
//! tower faster (`Tower::fastest_path`). Tests run every path this machine has against the
//! scalar one and require the same bits.

mod amx;
mod simd;

use std::fmt;
use std::time::{Duration, Instant};

/// The most levels an activation may have: the SIMD lanes multiply signed 16-bit values.
pub const LEVELS_LIMIT: u64 = 32767;

/// The largest quantized weight magnitude: 12 bits with the sign.
const WEIGHT_MAX: f32 = 2047.0;

/// The most inputs a layer may have: the sums of that many products of 8-bit activations
/// and 12-bit weights stay within `i32`.
pub const MAX_INPUTS: usize = 4096;

/// The levels the activations of a layer of `k` inputs are quantized to: the largest
/// `2^b - 1` for which `k` products with 12-bit weights sum within `i32`, at most
/// [`LEVELS_LIMIT`]. 8191 for 128 inputs, 255 for 4096.
///
/// # Panics
/// If `k` is 0 or above [`MAX_INPUTS`].
pub fn activation_levels(k: usize) -> u32 {
    assert!((1..=MAX_INPUTS).contains(&k), "{k} inputs: a layer has 1 to {MAX_INPUTS}");
    let bound = (i32::MAX as u64 / (WEIGHT_MAX as u64 * k as u64)).min(LEVELS_LIMIT);
    let bits = (bound + 1).ilog2();
    ((1u64 << bits) - 1) as u32
}

/// Rows of a batch that go through the whole tower together: their buffers (activations,
/// sums) stay in the L1 cache while every layer's weights are read once for them.
const CHUNK: usize = 32;

/// The same on AMX, which keeps a block of columns' weight tiles in the L1 cache for all the
/// rows of a chunk (`amx::dense`), so that more rows a chunk read the weights fewer times.
const AMX_CHUNK: usize = 128;

/// Rows a chunk on `path`.
fn chunk_rows(path: Int8Path) -> usize {
    if path == Int8Path::Amx { AMX_CHUNK } else { CHUNK }
}

/// The ways to compute the int8 tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int8Path {
    /// Intel AMX tiles (`tdpbusd`) for the products, AVX-512 for the rest (Sapphire Rapids
    /// and later Xeons, on Linux).
    Amx,
    /// AVX-512 VNNI (`vpdpwssd`).
    Vnni,
    /// AVX2 (`vpmaddwd`).
    Avx2,
    /// Plain Rust, the reference the others equal.
    Scalar,
}

/// The environment variable that picks an int8 path by name (`amx`, `avx512-vnni`, `avx2`,
/// `scalar`) instead of the fastest: how an AVX2-only CPU is measured on a newer one.
pub const PATH_VARIABLE: &str = "MANCALA_INT8_PATH";

impl Int8Path {
    /// The paths this CPU can run, fastest first; `Scalar` is always there.
    ///
    /// VNNI comes before AMX. `tdpbusd` multiplies bytes, so AMX splits the tower's
    /// activations (13 bits at width 128, see [`activation_levels`]) as it does the weights,
    /// and takes four `tdpbusd` a step where 8-bit activations took two. On a Xeon with both
    /// (`bench nn --precision int8`, `MANCALA_INT8_PATH` set to each) the two were equal at
    /// width 128 (about 580k to 600k positions/s at batch 32) and in Oware's self-play; AMX
    /// was slower at width 192 and faster at 256 from batch 128 and on Ouril's ring tower.
    /// VNNI needs no tile state and every AMX CPU has it; a network's tower tries both when
    /// it is loaded (`Tower::fastest_path`), and either can be named.
    pub fn available() -> Vec<Int8Path> {
        let mut paths = Vec::new();
        if simd::has_vnni() {
            paths.push(Int8Path::Vnni);
        }
        if amx::available() {
            paths.push(Int8Path::Amx);
        }
        if simd::has_avx2() {
            paths.push(Int8Path::Avx2);
        }
        paths.push(Int8Path::Scalar);
        paths
    }

    /// The one [`PATH_VARIABLE`] names where it is set to a path this CPU has, else the
    /// first of [`Int8Path::available`]. An int8 network starts on it, unless no path is named
    /// and the CPU has AMX (see `Tower::fastest_path`).
    pub fn best() -> Int8Path {
        Self::from_env().unwrap_or_else(Self::fastest)
    }

    /// The path [`PATH_VARIABLE`] names, where it is set to one this CPU has.
    pub fn from_env() -> Option<Int8Path> {
        std::env::var(PATH_VARIABLE).ok().and_then(|name| Self::named(&name))
    }

    /// The fastest path this CPU has.
    pub fn fastest() -> Int8Path {
        Self::available()[0]
    }

    /// Whether this CPU has a SIMD path, which is when int8 beats FP32.
    pub fn has_simd() -> bool {
        Self::fastest() != Int8Path::Scalar
    }

    /// The path's name, as `bench nn --kernel` and [`PATH_VARIABLE`] take it.
    pub fn name(self) -> &'static str {
        match self {
            Int8Path::Amx => "amx",
            Int8Path::Vnni => "avx512-vnni",
            Int8Path::Avx2 => "avx2",
            Int8Path::Scalar => "scalar",
        }
    }

    /// The path called `name`, if this CPU has it.
    pub fn named(name: &str) -> Option<Int8Path> {
        Self::available().into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Int8Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A layer's quantized weights, `k` inputs by `cols` outputs, in the layouts the paths read.
pub struct PackedWeights {
    k: usize,
    cols: usize,
    /// `[k][cols]`, as given: the scalar reference reads it.
    plain: Vec<i16>,
    /// `[k / 2][cols][2]`: the two weights a `vpdpwssd` lane multiplies are next to each
    /// other (the VNNI path, and AMX's rows left to it); empty where the CPU lacks VNNI.
    pairs: Vec<i16>,
    /// `[cols / 16][k / 2][16][2]`: the pairs of each panel of 16 columns in one run, so that
    /// a tile of the AVX2 path reads its weights in order (see `simd::avx2::gemm`); empty where
    /// the CPU lacks AVX2.
    panels: Vec<i16>,
    /// The AMX tiles (see `amx::pack`), where the CPU has AMX.
    tiles: Vec<i8>,
}

impl PackedWeights {
    /// `w` is `[k][cols]` row-major, each in [-2047, 2047]; `k` a multiple of 4 and at most
    /// 4096, `cols` a multiple of 16.
    ///
    /// # Panics
    /// If the shapes are not so, or `w` is not `k * cols` long, or a weight is out of range.
    pub fn new(w: &[i16], k: usize, cols: usize) -> Self {
        assert!(k.is_multiple_of(4) && cols.is_multiple_of(16), "k {k} and cols {cols} are padded");
        assert!(k <= MAX_INPUTS, "{k} inputs: the sums would overflow i32");
        assert_eq!(w.len(), k * cols, "weights are [k][cols]");
        assert!(w.iter().all(|w| f32::from(w.unsigned_abs()) <= WEIGHT_MAX), "weights are 12-bit");
        let mut pairs = vec![0i16; k * cols];
        for (i, row) in w.chunks_exact(cols).enumerate() {
            for (j, &w) in row.iter().enumerate() {
                pairs[((i / 2) * cols + j) * 2 + i % 2] = w;
            }
        }
        let panels = if simd::has_avx2() { simd::panels(&pairs, k, cols) } else { Vec::new() };
        // Only VNNI reads the pairs; AVX2 reads its panels, built from them just above.
        let pairs = if simd::has_vnni() { pairs } else { Vec::new() };
        let tiles = if amx::available() { amx::pack(w, k, cols) } else { Vec::new() };
        PackedWeights { k, cols, plain: w.to_vec(), pairs, panels, tiles }
    }
}

/// `acc[r][j] = sum_i x[r][i] * w[i][j]` for `rows` rows, with the activations `x` given as
/// pairs, `q` `[rows][k / 2]`: `q[r][g]` holds `x[r][2g]` in its low 16 bits and `x[r][2g + 1]`
/// in its high 16 (each at most [`activation_levels`] of `k`), the two a SIMD lane
/// multiplies with two weights (AMX splits them into bytes, see `amx`).
///
/// # Panics
/// If the path is not one this CPU has, or a buffer is shorter than its shape.
pub fn gemm(path: Int8Path, q: &[u32], rows: usize, w: &PackedWeights, acc: &mut [i32]) {
    let PackedWeights { k, cols, .. } = *w;
    let done = match path {
        Int8Path::Amx => {
            // Tiles of 16 rows on AMX, a part one padded with zeros; the rows `amx_rows`
            // leaves out, too few to pay for tiles of their own, on AVX-512 VNNI, which
            // every AMX CPU has.
            let tiled = amx_rows(rows);
            let (acc_tiled, acc_rest) = acc.split_at_mut(tiled * cols);
            let q_rest = &q[tiled * k / 2..];
            amx::gemm(q, tiled, k, &w.tiles, cols, acc_tiled)
                && (tiled == rows || simd::gemm_vnni(q_rest, rows - tiled, k, &w.pairs, cols, acc_rest))
        }
        Int8Path::Vnni => simd::gemm_vnni(q, rows, k, &w.pairs, cols, acc),
        Int8Path::Avx2 => simd::gemm_avx2(q, rows, k, &w.panels, cols, acc),
        Int8Path::Scalar => {
            gemm_scalar(q, rows, w, acc);
            true
        }
    };
    assert!(done, "this CPU has no {path} int8 path");
}

/// Which of `rows` go to AMX (the rest to AVX-512 VNNI). AMX runs blocks of 16 rows, a last
/// part block padded with zeros: the rows past the last whole block fill a new one only when
/// there are `AMX_MIN_ROWS` of them; VNNI is faster for fewer (`bench nn` at batches 33 to
/// 90 on a Xeon with AMX, with the kernel before, which took blocks in pairs: a new pair
/// for 2 or 8 rows was slower, for 11 or 12 no slower).
fn amx_rows(rows: usize) -> usize {
    const AMX_MIN_ROWS: usize = 11;
    let rest = rows % 16;
    if rest >= AMX_MIN_ROWS { rows } else { rows - rest }
}

/// The reference: the same sums in plain Rust, from the plain layout.
fn gemm_scalar(q: &[u32], rows: usize, w: &PackedWeights, acc: &mut [i32]) {
    let PackedWeights { k, cols, .. } = *w;
    for (pairs, out) in q.chunks_exact(k / 2).zip(acc.chunks_exact_mut(cols)).take(rows) {
        out.fill(0);
        let x = pairs.iter().flat_map(|&p| [(p & 0xffff) as i32, (p >> 16) as i32]);
        for (x, w) in x.zip(w.plain.chunks_exact(cols)) {
            if x != 0 {
                out.iter_mut().zip(w).for_each(|(o, &w)| *o += x * i32::from(w));
            }
        }
    }
}

/// The multiplier that quantizes a row whose largest value is `max` to `levels`, and the
/// scale that turns its integers back (`value ~ integer * scale`). A row of zeros (or of
/// values too small to divide by) quantizes to zeros.
fn row_scale(max: f32, levels: f32) -> (f32, f32) {
    if max > 1e-30 { (levels / max, max / levels) } else { (0.0, 0.0) }
}

/// The reference quantization of `rows` rows of `x` (`[rows][cols]`, non-negative) into
/// `q` (as pairs, see [`gemm`]), each row's scale into `sq`: `round(v * levels / max)`,
/// half up.
fn quantize_scalar(x: &[f32], rows: usize, cols: usize, levels: f32, q: &mut [u32], sq: &mut [f32]) {
    for ((x, q), sq) in x.chunks_exact(cols).zip(q.chunks_exact_mut(cols / 2)).zip(sq.iter_mut()).take(rows) {
        let max = x.iter().fold(0.0f32, |m, &v| if v > m { v } else { m });
        let (inv, s) = row_scale(max, levels);
        *sq = s;
        // At most `levels + 0.5` and a rounding: the cast never saturates, and truncates as
        // the SIMD conversions do.
        let level = |v: f32| (v * inv + 0.5) as u32;
        for (q, x) in q.iter_mut().zip(x.chunks_exact(2)) {
            *q = level(x[0]) | (level(x[1]) << 16);
        }
    }
}

/// The reference finish of a layer: `out = relu(acc * (sx * scale) + bias)`, or with `add`
/// `relu(out + ...)` (the skip connection, `out` holding the block's input).
#[allow(clippy::too_many_arguments)]
fn finish_scalar(
    acc: &[i32],
    sx: &[f32],
    scale: &[f32],
    bias: &[f32],
    out: &mut [f32],
    add: bool,
    rows: usize,
    cols: usize,
) {
    for ((acc, out), &sx) in acc.chunks_exact(cols).zip(out.chunks_exact_mut(cols)).zip(sx).take(rows) {
        for (((o, &a), &s), &b) in out.iter_mut().zip(acc).zip(scale).zip(bias) {
            let mut y = a as f32 * (sx * s) + b;
            if add {
                y += *o;
            }
            *o = if y > 0.0 { y } else { 0.0 };
        }
    }
}

/// One dense layer quantized: `y = (q W) * scale_q * scale + b`, `W` square over the
/// padded width.
pub(crate) struct QDense {
    weights: PackedWeights,
    /// A column's weights are `weight * scale`.
    scale: Vec<f32>,
    bias: Vec<f32>,
}

impl QDense {
    /// `weight` is `[d_in][cols]` (row-major, `cols` a multiple of 16, `d_in` at most
    /// `cols`: the inputs past `d_in` are padding and get zero weights), `bias` `[cols]`.
    pub(crate) fn new(weight: &[f32], bias: &[f32], d_in: usize, cols: usize) -> Self {
        assert!(d_in <= cols, "a block layer reads at most its padded width");
        let mut scale = vec![0.0f32; cols];
        for row in weight.chunks_exact(cols).take(d_in) {
            for (s, w) in scale.iter_mut().zip(row) {
                *s = s.max(w.abs());
            }
        }
        scale.iter_mut().for_each(|s| *s /= WEIGHT_MAX);
        let mut q = vec![0i16; cols * cols];
        for (row, q) in weight.chunks_exact(cols).take(d_in).zip(q.chunks_exact_mut(cols)) {
            for ((q, &w), &s) in q.iter_mut().zip(row).zip(&scale) {
                *q = if s > 0.0 { (w / s).round().clamp(-WEIGHT_MAX, WEIGHT_MAX) as i16 } else { 0 };
            }
        }
        QDense { weights: PackedWeights::new(&q, cols, cols), scale, bias: bias.to_vec() }
    }
}

/// The residual blocks in int8, with the buffers they run in.
pub(crate) struct Tower {
    blocks: Vec<(QDense, QDense)>,
    /// The padded width: every layer's inputs and outputs.
    width: usize,
    /// The activations' largest quantized value ([`activation_levels`] of `width`).
    levels: f32,
    /// Quantized activations `[chunk][width / 2]` (pairs, see [`gemm`]) and their rows'
    /// scales.
    q: Vec<u32>,
    sq: Vec<f32>,
    /// A layer's sums, `[chunk][width]` (the larger chunk of [`chunk_rows`]).
    acc: Vec<i32>,
    /// The hidden layer of a block, `[chunk][width]`.
    h: Vec<f32>,
}

impl Tower {
    /// `blocks` are `(l1, l2)` pairs of `[width][width]` layers.
    pub(crate) fn new(blocks: Vec<(QDense, QDense)>, width: usize) -> Self {
        assert!(
            blocks.iter().all(|(l1, l2)| l1.weights.cols == width && l2.weights.cols == width),
            "every block layer is {width} wide"
        );
        let chunk = AMX_CHUNK.max(CHUNK);
        let n = chunk * width;
        Tower {
            blocks,
            width,
            levels: activation_levels(width) as f32,
            q: vec![0; n / 2],
            sq: vec![0.0; chunk],
            acc: vec![0; n],
            h: vec![0.0; n],
        }
    }

    /// The path to run this tower on: [`Int8Path::best`], unless no path is named and the CPU
    /// has AMX; then AMX where it ran a trial batch of 32 rows more than 5% faster than AVX-512
    /// VNNI (the best of five runs each, in turns), else VNNI. Which is faster depends on the
    /// tower: on a Xeon with both, the two were equal on the shipped 128-wide MLP, and AMX
    /// 1.1x to 1.2x VNNI on Ouril's ring tower (docs/results.md, "AMX in one pass"). Every
    /// path gives the same bits, so the choice changes only the speed. The trial takes about
    /// a millisecond, once a network.
    pub(crate) fn fastest_path(&mut self) -> Int8Path {
        if let Some(path) = Int8Path::from_env() {
            return path;
        }
        if !amx::available() {
            return Int8Path::fastest();
        }
        const ROWS: usize = 32;
        const ROUNDS: usize = 5;
        // Inputs as a ReLU gives them: non-negative, some zero.
        let input: Vec<f32> = (0..ROWS * self.width).map(|i| ((i * 7919 % 101) as f32 / 50.0 - 0.6).max(0.0)).collect();
        let mut x = input.clone();
        let paths = [Int8Path::Vnni, Int8Path::Amx];
        let mut times = [Duration::MAX; 2];
        for _ in 0..ROUNDS {
            for (time, &path) in times.iter_mut().zip(&paths) {
                x.copy_from_slice(&input);
                let start = Instant::now();
                self.run(path, &mut x);
                *time = (*time).min(start.elapsed());
            }
        }
        if times[1].mul_f64(1.05) < times[0] { Int8Path::Amx } else { Int8Path::Vnni }
    }

    /// Runs the blocks on `x` (`[rows][width]`, the input layer's ReLU output), in place: the
    /// residual stream stays FP32, each layer's input is quantized as it is read.
    pub(crate) fn run(&mut self, path: Int8Path, x: &mut [f32]) {
        let (width, levels) = (self.width, self.levels);
        let Tower { blocks, q, sq, acc, h, .. } = self;
        for x in x.chunks_mut(chunk_rows(path) * width) {
            let rows = x.len() / width;
            for (l1, l2) in blocks.iter() {
                quantize(path, x, rows, width, levels, q, sq);
                dense(path, q, sq, rows, l1, acc, h, false);
                quantize(path, h, rows, width, levels, q, sq);
                dense(path, q, sq, rows, l2, acc, x, true);
            }
        }
    }
}

/// One layer on `path`: [`gemm`] of the quantized rows `q` (their scales `sx`) into the
/// sums `acc`, then [`finish`] into `out`. AMX finishes each block of columns from its tiles
/// instead (`amx::dense`), and leaves the rows [`amx_rows`] does not give it to VNNI, as
/// [`gemm`].
#[allow(clippy::too_many_arguments)]
fn dense(
    path: Int8Path,
    q: &[u32],
    sx: &[f32],
    rows: usize,
    layer: &QDense,
    acc: &mut [i32],
    out: &mut [f32],
    add: bool,
) {
    let PackedWeights { k, cols, .. } = layer.weights;
    if path != Int8Path::Amx {
        gemm(path, q, rows, &layer.weights, acc);
        finish(path, acc, sx, layer, out, add, rows, cols);
        return;
    }
    let tiled = amx_rows(rows);
    let (scale, bias) = (&layer.scale, &layer.bias);
    let (out_tiled, out_rest) = out.split_at_mut(tiled * cols);
    assert!(
        amx::dense(q, tiled, k, &layer.weights.tiles, cols, sx, scale, bias, out_tiled, add),
        "this CPU has no {path} int8 path"
    );
    if tiled < rows {
        dense(Int8Path::Vnni, &q[tiled * k / 2..], &sx[tiled..], rows - tiled, layer, acc, out_rest, add);
    }
}

/// [`quantize_scalar`] on `path`.
fn quantize(path: Int8Path, x: &[f32], rows: usize, cols: usize, levels: f32, q: &mut [u32], sq: &mut [f32]) {
    let done = match path {
        // AMX replaces only the products: the rest runs in AVX-512, which every AMX CPU has.
        Int8Path::Amx | Int8Path::Vnni => simd::quantize(true, x, rows, cols, levels, q, sq),
        Int8Path::Avx2 => simd::quantize(false, x, rows, cols, levels, q, sq),
        Int8Path::Scalar => false,
    };
    if !done {
        assert_eq!(path, Int8Path::Scalar, "this CPU has no {path} int8 path");
        quantize_scalar(x, rows, cols, levels, q, sq);
    }
}

/// [`finish_scalar`] of `layer` on `path`.
#[allow(clippy::too_many_arguments)]
fn finish(
    path: Int8Path,
    acc: &[i32],
    sx: &[f32],
    layer: &QDense,
    out: &mut [f32],
    add: bool,
    rows: usize,
    cols: usize,
) {
    let (scale, bias) = (&layer.scale, &layer.bias);
    let done = match path {
        Int8Path::Amx | Int8Path::Vnni => simd::finish(true, acc, sx, scale, bias, out, add, rows, cols),
        Int8Path::Avx2 => simd::finish(false, acc, sx, scale, bias, out, add, rows, cols),
        Int8Path::Scalar => false,
    };
    if !done {
        assert_eq!(path, Int8Path::Scalar, "this CPU has no {path} int8 path");
        finish_scalar(acc, sx, scale, bias, out, add, rows, cols);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Activations `[rows][k]` (bytes, or wider) as the pairs [`gemm`] reads.
    fn pairs<T: Copy + Into<u32>>(x: &[T]) -> Vec<u32> {
        x.chunks_exact(2).map(|p| p[0].into() | (p[1].into() << 16)).collect()
    }

    /// [`gemm`] on every path, each answer checked against `want`.
    fn gemm_on_every_path(q: &[u32], rows: usize, w: &PackedWeights, want: &[i32], label: &str) {
        for path in Int8Path::available() {
            let mut got = vec![-1; rows * w.cols];
            gemm(path, q, rows, w, &mut got);
            assert_eq!(got, want, "{path}: {label}");
        }
    }

    #[test]
    fn every_path_this_cpu_has_equals_the_scalar_reference() {
        let mut rng = SmallRng::seed_from_u64(42);
        let paths = Int8Path::available();
        assert_eq!(paths.last(), Some(&Int8Path::Scalar));
        // Every row-tile remainder (VNNI's tiles of 4 rows, AVX2's of 6: 1 to 5 rows past
        // them, here or among the AMX shapes below) and column-vector or panel remainder
        // (AVX2's panels of 16 columns, 1 to 4 a tile), and the extremes (the largest sums a
        // layer of 4096 inputs can reach); for AMX, one and two row blocks of 16 with and
        // without rows past them (padded to a new block, or left to VNNI), several blocks,
        // and inputs that are not whole steps of 64; each with bytes and with activations of
        // as many levels as the layer takes (AMX splits both into parts).
        let shapes = [
            (1, 4, 16),
            (2, 8, 32),
            (3, 128, 48),
            (4, 128, 128),
            (5, 64, 32),
            (6, 128, 64),
            (7, 132, 144),
            (33, 64, 80),
        ];
        let amx_shapes = [
            (16, 4, 16),
            (17, 192, 64),
            (27, 128, 32),
            (32, 132, 32),
            (34, 64, 16),
            (43, 64, 48),
            (48, 128, 128),
            (50, 192, 16),
            (61, 256, 48),
            // Several blocks in one call, each reading a column block's tiles (an AMX chunk).
            (96, 128, 64),
            (113, 192, 48),
            (128, 128, 128),
        ];
        for &(rows, k, cols) in shapes.iter().chain(&amx_shapes) {
            let mut q: Vec<u8> = (0..rows * k).map(|_| rng.random_range(0..=255u8)).collect();
            let mut w: Vec<i16> = (0..k * cols).map(|_| rng.random_range(-2047..=2047i16)).collect();
            if rows == 4 {
                q.iter_mut().for_each(|q| *q = 255);
                w.iter_mut().enumerate().for_each(|(i, w)| *w = if i % 3 == 0 { 2047 } else { -2047 });
            }
            let packed = PackedWeights::new(&w, k, cols);
            let mut want = vec![0; rows * cols];
            let qp = pairs(&q);
            gemm(Int8Path::Scalar, &qp, rows, &packed, &mut want);
            // The reference itself, checked by its definition.
            for r in 0..rows {
                for j in 0..cols {
                    let sum: i32 = (0..k).map(|i| i32::from(q[r * k + i]) * i32::from(w[i * cols + j])).sum();
                    assert_eq!(want[r * cols + j], sum);
                }
            }
            gemm_on_every_path(&qp, rows, &packed, &want, &format!("bytes, {rows} rows, k {k}, {cols} columns"));
            // Activations of as many levels as a layer of `k` inputs takes, against the
            // reference's definition.
            let top = activation_levels(k) as u16;
            let wide: Vec<u16> = (0..rows * k).map(|_| rng.random_range(0..=top)).collect();
            let want: Vec<i32> = (0..rows * cols)
                .map(|i| (0..k).map(|j| i32::from(wide[i / cols * k + j]) * i32::from(w[j * cols + i % cols])).sum())
                .collect();
            gemm_on_every_path(&pairs(&wide), rows, &packed, &want, &format!("{rows} rows, k {k}, {cols} columns"));
        }
    }

    #[test]
    fn activations_take_as_many_levels_as_the_sums_allow() {
        assert_eq!(
            [1, 4, 64, 128, 256, 1024, 2048, 4096].map(activation_levels),
            [32767, 32767, 16383, 8191, 4095, 1023, 511, 255]
        );
        for k in [1, 3, 100, 128, 129, 1000, 4096] {
            let levels = u64::from(activation_levels(k));
            assert!(levels * WEIGHT_MAX as u64 * k as u64 <= i32::MAX as u64, "{k}");
            // One more bit would overflow, or the lanes' 16 bits hold no more.
            assert!((2 * levels + 1) * WEIGHT_MAX as u64 * k as u64 > i32::MAX as u64 || levels == LEVELS_LIMIT);
        }
    }

    #[test]
    fn amx_takes_the_rows_that_pay_for_their_tiles() {
        // Whole blocks of 16.
        assert_eq!([16, 32, 48, 128].map(amx_rows), [16, 32, 48, 128]);
        // A new block for a few rows: left to VNNI, unless there are enough of them.
        assert_eq!([1, 10, 17, 26, 42, 66].map(amx_rows), [0, 0, 16, 16, 32, 64]);
        assert_eq!([11, 27, 43, 75].map(amx_rows), [11, 27, 43, 75]);
    }

    #[test]
    fn every_path_finishes_and_quantizes_as_the_scalar_reference() {
        let mut rng = SmallRng::seed_from_u64(3);
        let (rows, cols) = (5, 48);
        let acc: Vec<i32> = (0..rows * cols).map(|_| rng.random_range(-300_000..300_000)).collect();
        let sx: Vec<f32> = (0..rows).map(|_| rng.random_range(0.0f32..0.05)).collect();
        let scale: Vec<f32> = (0..cols).map(|_| rng.random_range(0.0f32..0.01)).collect();
        let bias: Vec<f32> = (0..cols).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let skip: Vec<f32> = (0..rows * cols).map(|_| rng.random_range(0.0f32..3.0)).collect();
        let mut x = skip.clone();
        // A row of zeros quantizes to zeros with scale 0.
        x[cols..2 * cols].fill(0.0);
        for (add, levels) in [(false, 255.0), (true, 8191.0)] {
            let mut want = skip.clone();
            finish_scalar(&acc, &sx, &scale, &bias, &mut want, add, rows, cols);
            let (mut want_q, mut want_s) = (vec![0; rows * cols / 2], vec![0.0; rows]);
            quantize_scalar(&x, rows, cols, levels, &mut want_q, &mut want_s);
            assert_eq!(want_s[1], 0.0);
            assert!(want_q[cols / 2..cols].iter().all(|&q| q == 0));
            let top = levels as u32;
            assert!(want_q.iter().any(|&p| p & 0xffff == top || p >> 16 == top));
            assert!(want_q.iter().all(|&p| p & 0xffff <= top && p >> 16 <= top));
            for path in Int8Path::available() {
                let mut got = skip.clone();
                let layer =
                    QDense { weights: PackedWeights::new(&[], 0, 16), scale: scale.clone(), bias: bias.clone() };
                finish(path, &acc, &sx, &layer, &mut got, add, rows, cols);
                assert_eq!(
                    got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{path}, add {add}"
                );
                let (mut q, mut s) = (vec![0; rows * cols / 2], vec![0.0; rows]);
                quantize(path, &x, rows, cols, levels, &mut q, &mut s);
                assert_eq!((&q, &s), (&want_q, &want_s), "{path}, {levels} levels");
            }
        }
    }

    #[test]
    fn quantized_layer_is_close_to_the_float_one() {
        let mut rng = SmallRng::seed_from_u64(7);
        let (d_in, cols, rows) = (30, 32, 5);
        let weight: Vec<f32> = (0..d_in * cols).map(|_| rng.random_range(-0.5f32..0.5)).collect();
        let bias: Vec<f32> = (0..cols).map(|_| rng.random_range(-0.1f32..0.1)).collect();
        let input: Vec<f32> =
            (0..rows * cols).map(|i| if i % cols < d_in { rng.random_range(0.0f32..2.0) } else { 0.0 }).collect();
        let layer = QDense::new(&weight, &bias, d_in, cols);
        let (mut q, mut s, mut acc, mut out) =
            (vec![0; rows * cols / 2], vec![0.0; rows], vec![0; rows * cols], vec![0.0; rows * cols]);
        quantize(Int8Path::Scalar, &input, rows, cols, activation_levels(cols) as f32, &mut q, &mut s);
        gemm(Int8Path::Scalar, &q, rows, &layer.weights, &mut acc);
        finish(Int8Path::Scalar, &acc, &s, &layer, &mut out, false, rows, cols);
        for r in 0..rows {
            for j in 0..cols {
                let exact: f32 = bias[j] + (0..d_in).map(|i| input[r * cols + i] * weight[i * cols + j]).sum::<f32>();
                let got = out[r * cols + j];
                assert!((got - exact.max(0.0)).abs() < 0.05, "row {r} column {j}: {got} against {exact}");
            }
        }
    }

    #[test]
    fn the_largest_layer_sums_without_overflow() {
        // One row (VNNI's alone, on AMX) and a block of 16 (AMX's tiles).
        for rows in [1, 16] {
            let (k, cols) = (MAX_INPUTS, 16);
            let q = pairs(&vec![255u8; rows * MAX_INPUTS]);
            let w = PackedWeights::new(&[-2047i16; MAX_INPUTS * 16], k, cols);
            let want = i32::try_from(-255 * 2047 * k as i64).unwrap();
            gemm_on_every_path(&q, rows, &w, &vec![want; rows * cols], &format!("{rows} rows of 4096 inputs"));
            // Each width's largest activations against the largest weights of either sign:
            // AMX's parts of a wide activation sum past `i32` on their way (`2048 * hh`).
            for k in [4, 128, 256, 1000, MAX_INPUTS] {
                let top = activation_levels(k);
                let q = pairs(&vec![top as u16; rows * k]);
                for weight in [2047i16, -2047] {
                    let w = PackedWeights::new(&vec![weight; k * cols], k, cols);
                    let want = i32::try_from(i64::from(top) * i64::from(weight) * k as i64).unwrap();
                    let label = format!("{rows} rows, k {k}, weight {weight}");
                    gemm_on_every_path(&q, rows, &w, &vec![want; rows * cols], &label);
                }
            }
        }
    }

    #[test]
    fn paths_are_named() {
        for path in Int8Path::available() {
            assert_eq!(Int8Path::named(path.name()), Some(path));
        }
        assert_eq!(Int8Path::named("sse"), None);
    }
}
