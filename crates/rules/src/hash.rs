//! A fast 64-bit position hash (not cryptographic): equal positions hash equal, and
//! different ones collide with probability about 2^-64 for the evaluation cache.

/// Mixes a 64-bit word (the finaliser of SplitMix64).
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hashes pit counts plus a word of extra state (scores, side to move, flags).
#[inline]
pub fn hash_pits(pits: &[u8], extra: u64) -> u64 {
    let mut h = mix64(extra ^ 0x9e37_79b9_7f4a_7c15);
    let mut chunks = pits.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = mix64(h ^ w);
    }
    let mut last = 0u64;
    for (i, &b) in chunks.remainder().iter().enumerate() {
        last |= u64::from(b) << (8 * i);
    }
    mix64(h ^ last ^ ((pits.len() as u64) << 56))
}
