//! The seed-by-seed course of a move, for the page to show the sowing step by step.
//!
//! The rules crate plays a move in one go (its positions are packed for speed), so the path
//! is retraced here from the rules (docs/rules.md): lift, one seed a pit, relays, and the seeds
//! taken on the way. A traced course is only handed out when it agrees with what the rules
//! crate actually played ([`steps`] checks it); otherwise the page shows the move at once.

use mancala_rules::{AnyGame, AnyPosition, Game, Player};
use serde::Serialize;

/// A move longer than this (long Owela relays) is shown at once.
pub const MAX_FRAMES: usize = 400;

/// The board after one step of a sowing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub pits: Vec<u8>,
    /// Seeds in each player's store or captured, South then North.
    pub scores: [u16; 2],
}

/// A move's course and the pits whose seeds it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sown {
    pub frames: Vec<Frame>,
    /// Pits emptied by a capture (or a four taken), in the order taken.
    pub taken: Vec<usize>,
}

/// The frames of `side`'s move sowing `origin` from `before` to `after`: the seeds lifted,
/// then one frame a seed dropped or pit taken, ending on `after` itself. `None` when the
/// retraced course does not agree with `after` or is too long to show.
pub fn steps(game: &AnyGame, before: &AnyPosition, after: &AnyPosition, side: Player, origin: usize) -> Option<Sown> {
    let scores = game.scores(before);
    let start = Frame { pits: game.pits(before).to_vec(), scores: [scores.south, scores.north] };
    let mut course = Course { frames: vec![start.clone()], now: start, taken: Vec::new() };
    let relays = match game {
        AnyGame::Oware(_) => {
            course.oware(origin);
            false
        }
        AnyGame::Kalah(_) => {
            course.kalah(side, origin);
            false
        }
        AnyGame::BaAwa(g) => {
            course.ba_awa(origin, g.max_relay());
            true
        }
        AnyGame::Owela(_) => {
            course.owela(side, origin, game.pits(before).len() / 4);
            true
        }
        AnyGame::Described(_) => return None,
    };
    let after_pits = game.pits(after);
    let traced = &course.now.pits;
    // Captures at the end of a move (Oware, Kalah) only ever take seeds away; a relay game's
    // course already holds its captures. A move that ends the game may sweep the rows.
    let agrees = game.status(after).is_over()
        || if relays { traced.as_slice() == after_pits } else { traced.iter().zip(after_pits).all(|(t, a)| a <= t) };
    if !agrees || course.frames.len() + 1 > MAX_FRAMES {
        return None;
    }
    if !game.status(after).is_over() {
        // What the end of the move took (Oware and Kalah captures).
        let end_taken: Vec<usize> = (0..traced.len()).filter(|&i| after_pits[i] < traced[i]).collect();
        course.taken.extend(end_taken);
    }
    let s = game.scores(after);
    let last = Frame { pits: after_pits.to_vec(), scores: [s.south, s.north] };
    if course.now != last {
        course.frames.push(last);
    }
    Some(Sown { frames: course.frames, taken: course.taken })
}

struct Course {
    frames: Vec<Frame>,
    now: Frame,
    taken: Vec<usize>,
}

impl Course {
    fn push(&mut self) {
        // Past the limit the course is thrown away anyway; stop copying boards.
        if self.frames.len() <= MAX_FRAMES {
            self.frames.push(self.now.clone());
        }
    }

    fn lift(&mut self, pit: usize) -> usize {
        let seeds = usize::from(self.now.pits[pit]);
        self.now.pits[pit] = 0;
        self.push();
        seeds
    }

    fn take(&mut self, pit: usize) {
        self.now.pits[pit] = 0;
        self.taken.push(pit);
        self.push();
    }

    fn drop_in(&mut self, pit: usize) {
        self.now.pits[pit] += 1;
        self.push();
    }

    /// Rule 1.1: around both rows, skipping the origin house on every lap.
    fn oware(&mut self, origin: usize) {
        let n = self.now.pits.len();
        let mut pit = origin;
        for _ in 0..self.lift(origin) {
            pit = (pit + 1) % n;
            if pit == origin {
                pit = (pit + 1) % n;
            }
            self.drop_in(pit);
        }
    }

    /// Rule 2.1: around both rows and the mover's own store, never the opponent's.
    fn kalah(&mut self, side: Player, origin: usize) {
        let n = self.now.pits.len();
        let h = n / 2;
        // The ring the mover sows: the houses after `origin`, and the own store after the
        // mover's last house (index `n` stands for it).
        let own_last = if side == Player::South { h - 1 } else { n - 1 };
        let mut at = origin;
        for _ in 0..self.lift(origin) {
            at = if at == n {
                (own_last + 1) % n
            } else if at == own_last {
                n
            } else {
                (at + 1) % n
            };
            if at == n {
                self.now.scores[side.index()] += 1;
                self.push();
            } else {
                self.drop_in(at);
            }
        }
    }

