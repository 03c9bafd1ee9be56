//! The perfect index: every (board, side to move) with at most `max_seeds` seeds on the board
//! gets one slot, computed by the combinatorial number system, so a probe is O(pits)
//! arithmetic with no hashing and no collisions.
//!
//! Boards with exactly `n` seeds in `P` pits are the weak compositions of `n` into `P` parts:
//! `C(n + P - 1, P - 1)` of them. Layers are stored by increasing seed count, and inside a
//! layer board `r` (its rank in lexicographic order, pit 0 first) holds two slots:
//! `2 r` for South to move and `2 r + 1` for North.

use mancala_rules::Player;

/// Ranks and unranks boards of a fixed pit count up to a seed limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexer {
    pits: usize,
    max_seeds: usize,
    /// `binom[m][k] = C(m, k)` for `m <= max_seeds + pits`, `k <= pits`, `m - k <= max_seeds`.
    binom: Vec<Vec<u64>>,
    /// `offsets[n]`: the first slot of layer `n`; `offsets[max_seeds + 1]` is the slot count.
    offsets: Vec<u64>,
}

impl Indexer {
    /// An indexer for `pits` pits (2 at least) and boards of up to `max_seeds` seeds, or
    /// `None` when `pits < 2` or the slot count does not fit in a `u64` (far beyond any
    /// database in memory: a build refuses sizes long before, see
    /// [`crate::build::memory_needed`]).
    pub fn new(pits: usize, max_seeds: usize) -> Option<Self> {
        if pits < 2 {
            return None;
        }
        let rows = max_seeds.checked_add(pits + 1)?;
        let mut binom = vec![vec![0u64; pits + 1]; rows];
        for m in 0..rows {
            binom[m][0] = 1;
            // Only C(m, k) with m - k <= max_seeds is ever read; the others (which can
            // overflow long before the slot count does) stay 0.
            for k in m.saturating_sub(max_seeds).max(1)..=pits.min(m) {
                binom[m][k] = binom[m - 1][k - 1].checked_add(binom[m - 1][k])?;
            }
        }
        let mut offsets = Vec::with_capacity(max_seeds + 2);
        let mut at = 0u64;
        for n in 0..=max_seeds {
            offsets.push(at);
            at = at.checked_add(binom[n + pits - 1][pits - 1].checked_mul(2)?)?;
        }
        offsets.push(at);
        Some(Indexer { pits, max_seeds, binom, offsets })
    }

    pub fn pits(&self) -> usize {
        self.pits
    }

    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// All slots, every layer.
    pub fn slots(&self) -> u64 {
        self.offsets[self.max_seeds + 1]
    }

    /// The first slot of layer `seeds` (and, for `seeds = max_seeds + 1`, the slot count).
    pub fn layer_start(&self, seeds: usize) -> u64 {
        self.offsets[seeds]
    }

    /// Boards with exactly `seeds` seeds (half the layer's slots).
    pub fn boards(&self, seeds: usize) -> u64 {
        self.binom[seeds + self.pits - 1][self.pits - 1]
    }

    /// The slot of `board` with `side` to move, or `None` when the board has another pit
    /// count or more seeds than the database holds.
    #[inline]
    pub fn slot(&self, board: &[u8], side: Player) -> Option<u64> {
        if board.len() != self.pits {
            return None;
        }
        let seeds: usize = board.iter().map(|&c| usize::from(c)).sum();
        if seeds > self.max_seeds {
            return None;
        }
        Some(self.offsets[seeds] + 2 * self.rank(board, seeds) + side.index() as u64)
    }

    /// The rank of `board` (holding `seeds` seeds) among the boards of its layer.
    #[inline]
    pub fn rank(&self, board: &[u8], seeds: usize) -> u64 {
        let mut rank = 0;
        let mut left = seeds;
        for (i, &c) in board[..self.pits - 1].iter().enumerate() {
            let c = usize::from(c);
            let after = self.pits - 1 - i;
            // Boards that agree before pit i and hold fewer than c seeds in it, summed by the
            // hockey-stick identity: C(left + after, after) - C(left - c + after, after).
            rank += self.binom[left + after][after] - self.binom[left - c + after][after];
            left -= c;
        }
        rank
    }

