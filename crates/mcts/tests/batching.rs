//! Batched search: gather / evaluate / apply with several leaves a search and several
//! searches a call. Exact simulation counts, no leaf handed out twice, in-flight counts back to
//! zero, and the same choices as the one-at-a-time search on simple positions.

mod common;

use common::{HashEvaluator, position};
use mancala_mcts::{Evaluator, NodeId, NodeState, RootKind, Search, SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, AnyPosition, Game, parse_rules};

/// Runs `searches` together, one evaluator call a round for all their leaves, checking the
/// bookkeeping after every gather and apply. Returns the batch sizes of the calls.
fn run_together(searches: &mut [Search<AnyGame>], eval: &mut HashEvaluator) -> Vec<usize> {
    let game = searches[0].game().clone();
    let a = game.action_space();
    let mut leaves: Vec<AnyPosition> = Vec::new();
    let mut counts = vec![0usize; searches.len()];
    let mut sizes = Vec::new();
    let mut rounds = 0;
    while searches.iter().any(|s| !s.is_done()) {
        rounds += 1;
        assert!(rounds < 100_000, "batched search does not finish");
        leaves.clear();
        for (k, s) in searches.iter_mut().enumerate() {
            let before = leaves.len();
            let sims_before = s.simulations_done();
            counts[k] = s.gather(&mut leaves);
            assert_eq!(leaves.len() - before, counts[k]);
            assert!(counts[k] <= s.config().leaves_per_gather);
            let t = s.tree();
            let pending = t.node_ids().filter(|&n| t.state(n) == NodeState::Pending).count();
            // Each leaf handed out is a different node: as many pending nodes as leaves.
            assert_eq!(pending, counts[k], "a leaf was handed out twice");
            // Every pending leaf holds one in-flight count at the root.
            assert_eq!(t.in_flight(NodeId::ROOT) as usize, counts[k]);
            // Never more in use than the budget.
            assert!(s.simulations_done() + counts[k] as u32 <= s.config().simulations);
            assert!(s.simulations_done() >= sims_before);
        }
        if leaves.is_empty() {
            continue;
        }
        sizes.push(leaves.len());
        let mut policies = vec![0.0; leaves.len() * a];
        let mut values = vec![0.0; leaves.len()];
        eval.evaluate(&game, &leaves, &mut policies, &mut values);
        let mut at = 0;
        for (k, s) in searches.iter_mut().enumerate() {
            let n = counts[k];
            s.apply(&policies[at * a..(at + n) * a], &values[at..at + n]);
            at += n;
            assert!(s.tree().node_ids().all(|n| s.tree().in_flight(n) == 0), "in-flight counts left after apply");
            assert!(s.tree().node_ids().all(|n| s.tree().state(n) != NodeState::Pending));
        }
    }
    sizes
}

fn config(simulations: u32, leaves: usize) -> SearchConfig {
    SearchConfig { simulations, leaves_per_gather: leaves, ..SearchConfig::default() }
}

#[test]
fn several_leaves_per_gather_complete_the_exact_budget() {
    for rules in ["oware", "kalah", "ouril", "owela"] {
        let game = parse_rules(rules).unwrap();
        for leaves in [2, 8, 32] {
            let mut searches = vec![Search::new(game.clone(), config(500, leaves), 1)];
            let sizes = run_together(&mut searches, &mut HashEvaluator::default());
            let s = &searches[0];
            assert_eq!(s.simulations_done(), 500, "{rules} x{leaves}");
            // A fresh root: every simulation passed through it, its own evaluation included.
            assert_eq!(s.tree().visits(NodeId::ROOT), 500, "{rules} x{leaves}");
            let kids: u32 = s.root_children().iter().map(|k| k.visits).sum();
            assert_eq!(kids, 499, "{rules} x{leaves}");
            assert!(sizes.iter().any(|&n| n > 1), "{rules} x{leaves}: never batched: {sizes:?}");
            assert!(sizes.iter().all(|&n| n <= leaves));
        }
    }
}

#[test]
fn two_searches_share_one_evaluator_call() {
    let game = parse_rules("kalah").unwrap();
    let a = Search::new(game.clone(), config(300, 4), 1);
    let mut b = Search::new(game.clone(), config(200, 8), 2);
    // b starts a move later, so the two trees differ.
    b.advance(2);
    let mut pair = vec![a, b];
    let mut eval = HashEvaluator::default();
    let sizes = run_together(&mut pair, &mut eval);
    assert_eq!(pair[0].simulations_done(), 300);
    assert_eq!(pair[1].simulations_done(), 200);
    assert_eq!(pair[0].tree().visits(NodeId::ROOT), 300);
    assert_eq!(pair[1].tree().visits(NodeId::ROOT), 200);
    assert_eq!(eval.calls as usize, sizes.len(), "one evaluator call a round");
    assert!(sizes.iter().any(|&n| n > 8), "leaves of both searches in one call: {sizes:?}");
    assert_eq!(eval.positions, 300 + 200 - terminal_visits(&pair[0]) - terminal_visits(&pair[1]));
}

/// Simulations that ended on a finished position (no evaluation).
fn terminal_visits<G: Game>(s: &Search<G>) -> u64 {
    let t = s.tree();
    t.node_ids().filter(|&i| t.state(i) == NodeState::Terminal).map(|i| u64::from(t.visits(i))).sum()
}

/// Simple positions with one clearly best move: batched and one-at-a-time search agree.
#[test]
fn batched_search_chooses_like_the_unbatched_one() {
    let cases = [
        // Oware: F captures 3 in a for a majority.
        ("oware", "south | 22 20 | 0 0 0 0 1 1 2 0 2 0 0 0 | ongoing", 5),
        // Oware: D, then the forced a, then F captures b.
        ("oware", "south | 23 21 | 0 0 0 2 0 1 1 0 0 0 0 0 | ongoing", 3),
        // Kalah: the extra-turn chain F, E, F.
        ("kalah", "south | 22 19 | 0 0 0 0 2 1 4 0 0 0 0 0 | ongoing", 5),
    ];
    for (rules, line, best) in cases {
        let (game, pos) = position(rules, line);
        for root in [RootKind::Puct, RootKind::Gumbel] {
            let mut chosen = Vec::new();
            for leaves in [1, 4, 16] {
                let cfg = SearchConfig { simulations: 300, leaves_per_gather: leaves, root, ..SearchConfig::default() };
                let mut s = Search::new(game.clone(), cfg, 5);
                s.set_root(pos, std::iter::empty());
                s.run(&mut UniformEvaluator);
                assert_eq!(s.simulations_done(), 300);
                chosen.push(s.select_action(0.0).unwrap());
            }
            assert_eq!(chosen, vec![best; 3], "{rules} {line} {root:?}");
        }
    }
}

/// A batch may stop early at a collision (a leaf already pending) but still makes progress:
/// on a root with a single legal move every second descent collides.
#[test]
fn collisions_end_a_gather_without_losing_simulations() {
    let (game, pos) = position("oware", "south | 20 24 | 0 0 0 0 0 1 0 0 0 0 0 3 | ongoing");
    assert_eq!(game.legal_moves(&pos).len(), 1);
    let mut s = Search::new(game.clone(), config(50, 8), 1);
    s.set_root(pos, std::iter::empty());
    let mut searches = vec![s];
    run_together(&mut searches, &mut HashEvaluator::default());
    assert!(searches[0].is_done());
    assert_eq!(searches[0].simulations_done(), 50);
}
