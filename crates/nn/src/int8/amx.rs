//! The int8 products ([`super::gemm`]) on Intel AMX (Sapphire Rapids and later Xeons): tile
//! registers of 16 rows of 64 bytes, and `tdpbusd`, which multiplies a 16 x 64 tile of `u8`
//! activations with a 64 x 16 tile of `i8` weights into 16 x 16 `i32` sums in one
//! instruction, 16,384 multiply-adds (a `vpdpwssd` does 32).
//!
//! The weights are 12 bits and AMX multiplies 8-bit ones, so each weight is split as
//! `w = 16 * hi + lo` with `hi = w >> 4` in [-128, 127] and `lo = w & 15` in [0, 15], both
//! `i8`; two `tdpbusd`s sum the activations against each part, and `16 * hi_sum + lo_sum` is
//! exactly the sum the other paths compute (every partial sum stays far inside `i32`: a layer
//! has at most 4096 inputs, and `255 * 128 * 4096 < 2^28`). The activations, kept as `u16`
//! pairs for the other paths, are laid out as bytes by steps of 64 inputs (see `to_bytes`),
//! in a buffer of the calling thread's that grows to the largest layer and is then reused.
//!
//! Why `unsafe`, and why `asm!`: Rust's AMX intrinsics and its feature detection for AMX are
//! not stable, so the tile instructions are written as inline assembly: one block for each
//! 32 rows (two row tiles, so that each weight tile loaded serves both; a lone 16 are paired
//! with zeros) that configures the tiles, runs every column block and releases the tiles
//! again (tile state is never left live between blocks, where the compiler knows nothing of
//! it). Fewer than 16 rows, where a tile's fixed cost loses, go to AVX-512 VNNI. Linux hands
//! a process the AMX tile data only when it asks (`arch_prctl(ARCH_REQ_XCOMP_PERM)`); that
//! system call is the other `unsafe` block. The
//! path exists only where CPUID says AMX-TILE and AMX-INT8, the CPU has the AVX-512 VNNI path
//! (whose quantization and finish the AMX path shares), and Linux granted the permission.

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::sync::OnceLock;

/// Bytes of a tile row, and inputs a `tdpbusd` sums a step.
const TILE_BYTES: usize = 64;

/// Rows of a tile, and output columns of a `tdpbusd`.
const TILE_ROWS: usize = 16;

/// Rows the kernel takes at a time: two tiles' worth.
const PAIR: usize = 2 * TILE_ROWS;

/// Whether this process can run the AMX path (checked once).
pub(super) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| super::simd::has_vnni() && cpu_has_amx_int8() && os_grants_tile_data())
}

