//! The Ba-awa position: pits, captures, who controls each pit, who moves and who began.

use crate::player::{ByPlayer, Player};

/// Pits on the board (two rows of six).
pub const PITS: usize = 12;
/// Pits in a row.
pub const ROW: usize = 6;
/// Seeds in every pit at the start of a game.
pub const SEEDS_PER_PIT: u8 = 4;
/// Seeds in play.
pub const TOTAL_SEEDS: u16 = PITS as u16 * SEEDS_PER_PIT as u16;
/// All twelve pits as a bit mask.
pub(crate) const ALL_PITS: u16 = (1 << PITS) - 1;

/// A Ba-awa position. The game is over exactly when no seed is left on the board: every way
/// a game ends (rule 4, the ply guard) hands the seeds left to a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaAwaPosition {
    /// Seeds in every pit, in pit index order (A-F then a-f).
    pub(crate) pits: [u8; PITS],
    /// Seeds captured by each player.
    pub(crate) scores: ByPlayer<u16>,
    /// Bit `i` set: North controls pit `i`; clear: South does.
    pub(crate) north_controls: u16,
    pub(crate) side: Player,
    /// The player who began this game: rule 4 gives them the last 8 seeds or fewer.
    pub(crate) starter: Player,
    /// Plies played in this game (for the `max_plies` guard).
    pub(crate) plies: u16,
}

impl BaAwaPosition {
    /// Seeds in every pit, in pit index order.
    pub fn pits(&self) -> &[u8; PITS] {
        &self.pits
    }

    /// Seeds captured by each player.
    pub fn scores(&self) -> ByPlayer<u16> {
        self.scores
    }

    /// The player to move (for a finished game: who would be).
    pub fn side_to_move(&self) -> Player {
        self.side
    }

    /// The player who began this game.
    pub fn starter(&self) -> Player {
        self.starter
    }

    /// Plies played since this game's start (or since the position was set up).
    pub fn plies(&self) -> u16 {
        self.plies
    }

    /// The player who controls (may sow) pit `pit`.
    ///
    /// # Panics
    /// If `pit` is not below 12.
    #[inline]
    pub fn controller(&self, pit: usize) -> Player {
        assert!(pit < PITS, "pit {pit} out of range");
        if self.north_controls >> pit & 1 == 1 { Player::North } else { Player::South }
    }

    /// The controller of every pit, in pit index order.
    pub fn controllers(&self) -> [Player; PITS] {
        std::array::from_fn(|pit| self.controller(pit))
    }

    /// The pits `player` controls, as a bit mask (bit `i` for pit `i`).
    #[inline]
    pub(crate) fn controlled_by(&self, player: Player) -> u16 {
        match player {
            Player::North => self.north_controls,
            Player::South => !self.north_controls & ALL_PITS,
        }
    }

    /// Seeds still on the board.
    #[inline]
    pub fn seeds_on_board(&self) -> u16 {
        TOTAL_SEEDS - self.scores.south - self.scores.north
    }

    /// The non-empty pits as a bit mask.
    #[inline]
    pub(crate) fn occupied(&self) -> u16 {
        let [a, b, c, d, e, f, g, h, i, j, k, l] = self.pits;
        nonzero_bytes(u64::from_le_bytes([a, b, c, d, e, f, g, h]))
            | nonzero_bytes(u64::from(u32::from_le_bytes([i, j, k, l]))) << 8
    }

    /// Moves every seed left on the board to `taker(pit)`'s captures.
    pub(crate) fn sweep(&mut self, mut taker: impl FnMut(usize) -> Player) -> u16 {
        let mut swept = 0;
        for pit in 0..PITS {
            let n = u16::from(self.pits[pit]);
            self.scores[taker(pit)] += n;
            swept += n;
            self.pits[pit] = 0;
        }
        swept
    }

    /// The no-legal-move rule (rule 4): if the player to move controls no non-empty pit, the
    /// opponent takes the seeds left and the game is over. Returns the seeds taken.
    pub(crate) fn settle_if_stuck(&mut self) -> u16 {
        if self.seeds_on_board() != 0 && self.occupied() & self.controlled_by(self.side) == 0 {
            let taker = self.side.opponent();
            self.sweep(|_| taker)
        } else {
            0
        }
    }
}

/// Builds the controller mask from a list of controllers in pit order.
pub(crate) fn north_mask(controllers: &[Player; PITS]) -> u16 {
    controllers.iter().enumerate().fold(0, |m, (i, &p)| if p == Player::North { m | 1 << i } else { m })
}

/// Bit `i` set where byte `i` of `x` is not 0; every byte holds at most 48 seeds.
#[inline]
fn nonzero_bytes(x: u64) -> u16 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // A byte below 0x80 plus 0x7f sets its high bit exactly when it is not 0, with no carry.
    let high = (x + LOW7) & !LOW7;
    // Gathers the eight high bits into one byte, byte `i` to bit `i`.
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_bytes_gathers_in_order() {
        for mask in 0u16..256 {
            let mut bytes = [0u8; 8];
            for (i, b) in bytes.iter_mut().enumerate() {
                if mask >> i & 1 == 1 {
                    *b = 1 + (i as u8 * 7) % 48;
                }
            }
            assert_eq!(nonzero_bytes(u64::from_le_bytes(bytes)), mask);
        }
        assert_eq!(nonzero_bytes(u64::from_le_bytes([48; 8])), 0xff);
    }
}
