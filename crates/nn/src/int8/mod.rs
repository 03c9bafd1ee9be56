//! The residual blocks of the CPU kernel in int8 (`inference_precision = "int8"`).
//!
//! Why: the blocks' products are nearly all of the network's work, and an int8 product does
//! four multiply-adds where an FP32 FMA does one (AVX-512 VNNI's `vpdpbusd`; AVX2's
//! `vpmaddubsw` + `vpmaddwd` do two in two instructions). The model file stays FP32: the
//! weights are quantized when the kernel is built.
//!
//! - Weights: `i8` in [-127, 127] with one scale per output column (its largest magnitude
//!   maps to 127), so a column of small weights keeps its precision.
//! - Activations: every block layer's input is a ReLU output, so non-negative; each row is
//!   quantized to `u8` in [0, 127] with its own scale (its largest value maps to 127) as the
//!   layer runs. 127 rather than 255 keeps AVX2's pairwise `i16` sums from saturating, so
//!   every path computes exactly the same integers.
//! - Sums in `i32`; then FP32: the two scales, the bias, the ReLU and the skip connection.
//!   The input layer (a few dozen inputs, some of them signed) and the three heads (policy,
//!   value, margin) stay FP32 in [`crate::cpu`].
//!
//! The product runs on the best path the CPU has (AVX-512 VNNI, AVX2, else a scalar
//! reference), chosen at run time; tests run every path this machine has against the scalar
//! one.

mod simd;

use std::fmt;

/// The ways to compute the int8 product, fastest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int8Path {
    /// AVX-512 VNNI (`vpdpbusd`).
    Vnni,
    /// AVX2 (`vpmaddubsw` + `vpmaddwd`).
    Avx2,
    /// Plain Rust, the reference the others equal.
    Scalar,
}

impl Int8Path {
    /// The paths this CPU can run, fastest first; `Scalar` is always there.
    pub fn available() -> Vec<Int8Path> {
        let mut paths = Vec::new();
        if simd::has_vnni() {
            paths.push(Int8Path::Vnni);
        }
        if simd::has_avx2() {
            paths.push(Int8Path::Avx2);
        }
        paths.push(Int8Path::Scalar);
        paths
    }

    /// The fastest path this CPU has.
    pub fn best() -> Int8Path {
        Self::available()[0]
    }

    /// Whether this CPU has a SIMD path, which is when int8 beats FP32.
    pub fn has_simd() -> bool {
        Self::best() != Int8Path::Scalar
    }