#[cfg(target_arch = "x86_64")]
fn cpu_has_amx_int8() -> bool {
    // CPUID leaf 7, sub-leaf 0, EDX: bit 24 AMX-TILE, bit 25 AMX-INT8.
    let leaf7 = std::arch::x86_64::__cpuid_count(7, 0);
    leaf7.edx & (3 << 24) == 3 << 24
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has_amx_int8() -> bool {
    false
}

/// Asks Linux for the AMX tile data state (`arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA)`); true when it is granted (also when it was before).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn os_grants_tile_data() -> bool {
    const SYS_ARCH_PRCTL: i64 = 158;
    const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
    const XFEATURE_XTILEDATA: i64 = 18;
    let status: i64;
    // SAFETY: the `arch_prctl` system call with these arguments only changes which extended
    // states the kernel lets this process use (or fails with an error code, on a kernel or
    // CPU without AMX); it touches no memory of ours. `syscall` clobbers rcx and r11, which
    // are declared, and needs no stack.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") SYS_ARCH_PRCTL => status,
            in("rdi") ARCH_REQ_XCOMP_PERM,
            in("rsi") XFEATURE_XTILEDATA,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    status == 0
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn os_grants_tile_data() -> bool {
    false
}

/// Inputs padded to whole tile rows.
fn padded(k: usize) -> usize {
    k.div_ceil(TILE_BYTES) * TILE_BYTES
}

/// The weights `w` (`[k][cols]`, as given to `PackedWeights`) as AMX tiles: for each block of
/// 16 columns, for each step of 64 inputs, the `hi` tile then the `lo` tile, each 16 rows of
/// 64 bytes where row `r` holds, for each of the 16 columns, the weights of inputs
/// `4r..4r + 4` of the step (the layout `tdpbusd` reads); inputs past `k` are zeros.
pub(super) fn pack(w: &[i16], k: usize, cols: usize) -> Vec<i8> {
    let steps = padded(k) / TILE_BYTES;
    let mut tiles = Vec::with_capacity(cols / TILE_ROWS * steps * 2 * TILE_ROWS * TILE_BYTES);
    for block in 0..cols / TILE_ROWS {
        for step in 0..steps {
            for part in [Part::Hi, Part::Lo] {
                for r in 0..TILE_ROWS {
                    for column in block * TILE_ROWS..(block + 1) * TILE_ROWS {
                        for j in 0..4 {
                            let input = step * TILE_BYTES + 4 * r + j;
                            let w = if input < k { w[input * cols + column] } else { 0 };
                            tiles.push(part.of(w));
                        }
                    }
                }
            }
        }
    }
    tiles
}

#[derive(Clone, Copy)]
enum Part {
    Hi,
    Lo,
}

impl Part {
    /// This part of a 12-bit weight: `w = 16 * hi + lo`.
    fn of(self, w: i16) -> i8 {
        let part = match self {
            Part::Hi => w >> 4,
            Part::Lo => w & 15,
        };
        i8::try_from(part).expect("a 12-bit weight splits into two i8")
    }
}

/// The calling thread's buffers: a row block's activations as bytes, and the sums of the
/// tiles before they are combined.
#[derive(Default)]
struct Scratch {
    bytes: Vec<u8>,
    sums: Vec<i32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// [`super::gemm`] on AMX, with weights packed by [`pack`]; `false`, and nothing done,
/// without AMX. Rows past the last whole tile are padded with zeros to one (see
/// [`super::gemm`] for when they go to AVX-512 VNNI instead).
///
/// # Panics
/// If a buffer is shorter than its shape (`q`
/// `[rows][k / 2]`, `acc` `[rows][cols]`, `tiles` as [`pack`] makes them), or `cols` is not a
/// multiple of 16.
pub(super) fn gemm(q: &[u32], rows: usize, k: usize, tiles: &[i8], cols: usize, acc: &mut [i32]) -> bool {
    if !available() {
        return false;
    }
    let kp = padded(k);
    assert!(k.is_multiple_of(2) && cols.is_multiple_of(TILE_ROWS), "k {k} and cols {cols} are padded");
    assert!(q.len() >= rows * k / 2 && acc.len() >= rows * cols, "buffers fit the shapes");
    assert!(tiles.len() >= cols * kp * 2, "the tiles are the weights packed for AMX");
    if kp == 0 || cols == 0 || rows == 0 {
        // No tile work (the kernel takes at least one pair).
        acc[..rows * cols].fill(0);
        return true;
    }
    // Two row blocks at a time, so that each weight tile loaded serves both; a last lone
    // block is paired with zeros.
    let pairs = rows.div_ceil(PAIR);
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch { bytes, sums } = scratch;
        bytes.resize(bytes.len().max(pairs * PAIR * kp), 0);
        sums.resize(sums.len().max(pairs * 2 * PAIR * cols), 0);
        pairs_to_bytes(q, rows, k, bytes);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available()` saw AMX-TILE and AMX-INT8 and the kernel's grant of the tile
        // data; the buffers hold `pairs * 32 * kp` bytes and `pairs * 4 * 16 * cols` sums (just
        // above).
        unsafe {
            row_blocks(bytes, kp, pairs, tiles, cols, sums);
        }
        for (pair, first) in (0..rows).step_by(PAIR).enumerate() {
            let m = (rows - first).min(PAIR);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available()` saw the AVX-512 VNNI path, so the CPU has avx512f, the
            // feature `combine` is compiled with (its body is safe code).
            unsafe {
                combine(sums, pairs, pair, m, cols, &mut acc[first * cols..(first + m) * cols]);
            }
        }
    });
    true
}

