//! The solver (score-bounded MCTS): bounds proven from finished games in the tree, moves
//! proven worse never searched again nor played, a solved root's exact value, and the same
//! value as a full negamax on real endgames.

mod common;

use common::{ToyEvaluator, ToyGame, ToyNode};
use mancala_mcts::{NodeId, Search, SearchConfig, UniformEvaluator, outcome_utility};
use mancala_rules::{Action, Game, Line, Player, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

const S: Player = Player::South;
const N: Player = Player::North;

fn config(simulations: u32, solver: bool) -> SearchConfig {
    SearchConfig { simulations, solver, ..SearchConfig::default() }
}

/// South's move 0 looks best to the network (prior .9, value +.8 for South) but lets North
/// win at once (North's reply 0 ends the game); move 1 is a quiet position valued 0.
fn trap() -> ToyGame {
    ToyGame::new(vec![
        ToyNode::inner(S, &[1, 4], &[0.9, 0.1], 0.0),
        // After South's move 0: North to move, valued -.8 for North; reply 0 wins for North.
        ToyNode::inner(N, &[2, 3], &[0.2, 0.8], -0.8),
        ToyNode::end(S, Some(N)),
        ToyNode::inner(S, &[5], &[1.0], 0.8),
        ToyNode::inner(N, &[5], &[1.0], 0.0),
        ToyNode::inner(N, &[5], &[1.0], 0.0),
    ])
}

/// The toy game's positions never end but at node 2, so node 5 loops to itself: fine for a
/// tree (no repetition rule in the toy game), and its value stays the evaluator's.
fn root_child(search: &Search<ToyGame>, action: Action) -> NodeId {
    search.tree().children(NodeId::ROOT).find(|&c| search.tree().action(c) == action).unwrap()
}

#[test]
fn a_move_that_lets_the_opponent_win_is_proven_lost_and_left_alone() {
    let mut search = Search::new(trap(), config(200, true), 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    let trap_move = root_child(&search, 0);
    assert_eq!(t.bounds(trap_move), (-1.0, -1.0), "South's move 0 is a proven loss");
    // Proven after North's winning reply was first tried: from then on no visit goes there.
    assert!(t.visits(trap_move) < 10, "the lost move kept being searched: {} visits", t.visits(trap_move));
    // The root is not solved (move 1 is unknown).
    assert!(!t.is_solved(NodeId::ROOT));
    assert_eq!(t.bounds_for_side(NodeId::ROOT), (-1.0, 1.0));
    assert_eq!(search.select_action(0.0), Some(1));
    let mut target = [0.0; 2];
    search.policy_target(&mut target);
    assert_eq!(target, [0.0, 1.0], "the lost move is out of the policy target");
}

#[test]
fn without_the_solver_the_same_search_keeps_visiting_the_lost_move() {
    let mut search = Search::new(trap(), config(200, false), 1);
    search.run(&mut ToyEvaluator::default());
    let trap_move = root_child(&search, 0);
    assert!(search.tree().visits(trap_move) >= 10, "{} visits", search.tree().visits(trap_move));
    assert_eq!(search.tree().bounds(trap_move), (-1.0, 1.0), "nothing is proven without the solver");
}

/// A move that wins at once (by 1 seed of 0: the toy game has no seeds, so its margin share is
/// at most the whole): with margin weight 0 a win is worth 1, the most any move can be worth,
/// so the root is solved by it and the search stops.
#[test]
fn a_root_with_a_winning_move_is_solved_and_stops() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2, 3], &[0.6, 0.3, 0.1], 0.0),
        ToyNode::inner(N, &[1], &[1.0], 0.2),
        ToyNode::inner(N, &[2], &[1.0], 0.1),
        ToyNode::end(N, Some(S)),
    ]);
    let mut search = Search::new(game, config(400, true), 1);
    search.run(&mut ToyEvaluator::default());
    assert!(search.is_done());
    assert!(search.tree().is_solved(NodeId::ROOT));
    assert!(search.simulations_done() < 400, "a solved root ends the search: {}", search.simulations_done());
    assert_eq!(search.root_value(), 1.0);
    assert_eq!(search.select_action(0.0), Some(2));
    let mut target = [0.0; 3];
    search.policy_target(&mut target);
    assert_eq!(target, [0.0, 0.0, 1.0]);
}

/// R (south) -> X (south again, an extra turn) -> either Y (North wins at once) or Z (North
/// wins at once): every line loses for South through the extra turn, so R is solved at -1
/// for South, and the bounds keep their sign across the extra turn.
#[test]
fn bounds_keep_their_sign_across_an_extra_turn() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1], &[1.0], 0.5),
        ToyNode::inner(S, &[2, 3], &[0.5, 0.5], 0.5),
        ToyNode::end(N, Some(N)),
        ToyNode::end(N, Some(N)),
    ]);
    let mut search = Search::new(game, config(50, true), 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    assert!(t.is_solved(NodeId::ROOT));
    assert_eq!(t.bounds_for_side(NodeId::ROOT), (-1.0, -1.0));
    let x = root_child(&search, 0);
    assert_eq!(t.mover(x), S);
    assert_eq!(t.bounds(x), (-1.0, -1.0), "X's mover (South) loses");
    assert_eq!(search.root_value(), -1.0);
}