    /// The path's name, as `bench nn --kernel` takes it.
    pub fn name(self) -> &'static str {
        match self {
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

/// `acc[r][j] = sum_i q[r][i] * w[i][j]` for `rows` rows, with `q` `[rows][k]` (each at most
/// 127) and `w` stored in groups of four inputs, `[k / 4][cols][4]`: the four weights a
/// `vpdpbusd` lane multiplies are next to each other. `k` is a multiple of 4, `cols` of 16.
///
/// # Panics
/// If the path is not one this CPU has, or a buffer is shorter than its shape.
pub fn gemm(path: Int8Path, q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
    let done = match path {
        Int8Path::Vnni => simd::gemm_vnni(q, rows, k, w, cols, acc),
        Int8Path::Avx2 => simd::gemm_avx2(q, rows, k, w, cols, acc),
        Int8Path::Scalar => {
            gemm_scalar(q, rows, k, w, cols, acc);
            true
        }
    };
    assert!(done, "this CPU has no {path} int8 path");
}

/// The reference: the same sums in plain Rust.
fn gemm_scalar(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
    for (x, out) in q.chunks_exact(k).zip(acc.chunks_exact_mut(cols)).take(rows) {
        out.fill(0);
        for (x, w) in x.chunks_exact(4).zip(w.chunks_exact(cols * 4)) {
            if x == [0; 4] {
                continue;
            }
            for (o, w) in out.iter_mut().zip(w.chunks_exact(4)) {
                *o += x.iter().zip(w).map(|(&x, &w)| i32::from(x) * i32::from(w)).sum::<i32>();
            }
        }
    }
}

/// One dense layer in int8: `y = (x W) * scale_x * scale + b`.
pub(crate) struct QDense {
    /// `[k / 4][cols][4]`, see [`gemm`].
    weight: Vec<i8>,
    /// A column's weights are `weight * scale`.
    scale: Vec<f32>,
    bias: Vec<f32>,
    /// Inputs read from each row, and `k` padded to a multiple of 4.
    d_in: usize,
    k: usize,
    cols: usize,
}

impl QDense {
    /// `weight` is `[d_in][cols]` (row-major, `cols` a multiple of 16), `bias` `[cols]`.
    pub(crate) fn new(weight: &[f32], bias: &[f32], d_in: usize, cols: usize) -> Self {
        let k = d_in.div_ceil(4) * 4;
        let mut scale = vec![0.0f32; cols];
        for row in weight.chunks_exact(cols).take(d_in) {
            for (s, w) in scale.iter_mut().zip(row) {
                *s = s.max(w.abs());
            }
        }
        scale.iter_mut().for_each(|s| *s /= 127.0);
        let mut q = vec![0i8; k * cols];
        for (i, row) in weight.chunks_exact(cols).take(d_in).enumerate() {
            for (j, (&w, &s)) in row.iter().zip(&scale).enumerate() {
                let v = if s > 0.0 { (w / s).round().clamp(-127.0, 127.0) } else { 0.0 };
                q[((i / 4) * cols + j) * 4 + i % 4] = v as i8;
            }
        }
        QDense { weight: q, scale, bias: bias.to_vec(), d_in, k, cols }
    }
}

/// What is done to a layer's FP32 result before it is stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Finish {
    /// `relu(y)`.
    Relu,
    /// `relu(out + y)`: `out` holds the residual block's input.
    AddRelu,
}

/// The buffers an int8 layer works in, grown to the largest batch seen.
#[derive(Default)]
pub(crate) struct Scratch {
    q: Vec<u8>,
    row_scale: Vec<f32>,
    acc: Vec<i32>,
}

/// Applies `layer` to `rows` rows of `input` (`[rows][stride]`, non-negative, the first
/// `d_in` of each read), writing `[rows][cols]` into `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply(
    path: Int8Path,
    layer: &QDense,
    input: &[f32],
    stride: usize,
    out: &mut [f32],
    rows: usize,
    finish: Finish,
    scratch: &mut Scratch,
) {
    let QDense { k, cols, d_in, .. } = *layer;
    let Scratch { q, row_scale, acc } = scratch;
    q.resize(rows * k, 0);
    row_scale.resize(rows, 0.0);
    acc.resize(rows * cols, 0);
    for ((x, q), s) in input.chunks(stride).zip(q.chunks_exact_mut(k)).zip(row_scale.iter_mut()).take(rows) {
        let x = &x[..d_in];
        let max = x.iter().fold(0.0f32, |m, &v| m.max(v));
        *s = max / 127.0;
        let inv = if max > 0.0 { 127.0 / max } else { 0.0 };
        for (q, &v) in q.iter_mut().zip(x) {
            *q = (v * inv).round().clamp(0.0, 127.0) as u8;
        }
        q[d_in..].fill(0);
    }
    gemm(path, q, rows, k, &layer.weight, cols, acc);
    for ((out, acc), &sx) in out.chunks_exact_mut(cols).zip(acc.chunks_exact(cols)).zip(row_scale.iter()).take(rows) {
        for (((o, &a), &sw), &b) in out.iter_mut().zip(acc).zip(&layer.scale).zip(&layer.bias) {
            let y = a as f32 * (sx * sw) + b;
            *o = match finish {
                Finish::Relu => y.max(0.0),
                Finish::AddRelu => (*o + y).max(0.0),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    fn random_case(rng: &mut SmallRng, rows: usize, k: usize, cols: usize) -> (Vec<u8>, Vec<i8>) {
        let q = (0..rows * k).map(|_| rng.random_range(0..=127u8)).collect();
        let w = (0..k * cols).map(|_| rng.random_range(-127..=127i8)).collect();
        (q, w)
    }

    #[test]
    fn every_path_this_cpu_has_equals_the_scalar_reference() {
        let mut rng = SmallRng::seed_from_u64(42);
        let paths = Int8Path::available();
        assert_eq!(paths.last(), Some(&Int8Path::Scalar));
        // Every row-tile remainder (1 to 3 rows, whole tiles of 4) and column-vector
        // remainder, and the extremes that would saturate a careless AVX2 sum.
        for &(rows, k, cols) in &[(1, 4, 16), (2, 8, 32), (3, 128, 48), (4, 128, 128), (7, 132, 144), (33, 64, 80)] {
            let (mut q, mut w) = random_case(&mut rng, rows, k, cols);
            if rows == 4 {
                q.iter_mut().for_each(|q| *q = 127);
                w.iter_mut().enumerate().for_each(|(i, w)| *w = if i % 3 == 0 { 127 } else { -127 });
            }
            let mut want = vec![0; rows * cols];
            gemm(Int8Path::Scalar, &q, rows, k, &w, cols, &mut want);
            // The reference itself, checked by its definition.
            for r in 0..rows {
                for j in 0..cols {
                    let sum: i32 =
                        (0..k).map(|i| i32::from(q[r * k + i]) * i32::from(w[((i / 4) * cols + j) * 4 + i % 4])).sum();
                    assert_eq!(want[r * cols + j], sum);
                }
            }
            for &path in &paths {
                let mut got = vec![-1; rows * cols];
                gemm(path, &q, rows, k, &w, cols, &mut got);
                assert_eq!(got, want, "{path}: {rows} rows, k {k}, {cols} columns");
            }
        }
    }

    #[test]
    fn quantized_layer_is_close_to_the_float_one() {
        let mut rng = SmallRng::seed_from_u64(7);
        let (d_in, cols, rows) = (30, 32, 5);
        let weight: Vec<f32> = (0..d_in * cols).map(|_| rng.random_range(-0.5f32..0.5)).collect();
        let bias: Vec<f32> = (0..cols).map(|_| rng.random_range(-0.1f32..0.1)).collect();
        let input: Vec<f32> = (0..rows * d_in).map(|_| rng.random_range(0.0f32..2.0)).collect();
        let layer = QDense::new(&weight, &bias, d_in, cols);
        assert_eq!(layer.k, 32);
        let mut out = vec![0.0; rows * cols];
        apply(Int8Path::Scalar, &layer, &input, d_in, &mut out, rows, Finish::Relu, &mut Scratch::default());
        for r in 0..rows {
            for j in 0..cols {
                let exact: f32 = bias[j] + (0..d_in).map(|i| input[r * d_in + i] * weight[i * cols + j]).sum::<f32>();
                let got = out[r * cols + j];
                assert!((got - exact.max(0.0)).abs() < 0.05, "row {r} column {j}: {got} against {exact}");
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
