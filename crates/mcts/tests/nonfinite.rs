//! An evaluator that answers NaN or infinite values: every PUCT score at a node can be NaN or
//! -inf, and the search must still pick a child, deterministically (the largest prior, the
//! first of equals), instead of panicking.

mod common;

use common::{ToyEvaluator, ToyGame, ToyNode};
use mancala_mcts::{NodeId, RootKind, Search, SearchConfig};
use mancala_rules::Player;

const S: Player = Player::South;
const N: Player = Player::North;

/// ```text
/// 0 R  south  priors A .2  B .5  C .3   value `root_value`
///     1 A over: south won
///     2 B over: north won
///     3 C over: draw
/// ```
fn three_endings(root_value: f32) -> ToyGame {
    ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2, 3], &[0.2, 0.5, 0.3], root_value),
        ToyNode::end(N, Some(S)),
        ToyNode::end(N, Some(N)),
        ToyNode::end(N, None),
    ])
}

fn config(simulations: u32) -> SearchConfig {
    SearchConfig { simulations, ..SearchConfig::default() }
}

/// A NaN root value makes the FPU of every unvisited child NaN, so no score beats -inf: the
/// second simulation takes B, the largest prior. B's value (-1 for south) is a number, so from
/// then on B wins the comparison against the NaN scores of A and C.
#[test]
fn nan_scores_fall_back_to_the_largest_prior() {
    let mut search = Search::new(three_endings(f32::NAN), config(5), 1);
    search.run(&mut ToyEvaluator::default());
    assert_eq!(search.simulations_done(), 5);
    let visits: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
    assert_eq!(visits, vec![0, 4, 0]);
    assert_eq!(search.select_action(0.0), Some(1));
}

/// A root value of -inf makes every unvisited child's score -inf (q = -inf - 0.2, plus a
/// finite exploration term): the same fallback to B.
#[test]
fn minus_infinity_scores_fall_back_to_the_largest_prior() {
    let mut search = Search::new(three_endings(f32::NEG_INFINITY), config(5), 1);
    search.run(&mut ToyEvaluator::default());
    assert_eq!(search.simulations_done(), 5);
    let visits: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
    assert_eq!(visits, vec![0, 4, 0]);
}

/// ```text
/// 0 R  south  priors A .5  B .5   value NaN
/// 1 A  north  priors A1 .3  A2 .7 value NaN
///     3 A1 over: south won
///     4 A2 over: north won
/// 2 B  over: draw
/// ```
/// Every value on A's side is NaN, so every score at R and at A is NaN at every step: R takes
/// A (the first of two equal priors), A takes A2 (the larger prior). With 4 simulations: R,
/// A evaluated, then A2 twice.
#[test]
fn all_nan_everywhere_is_deterministic() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2], &[0.5, 0.5], f32::NAN),
        ToyNode::inner(N, &[3, 4], &[0.3, 0.7], f32::NAN),
        ToyNode::end(N, None),
        ToyNode::end(S, Some(S)),
        ToyNode::end(S, Some(N)),
    ]);
    for seed in [1, 2] {
        let mut search = Search::new(game.clone(), config(4), seed);
        let mut eval = ToyEvaluator::default();
        search.run(&mut eval);
        assert_eq!(eval.batches, vec![vec![0], vec![1]]);
        let visits: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
        assert_eq!(visits, vec![3, 0]);
        let t = search.tree();
        let a = t.children(NodeId::ROOT).next().unwrap();
        let below_a: Vec<u32> = t.children(a).map(|c| t.visits(c)).collect();
        assert_eq!(below_a, vec![0, 2]);
    }
}

/// The Gumbel root ranks its actions with total_cmp and by visit counts: a NaN evaluator
/// runs the whole budget there too.
#[test]
fn gumbel_root_with_nan_values_runs_its_budget() {
    let config = SearchConfig { simulations: 8, root: RootKind::Gumbel, ..SearchConfig::default() };
    let mut search = Search::new(three_endings(f32::NAN), config, 3);
    search.run(&mut ToyEvaluator::default());
    assert_eq!(search.simulations_done(), 8);
    let visits: u32 = search.root_children().iter().map(|k| k.visits).sum();
    assert_eq!(visits, 7);
    assert!(search.select_action(0.0).is_some());
}