/// A proven value overrules a better-visited but unproven move: South's move 1 draws at
/// once; move 0 has the larger prior, and the network says South loses after it (+.5 for
/// North, who then moves on and on). The root is sure of the draw but not solved (move 0
/// might still be anything), and plays the draw.
#[test]
fn a_proven_value_above_the_picks_mean_is_played() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2], &[0.95, 0.05], 0.0),
        ToyNode::inner(N, &[1], &[1.0], 0.5),
        ToyNode::end(N, None),
    ]);
    let mut search = Search::new(game, config(60, true), 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    let draw = root_child(&search, 1);
    assert!(t.is_solved(draw));
    assert!(!t.is_solved(NodeId::ROOT));
    assert_eq!(t.bounds_for_side(NodeId::ROOT), (0.0, 1.0));
    assert!(t.visits(root_child(&search, 0)) > t.visits(draw), "the prior leads the visits");
    assert_eq!(search.select_action(0.0), Some(1));
    // Without the solver the most visited move is played.
    let mut plain = Search::new(search.game().clone(), config(60, false), 1);
    plain.run(&mut ToyEvaluator::default());
    assert_eq!(plain.select_action(0.0), Some(0));
}

/// Tree reuse keeps the bounds: after the move into a solved child the root is solved.
#[test]
fn advance_into_a_solved_child_keeps_it_solved() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2], &[0.5, 0.5], 0.0),
        ToyNode::inner(N, &[3, 3], &[0.5, 0.5], 0.0),
        ToyNode::inner(N, &[2], &[1.0], 0.0),
        ToyNode::end(S, Some(N)),
    ]);
    let mut search = Search::new(game, config(100, true), 1);
    search.run(&mut ToyEvaluator::default());
    let lost = root_child(&search, 0);
    assert!(search.tree().is_solved(lost));
    search.advance(0);
    assert!(search.tree().is_solved(NodeId::ROOT));
    assert_eq!(search.tree().bounds_for_side(NodeId::ROOT), (1.0, 1.0), "North wins from here");
    assert!(search.is_done());
}

/// The exact utility of `pos` for its player to move under best play, by full negamax.
fn exact<G: Game>(game: &G, pos: &G::Position, weight: f32) -> f32 {
    let side = game.side_to_move(pos);
    if let Some(o) = game.status(pos).outcome() {
        return outcome_utility(game, o, side, weight);
    }
    let mut best = f32::NEG_INFINITY;
    for a in game.legal_moves(pos) {
        let mut next = *pos;
        game.play_unchecked(&mut next, a);
        let v = exact(game, &next, weight);
        best = best.max(if game.side_to_move(&next) == side { v } else { -v });
    }
    best
}

/// On Kalah endgames small enough to read to the end, a search guided by nothing (uniform
/// priors, value 0) with the solver solves the root, and its value is negamax's exactly;
/// the move it plays keeps that value.
#[test]
fn solved_kalah_endgames_agree_with_negamax() {
    let game = parse_rules("kalah").unwrap();
    let mut rng = SmallRng::seed_from_u64(9);
    let mut checked = 0;
    while checked < 40 {
        let mut line = Line::new(game.clone());
        while !line.status().is_over() && game.pits(line.position()).iter().map(|&p| u32::from(p)).sum::<u32>() > 7 {
            let legal: Vec<_> = line.legal_moves().iter().collect();
            line.play(legal[rng.random_range(0..legal.len())]).unwrap();
        }
        if line.status().is_over() {
            continue;
        }
        let pos = *line.position();
        for weight in [0.0f32, 0.3] {
            let c = SearchConfig { margin_utility: weight, leaves_per_gather: 4, ..config(200_000, true) };
            let mut search = Search::new(game.clone(), c, 3);
            search.set_root_line(&line);
            search.run(&mut UniformEvaluator);
            assert!(search.tree().is_solved(NodeId::ROOT), "{}: not solved", game.display(&pos));
            let want = exact(&game, &pos, weight);
            assert!(
                (search.root_value() - want).abs() < 1e-6,
                "{}: {} != {want}",
                game.display(&pos),
                search.root_value()
            );
            let a = search.select_action(0.0).unwrap();
            let mut next = pos;
            game.play_unchecked(&mut next, a);
            let side = game.side_to_move(&pos);
            let v = exact(&game, &next, weight);
            let v = if game.side_to_move(&next) == side { v } else { -v };
            assert!((v - want).abs() < 1e-6, "{}: the move played gives {v}, not {want}", game.display(&pos));
        }
        checked += 1;
    }
}