/// A whole layer on AMX: the products of [`gemm`] and the finish of [`super::finish_scalar`]
/// (`out = relu(sums * (sx * scale) + bias)`, with `add` `relu(out + ...)`) on its `rows`
/// rows, one block of 16 columns at a time, each block finished from its tiles' sums while
/// they are in the L1 cache. With the whole layer's sums first (and `combine`'s `[rows][cols]`
/// after them), a chunk of 128 rows sent 384 KiB through the L2 cache a layer, and combine,
/// finish and quantize waited on it; bit for bit the same answers. `false`, and nothing done,
/// without AMX.
///
/// # Panics
/// If a buffer is shorter than its shape (`q` `[rows][k / 2]`, `sx` `[rows]`, `scale` and
/// `bias` `[cols]`, `out` `[rows][cols]`, `tiles` as [`pack`] makes them), or `k` is not a
/// positive multiple of 2 or `cols` a multiple of 16.
#[allow(clippy::too_many_arguments)]
pub(super) fn dense(
    q: &[u32],
    rows: usize,
    k: usize,
    tiles: &[i8],
    cols: usize,
    sx: &[f32],
    scale: &[f32],
    bias: &[f32],
    out: &mut [f32],
    add: bool,
) -> bool {
    if !available() {
        return false;
    }
    let kp = padded(k);
    assert!(k > 0 && k.is_multiple_of(2) && cols.is_multiple_of(TILE_ROWS), "k {k} and cols {cols} are padded");
    assert!(q.len() >= rows * k / 2 && out.len() >= rows * cols && sx.len() >= rows, "buffers fit the shapes");
    assert!(scale.len() >= cols && bias.len() >= cols, "a scale and a bias a column");
    assert!(tiles.len() >= cols * kp * 2, "the tiles are the weights packed for AMX");
    if rows == 0 || cols == 0 {
        return true;
    }
    let pairs = rows.div_ceil(PAIR);
    // A block of 16 columns' tiles: `kp / 64` steps of a `hi` and a `lo` tile.
    let block_tiles = 2 * TILE_ROWS * kp;
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch { bytes, sums } = scratch;
        bytes.resize(bytes.len().max(pairs * PAIR * kp), 0);
        sums.resize(sums.len().max(pairs * 2 * PAIR * TILE_ROWS), 0);
        pairs_to_bytes(q, rows, k, bytes);
        for block in 0..cols / TILE_ROWS {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available()` saw AMX-TILE and AMX-INT8 and the kernel's grant of the
            // tile data; the buffers hold `pairs * 32 * kp` bytes and `pairs * 4 * 16 * 16`
            // sums (just above), and `tiles` from this block on at least `16 * kp * 2` (its
            // length was checked against all `cols`).
            unsafe {
                row_blocks(bytes, kp, pairs, &tiles[block * block_tiles..], TILE_ROWS, sums);
            }
            let columns = block * TILE_ROWS..(block + 1) * TILE_ROWS;
            let (scale, bias) = (&scale[columns.clone()], &bias[columns]);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available()` saw the AVX-512 VNNI path, so the CPU has avx512f, the
            // feature `finish_block` is compiled with (its body is safe code).
            unsafe {
                finish_block(sums, rows, block, sx, scale, bias, out, add, cols);
            }
        }
    });
    true
}

/// The finish of one block of 16 columns (`block`) of `rows` rows from its tiles' sums
/// (`sums`: for each pair of row blocks, the first block's `hi` and `lo` tiles, then the
/// second's), as [`super::finish_scalar`] computes it, operation for operation. Compiled
/// for AVX-512, a row is one vector.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
#[allow(clippy::too_many_arguments)]
fn finish_block(
    sums: &[i32],
    rows: usize,
    block: usize,
    sx: &[f32],
    scale: &[f32],
    bias: &[f32],
    out: &mut [f32],
    add: bool,
    cols: usize,
) {
    const TILE: usize = TILE_ROWS * TILE_ROWS;
    let (scale, bias) = (&scale[..TILE_ROWS], &bias[..TILE_ROWS]);
    for (r, &sx) in sx.iter().enumerate().take(rows) {
        let at = (r / PAIR) * 4 * TILE + (r % PAIR / TILE_ROWS) * 2 * TILE + (r % TILE_ROWS) * TILE_ROWS;
        let (hi, lo) = (&sums[at..at + TILE_ROWS], &sums[at + TILE..at + TILE + TILE_ROWS]);
        let o = &mut out[r * cols + block * TILE_ROWS..][..TILE_ROWS];
        for j in 0..TILE_ROWS {
            let a = 16 * hi[j] + lo[j];
            let mut y = a as f32 * (sx * scale[j]) + bias[j];
            if add {
                y += o[j];
            }
            o[j] = if y > 0.0 { y } else { 0.0 };
        }
    }
}