    /// Ba-awa rules 3.1 to 3.3: fours made on the way are taken at once, a last seed in an
    /// occupied pit relays unless it makes four.
    fn ba_awa(&mut self, origin: usize, max_relay: u32) {
        let n = self.now.pits.len();
        let mut pit = origin;
        let mut hand = self.lift(origin);
        let mut relays = 0;
        loop {
            for k in 0..hand {
                pit = (pit + 1) % n;
                self.drop_in(pit);
                if k + 1 < hand && self.now.pits[pit] == 4 {
                    self.take(pit);
                }
            }
            let last = self.now.pits[pit];
            if last == 4 {
                self.take(pit);
                return;
            }
            if last == 1 || relays >= max_relay || self.frames.len() > MAX_FRAMES {
                return;
            }
            relays += 1;
            hand = self.lift(pit);
        }
    }

    /// Owela rules 4.3 to 4.5, around the mover's own loop of `2 * columns` pits: a last seed
    /// in an occupied inner pit takes the opposite column when both its pits hold seeds and
    /// sows them on; else a last seed in an occupied pit relays.
    fn owela(&mut self, side: Player, origin: usize, columns: usize) {
        let loop_len = 2 * columns;
        let own = |local: usize| if side == Player::South { local } else { loop_len + local };
        let theirs = |local: usize| if side == Player::South { loop_len + local } else { local };
        let mut at = if side == Player::South { origin } else { origin - loop_len };
        let mut hand = self.lift(own(at));
        loop {
            for _ in 0..hand {
                at = (at + 1) % loop_len;
                self.drop_in(own(at));
            }
            if self.now.pits[own(at)] == 1 || self.frames.len() > MAX_FRAMES {
                return;
            }
            if at >= columns {
                // The column of this inner pit, seen from the opponent's side.
                let col = loop_len - 1 - at;
                let (outer, inner) = (theirs(columns - 1 - col), theirs(columns + col));
                if self.now.pits[outer] > 0 && self.now.pits[inner] > 0 {
                    hand = usize::from(self.now.pits[outer]) + usize::from(self.now.pits[inner]);
                    self.take(outer);
                    self.take(inner);
                    continue;
                }
            }
            hand = self.lift(own(at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::{Line, parse_rules};
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Plays random games and checks that every move that does not end the game gets a
    /// course, each frame changing the board by one step.
    fn courses_agree(rules: &str, games: usize) {
        let game = parse_rules(rules).unwrap();
        let mut rng = SmallRng::seed_from_u64(3);
        let (mut shown, mut moves) = (0, 0);
        for _ in 0..games {
            let mut line = Line::new(game.clone());
            while !line.status().is_over() {
                let legal: Vec<_> = line.legal_moves().iter().collect();
                let action = legal[rng.random_range(0..legal.len())];
                let before = *line.position();
                let side = line.side_to_move();
                line.play(action).unwrap();
                if line.status().is_over() {
                    continue;
                }
                moves += 1;
                let origin = game.action_pit(side, action);
                if let Some(Sown { frames, .. }) = steps(&game, &before, line.position(), side, origin) {
                    shown += 1;
                    assert_eq!(frames[0].pits, game.pits(&before), "{rules}");
                    assert_eq!(frames.last().unwrap().pits, game.pits(line.position()), "{rules}");
                    assert_eq!(frames[1].pits[origin], 0, "{rules}: the first step lifts the house");
                }
            }
        }
        // Only courses past MAX_FRAMES may be missing.
        assert!(shown * 100 >= moves * 99, "{rules}: {shown} of {moves} moves traced");
    }

    #[test]
    fn oware_family_courses_agree_with_the_rules() {
        for rules in ["oware", "ouril", "awale", "oware-capture-all"] {
            courses_agree(rules, 20);
        }
    }

    #[test]
    fn kalah_courses_agree_with_the_rules() {
        courses_agree("kalah", 20);
        courses_agree("kalah:4,3", 20);
    }

    #[test]
    fn relay_game_courses_agree_with_the_rules() {
        courses_agree("ba-awa", 20);
        courses_agree("owela", 10);
    }

    #[test]
    fn kalah_sows_into_the_own_store_only() {
        let game = parse_rules("kalah").unwrap();
        let setup = "north | 0 0 | 4 4 4 4 4 4 4 4 4 4 0 8 | ongoing".parse().unwrap();
        let before = game.from_setup(&setup).unwrap();
        let mut line = Line::from_position(game.clone(), before);
        line.play_label("f").unwrap();
        let frames = steps(&game, &before, line.position(), Player::North, 11).unwrap().frames;
        // Lift, then the store, then A..F, then a; South's store never changes.
        assert_eq!(frames[2].scores, [0, 1]);
        assert!(frames.iter().all(|f| f.scores[0] == 0));
        assert_eq!(frames[9].pits[6], 5);
    }
}