    /// Writes the board of rank `rank` in layer `seeds` into `board` (`pits` long).
    ///
    /// # Panics
    /// If `rank` is not below [`Indexer::boards`]`(seeds)` or `board` has the wrong length.
    pub fn unrank(&self, mut rank: u64, seeds: usize, board: &mut [u8]) {
        assert!(rank < self.boards(seeds), "rank {rank} outside layer {seeds}");
        assert_eq!(board.len(), self.pits);
        let mut left = seeds;
        for (i, pit) in board[..self.pits - 1].iter_mut().enumerate() {
            let after = self.pits - 1 - i;
            let mut c = 0;
            loop {
                // Boards with exactly c seeds in pit i: the rest spread over `after` pits.
                let with_c = self.binom[left - c + after - 1][after - 1];
                if rank < with_c {
                    break;
                }
                rank -= with_c;
                c += 1;
            }
            *pit = c as u8;
            left -= c;
        }
        board[self.pits - 1] = left as u8;
    }

    /// Where `slot` lies: its seed count, board rank and side to move.
    pub fn locate(&self, slot: u64) -> (usize, u64, Player) {
        let seeds = self.offsets.partition_point(|&o| o <= slot) - 1;
        let within = slot - self.offsets[seeds];
        let side = if within.is_multiple_of(2) { Player::South } else { Player::North };
        (seeds, within / 2, side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse_and_dense() {
        let ix = Indexer::new(4, 5).unwrap();
        for seeds in 0..=5 {
            let mut board = [0u8; 4];
            for r in 0..ix.boards(seeds) {
                ix.unrank(r, seeds, &mut board);
                assert_eq!(board.iter().map(|&c| usize::from(c)).sum::<usize>(), seeds);
                assert_eq!(ix.rank(&board, seeds), r, "board {board:?}");
            }
        }
        // C(5 + 4, 4) boards of at most 5 seeds in 4 pits, two sides each.
        assert_eq!(ix.slots(), 2 * 126);
    }

    #[test]
    fn slots_are_distinct_and_located_back() {
        let ix = Indexer::new(3, 4).unwrap();
        let mut seen = vec![false; ix.slots() as usize];
        for a in 0..=4u8 {
            for b in 0..=4 - a {
                for c in 0..=4 - a - b {
                    for side in Player::BOTH {
                        let s = ix.slot(&[a, b, c], side).unwrap();
                        assert!(!seen[s as usize]);
                        seen[s as usize] = true;
                        let (n, r, p) = ix.locate(s);
                        assert_eq!((n, p), (usize::from(a + b + c), side));
                        assert_eq!(r, ix.rank(&[a, b, c], n));
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn an_index_too_large_for_u64_is_none_not_a_panic() {
        // Kalah with 16 houses a side and 127 seeds: C(159, 32) boards overflow u64.
        assert_eq!(Indexer::new(32, 127), None);
        assert_eq!(Indexer::new(64, 127), None);
        assert_eq!(Indexer::new(1, 4), None);
        assert!(Indexer::new(12, 48).is_some());
        // Few seeds in many pits fit, although C(68, 34) does not.
        assert_eq!(Indexer::new(64, 4).unwrap().slots(), 2 * 814_385);
    }

    #[test]
    fn boards_outside_the_database_have_no_slot() {
        let ix = Indexer::new(3, 4).unwrap();
        assert_eq!(ix.slot(&[2, 2, 1], Player::South), None);
        assert_eq!(ix.slot(&[1, 1], Player::South), None);
        assert_eq!(ix.slot(&[0, 0, 0], Player::North), Some(1));
    }
}
