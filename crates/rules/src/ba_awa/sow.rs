//! The sowing of one move (rules 1 to 3 and the relay guard of rule 5), fast.
//!
//! Seed by seed, without branches on the captures (fours are frequent and random): the
//! counts of fours stay in registers. Moves are short (about 11 seeds in 3 relay segments
//! in random play), so per-segment word tricks (one add a lap over all 12 pits as bytes of
//! a `u128`) were tried and were slower.

use super::position::PITS;

/// Sows pit `pit` of `pits`: seeds one a pit over all twelve pits, fours made by a seed other
/// than the last of its relay segment go to North where `fours_north` has the pit's bit set
/// (else to South), a last seed making four goes to `mover_north`'s side and ends the move,
/// one landing in an occupied pit relays (at most `max_relay` times), one in an empty pit
/// ends the move. Returns the seeds captured by (South, North).
#[inline]
pub(crate) fn sow(
    pits: &mut [u8; PITS],
    mut pit: usize,
    fours_north: u16,
    mover_north: bool,
    max_relay: u32,
) -> (u16, u16) {
    let (mut fours, mut north_fours) = (0u16, 0u16);
    let mut last_four = 0u16;
    let mut relays = 0u32;
    let mut hand = pits[pit];
    pits[pit] = 0;
    loop {
        for _ in 1..hand {
            pit += 1;
            pit = if pit == PITS { 0 } else { pit };
            let n = pits[pit] + 1;
            let four = u16::from(n == 4);
            pits[pit] = if n == 4 { 0 } else { n };
            fours += four;
            north_fours += four & (fours_north >> pit);
        }
        pit += 1;
        pit = if pit == PITS { 0 } else { pit };
        let n = pits[pit] + 1;
        if n == 4 {
            pits[pit] = 0;
            last_four = 4;
            break;
        }
        pits[pit] = n;
        if n == 1 || relays == max_relay {
            break;
        }
        relays += 1;
        pits[pit] = 0;
        hand = n;
    }
    let mut south = 4 * (fours - north_fours);
    let mut north = 4 * north_fours;
    if mover_north {
        north += last_four;
    } else {
        south += last_four;
    }
    (south, north)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same rules seed by seed.
    fn sow_plain(
        pits: &mut [u8; PITS],
        mut pit: usize,
        fours_north: u16,
        mover_north: bool,
        max_relay: u32,
    ) -> (u16, u16) {
        let mut caught = [0u16; 2];
        let mut hand = std::mem::take(&mut pits[pit]);
        let mut relays = 0;
        loop {
            for _ in 1..hand {
                pit = (pit + 1) % PITS;
                pits[pit] += 1;
                if pits[pit] == 4 {
                    pits[pit] = 0;
                    caught[usize::from(fours_north >> pit & 1 == 1)] += 4;
                }
            }
            pit = (pit + 1) % PITS;
            pits[pit] += 1;
            if pits[pit] == 4 {
                pits[pit] = 0;
                caught[usize::from(mover_north)] += 4;
                break;
            }
            if pits[pit] == 1 || relays == max_relay {
                break;
            }
            relays += 1;
            hand = std::mem::take(&mut pits[pit]);
        }
        (caught[0], caught[1])
    }

    #[test]
    fn fast_sowing_matches_seed_by_seed() {
        let mut state = 0x1234_5678_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            // 48 seeds spread at random, one pit sometimes heavy (full laps).
            let mut pits = [0u8; PITS];
            let mut left = 48;
            let heavy = (next() % 12) as usize;
            pits[heavy] = (next() % 30) as u8;
            left -= pits[heavy];
            while left > 0 {
                pits[(next() % 12) as usize] += 1;
                left -= 1;
            }
            let pit = (next() % 12) as usize;
            if pits[pit] == 0 {
                continue;
            }
            let mask = (next() & 0xfff) as u16;
            let mover_north = next() & 1 == 1;
            let max_relay = [0, 1, 2, 1000][(next() % 4) as usize];
            let (mut a, mut b) = (pits, pits);
            let got = sow(&mut a, pit, mask, mover_north, max_relay);
            let want = sow_plain(&mut b, pit, mask, mover_north, max_relay);
            assert_eq!((got, a), (want, b), "{pits:?} pit {pit} mask {mask:b} {mover_north} {max_relay}");
        }
    }
}
