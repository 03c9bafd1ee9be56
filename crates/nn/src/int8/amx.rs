//! The int8 products ([`super::gemm`]) on Intel AMX (Sapphire Rapids and later Xeons): tile
//! registers of 16 rows of 64 bytes, and `tdpbusd`, which multiplies a 16 x 64 tile of `u8`
//! activations with a 64 x 16 tile of `i8` weights into 16 x 16 `i32` sums in one
//! instruction, 16,384 multiply-adds (a `vpdpwssd` does 32).
//!
//! Both factors are split into bytes. Each 12-bit weight is `w = 16 * hi + lo` with
//! `hi = w >> 4` in [-128, 127] and `lo = w & 15` in [0, 15], and the tiles hold `hi` and
//! `8 * lo` (at most 120, an `i8`). Each activation (up to 15 bits; the tower's have 13, see
//! [`super::activation_levels`]) is `a = 128 * ah + al` with `ah` in [0, 255] and `al` in
//! [0, 127]. Then
//! `a . w = 2048 (ah . hi) + 16 (ah . 8lo + al . hi) + (al . 8lo) / 8`: four `tdpbusd`s a
//! step into three tiles of sums, the two cross terms sharing one (their scale is the same,
//! which is what `8 * lo` buys). Each tile's sums stay far inside `i32` (a layer has at most
//! 4096 inputs: `255 * 128 * 2 * 4096 < 2^28`), and `al . 8lo` is 8 times an integer. The
//! three are combined in wrapping `i32` arithmetic: `2048 (ah . hi)` and the partial sums of
//! the combination come close to `i32`'s edge (within 2% at 128 inputs and 13 bits) and for
//! some weights could pass it, but the whole is the exact sum, which the choice of levels
//! keeps within `i32`, so the wrapped result is that sum, the one every other path computes.
//! The activations, kept as `u16` pairs for the other paths, are laid out as bytes by steps
//! of 64 inputs (see `to_bytes`), in a buffer of the calling thread's that grows to the
//! largest layer and is then reused.
//!
//! This replaced two kernels apart: bytes (8-bit activations, four tiles of sums for two
//! blocks of 16 rows), and wider activations split into two layers of bytes, each multiplied,
//! combined and stored by the bytes kernel, then added. That was slower than AVX-512 VNNI
//! by about a third at the tower's 13 bits (docs/results.md).
//!
//! Why `unsafe`, and why `asm!`: Rust's AMX intrinsics and its feature detection for AMX are
//! not stable, so the tile instructions are written as inline assembly: one block that
//! configures the tiles, runs every column block of a layer for every block of 16 rows, and
//! releases the tiles again (tile state is never left live between blocks, where the
//! compiler knows nothing of it). Fewer than 16 rows, where a tile's fixed cost loses, go to
//! AVX-512 VNNI. Linux hands a process the AMX tile data only when it asks
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM)`); that system call is the other `unsafe` block. The
//! path exists only where CPUID says AMX-TILE and AMX-INT8, the CPU has the AVX-512 VNNI path
//! (whose quantization and finish the AMX path shares), and Linux granted the permission.

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::sync::OnceLock;

/// Bytes of a tile row, and inputs a `tdpbusd` sums a step.
const TILE_BYTES: usize = 64;

/// Rows of a tile, and output columns of a `tdpbusd`.
const TILE_ROWS: usize = 16;

/// Bytes of activations a block of 16 rows holds a step of 64 inputs: a tile of the high
/// parts, then a tile of the low ones.
const BLOCK_STEP: usize = 2 * TILE_ROWS * TILE_BYTES;

/// Sums a block of 16 rows stores for each block of 16 columns: three tiles (`ah . hi`, the
/// cross terms, `al . 8lo`).
const BLOCK_SUMS: usize = 3 * TILE_ROWS * TILE_ROWS;

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
/// 16 columns, for each step of 64 inputs, the `hi` tile then the `8 * lo` tile, each 16 rows
/// of 64 bytes where row `r` holds, for each of the 16 columns, the weights of inputs
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
    /// This part of a 12-bit weight as the tiles hold it: `w = 16 * hi + lo`, and the tiles
    /// hold `hi` and `8 * lo`.
    fn of(self, w: i16) -> i8 {
        let part = match self {
            Part::Hi => w >> 4,
            Part::Lo => 8 * (w & 15),
        };
        i8::try_from(part).expect("a 12-bit weight splits into two i8")
    }
}

/// The sums of row `r` of a block of 16 rows over one block of 16 columns, from its three
/// tiles of sums (`block`, as [`row_blocks`] stores them): `2048 * hh + 16 * cross + ll / 8`,
/// wrapping, which is exact where the whole sum is within `i32` (see the module's doc).
/// Inlined into the AVX-512 loops that call it.
#[inline(always)]
fn row_sums(block: &[i32], r: usize) -> [i32; TILE_ROWS] {
    const TILE: usize = TILE_ROWS * TILE_ROWS;
    let at = r * TILE_ROWS;
    // Each tile's row as an array: the loop below is then one vector operation a step.
    let (hh, cross, ll) = (row16(&block[at..]), row16(&block[at + TILE..]), row16(&block[at + 2 * TILE..]));
    let mut sums = [0; TILE_ROWS];
    for j in 0..TILE_ROWS {
        sums[j] = hh[j].wrapping_mul(2048).wrapping_add(cross[j].wrapping_mul(16)).wrapping_add(ll[j] >> 3);
    }
    sums
}

/// The first 16 values of `x`, as an array.
#[inline(always)]
fn row16<T>(x: &[T]) -> &[T; TILE_ROWS] {
    x[..TILE_ROWS].try_into().expect("16 values")
}

/// The first 16 values of `x`, as an array to write.
#[inline(always)]
fn row16_mut<T>(x: &mut [T]) -> &mut [T; TILE_ROWS] {
    (&mut x[..TILE_ROWS]).try_into().expect("16 values")
}

/// The calling thread's buffers: a chunk's activations as bytes, and the sums of the tiles
/// before they are combined.
#[derive(Default)]
struct Scratch {
    bytes: Vec<u8>,
    sums: Vec<i32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// [`super::gemm`] on AMX, with weights packed by [`pack`]; `false`, and nothing done,
/// without AMX. Rows past the last whole block of 16 are padded with zeros to one (see
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
        // No tile work (the kernel takes at least one block).
        acc[..rows * cols].fill(0);
        return true;
    }
    let blocks = rows.div_ceil(TILE_ROWS);
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch { bytes, sums } = scratch;
        bytes.resize(bytes.len().max(blocks * BLOCK_STEP * kp / TILE_BYTES), 0);
        sums.resize(sums.len().max(blocks * BLOCK_SUMS * cols / TILE_ROWS), 0);
        blocks_to_bytes(q, rows, k, bytes);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available()` saw AMX-TILE and AMX-INT8 and the kernel's grant of the tile
        // data; the buffers hold `blocks * 32 * kp` bytes and `blocks * 3 * 256 * cols / 16`
        // sums (just above).
        unsafe {
            row_blocks(bytes, kp, blocks, tiles, cols, sums);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available()` saw the AVX-512 VNNI path, so the CPU has avx512f, the
        // feature `combine` is compiled with (its body is safe code).
        unsafe {
            combine(sums, blocks, rows, cols, acc);
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
    let blocks = rows.div_ceil(TILE_ROWS);
    // A block of 16 columns' tiles: `kp / 64` steps of a `hi` and a `lo` tile.
    let column_tiles = 2 * TILE_ROWS * kp;
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch { bytes, sums } = scratch;
        bytes.resize(bytes.len().max(blocks * BLOCK_STEP * kp / TILE_BYTES), 0);
        sums.resize(sums.len().max(blocks * BLOCK_SUMS), 0);
        blocks_to_bytes(q, rows, k, bytes);
        for column_block in 0..cols / TILE_ROWS {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available()` saw AMX-TILE and AMX-INT8 and the kernel's grant of the
            // tile data; the buffers hold `blocks * 32 * kp` bytes and `blocks * 3 * 256`
            // sums (just above), and `tiles` from this column block on at least `16 * kp * 2`
            // (its length was checked against all `cols`).
            unsafe {
                row_blocks(bytes, kp, blocks, &tiles[column_block * column_tiles..], TILE_ROWS, sums);
            }
            let columns = column_block * TILE_ROWS..(column_block + 1) * TILE_ROWS;
            let (scale, bias) = (&scale[columns.clone()], &bias[columns]);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available()` saw the AVX-512 VNNI path, so the CPU has avx512f, the
            // feature `finish_block` is compiled with (its body is safe code).
            unsafe {
                finish_block(sums, rows, column_block, sx, scale, bias, out, add, cols);
            }
        }
    });
    true
}

/// The finish of one block of 16 columns (`column_block`) of `rows` rows from its tiles' sums
/// (`sums`: each block of 16 rows' three tiles, see [`row_sums`]), as
/// [`super::finish_scalar`] computes it, operation for operation. Compiled for AVX-512, a
/// row is one vector.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
#[allow(clippy::too_many_arguments)]
fn finish_block(
    sums: &[i32],
    rows: usize,
    column_block: usize,
    sx: &[f32],
    scale: &[f32],
    bias: &[f32],
    out: &mut [f32],
    add: bool,
    cols: usize,
) {
    let (scale, bias) = (row16(scale), row16(bias));
    for (r, &sx) in sx.iter().enumerate().take(rows) {
        let a = row_sums(&sums[r / TILE_ROWS * BLOCK_SUMS..][..BLOCK_SUMS], r % TILE_ROWS);
        let o = row16_mut(&mut out[r * cols + column_block * TILE_ROWS..]);
        for j in 0..TILE_ROWS {
            let mut y = a[j] as f32 * (sx * scale[j]) + bias[j];
            if add {
                y += o[j];
            }
            o[j] = if y > 0.0 { y } else { 0.0 };
        }
    }
}

/// `rows` rows of activations as pairs (`[rows][k / 2]`) into the bytes the kernel reads,
/// block of 16 rows after block (see [`to_bytes`]); `bytes` holds `32 * padded(k)` bytes a
/// block.
fn blocks_to_bytes(q: &[u32], rows: usize, k: usize, bytes: &mut [u8]) {
    let block_bytes = BLOCK_STEP * padded(k) / TILE_BYTES;
    for (block, first) in (0..rows).step_by(TILE_ROWS).enumerate() {
        let m = (rows - first).min(TILE_ROWS);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: only the AMX path calls this, and `available()` saw the AVX-512 VNNI path
        // there, so the CPU has avx512f and avx512bw, the features `to_bytes` is compiled
        // with (its body is safe code).
        unsafe {
            to_bytes(&q[first * k / 2..(first + m) * k / 2], m, k, &mut bytes[block * block_bytes..]);
        }
    }
}

/// `m` (1 to 16) rows of activations of up to 15 bits as pairs (`[m][k / 2]`) into the bytes
/// the kernel reads: for each step of 64 inputs, 16 rows of 64 bytes of the high parts
/// (`a >> 7`), then 16 of the low ones (`a & 127`), 1,024 bytes after (zeros past `k`, and in
/// rows past `m`). Compiled for AVX-512, its loops are vector ones.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f,avx512bw"))]
fn to_bytes(q: &[u32], m: usize, k: usize, bytes: &mut [u8]) {
    const LOW: usize = TILE_ROWS * TILE_BYTES;
    let steps = padded(k) / TILE_BYTES;
    if m < TILE_ROWS {
        for step in 0..steps {
            let high = step * BLOCK_STEP;
            bytes[high + m * TILE_BYTES..high + LOW].fill(0);
            bytes[high + LOW + m * TILE_BYTES..high + 2 * LOW].fill(0);
        }
    }
    for (r, pairs) in q.chunks_exact(k / 2).take(m).enumerate() {
        for (step, pairs) in pairs.chunks(TILE_BYTES / 2).enumerate() {
            let at = step * BLOCK_STEP + r * TILE_BYTES;
            let (high, low) = bytes[at..at + LOW + TILE_BYTES].split_at_mut(LOW);
            let (high, low) = (&mut high[..TILE_BYTES], &mut low[..TILE_BYTES]);
            for ((h, l), &p) in high.chunks_exact_mut(2).zip(low.chunks_exact_mut(2)).zip(pairs) {
                let (a0, a1) = (p & 0xffff, p >> 16);
                // Each activation is at most 32767: its high part fits a byte, and the
                // casts keep both parts whole.
                (h[0], h[1]) = ((a0 >> 7) as u8, (a1 >> 7) as u8);
                (l[0], l[1]) = ((a0 & 127) as u8, (a1 & 127) as u8);
            }
            high[2 * pairs.len()..].fill(0);
            low[2 * pairs.len()..].fill(0);
        }
    }
}

/// The kernel's tile sums of `blocks` blocks of 16 rows (their `rows` rows) into `acc`
/// (`[rows][cols]`): `sums` holds, for each block of 16 columns, each row block's three
/// tiles (16 x 16 each), which [`row_sums`] combines. Compiled for AVX-512, a row of a tile
/// is one vector (the default target's SSE took four, and this loop was a fifth of the AMX
/// path's time).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
fn combine(sums: &[i32], blocks: usize, rows: usize, cols: usize, acc: &mut [i32]) {
    let of_column_block = sums.chunks_exact(blocks * BLOCK_SUMS).take(cols / TILE_ROWS);
    for (column_block, sums) in of_column_block.enumerate() {
        for (r, acc) in acc.chunks_exact_mut(cols).take(rows).enumerate() {
            let a = row_sums(&sums[r / TILE_ROWS * BLOCK_SUMS..][..BLOCK_SUMS], r % TILE_ROWS);
            *row16_mut(&mut acc[column_block * TILE_ROWS..]) = a;
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

/// `blocks` blocks of 16 rows of activations (laid out by [`to_bytes`], `32 * kp` bytes a
/// block: a step's tile of high parts, then its tile of low parts), each weight tile loaded
/// once for both of a step's activation tiles, and the tiles of a block of columns read from
/// the L1 cache by every row block after the first (the activations stay there too): for
/// every block of 16 columns, for every row block, the three tiles of sums (`ah . hi`,
/// `ah . 8lo + al . hi`, `al . 8lo`) into `sums`. One row block at a time, all of a layer's
/// weights (32 KiB at width 128) went through the cache for each 16 rows.
///
/// # Safety
/// The CPU has AMX-TILE and AMX-INT8, and the kernel granted this process the tile data.
/// `a` holds `blocks * 32 * kp` bytes, `tiles` at least `cols * kp * 2`, `sums` at least
/// `blocks * 3 * 256 * cols / 16` values; `kp` is a positive multiple of 64, `cols` a
/// positive multiple of 16, `blocks` positive.
#[cfg(target_arch = "x86_64")]
unsafe fn row_blocks(a: &[u8], kp: usize, blocks: usize, tiles: &[i8], cols: usize, sums: &mut [i32]) {
    debug_assert!(kp > 0 && kp.is_multiple_of(TILE_BYTES) && cols > 0 && cols.is_multiple_of(TILE_ROWS) && blocks > 0);
    debug_assert!(
        a.len() >= blocks * BLOCK_STEP * kp / TILE_BYTES
            && tiles.len() >= cols * kp * 2
            && sums.len() >= blocks * BLOCK_SUMS * cols / TILE_ROWS
    );
    let config = TileConfig::FULL;
    // SAFETY (the caller's promise, and the loops' reach): the outer loop runs `cols / 16`
    // times, the middle one `blocks` times a column block, each storing three 1,024-byte
    // tiles and moving through `sums` once in all (`cols / 16 * blocks * 3,072` bytes). The
    // inner loop runs `kp / 64` times a row block, loading 2,048 bytes of `a` a step (its two
    // tiles, 1,024 bytes apart), so that a column block's row blocks read all of `a` once
    // (`blocks * 32 * kp` bytes) from `a`'s start; and two 1,024-byte weight tiles a step,
    // the column block's `kp / 64 * 2,048` bytes of `tiles` for each row block from the same
    // start (`wb`), which then moves on to the next column block's, through `tiles` once in
    // all (`cols / 16 * kp / 64 * 2,048 = 2 * cols * kp` bytes). Tiles are configured at the
    // start and released at the end, so no tile state outlives the block.
    unsafe {
        std::arch::asm!(
            "ldtilecfg [{config}]",
            "2:",
            "mov {ap}, {a}",
            "mov {left}, {blocks}",
            "4:",
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "mov {wp}, {wb}",
            "mov {steps}, {kp}",
            "shr {steps}, 6",
            "3:",
            "tileloadd tmm6, [{wp} + {sixty_four}*1]",
            "tileloadd tmm7, [{wp} + {sixty_four}*1 + 1024]",
            "tileloadd tmm4, [{ap} + {sixty_four}*1]",
            "tileloadd tmm5, [{ap} + {sixty_four}*1 + 1024]",
            // tmm4 and tmm5 the activations' high and low parts, tmm6 and tmm7 the weights'
            // `hi` and `8 * lo`: tmm0 sums `ah . hi`, tmm1 the cross terms, tmm2 `al . 8lo`.
            "tdpbusd tmm0, tmm4, tmm6",
            "tdpbusd tmm1, tmm4, tmm7",
            "tdpbusd tmm2, tmm5, tmm7",
            "tdpbusd tmm1, tmm5, tmm6",
            "add {wp}, 2048",
            "add {ap}, 2048",
            "dec {steps}",
            "jnz 3b",
            "tilestored [{sp} + {sixty_four}*1], tmm0",
            "tilestored [{sp} + {sixty_four}*1 + 1024], tmm1",
            "tilestored [{sp} + {sixty_four}*1 + 2048], tmm2",
            "add {sp}, 3072",
            "dec {left}",
            "jnz 4b",
            "mov {wb}, {wp}",
            "dec {columns}",
            "jnz 2b",
            "tilerelease",
            config = in(reg) &config,
            a = in(reg) a.as_ptr(),
            kp = in(reg) kp,
            blocks = in(reg) blocks,
            left = out(reg) _,
            ap = out(reg) _,
            steps = out(reg) _,
            wp = out(reg) _,
            wb = inout(reg) tiles.as_ptr() => _,
            sixty_four = in(reg) TILE_BYTES,
            sp = inout(reg) sums.as_mut_ptr() => _,
            columns = inout(reg) cols / TILE_ROWS => _,
            options(nostack),
        );
    }
}
