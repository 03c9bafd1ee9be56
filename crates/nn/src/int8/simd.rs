//! The int8 tower's loops with x86 SIMD: the products ([`super::gemm`]) with AVX-512 VNNI
//! (`vpdpwssd`: two `i16 x i16` products added into each `i32` lane, 32 multiply-adds an
//! instruction, twice an FP32 FMA's) or AVX2 (`vpmaddwd` then `vpaddd`, 16 an instruction
//! pair), the activations (up to 15 bits) kept as `u16` pairs, one `i32` broadcast to every
//! lane; and each layer's finish (scales, bias, skip, ReLU) and the quantization of its
//! output for the next layer, in the same instruction set.
//!
//! Why `unsafe` here and nowhere else: `pulp`, which gives the FP32 kernel safe SIMD, wraps
//! neither `vpdpwssd` nor the conversions used here, and Rust lets safe code call a
//! `#[target_feature]` function only from code compiled with the same features. So each path
//! is a safe `#[target_feature]` function whose intrinsics are safe calls, entered through
//! one `unsafe` call made after the CPU was seen to have those features; the only other
//! `unsafe` is the unaligned loads and stores, which take pointers and are each given a
//! slice of exactly the bytes they touch, and the AVX2 tile's unchecked reads of a group of
//! weights and of an activation pair, inside slices whose lengths bound the loop. Every path
//! computes exactly what the scalar reference in `super` computes (integer sums that cannot
//! overflow or saturate; the float steps in the same order, one IEEE operation at a time, no
//! fused multiply-add), and the tests check that.

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Whether this CPU can run the VNNI path.
pub(super) fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU can run the AVX2 path.
pub(super) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The shapes of a product, checked once a call so the loops' indexing cannot go out of
/// bounds: `q` `[rows][k / 2]` pairs, `w` `k * cols` values, `acc` `[rows][cols]`.
fn check_gemm(q: usize, rows: usize, k: usize, w: usize, cols: usize, acc: usize) {
    assert!(k.is_multiple_of(4) && cols.is_multiple_of(16), "k {k} and cols {cols} are padded");
    assert!(q >= rows * k / 2 && w >= k * cols && acc >= rows * cols, "buffers fit the shapes");
}

/// The shapes of a finish or a quantization: every buffer holds `rows` rows of `cols`.
fn check_rows(rows: usize, cols: usize, lens: &[usize]) {
    assert!(cols.is_multiple_of(16), "cols {cols} are padded");
    assert!(lens.iter().all(|&len| len >= rows * cols), "buffers fit the shapes");
}