/// `rows` rows of activations as pairs (`[rows][k / 2]`) into the bytes the kernel reads,
/// pair of row blocks after pair (see [`to_bytes`]); `bytes` holds `32 * padded(k)` bytes a
/// pair.
fn pairs_to_bytes(q: &[u32], rows: usize, k: usize, bytes: &mut [u8]) {
    let kp = padded(k);
    for (pair, first) in (0..rows).step_by(PAIR).enumerate() {
        let m = (rows - first).min(PAIR);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: only the AMX path calls this, and `available()` saw the AVX-512 VNNI path
        // there, so the CPU has avx512f and avx512bw, the features `to_bytes` is compiled
        // with (its body is safe code).
        unsafe {
            to_bytes(&q[first * k / 2..(first + m) * k / 2], m, k, &mut bytes[pair * PAIR * kp..]);
        }
    }
}

/// `m` (1 to 32) rows of activations as pairs (`[m][k / 2]`) into the bytes the kernel
/// reads: for each step of 64 inputs, 32 rows of 64 bytes (zeros past `k`, and in rows past
/// `m`), so that the rows of a tile are 64 bytes apart and the second row block's tile 1,024
/// bytes after the first's. Compiled for AVX-512, its loops are vector ones.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f,avx512bw"))]
fn to_bytes(q: &[u32], m: usize, k: usize, bytes: &mut [u8]) {
    let steps = padded(k) / TILE_BYTES;
    if m < PAIR {
        for step in 0..steps {
            bytes[(step * PAIR + m) * TILE_BYTES..(step + 1) * PAIR * TILE_BYTES].fill(0);
        }
    }
    for (r, pairs) in q.chunks_exact(k / 2).take(m).enumerate() {
        for (step, pairs) in pairs.chunks(TILE_BYTES / 2).enumerate() {
            let at = (step * PAIR + r) * TILE_BYTES;
            let row = &mut bytes[at..at + TILE_BYTES];
            for (b, &p) in row.chunks_exact_mut(2).zip(pairs) {
                // Each half holds a value of at most 255: the casts keep it whole.
                b[0] = (p & 0xff) as u8;
                b[1] = ((p >> 16) & 0xff) as u8;
            }
            row[2 * pairs.len()..].fill(0);
        }
    }
}

/// The kernel's tile sums of pair `pair` of `pairs` (its `rows`, 1 to 32) into `acc`
/// (`[rows][cols]`): `sums` holds, for each block of 16 columns, for each pair, for each of
/// its two row blocks, the `hi` tile then the `lo` tile (16 x 16 each), and a sum is `16 *
/// hi + lo`. Compiled
/// for AVX-512, a row of a tile is one vector (the default target's SSE took four, and this
/// loop was a fifth of the AMX path's time).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
fn combine(sums: &[i32], pairs: usize, pair: usize, rows: usize, cols: usize, acc: &mut [i32]) {
    const TILE: usize = TILE_ROWS * TILE_ROWS;
    let per_pair = 2 * PAIR * TILE_ROWS;
    let of_column_block = sums.chunks_exact(pairs * per_pair).take(cols / TILE_ROWS);
    for (column_block, sums) in of_column_block.map(|block| &block[pair * per_pair..][..per_pair]).enumerate() {
        for (block, parts) in sums.chunks_exact(2 * TILE).take(rows.div_ceil(TILE_ROWS)).enumerate() {
            let (hi, lo) = parts.split_at(TILE);
            let in_block = (rows - block * TILE_ROWS).min(TILE_ROWS);
            for (r, (hi, lo)) in hi.chunks_exact(TILE_ROWS).zip(lo.chunks_exact(TILE_ROWS)).take(in_block).enumerate() {
                let at = (block * TILE_ROWS + r) * cols + column_block * TILE_ROWS;
                for ((a, &h), &l) in acc[at..at + TILE_ROWS].iter_mut().zip(hi).zip(lo) {
                    *a = 16 * h + l;
                }
            }
        }
    }
}

/// The tile configuration `ldtilecfg` reads (palette 1): every tile is 16 rows of 64 bytes
/// (16 `i32` sums, 64 activations, or 16 columns of 4 weights a row).
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_a_row: [u16; 16],
    rows: [u8; 16],
}

impl TileConfig {
    /// Palette 1's eight tiles, all full; the entries past them must be zero.
    const FULL: TileConfig = {
        let mut config =
            TileConfig { palette: 1, start_row: 0, reserved: [0; 14], bytes_a_row: [0; 16], rows: [0; 16] };
        let mut tile = 0;
        while tile < 8 {
            config.bytes_a_row[tile] = TILE_BYTES as u16;
            config.rows[tile] = TILE_ROWS as u8;
            tile += 1;
        }
        config
    };
}

