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
/// Every byte 0xfc: a row word masked with it is non-zero when some house holds 4 or more.
pub const FOUR_OR_MORE: u128 = 0xfcfc_fcfc_fcfc_fcfc_fcfc_fcfc_fcfc_fcfc;

/// The mask that keeps the first `houses` bytes of a row word.
#[inline]
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

/// South's and North's rows as words, for rows of at most 8 houses. The board is read as
/// two aligned words, where [`store_rows`] writes them (so the processor's store forwarding
/// works), and North's row is shifted out of them; shifts are split in two halves so that
/// none is by 64.
#[inline(always)]
pub fn load_rows<const N: usize>(pits: &[u8; N], houses: usize, mask: u64) -> (u64, u64) {
    let lo = u64::from_le_bytes(pits[..8].try_into().expect("8 pits"));
    let hi = u64::from_le_bytes(pits[8..16].try_into().expect("8 pits"));
    let half = 4 * houses as u32;
    (lo & mask, ((lo >> half >> half) | (hi << (64 - 2 * half))) & mask)
}

/// Writes South's and North's rows (at most 8 houses each) back as two aligned words.
#[inline(always)]
pub fn store_rows<const N: usize>(pits: &mut [u8; N], houses: usize, south: u64, north: u64) {
    let half = 4 * houses as u32;
    let lo = south | (north << half << half);
    let hi = north >> (64 - 2 * half);
    pits[..8].copy_from_slice(&lo.to_le_bytes());
    pits[8..16].copy_from_slice(&hi.to_le_bytes());
}

/// `PREFIX[k]`: a 1 in each of the first `k` bytes (k <= 8); for the per-row sowing.
const PREFIX: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut k = 1;
    while k <= 8 {
        t[k] = t[k - 1] | 1 << (8 * (k - 1));
        k += 1;
    }
    t
};

/// No house: [`sow_rows`] found the last seed in the mover's own row.
pub const OWN_ROW: usize = usize::MAX;

/// [`sow`] for rows of at most 8 houses, each row one word (`own`: the mover's, `opp`:
/// the opponent's), without a loop: full laps add a constant to every house, the rest is
/// one run of ones in each of at most three row segments (own row after the origin, the
/// opponent's row, own row from its start). With `skip` the origin is left out of every
/// lap (Oware's rule 1); without it the origin is the last house of a lap. Returns the
/// opponent's house that received the last seed, or [`OWN_ROW`].
#[inline(always)]
pub fn sow_rows(own: &mut u64, opp: &mut u64, house: usize, houses: usize, skip: bool) -> usize {
    debug_assert!(houses <= 8 && house < houses);
    let shift = 8 * house as u32;
    let seeds = ((*own >> shift) & 0xff) as usize;
    debug_assert!(seeds > 0, "sowing an empty house");
    *own &= !(0xffu64 << shift);
    let lap = 2 * houses - usize::from(skip);
    let mut rem = seeds;
    if seeds >= lap {
        rem = seeds % lap;
        let add = (seeds / lap) as u64 * PREFIX[houses & 15];
        *own += add;
        if skip {
            *own &= !(0xffu64 << shift);
        }
        *opp += add;
    }
    // The rest stays short of the origin: it is at most `lap - 1` seeds, and the segments
    // below end before the origin's lap position.
    let after = rem.min(houses - 1 - house);
    let beyond = rem - after;
    let across = beyond.min(houses);
    let again = beyond - across;
    *own += (PREFIX[(house + 1 + after) & 15] ^ PREFIX[(house + 1) & 15]) + PREFIX[again & 15];
    *opp += PREFIX[across & 15];
    if rem == 0 {
        // Whole laps only: the last seed fell into the origin (sown) or just before it
        // (skipped).
        if skip && house == 0 { houses - 1 } else { OWN_ROW }
    } else if again == 0 && across > 0 {
        across - 1
    } else {
        OWN_ROW
    }
}

/// Bit `i` set when byte `i` of the row word is non-zero (8 houses at most).
#[inline(always)]
pub fn nonzero_mask64(w: u64) -> u32 {
    let t = (((w & LOW7 as u64) + LOW7 as u64) | w) & HIGH as u64;
    gather_high_bits(t)
}

