//! The seed-by-seed course of a move, for the page to show the sowing step by step: frames
//! built from the rules engine's own trace ([`AnyGame::play_traced`]), so the page and the
//! rules can never disagree on a sowing and the web crate holds no rule of any game.

use mancala_rules::sowing::{Score, Step};
use mancala_rules::{Action, AnyGame, AnyPosition, Game};
use serde::Serialize;

/// A move longer than this (long relays) is shown at once.
pub const MAX_FRAMES: usize = 400;

/// The board after one step of a sowing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub pits: Vec<u8>,
    /// Seeds in each player's store or captured (or on each side, where that is the score),
    /// South then North.
    pub scores: [u16; 2],
    /// Seeds in the sower's hand: lifted and not yet sown.
    pub hand: u16,
    /// The pit this step changed, if it changed one (a seed into a store changes none).
    pub active: Option<usize>,
}

/// A move's course and the pits whose seeds it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sown {
    pub frames: Vec<Frame>,
    /// Pits emptied by a capture (or taken into the hand), in the order taken.
    pub taken: Vec<usize>,
}

/// The frames of `action` played from `before`: the board before, one frame a step of the
/// engine's trace (a lift, a seed dropped, a seed into a store, a capture), and last the
/// position `after` itself (which differs from the step before it where the move ended the
/// game and the rest of the seeds went to their owners). `None` when the move is not legal
/// from `before` or its course is too long to show.
pub fn course(game: &AnyGame, before: &AnyPosition, action: Action, after: &AnyPosition) -> Option<Sown> {
    let (_, _, trace) = game.play_traced(before, action).ok()?;
    if trace.steps.len() + 2 > MAX_FRAMES {
        return None;
    }
    let pits = game.pits(before).len();
    // Where the score is the seeds on each side, it follows the pits; else the stores and
    // captures do.
    let on_side = game.description().end.score == Score::Board;
    let side_sums = |pits: &[u8]| {
        let half = pits.len() / 2;
        let sum = |p: &[u8]| p.iter().map(|&n| u16::from(n)).sum::<u16>();
        [sum(&pits[..half]), sum(&pits[half..])]
    };
    let s = game.scores(before);
    let mut now = Frame { pits: game.pits(before).to_vec(), scores: [s.south, s.north], hand: 0, active: None };
    let mut frames = vec![now.clone()];
    let mut taken = Vec::new();
    for step in &trace.steps {
        let active = match *step {
            Step::Lift { house, seeds } | Step::Take { house, seeds } => {
                let house = usize::from(house);
                now.pits[house] = now.pits[house].checked_sub(seeds)?;
                now.hand += u16::from(seeds);
                if matches!(step, Step::Take { .. }) {
                    taken.push(house);
                }
                Some(house)
            }
            Step::Drop { house } => {
                let house = usize::from(house);
                now.pits[house] = now.pits[house].checked_add(1)?;
                now.hand = now.hand.checked_sub(1)?;
                Some(house)
            }
            Step::Store { player } => {
                now.scores[player.index()] += 1;
                now.hand = now.hand.checked_sub(1)?;
                None
            }
            Step::Capture { house, seeds, player } => {
                let house = usize::from(house);
                now.pits[house] = now.pits[house].checked_sub(seeds)?;
                now.scores[player.index()] += u16::from(seeds);
                taken.push(house);
                Some(house)
            }
            // The claim changes no count; the position after the move shows the mark.
            Step::Claim { .. } | Step::End { .. } => continue,
        };
        if active.is_some_and(|pit| pit >= pits) {
            return None;
        }
        if on_side {
            now.scores = side_sums(&now.pits);
        }
        now.active = active;
        frames.push(now.clone());
    }
    let s = game.scores(after);
    let last = Frame { pits: game.pits(after).to_vec(), scores: [s.south, s.north], hand: 0, active: None };
    let same_board = |f: &Frame| f.pits == last.pits && f.scores == last.scores && f.hand == 0;
    if !frames.last().is_some_and(same_board) {
        frames.push(last);
    }
    Some(Sown { frames, taken })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::{Line, Player, parse_rules};
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Seeds on the board, in hand, and (unless the score is the seeds on each side) in the
    /// stores and captures.
    fn seeds(game: &AnyGame, frame: &Frame) -> u32 {
        let board: u32 = frame.pits.iter().map(|&n| u32::from(n)).sum::<u32>() + u32::from(frame.hand);
        let on_side = game.description().end.score == Score::Board;
        if on_side { board } else { board + u32::from(frame.scores[0]) + u32::from(frame.scores[1]) }
    }

    /// Plays random games and checks every move's course: it starts on the board before the
    /// move, lifts the sown house first, conserves the seeds frame to frame, and ends on the
    /// position after the move.
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
                moves += 1;
                let Some(Sown { frames, taken }) = course(&game, &before, action, line.position()) else { continue };
                shown += 1;
                let total = seeds(&game, &frames[0]);
                let s = game.scores(&before);
                assert_eq!((frames[0].pits.as_slice(), frames[0].scores), (game.pits(&before), [s.south, s.north]));
                let origin = game.action_pit(side, action);
                assert_eq!(frames[1].active, Some(origin), "{rules}: the first step lifts the house sown");
                assert_eq!(frames[1].hand, u16::from(game.pits(&before)[origin]), "{rules}");
                for (k, f) in frames.iter().enumerate() {
                    assert_eq!(seeds(&game, f), total, "{rules}: seeds in frame {k} of {frames:?}");
                }
                let last = frames.last().unwrap();
                let s = game.scores(line.position());
                assert_eq!((last.pits.as_slice(), last.scores), (game.pits(line.position()), [s.south, s.north]));
                assert_eq!(last.hand, 0);
                assert!(taken.iter().all(|&p| p < last.pits.len()));
            }
        }
        // Only courses past MAX_FRAMES may be missing.
        assert!(shown * 100 >= moves * 99, "{rules}: {shown} of {moves} moves traced");
    }

    #[test]
    fn preset_courses_agree_with_the_rules() {
        for rules in ["oware", "ouril", "awale", "kalah", "kalah:4,3", "ba-awa"] {
            courses_agree(rules, 10);
        }
        courses_agree("owela", 4);
    }

    #[test]
    fn described_courses_agree_with_the_rules() {
        // Clockwise with stores and captures of 2 or 4 from the opponent: no preset.
        courses_agree(
            r#"sowing {"format":1,"name":"cw","board":{"houses":5,"seeds":3,"stores":true},"sowing":{"direction":"clockwise"},"capture":{"counts":[2,4]},"end":{"max_plies":200}}"#,
            20,
        );
        // The mover's choice of direction, relay sowing, four ranks.
        courses_agree(
            r#"sowing {"format":1,"name":"both","board":{"houses":7,"seeds":2},"sowing":{"direction":"either","origin":"skip"},"capture":{"counts":[3],"on":"run"},"end":{"max_plies":150}}"#,
            20,
        );
        courses_agree(
            r#"sowing {"format":1,"name":"small-four","board":{"ranks":4,"houses":5,"seeds":2},"move":{"min_seeds":2},"sowing":{"relay":true},"end":{"max_plies":300}}"#,
            10,
        );
    }

    #[test]
    fn a_store_takes_the_movers_seed_only() {
        let game = parse_rules("kalah").unwrap();
        let setup = "north | 0 0 | 4 4 4 4 4 4 4 4 4 4 0 8 | ongoing".parse().unwrap();
        let before = game.from_setup(&setup).unwrap();
        let mut line = Line::from_position(game.clone(), before);
        line.play_label("f").unwrap();
        let action = line.moves().last().unwrap();
        assert_eq!(game.side_to_move(&before), Player::North);
        let frames = course(&game, &before, action, line.position()).unwrap().frames;
        // Lift, then the store, then A..F, then a; South's store never changes.
        assert_eq!(frames[1].hand, 8);
        assert_eq!((frames[2].scores, frames[2].active), ([0, 1], None));
        assert!(frames.iter().all(|f| f.scores[0] == 0));
        assert_eq!(frames[9].pits[6], 5);
    }

    #[test]
    fn an_oware_capture_is_taken_in_the_course() {
        let game = parse_rules("oware").unwrap();
        // South's F (2 seeds) ends in North's b, making 2 there after a makes 2: both taken.
        let setup = "south | 0 0 | 4 4 4 4 4 2 1 1 6 6 6 6 | ongoing".parse().unwrap();
        let before = game.from_setup(&setup).unwrap();
        let mut line = Line::from_position(game.clone(), before);
        line.play_label("F").unwrap();
        let action = line.moves().last().unwrap();
        let sown = course(&game, &before, action, line.position()).unwrap();
        assert_eq!(sown.taken, [7, 6], "the run back from b takes b then a");
        assert_eq!(sown.frames.last().unwrap().scores, [4, 0]);
    }
}