/// [`super::gemm`] with AVX-512 VNNI on weights `[k / 2][cols][2]`; `false`, and nothing
/// done, without it.
pub(super) fn gemm_vnni(q: &[u32], rows: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) -> bool {
    if !has_vnni() {
        return false;
    }
    check_gemm(q.len(), rows, k, w.len(), cols, acc.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has avx512f, avx512bw and avx512vnni (checked just above), the features
    // `vnni::gemm` is compiled with; its slices were checked against the shapes.
    unsafe {
        vnni::gemm(q, rows, k, w, cols, acc);
    }
    true
}

/// The AVX2 path's weights, `[cols / 16][k / 2][16][2]`, from the pairs `[k / 2][cols][2]`:
/// each panel of 16 columns (two vectors of `i32` sums) holds its pairs for all `k` in one run.
pub(super) fn panels(pairs: &[i16], k: usize, cols: usize) -> Vec<i16> {
    let mut out = Vec::with_capacity(k * cols);
    for panel in 0..cols / PANEL {
        for g in pairs.chunks_exact(2 * cols).take(k / 2) {
            out.extend_from_slice(&g[panel * 2 * PANEL..][..2 * PANEL]);
        }
    }
    out
}

/// Columns in a panel of the AVX2 path's weights.
const PANEL: usize = 16;

/// [`super::gemm`] with AVX2 on weights in [`panels`]; `false`, and nothing done, without
/// it.
pub(super) fn gemm_avx2(q: &[u32], rows: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) -> bool {
    if !has_avx2() {
        return false;
    }
    check_gemm(q.len(), rows, k, w.len(), cols, acc.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has avx2 (checked just above), the feature `avx2::gemm` is compiled
    // with; its slices were checked against the shapes.
    unsafe {
        avx2::gemm(q, rows, k, w, cols, acc);
    }
    true
}

/// [`super::finish_scalar`] with AVX-512 (`wide`) or AVX2; `false`, and nothing done, where
/// the CPU lacks it.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    wide: bool,
    acc: &[i32],
    sx: &[f32],
    scale: &[f32],
    bias: &[f32],
    out: &mut [f32],
    add: bool,
    rows: usize,
    cols: usize,
) -> bool {
    check_rows(rows, cols, &[acc.len(), out.len()]);
    assert!(sx.len() >= rows && scale.len() >= cols && bias.len() >= cols, "buffers fit the shapes");
    #[cfg(target_arch = "x86_64")]
    {
        if wide && has_vnni() {
            // SAFETY: the CPU has avx512f and avx512bw (checked just above), the features
            // `vnni::finish` is compiled with; its slices were checked against the shapes.
            unsafe { vnni::finish(acc, sx, scale, bias, out, add, rows, cols) };
            return true;
        }
        if !wide && has_avx2() {
            // SAFETY: the CPU has avx2 (checked just above), the feature `avx2::finish` is
            // compiled with; its slices were checked against the shapes.
            unsafe { avx2::finish(acc, sx, scale, bias, out, add, rows, cols) };
            return true;
        }
    }
    false
}

/// [`super::quantize_scalar`] with AVX-512 (`wide`) or AVX2; `false`, and nothing done,
/// where the CPU lacks it.
pub(super) fn quantize(
    wide: bool,
    x: &[f32],
    rows: usize,
    cols: usize,
    levels: f32,
    q: &mut [u32],
    sq: &mut [f32],
) -> bool {
    check_rows(rows, cols, &[x.len(), 2 * q.len()]);
    assert!(sq.len() >= rows, "buffers fit the shapes");
    #[cfg(target_arch = "x86_64")]
    {
        if wide && has_vnni() {
            // SAFETY: the CPU has avx512f and avx512bw (checked just above), the features
            // `vnni::quantize` is compiled with; its slices were checked against the shapes.
            unsafe { vnni::quantize(x, rows, cols, levels, q, sq) };
            return true;
        }
        if !wide && has_avx2() {
            // SAFETY: the CPU has avx2 (checked just above), the feature `avx2::quantize` is
            // compiled with; its slices were checked against the shapes.
            unsafe { avx2::quantize(x, rows, cols, levels, q, sq) };
            return true;
        }
    }
    false
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::super::row_scale;
    use super::*;

    /// `i32` or `f32` lanes a vector.
    const LANES: usize = 16;

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) fn gemm(q: &[u32], rows: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) {
        // Whole groups of 4 rows in tiles of 4 vectors (16 accumulators; each weight vector
        // loaded feeds 4 rows); the rest in tiles of 8 vectors, as fewer rows need more
        // independent sums to cover `vpdpwssd`'s latency.
        let mut r = 0;
        while r + 4 <= rows {
            strip::<4, 4>(q, r, k, w, cols, acc);
            r += 4;
        }
        match rows - r {
            3 => strip::<3, 8>(q, r, k, w, cols, acc),
            2 => strip::<2, 8>(q, r, k, w, cols, acc),
            1 => strip::<1, 8>(q, r, k, w, cols, acc),
            _ => {}
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    fn strip<const R: usize, const C: usize>(q: &[u32], r: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) {
        let vectors = cols / LANES;
        let mut v = 0;
        while v + C <= vectors {
            tile::<R, C>(q, r, k, w, cols, acc, v);
            v += C;
        }
        while v + 2 <= vectors {
            tile::<R, 2>(q, r, k, w, cols, acc, v);
            v += 2;
        }
        while v < vectors {
            tile::<R, 1>(q, r, k, w, cols, acc, v);
            v += 1;
        }
    }

    /// Rows `r..r + R` by vectors `v..v + C` of output, summed over all `k` inputs, two at a
    /// time: each `i32` lane of the broadcast holds two activations as `i16`, multiplied with
    /// the two weights next to each other in the lane's column and added in one `vpdpwssd`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn tile<const R: usize, const C: usize>(
        q: &[u32],
        r: usize,
        k: usize,
        w: &[i16],
        cols: usize,
        acc: &mut [i32],
        v: usize,
    ) {
        let mut sums = [[_mm512_setzero_si512(); C]; R];
        let rows: [&[u32]; R] = std::array::from_fn(|i| &q[(r + i) * (k / 2)..][..k / 2]);
        for (g, weights) in w[..k * cols].chunks_exact(2 * cols).enumerate() {
            let weights = &weights[v * LANES * 2..][..C * LANES * 2];
            let mut wv = [_mm512_setzero_si512(); C];
            for (wv, pairs) in wv.iter_mut().zip(weights.chunks_exact(2 * LANES)) {
                *wv = load_i16(pairs);
            }
            for (sums, row) in sums.iter_mut().zip(&rows) {
                let x = _mm512_set1_epi32(row[g] as i32);
                for (s, &wv) in sums.iter_mut().zip(&wv) {
                    *s = _mm512_dpwssd_epi32(*s, x, wv);
                }
            }
        }
        for (i, sums) in sums.iter().enumerate() {
            for (c, &s) in sums.iter().enumerate() {
                store_i32(&mut acc[(r + i) * cols + (v + c) * LANES..][..LANES], s);
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        acc: &[i32],
        sx: &[f32],
        scale: &[f32],
        bias: &[f32],
        out: &mut [f32],
        add: bool,
        rows: usize,
        cols: usize,
    ) {
        let zero = _mm512_setzero_ps();
        for ((acc, out), &sx) in acc.chunks_exact(cols).zip(out.chunks_exact_mut(cols)).zip(sx).take(rows) {
            let sx = _mm512_set1_ps(sx);
            for (((a, o), s), b) in acc
                .chunks_exact(LANES)
                .zip(out.chunks_exact_mut(LANES))
                .zip(scale.chunks_exact(LANES))
                .zip(bias.chunks_exact(LANES))
            {
                let m = _mm512_mul_ps(sx, load_f32(s));
                let mut y = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(load_i32(a)), m), load_f32(b));
                if add {
                    y = _mm512_add_ps(load_f32(o), y);
                }
                store_f32(o, _mm512_max_ps(y, zero));
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn quantize(x: &[f32], rows: usize, cols: usize, levels: f32, q: &mut [u32], sq: &mut [f32]) {
        let half = _mm512_set1_ps(0.5);
        for ((x, q), sq) in x.chunks_exact(cols).zip(q.chunks_exact_mut(cols / 2)).zip(sq.iter_mut()).take(rows) {
            let mut max = _mm512_setzero_ps();
            for x in x.chunks_exact(LANES) {
                max = _mm512_max_ps(load_f32(x), max);
            }
            let (inv, s) = row_scale(_mm512_reduce_max_ps(max), levels);
            *sq = s;
            let inv = _mm512_set1_ps(inv);
            for (x, q) in x.chunks_exact(LANES).zip(q.chunks_exact_mut(LANES / 2)) {
                let v = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(load_f32(x), inv), half));
                // 16 values of 0..=levels (at most 32767) to 16 `u16`, that is 8 pairs: a
                // truncation, exact here.
                store_pairs(q, _mm512_cvtepi32_epi16(v));
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_i16(values: &[i16]) -> __m512i {
        assert_eq!(values.len(), 2 * LANES);
        // SAFETY: `values` holds the 64 bytes read; the unaligned load has no alignment need.
        unsafe { _mm512_loadu_si512(values.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_i32(values: &[i32]) -> __m512i {
        assert_eq!(values.len(), LANES);
        // SAFETY: `values` holds the 16 `i32` read; the unaligned load has no alignment need.
        unsafe { _mm512_loadu_si512(values.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_f32(values: &[f32]) -> __m512 {
        assert_eq!(values.len(), LANES);
        // SAFETY: `values` holds the 16 `f32` read; the unaligned load has no alignment need.
        unsafe { _mm512_loadu_ps(values.as_ptr()) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store_i32(out: &mut [i32], v: __m512i) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 16 `i32` written; the unaligned store has no alignment need.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store_f32(out: &mut [f32], v: __m512) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 16 `f32` written; the unaligned store has no alignment need.
        unsafe { _mm512_storeu_ps(out.as_mut_ptr(), v) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store_pairs(out: &mut [u32], v: __m256i) {
        assert_eq!(out.len(), LANES / 2);
        // SAFETY: `out` holds the 32 bytes written; the unaligned store has no alignment need.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::row_scale;
    use super::*;

    /// `i32` or `f32` lanes a vector.
    const LANES: usize = 8;

    #[target_feature(enable = "avx2")]
    pub(super) fn gemm(q: &[u32], rows: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) {
        // Tiles of 6 rows by one panel (12 accumulators, 2 weight vectors, a broadcast and a
        // product of the 16 registers); fewer rows take more panels, as in the VNNI path. On
        // AMD Zen 3 (`cargo bench -p mancala-nn --bench forward -- avx2/rows`) 32 rows of a
        // 128x128 layer read 63 G multiply-adds/s, against 40 for the tiles of 4 rows by 2
        // vectors over the pairs layout before (docs/experiments.md, "The AVX2 products in
        // panels").
        let mut r = 0;
        while r + 6 <= rows {
            strip::<6, 1>(q, r, k, w, cols, acc);
            r += 6;
        }
        match rows - r {
            5 => strip::<5, 1>(q, r, k, w, cols, acc),
            4 => strip::<4, 1>(q, r, k, w, cols, acc),
            3 => strip::<3, 1>(q, r, k, w, cols, acc),
            2 => strip::<2, 2>(q, r, k, w, cols, acc),
            1 => strip::<1, 4>(q, r, k, w, cols, acc),
            _ => {}
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn strip<const R: usize, const P: usize>(q: &[u32], r: usize, k: usize, w: &[i16], cols: usize, acc: &mut [i32]) {
        let panels = cols / PANEL;
        let mut p = 0;
        while p + P <= panels {
            tile::<R, P>(q, r, k, w, cols, acc, p);
            p += P;
        }
        while p < panels {
            tile::<R, 1>(q, r, k, w, cols, acc, p);
            p += 1;
        }
    }

    /// Rows `r..r + R` by panels `p..p + P` of output, summed over all `k` inputs, two at a
    /// time: each `i32` lane of the broadcast holds two activations as `i16`, multiplied with
    /// the two weights next to each other in the lane's column. Each panel's weights are one
    /// run of `k / 2` groups of 32 values, read in order.
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn tile<const R: usize, const P: usize>(
        q: &[u32],
        r: usize,
        k: usize,
        w: &[i16],
        cols: usize,
        acc: &mut [i32],
        p: usize,
    ) {
        let half = k / 2;
        let mut sums = [[[_mm256_setzero_si256(); 2]; P]; R];
        let rows: [&[u32]; R] = std::array::from_fn(|i| &q[(r + i) * half..][..half]);
        let panels: [&[i16]; P] = std::array::from_fn(|j| &w[(p + j) * half * 2 * PANEL..][..half * 2 * PANEL]);
        // Index loops over the constant shapes, not iterator adapters: an adapter's `next` is
        // not compiled for AVX2, and where it was not inlined every vector went through memory.
        for g in 0..half {
            let mut wv = [[_mm256_setzero_si256(); 2]; P];
            for j in 0..P {
                let panel = panels[j];
                // SAFETY: `g < half`, and each panel is `half` groups of `2 * PANEL` values
                // (sliced just above). Checked indexing kept a compare and a branch for each
                // row and panel in the loop, about a fifth of the products' time on Zen 3.
                let group = unsafe { panel.get_unchecked(g * 2 * PANEL..(g + 1) * 2 * PANEL) };
                wv[j] = [load_i16(&group[..2 * LANES]), load_i16(&group[2 * LANES..])];
            }
            for i in 0..R {
                // SAFETY: `g < half`, the length of every row (sliced just above).
                let x = _mm256_set1_epi32(unsafe { *rows[i].get_unchecked(g) } as i32);
                for j in 0..P {
                    for h in 0..2 {
                        sums[i][j][h] = _mm256_add_epi32(sums[i][j][h], _mm256_madd_epi16(x, wv[j][h]));
                    }
                }
            }
        }
        for i in 0..R {
            for j in 0..P {
                for h in 0..2 {
                    let col = (p + j) * PANEL + h * LANES;
                    store_i32(&mut acc[(r + i) * cols + col..][..LANES], sums[i][j][h]);
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        acc: &[i32],
        sx: &[f32],
        scale: &[f32],
        bias: &[f32],
        out: &mut [f32],
        add: bool,
        rows: usize,
        cols: usize,
    ) {
        let zero = _mm256_setzero_ps();
        for ((acc, out), &sx) in acc.chunks_exact(cols).zip(out.chunks_exact_mut(cols)).zip(sx).take(rows) {
            let sx = _mm256_set1_ps(sx);
            for (((a, o), s), b) in acc
                .chunks_exact(LANES)
                .zip(out.chunks_exact_mut(LANES))
                .zip(scale.chunks_exact(LANES))
                .zip(bias.chunks_exact(LANES))
            {
                let m = _mm256_mul_ps(sx, load_f32(s));
                let mut y = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(load_i32(a)), m), load_f32(b));
                if add {
                    y = _mm256_add_ps(load_f32(o), y);
                }
                store_f32(o, _mm256_max_ps(y, zero));
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn quantize(x: &[f32], rows: usize, cols: usize, levels: f32, q: &mut [u32], sq: &mut [f32]) {
        let half = _mm256_set1_ps(0.5);
        for ((x, q), sq) in x.chunks_exact(cols).zip(q.chunks_exact_mut(cols / 2)).zip(sq.iter_mut()).take(rows) {
            let mut max = _mm256_setzero_ps();
            for x in x.chunks_exact(LANES) {
                max = _mm256_max_ps(load_f32(x), max);
            }
            let half_max = _mm_max_ps(_mm256_castps256_ps128(max), _mm256_extractf128_ps::<1>(max));
            let quarter = _mm_max_ps(half_max, _mm_movehl_ps(half_max, half_max));
            let one = _mm_max_ss(quarter, _mm_shuffle_ps::<1>(quarter, quarter));
            let (inv, s) = row_scale(_mm_cvtss_f32(one), levels);
            *sq = s;
            let inv = _mm256_set1_ps(inv);
            for (x, q) in x.chunks_exact(LANES).zip(q.chunks_exact_mut(LANES / 2)) {
                let v = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(load_f32(x), inv), half));
                // 8 values of 0..=levels (at most 32767) in `i32` lanes to 8 `u16`, that is
                // 4 pairs: an unsigned-saturating pack of the two 128-bit halves (exact here).
                store_pairs(q, _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)));
            }
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_i16(values: &[i16]) -> __m256i {
        assert_eq!(values.len(), 2 * LANES);
        // SAFETY: `values` holds the 32 bytes read; the unaligned load has no alignment need.
        unsafe { _mm256_loadu_si256(values.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_i32(values: &[i32]) -> __m256i {
        assert_eq!(values.len(), LANES);
        // SAFETY: `values` holds the 8 `i32` read; the unaligned load has no alignment need.
        unsafe { _mm256_loadu_si256(values.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_f32(values: &[f32]) -> __m256 {
        assert_eq!(values.len(), LANES);
        // SAFETY: `values` holds the 8 `f32` read; the unaligned load has no alignment need.
        unsafe { _mm256_loadu_ps(values.as_ptr()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store_i32(out: &mut [i32], v: __m256i) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 8 `i32` written; the unaligned store has no alignment need.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store_f32(out: &mut [f32], v: __m256) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 8 `f32` written; the unaligned store has no alignment need.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store_pairs(out: &mut [u32], v: __m128i) {
        assert_eq!(out.len(), LANES / 2);
        // SAFETY: `out` holds the 16 bytes written; the unaligned store has no alignment need.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) }
    }
}
