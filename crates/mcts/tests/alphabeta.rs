//! Alpha-beta: forced wins in hand-built Oware and Kalah positions, and the value at depth D
//! equals a plain negamax to depth D on many small positions.

mod common;

use common::{negamax, position};
use mancala_mcts::alphabeta::{AlphaBeta, Limit, WIN};
use mancala_rules::{AnyGame, AnyPosition, Game, Line, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The searcher's static score, written out again: a finished game is WIN plus the margin
/// for the winner, otherwise the capture (store) margin of the player to move.
fn score(game: &AnyGame) -> impl Fn(&AnyPosition) -> i32 + '_ {
    move |p| {
        let side = game.side_to_move(p);
        if let Some(o) = game.status(p).outcome() {
            return match o.winner {
                None => 0,
                Some(w) if w == side => WIN + i32::from(o.margin),
                Some(_) => -WIN - i32::from(o.margin),
            };
        }
        let s = game.scores(p);
        i32::from(s[side]) - i32::from(s[side.opponent()])
    }
}

/// South has 22 and needs 25. F (one seed) lands in a, making 3: captured, 25, a majority.
/// E only sows into F.
#[test]
fn oware_capture_to_a_majority_in_one() {
    let (game, pos) = position("oware", "south | 22 20 | 0 0 0 0 1 1 2 0 2 0 0 0 | ongoing");
    let mut ab = AlphaBeta::new(game.clone(), 16);
    let r = ab.search(&pos, Limit::Depth(1));
    assert_eq!(r.best, Some(5));
    // South ends with 25 against 20 + 3 left in North's row... the game ends on the majority:
    // the margin is what the rules report.
    let mut line = Line::from_position(game.clone(), pos);
    line.play(5).unwrap();
    let outcome = line.status().outcome().expect("a majority ends the game");
    assert_eq!(r.value, WIN + i32::from(outcome.margin));
}

/// South 23, North 21; South D=2, F=1, North a=1. F into a makes 2, but taking it would empty
/// North's row: a grand slam, which captures nothing under the default rules. The win is D
/// (E=1, F=2), North's only move a->b, then F sows a, b: b holds 2 and is captured, a (1) stops
/// the capture and stays, so no grand slam: 25, a majority. Three plies.
#[test]
fn oware_forced_win_in_three_plies() {
    let (game, pos) = position("oware", "south | 23 21 | 0 0 0 2 0 1 1 0 0 0 0 0 | ongoing");
    for depth in [1, 2] {
        let r = AlphaBeta::new(game.clone(), 16).search(&pos, Limit::Depth(depth));
        assert!(r.value < WIN, "depth {depth} cannot see the win: {r:?}");
    }
    let r = AlphaBeta::new(game.clone(), 16).search(&pos, Limit::Depth(3));
    assert_eq!(r.best, Some(3), "{r:?}");
    assert!(r.value >= WIN, "{r:?}");
    assert_eq!(r.depth, 3);
    // The line as the searcher sees it, played out.
    let mut line = Line::from_position(game.clone(), pos);
    line.play(3).unwrap();
    assert_eq!(line.legal_moves().len(), 1, "North's reply is forced");
    line.play(line.legal_moves().iter().next().unwrap()).unwrap();
    line.play(5).unwrap();
    assert_eq!(line.status().outcome().and_then(|o| o.winner), Some(mancala_rules::Player::South));
}

/// Kalah, South 22, North 19; South E=2, F=1, North a=4. F (into the store, again), E (F and
/// the store, again), F (the store, again): South's row is empty, the game ends 25 to 23. E
/// first instead ends 24 to 24 (F's second seed goes to a). The winning line ends on an extra
/// turn, so the finished position still has South to move.
#[test]
fn kalah_extra_turn_chain_wins() {
    let (game, pos) = position("kalah", "south | 22 19 | 0 0 0 0 2 1 4 0 0 0 0 0 | ongoing");
    let r = AlphaBeta::new(game.clone(), 16).search(&pos, Limit::Depth(4));
    assert_eq!(r.best, Some(5), "{r:?}");
    assert_eq!(r.value, WIN + 2, "{r:?}");
    let mut line = Line::from_position(game.clone(), pos);
    for a in [5, 4, 5] {
        assert_eq!(line.side_to_move(), mancala_rules::Player::South);
        line.play(a).unwrap();
    }
    assert_eq!(line.status().outcome().map(|o| (o.winner, o.margin)), Some((Some(mancala_rules::Player::South), 2)));
}

/// Positions from random play, `plies` moves from the start (seeded).
fn random_positions(game: &AnyGame, count: usize, plies: std::ops::Range<usize>, seed: u64) -> Vec<AnyPosition> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut line = Line::new(game.clone());
        let n = rng.random_range(plies.clone());
        for _ in 0..n {
            let legal = line.legal_moves();
            if legal.is_empty() {
                break;
            }
            line.play(legal.nth(rng.random_range(0..legal.len())).unwrap()).unwrap();
        }
        if !line.status().is_over() {
            out.push(*line.position());
        }
    }
    out
}

fn matches_negamax(rules: &str, depths: &[u32], count: usize, seed: u64) {
    let game = parse_rules(rules).unwrap();
    let score = score(&game);
    for (i, pos) in random_positions(&game, count, 0..40, seed).iter().enumerate() {
        for &d in depths {
            // A fresh table for each search: entries from a deeper search would (rightly)
            // answer a shallower one better than depth-D minimax.
            let r = AlphaBeta::new(game.clone(), 16).search(pos, Limit::Depth(d));
            // Iterative deepening stops early once the game is solved.
            assert!(r.depth == d || r.value.abs() >= WIN, "{rules} #{i} depth {d}: {r:?}");
            let expected = negamax(&game, pos, r.depth, &score);
            assert_eq!(r.value, expected, "{rules} #{i} depth {}: {}", r.depth, game.to_setup(pos));
            // The move it names is worth that value.
            let best = r.best.expect("an ongoing position has a move");
            let mut next = *pos;
            game.play_unchecked(&mut next, best);
            let v = negamax(&game, &next, r.depth - 1, &score);
            let v = if game.side_to_move(&next) == game.side_to_move(pos) { v } else { -v };
            assert_eq!(v, expected, "{rules} #{i} depth {}: best move {best} is worth {v}", r.depth);
        }
    }
}

#[test]
fn kalah_value_equals_negamax() {
    matches_negamax("kalah", &[1, 2, 3, 4, 5], 60, 11);
}

#[test]
fn small_kalah_value_equals_negamax() {
    matches_negamax("kalah:4,3", &[1, 3, 5, 6], 60, 12);
}

#[test]
fn oware_value_equals_negamax() {
    matches_negamax("oware", &[1, 2, 3, 4, 5], 60, 13);
}

#[test]
fn ouril_value_equals_negamax() {
    matches_negamax("ouril", &[1, 3, 4], 40, 14);
}

/// A finished position has no move; its value is the exact result.
#[test]
fn finished_position_has_no_move() {
    let (game, pos) = position("kalah", "north | 25 23 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+2");
    let r = AlphaBeta::new(game, 10).search(&pos, Limit::Depth(3));
    assert_eq!(r.best, None);
    assert_eq!(r.value, -WIN - 2);
}
