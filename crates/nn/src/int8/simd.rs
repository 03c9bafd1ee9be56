//! The int8 product of [`super::gemm`] with x86 SIMD: AVX-512 VNNI (`vpdpbusd`: four `u8 x i8`
//! products summed into each `i32` lane, one instruction) and AVX2 (`vpmaddubsw` pairs into
//! `i16`, `vpmaddwd` against ones into `i32`, then an add).
//!
//! Why `unsafe` here and nowhere else: `pulp`, which gives the FP32 kernel safe SIMD, wraps
//! the AVX2 instructions but not `vpdpbusd`, and Rust lets safe code call a
//! `#[target_feature]` function only from code compiled with the same features. So each path
//! is a safe `#[target_feature]` function whose intrinsics are safe calls, entered through
//! one `unsafe` call made after the CPU was seen to have those features; the only other
//! `unsafe` is the unaligned loads and stores, which take pointers. Both paths compute the
//! same integer sums as the scalar reference (activations are at most 127, so a `vpmaddubsw`
//! pair, at most 2 x 127 x 127 = 32,258, never saturates), and the tests check that.

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Whether this CPU can run [`gemm_vnni`].
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

/// Whether this CPU can run [`gemm_avx2`].
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

/// The shapes every path takes (see [`super::gemm`]), checked once a call so the loops'
/// indexing cannot go out of bounds.
fn check(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &[i32], lanes: usize) {
    assert!(k.is_multiple_of(4) && cols.is_multiple_of(lanes), "k {k} and cols {cols} are padded");
    assert!(q.len() >= rows * k && w.len() >= k * cols && acc.len() >= rows * cols, "buffers fit the shapes");
}

/// [`super::gemm`] with AVX-512 VNNI; `false`, and nothing done, without it.
pub(super) fn gemm_vnni(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) -> bool {
    if !has_vnni() {
        return false;
    }
    check(q, rows, k, w, cols, acc, 16);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has avx512f, avx512bw and avx512vnni (checked just above), the features
    // `vnni::gemm` is compiled with; its slices were checked against the shapes.
    unsafe {
        vnni::gemm(q, rows, k, w, cols, acc);
    }
    true
}

/// [`super::gemm`] with AVX2; `false`, and nothing done, without it.
pub(super) fn gemm_avx2(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) -> bool {
    if !has_avx2() {
        return false;
    }
    check(q, rows, k, w, cols, acc, 8);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has avx2 (checked just above), the feature `avx2::gemm` is compiled
    // with; its slices were checked against the shapes.
    unsafe {
        avx2::gemm(q, rows, k, w, cols, acc);
    }
    true
}

