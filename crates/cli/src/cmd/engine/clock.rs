//! Time controls: a fixed time a move (`set movetime MS`) or a clock with an increment
//! (`time_settings MAIN INCREMENT`, `time_left SIDE MS`), and how much of the time left one
//! move may take.

use std::time::Duration;

use mancala_rules::{ByPlayer, Player};

/// Moves the engine expects still to play when it shares out its time: a sowing game lasts
/// some 30 to 80 moves a side, and sharing as if 20 were left keeps a reserve for long games
/// while the increment refills it.
const MOVES_TO_SHARE: u32 = 20;

/// Kept back from every move's share, so that the answer and the driver's own delay do not
/// lose on time when little is left.
const RESERVE: Duration = Duration::from_millis(20);

/// The longest time a move or a clock may hold: an hour, far beyond any game played here,
/// and small enough that adding it to the current instant never overflows.
pub const MAX_TIME_MS: u64 = 3_600_000;

/// A game clock: each side's time left and the increment added after each of its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    pub left: ByPlayer<Duration>,
    pub increment: Duration,
}

impl Clock {
    /// Both sides with `main` on the clock.
    pub fn new(main: Duration, increment: Duration) -> Clock {
        Clock { left: ByPlayer::new(main, main), increment }
    }

    /// How long `side` may think for its next move: an even share of its time left over the
    /// moves still to come, plus most of the increment it is about to gain, never more than
    /// the time left less a small reserve, and at least a millisecond (the search then runs a
    /// single simulation, so a move always comes).
    pub fn think_time(&self, side: Player) -> Duration {
        let left = self.left[side];
        let share = left / MOVES_TO_SHARE + self.increment * 3 / 4;
        share.min(left.saturating_sub(RESERVE)).max(Duration::from_millis(1))
    }

    /// Charges `side` for a move that took `spent`, then adds the increment.
    pub fn spend(&mut self, side: Player, spent: Duration) {
        self.left[side] = self.left[side].saturating_sub(spent) + self.increment;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_move_takes_a_share_of_the_time_left_and_most_of_the_increment() {
        let clock = Clock::new(ms(60_000), ms(1_000));
        assert_eq!(clock.think_time(Player::South), ms(3_000 + 750));
    }

    #[test]
    fn little_time_left_keeps_a_reserve_and_still_gives_a_move() {
        let mut clock = Clock::new(ms(30), ms(0));
        assert_eq!(clock.think_time(Player::North), ms(1) + ms(500) / 1000, "the share, 1.5 ms");
        clock.left[Player::North] = ms(5);
        assert_eq!(clock.think_time(Player::North), ms(1), "at least a millisecond");
    }

    #[test]
    fn spending_charges_the_mover_and_adds_the_increment() {
        let mut clock = Clock::new(ms(10_000), ms(500));
        clock.spend(Player::South, ms(2_000));
        assert_eq!(clock.left[Player::South], ms(8_500));
        assert_eq!(clock.left[Player::North], ms(10_000));
        clock.spend(Player::North, ms(60_000));
        assert_eq!(clock.left[Player::North], ms(500), "an overrun leaves the increment");
    }
}