/// The seeds in a row word of at most 8 houses.
#[inline(always)]
pub fn row_sum64(w: u64) -> u32 {
    (w.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

/// The last seed's capture in the opponent's row word: house `last` when it holds a count
/// of `counts` (bit `c` set: `c` seeds are captured; Oware's rule 2 is 2 and 3), and on
/// `run` the houses before it while they do, not past the row's start. Returns the seeds
/// and the bytes taken.
#[inline(always)]
pub fn capture_row(opp: u64, last: usize, counts: u64, run: bool) -> (u32, u64) {
    let mut taken = 0u32;
    let mut clear = 0u64;
    let mut house = last;
    loop {
        let c = ((opp >> (8 * house as u32)) & 0xff) as u32;
        if c >= 64 || counts >> c & 1 == 0 {
            break;
        }
        taken += c;
        clear |= 0xff << (8 * house as u32);
        if !run || house == 0 {
            break;
        }
        house -= 1;
    }
    (taken, clear)
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

    /// A board of `houses` a row holding 0, 1, 2, 0, ... with `seeds` in South's `house`, and
    /// its rows as words (South's the mover's).
    fn sample_rows(houses: usize, house: usize, seeds: usize) -> ([u8; PITS], u64, u64) {
        let mut a = [0u8; PITS];
        for (i, p) in a[..2 * houses].iter_mut().enumerate() {
            *p = (i % 3) as u8;
        }
        a[house] = seeds as u8;
        let own = u64::from_le_bytes(a[..8].try_into().unwrap()) & (row_mask(houses) as u64);
        let opp = u64::from_le_bytes(a[houses..houses + 8].try_into().unwrap()) & (row_mask(houses) as u64);
        (a, own, opp)
    }

    /// The board the two row words stand for.
    fn from_rows(houses: usize, own: u64, opp: u64) -> [u8; PITS] {
        let mut b = [0u8; PITS];
        b[..8].copy_from_slice(&own.to_le_bytes());
        b[houses..houses + 8].copy_from_slice(&opp.to_le_bytes());
        b
    }

    #[test]
    fn row_sowing_agrees_with_the_loop() {
        for houses in 1..=8usize {
            let n = 2 * houses;
            for house in 0..houses {
                for seeds in 1..=(255 - 2 * n) {
                    let (mut a, mut own, mut opp) = sample_rows(houses, house, seeds);
                    let last = sow(&mut a, house, n);
                    let got = sow_rows(&mut own, &mut opp, house, houses, true);
                    let want = if last >= houses { last - houses } else { OWN_ROW };
                    assert_eq!(got, want, "houses {houses} house {house} seeds {seeds}");
                    assert_eq!(a, from_rows(houses, own, opp), "houses {houses} house {house} seeds {seeds}");
                }
            }
        }
    }

    /// Without the skip the origin is the last house of every lap: a seed-by-seed loop
    /// over the circuit (own row, then the opponent's, then own again) agrees.
    #[test]
    fn row_sowing_through_the_origin_agrees_with_the_loop() {
        for houses in 1..=8usize {
            let n = 2 * houses;
            for house in 0..houses {
                for seeds in 1..=(255 - 2 * n) {
                    let (mut a, mut own, mut opp) = sample_rows(houses, house, seeds);
                    let mut at = house;
                    a[house] = 0;
                    for _ in 0..seeds {
                        at = (at + 1) % n;
                        a[at] += 1;
                    }
                    let got = sow_rows(&mut own, &mut opp, house, houses, false);
                    let want = if at >= houses { at - houses } else { OWN_ROW };
                    assert_eq!(got, want, "houses {houses} house {house} seeds {seeds}");
                    assert_eq!(a, from_rows(houses, own, opp), "houses {houses} house {house} seeds {seeds}");
                }
            }
        }
    }

    #[test]
    fn rows_load_and_store() {
        for houses in 1..=8usize {
            let mut pits = [0u8; PITS];
            for (i, p) in pits[..2 * houses].iter_mut().enumerate() {
                *p = i as u8 + 1;
            }
            let (south, north) = load_rows(&pits, houses, row_mask(houses) as u64);
            assert_eq!(south, u64::from_le_bytes(pits[..8].try_into().unwrap()) & row_mask(houses) as u64);
            assert_eq!(
                north,
                u64::from_le_bytes(pits[houses..houses + 8].try_into().unwrap()) & row_mask(houses) as u64
            );
            let mut back = [0u8; PITS];
            store_rows(&mut back, houses, south, north);
            assert_eq!(back, pits, "houses {houses}");
        }
    }

    #[test]
    fn word_captures() {
        // Houses 0..6 hold 3 2 1 2 3 4: from house 4 back, 3 and 2 then the 1 stops.
        let opp = u64::from_le_bytes([3, 2, 1, 2, 3, 4, 0, 0]);
        let two_three = 1 << 2 | 1 << 3;
        assert_eq!(capture_row(opp, 4, two_three, true), (5, 0xffff << 24));
        assert_eq!(capture_row(opp, 1, two_three, true), (5, 0xffff));
        assert_eq!(capture_row(opp, 5, two_three, true), (0, 0));
        // The last house alone without a run; other counts (4, Ba-awa's).
        assert_eq!(capture_row(opp, 4, two_three, false), (3, 0xff << 32));
        assert_eq!(capture_row(opp, 5, 1 << 4, true), (4, 0xff << 40));
        assert_eq!(capture_row(opp, 2, 1 << 1 | 1 << 2 | 1 << 3, true), (6, 0xff_ffff));
        assert_eq!(row_sum64(opp), 15);
        assert_eq!(nonzero_mask64(opp), 0b111111);
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