/// Four activations of a row as one `i32`, to broadcast to every lane.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn four(q: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([q[at], q[at + 1], q[at + 2], q[at + 3]])
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::*;

    /// Output columns a vector.
    const LANES: usize = 16;

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) fn gemm(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
        // Tiles of 4 rows by 4 vectors: 16 accumulators, 4 weight vectors and a broadcast of
        // the 32 registers; each loaded weight vector feeds 4 rows.
        let mut r = 0;
        while r + 4 <= rows {
            strip::<4>(q, r, k, w, cols, acc);
            r += 4;
        }
        match rows - r {
            3 => strip::<3>(q, r, k, w, cols, acc),
            2 => strip::<2>(q, r, k, w, cols, acc),
            1 => strip::<1>(q, r, k, w, cols, acc),
            _ => {}
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    fn strip<const R: usize>(q: &[u8], r: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
        let vectors = cols / LANES;
        let mut v = 0;
        while v + 4 <= vectors {
            tile::<R, 4>(q, r, k, w, cols, acc, v);
            v += 4;
        }
        while v < vectors {
            tile::<R, 1>(q, r, k, w, cols, acc, v);
            v += 1;
        }
    }

    /// Rows `r..r + R` by vectors `v..v + C` of output, summed over all `k` inputs.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn tile<const R: usize, const C: usize>(
        q: &[u8],
        r: usize,
        k: usize,
        w: &[i8],
        cols: usize,
        acc: &mut [i32],
        v: usize,
    ) {
        let mut sums = [[_mm512_setzero_si512(); C]; R];
        let mut wv = [_mm512_setzero_si512(); C];
        for g in 0..k / 4 {
            let row = &w[(g * cols + v * LANES) * 4..][..C * LANES * 4];
            for (c, wv) in wv.iter_mut().enumerate() {
                *wv = load(&row[c * 64..][..64]);
            }
            for (i, sums) in sums.iter_mut().enumerate() {
                let x = _mm512_set1_epi32(four(q, (r + i) * k + 4 * g));
                for (s, &wv) in sums.iter_mut().zip(&wv) {
                    *s = _mm512_dpbusd_epi32(*s, x, wv);
                }
            }
        }
        for (i, sums) in sums.iter().enumerate() {
            for (c, &s) in sums.iter().enumerate() {
                store(&mut acc[(r + i) * cols + (v + c) * LANES..][..LANES], s);
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load(bytes: &[i8]) -> __m512i {
        assert_eq!(bytes.len(), 64);
        // SAFETY: `bytes` holds the 64 bytes read; the unaligned load has no alignment need.
        unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store(out: &mut [i32], v: __m512i) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 16 `i32` written; the unaligned store has no alignment need.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    /// Output columns a vector.
    const LANES: usize = 8;

    #[target_feature(enable = "avx2")]
    pub(super) fn gemm(q: &[u8], rows: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
        // Tiles of 4 rows by 2 vectors: 8 accumulators, 2 weight vectors, the ones, a
        // broadcast and a product of the 16 registers.
        let mut r = 0;
        while r + 4 <= rows {
            strip::<4>(q, r, k, w, cols, acc);
            r += 4;
        }
        match rows - r {
            3 => strip::<3>(q, r, k, w, cols, acc),
            2 => strip::<2>(q, r, k, w, cols, acc),
            1 => strip::<1>(q, r, k, w, cols, acc),
            _ => {}
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn strip<const R: usize>(q: &[u8], r: usize, k: usize, w: &[i8], cols: usize, acc: &mut [i32]) {
        let vectors = cols / LANES;
        let mut v = 0;
        while v + 2 <= vectors {
            tile::<R, 2>(q, r, k, w, cols, acc, v);
            v += 2;
        }
        while v < vectors {
            tile::<R, 1>(q, r, k, w, cols, acc, v);
            v += 1;
        }
    }

    /// Rows `r..r + R` by vectors `v..v + C` of output, summed over all `k` inputs.
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn tile<const R: usize, const C: usize>(
        q: &[u8],
        r: usize,
        k: usize,
        w: &[i8],
        cols: usize,
        acc: &mut [i32],
        v: usize,
    ) {
        let ones = _mm256_set1_epi16(1);
        let mut sums = [[_mm256_setzero_si256(); C]; R];
        let mut wv = [_mm256_setzero_si256(); C];
        for g in 0..k / 4 {
            let row = &w[(g * cols + v * LANES) * 4..][..C * LANES * 4];
            for (c, wv) in wv.iter_mut().enumerate() {
                *wv = load(&row[c * 32..][..32]);
            }
            for (i, sums) in sums.iter_mut().enumerate() {
                let x = _mm256_set1_epi32(four(q, (r + i) * k + 4 * g));
                for (s, &wv) in sums.iter_mut().zip(&wv) {
                    let pairs = _mm256_maddubs_epi16(x, wv);
                    *s = _mm256_add_epi32(*s, _mm256_madd_epi16(pairs, ones));
                }
            }
        }
        for (i, sums) in sums.iter().enumerate() {
            for (c, &s) in sums.iter().enumerate() {
                store(&mut acc[(r + i) * cols + (v + c) * LANES..][..LANES], s);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(bytes: &[i8]) -> __m256i {
        assert_eq!(bytes.len(), 32);
        // SAFETY: `bytes` holds the 32 bytes read; the unaligned load has no alignment need.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store(out: &mut [i32], v: __m256i) {
        assert_eq!(out.len(), LANES);
        // SAFETY: `out` holds the 8 `i32` written; the unaligned store has no alignment need.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
    }
}