/// `pairs` pairs of blocks of 16 rows, each weight tile loaded once for both blocks of a
/// pair, and the tiles of a block of columns read from the L1 cache by every pair after the
/// first (the pairs' activations stay there too): for every block of 16 columns, for every
/// pair, the `hi` and `lo` sums of its rows of `a` (laid out by [`to_bytes`], `32 * kp`
/// bytes a pair) against the weight tiles, the first row block's two tiles then the
/// second's, into `sums`. One pair at a time, all of a layer's weights (32 KiB at width 128)
/// went through the cache for each 32 rows.
///
/// # Safety
/// The CPU has AMX-TILE and AMX-INT8, and the kernel granted this process the tile data.
/// `a` holds `pairs * 32 * kp` bytes, `tiles` at least `cols * kp * 2`, `sums` at least
/// `pairs * 4 * 16 * cols` values; `kp` is a positive multiple of 64, `cols` a positive
/// multiple of 16, `pairs` positive.
#[cfg(target_arch = "x86_64")]
unsafe fn row_blocks(a: &[u8], kp: usize, pairs: usize, tiles: &[i8], cols: usize, sums: &mut [i32]) {
    debug_assert!(kp > 0 && kp.is_multiple_of(TILE_BYTES) && cols > 0 && cols.is_multiple_of(TILE_ROWS) && pairs > 0);
    debug_assert!(
        a.len() >= pairs * 2 * TILE_ROWS * kp
            && tiles.len() >= cols * kp * 2
            && sums.len() >= pairs * 4 * TILE_ROWS * cols
    );
    let config = TileConfig::FULL;
    // SAFETY (the caller's promise, and the loops' reach): the outer loop runs `cols / 16`
    // times, the middle one `pairs` times a column block, each storing four 1,024-byte tiles
    // and moving through `sums` once in all (`cols / 16 * pairs * 4,096` bytes). The inner
    // loop runs `kp / 64` times a pair, loading 2,048 bytes of `a` a step (the pair's two row
    // blocks' tiles, 1,024 bytes apart), so that a column block's pairs read all of `a` once
    // (`pairs * 32 * kp` bytes) from `a`'s start; and two 1,024-byte weight tiles a step,
    // the column block's `kp / 64 * 2,048` bytes of `tiles` for each pair from the same
    // start (`wb`), which then moves on to the next column block's, through `tiles` once in
    // all (`cols / 16 * kp / 64 * 2,048 = 2 * cols * kp` bytes). Tiles are configured at the
    // start and released at the end, so no tile state outlives the block.
    unsafe {
        std::arch::asm!(
            "ldtilecfg [{config}]",
            "2:",
            "mov {ap}, {a}",
            "mov {left}, {pairs}",
            "4:",
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "tilezero tmm3",
            "mov {wp}, {wb}",
            "mov {steps}, {kp}",
            "shr {steps}, 6",
            "3:",
            "tileloadd tmm6, [{wp} + {sixty_four}*1]",
            "tileloadd tmm7, [{wp} + {sixty_four}*1 + 1024]",
            "tileloadd tmm4, [{ap} + {sixty_four}*1]",
            "tileloadd tmm5, [{ap} + {sixty_four}*1 + 1024]",
            "tdpbusd tmm0, tmm4, tmm6",
            "tdpbusd tmm1, tmm4, tmm7",
            "tdpbusd tmm2, tmm5, tmm6",
            "tdpbusd tmm3, tmm5, tmm7",
            "add {wp}, 2048",
            "add {ap}, 2048",
            "dec {steps}",
            "jnz 3b",
            "tilestored [{sp} + {sixty_four}*1], tmm0",
            "tilestored [{sp} + {sixty_four}*1 + 1024], tmm1",
            "tilestored [{sp} + {sixty_four}*1 + 2048], tmm2",
            "tilestored [{sp} + {sixty_four}*1 + 3072], tmm3",
            "add {sp}, 4096",
            "dec {left}",
            "jnz 4b",
            "mov {wb}, {wp}",
            "dec {blocks}",
            "jnz 2b",
            "tilerelease",
            config = in(reg) &config,
            a = in(reg) a.as_ptr(),
            kp = in(reg) kp,
            pairs = in(reg) pairs,
            left = out(reg) _,
            ap = out(reg) _,
            steps = out(reg) _,
            wp = out(reg) _,
            wb = inout(reg) tiles.as_ptr() => _,
            sixty_four = in(reg) TILE_BYTES,
            sp = inout(reg) sums.as_mut_ptr() => _,
            blocks = inout(reg) cols / TILE_ROWS => _,
            options(nostack),
        );
    }
}
