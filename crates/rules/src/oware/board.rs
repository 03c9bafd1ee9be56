//! Sowing and row arithmetic on the pit array, the hot path of every Oware playout.
//!
//! Pit counts are bytes and a board holds at most 255 seeds, so a row read as one 128-bit
//! word can be summed and tested byte by byte without carries between bytes (SWAR).

/// Pits in the array: 16 houses a row at most.
pub const PITS: usize = 32;

const LOW7: u128 = 0x7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f;
const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;
/// Every byte 0xfe: masks a row word down to the bits that are set only in counts of 2 or more.
pub const NOT_ONE: u128 = 0xfefe_fefe_fefe_fefe_fefe_fefe_fefe_fefe;

/// The mask that keeps the first `houses` bytes of a row word.
pub const fn row_mask(houses: usize) -> u128 {
    if houses >= 16 { u128::MAX } else { (1u128 << (8 * houses)) - 1 }
}

/// The row starting at pit `start` as a little-endian word, masked to its houses.
#[inline(always)]
pub fn row_word(pits: &[u8; PITS], start: usize, mask: u128) -> u128 {
    let bytes: [u8; 16] = pits[start..start + 16].try_into().expect("a row fits in the pit array");
    u128::from_le_bytes(bytes) & mask
}

/// Gathers bit 7 of each byte of `x` into an 8-bit mask (byte 0 to bit 0).
#[inline(always)]
fn gather_high_bits(x: u64) -> u32 {
    ((x >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Bit `i` set when byte `i` of the row word is non-zero.
#[inline(always)]
pub fn nonzero_mask(w: u128) -> u32 {
    let t = (((w & LOW7) + LOW7) | w) & HIGH;
    gather_high_bits(t as u64) | (gather_high_bits((t >> 64) as u64) << 8)
}

/// The seeds in a row word (at most 255 on any board, so no byte sum overflows).
#[inline(always)]
pub fn row_sum(w: u128) -> u32 {
    let s = (w as u64).wrapping_add((w >> 64) as u64);
    (s.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

/// Sows the seeds of pit `origin` over the first `n` pits, skipping the origin on every lap
/// (rule 1), and returns the pit the last seed fell into. Full laps (2 x houses - 1 seeds
/// each) are added arithmetically.
///
/// # Panics
/// If the origin is empty (sowing nothing has no last pit) or outside the board.
#[inline(always)]
pub fn sow(pits: &mut [u8; PITS], origin: usize, n: usize) -> usize {
    let seeds = usize::from(pits[origin]);
    debug_assert!(seeds > 0, "sowing an empty house");
    pits[origin] = 0;
    let lap = n - 1;
    let mut rem = seeds;
    if seeds >= lap {
        let laps = (seeds / lap) as u8;
        rem = seeds % lap;
        for p in &mut pits[..n] {
            *p += laps;
        }
        pits[origin] = 0;
        if rem == 0 {
            return if origin == 0 { n - 1 } else { origin - 1 };
        }
    }
    let end = origin + rem;
    if end < n {
        for p in &mut pits[origin + 1..=end] {
            *p += 1;
        }
        end
    } else {
        for p in &mut pits[origin + 1..n] {
            *p += 1;
        }
        for p in &mut pits[..=end - n] {
            *p += 1;
        }
        end - n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(counts: &[u8]) -> [u8; PITS] {
        let mut b = [0; PITS];
        b[..counts.len()].copy_from_slice(counts);
        b
    }

    #[test]
    fn masks_and_sums() {
        let b = board(&[0, 1, 2, 0, 255, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 0, 1]);
        let w = row_word(&b, 0, row_mask(6));
        assert_eq!(nonzero_mask(w), 0b110110);
        assert_eq!(nonzero_mask(w & NOT_ONE), 0b110100);
        let w16 = row_word(&b, 16, row_mask(16));
        assert_eq!(nonzero_mask(w16), 0b101);
        assert_eq!(row_sum(w16), 2);
        let b = board(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(row_sum(row_word(&b, 0, row_mask(16))), 136);
        assert_eq!(nonzero_mask(row_word(&b, 0, row_mask(16))), 0xffff);
        assert_eq!(row_sum(row_word(&b, 3, row_mask(2))), 9);
    }

    #[test]
    fn sowing_skips_the_origin() {
        // 12 seeds from pit 0 of a 12-pit board: one full lap of 11, then pit 1 again.
        let mut b = board(&[12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(sow(&mut b, 0, 12), 1);
        assert_eq!(&b[..12], &[0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
        // 11 seeds from pit 5: exactly one lap, the last seed lands just before the origin.
        let mut b = board(&[0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0]);
        assert_eq!(sow(&mut b, 5, 12), 4);
        assert_eq!(&b[..12], &[1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1]);
        // Wrapping past the last pit.
        let mut b = board(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0]);
        assert_eq!(sow(&mut b, 10, 12), 2);
        assert_eq!(&b[..12], &[1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    }
}
