//! Tree reuse: `advance` keeps the chosen child's subtree exactly, the search continues from
//! it to a full new budget, and advancing into unexpanded, pending or finished children works.

mod common;

use std::collections::HashMap;

use common::{HashEvaluator, check_sums, position};
use mancala_mcts::{NodeId, NodeState, RootKind, Search, SearchConfig};
use mancala_rules::{Action, AnyGame, Game, parse_rules};

/// Node statistics by action path from the root.
type Snapshot = HashMap<Vec<Action>, (u32, f32, f32, NodeState, Option<u64>)>;

fn snapshot(search: &Search<AnyGame>, from: &[Action]) -> Snapshot {
    let t = search.tree();
    let mut start = NodeId::ROOT;
    for &a in from {
        start = t.children(start).find(|&c| t.action(c) == a).unwrap();
    }
    let mut out = HashMap::new();
    let mut stack = vec![(start, Vec::new())];
    while let Some((node, path)) = stack.pop() {
        // A fresh node has no position (nor hash) yet.
        let hash = (t.state(node) != NodeState::Fresh).then(|| t.hash(node));
        out.insert(path.clone(), (t.visits(node), t.value_sum(node), t.prior(node), t.state(node), hash));
        for c in t.children(node) {
            let mut p = path.clone();
            p.push(t.action(c));
            stack.push((c, p));
        }
    }
    out
}

fn most_visited(search: &Search<AnyGame>) -> Action {
    search.root_children().iter().max_by_key(|k| k.visits).unwrap().action
}

#[test]
fn advance_keeps_the_childs_subtree_exactly() {
    for rules in ["kalah", "oware", "ouril"] {
        let game = parse_rules(rules).unwrap();
        let config = SearchConfig { simulations: 400, ..SearchConfig::default() };
        let mut search = Search::new(game.clone(), config, 3);
        search.run(&mut HashEvaluator::default());
        let a = most_visited(&search);
        let mut before = snapshot(&search, &[a]);
        let child_visits = before[&Vec::new()].0;
        assert!(child_visits > 20, "{rules}");
        search.advance(a);
        // The pose of the old child as a root: its priors are not the root's any more.
        let mut after = snapshot(&search, &[]);
        assert_eq!(search.tree().len(), before.len(), "{rules}: the copy holds the subtree and nothing else");
        before.get_mut(&Vec::new()).unwrap().2 = 0.0;
        after.get_mut(&Vec::new()).unwrap().2 = 0.0;
        assert_eq!(after, before, "{rules}");
        assert_eq!(search.tree().visits(NodeId::ROOT), child_visits);
        assert_eq!(search.simulations_done(), 0);
        let mut expected = game.start();
        game.play_unchecked(&mut expected, a);
        assert_eq!(*search.root_position(), expected);
        check_sums(&search, rules);

        // A full new budget on top of what was kept.
        search.run(&mut HashEvaluator::default());
        assert_eq!(search.simulations_done(), 400, "{rules}");
        assert_eq!(search.tree().visits(NodeId::ROOT), child_visits + 400, "{rules}");
        check_sums(&search, rules);
    }
}

#[test]
fn advance_into_an_unvisited_child_starts_a_fresh_root() {
    let game = parse_rules("kalah").unwrap();
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 3, ..SearchConfig::default() }, 1);
    search.run(&mut HashEvaluator::default());
    let unvisited = search.root_children().iter().find(|k| k.visits == 0).unwrap().action;
    search.advance(unvisited);
    let mut expected = game.start();
    game.play_unchecked(&mut expected, unvisited);
    assert_eq!(*search.root_position(), expected);
    assert_eq!(search.tree().len(), 1);
    assert_eq!(search.tree().state(NodeId::ROOT), NodeState::Unevaluated);
    assert!(search.root_children().is_empty());
    search.config_mut().simulations = 100;
    search.run(&mut HashEvaluator::default());
    assert_eq!(search.simulations_done(), 100);
    assert_eq!(search.tree().visits(NodeId::ROOT), 100);
    check_sums(&search, "kalah");
}

#[test]
fn advance_before_the_root_was_evaluated() {
    let game = parse_rules("oware").unwrap();
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 50, ..SearchConfig::default() }, 1);
    search.advance(3);
    search.advance(1);
    let mut expected = game.start();
    game.play_unchecked(&mut expected, 3);
    game.play_unchecked(&mut expected, 1);
    assert_eq!(*search.root_position(), expected);
    search.run(&mut HashEvaluator::default());
    assert_eq!(search.simulations_done(), 50);
}

/// Leaves handed out and never applied (a game abandoned mid-batch) leave nothing behind.
#[test]
fn advance_with_pending_leaves_forgets_them() {
    let game = parse_rules("oware").unwrap();
    let config = SearchConfig { simulations: 200, leaves_per_gather: 8, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    search.run(&mut HashEvaluator::default());
    let mut leaves = Vec::new();
    let n = search.gather(&mut leaves);
    assert_eq!(n, 0, "the budget is spent");
    search.config_mut().simulations = 400;
    let n = search.gather(&mut leaves);
    assert!(n > 1, "a batch is out: {n}");
    let a = most_visited(&search);
    search.advance(a);
    let t = search.tree();
    assert!(t.node_ids().all(|n| t.in_flight(n) == 0));
    assert!(t.node_ids().all(|n| t.state(n) != NodeState::Pending));
    assert!(!search.is_done());
    search.run(&mut HashEvaluator::default());
    assert_eq!(search.simulations_done(), 400);
    check_sums(&search, "oware");
}

#[test]
fn advance_into_a_finished_child_makes_a_finished_root() {
    let (game, pos) = position("oware", "south | 22 20 | 0 0 0 0 1 1 2 0 2 0 0 0 | ongoing");
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 50, ..SearchConfig::default() }, 1);
    search.set_root(pos, std::iter::empty());
    search.run(&mut HashEvaluator::default());
    assert_eq!(search.select_action(0.0), Some(5));
    search.advance(5);
    assert!(search.is_done());
    assert_eq!(search.select_action(0.0), None);
    // North is to move in a game South won.
    assert_eq!(search.root_value(), -1.0);
    let mut leaves = Vec::new();
    assert_eq!(search.gather(&mut leaves), 0);
    search.run(&mut HashEvaluator::default());
    assert_eq!(search.simulations_done(), 0);
}

/// Gumbel root and Dirichlet noise are set up again for the new root.
#[test]
fn advance_sets_up_the_new_root() {
    let game = parse_rules("kalah").unwrap();
    for root in [RootKind::Puct, RootKind::Gumbel] {
        let config = SearchConfig { simulations: 300, root, dirichlet_noise: true, ..SearchConfig::default() };
        let mut search = Search::new(game.clone(), config, 7);
        search.run(&mut HashEvaluator::default());
        let a = search.select_action(0.0).unwrap();
        search.advance(a);
        let priors: f32 = search.root_children().iter().map(|k| k.prior).sum();
        assert!((priors - 1.0).abs() < 1e-4, "{root:?}: {priors}");
        search.run(&mut HashEvaluator::default());
        assert_eq!(search.simulations_done(), 300, "{root:?}");
        let b = search.select_action(0.0).unwrap();
        assert!(game.legal_moves(search.root_position()).contains(b));
        let mut target = vec![0.0; game.action_space()];
        search.policy_target(&mut target);
        assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{root:?}: {target:?}");
        for (a, p) in target.iter().enumerate() {
            assert!(*p == 0.0 || game.legal_moves(search.root_position()).contains(a as Action));
        }
    }
}

/// The agent's tree reuse: a search of a line that continues the last one keeps the visits
/// under the moves played since and adds its simulations; any other line, a new game, or
/// reuse off searches afresh, and the root always stands at the line's position.
#[test]
fn a_reusing_agent_keeps_the_tree_of_the_moves_played_since() {
    use mancala_mcts::{Agent, SearchAgent};
    use mancala_rules::Line;
    let game = parse_rules("oware").unwrap();
    let sims = 300;
    let config = SearchConfig { simulations: sims, ..SearchConfig::default() };
    let agent = |reuse| {
        SearchAgent::new(game.clone(), config.clone(), HashEvaluator::default(), 1, "t".into()).with_reuse(reuse)
    };
    let root_visits = |a: &SearchAgent<AnyGame, HashEvaluator>| a.search().tree().visits(NodeId::ROOT);
    let (mut reusing, mut fresh) = (agent(true), agent(false));
    let mut line = Line::new(game.clone());
    let (mut kept, mut kept_any) = (0, false);
    for _ in 0..8 {
        let ours = reusing.choose(&line);
        fresh.choose(&line);
        for a in [&reusing, &fresh] {
            assert_eq!(a.search().root_position(), line.position());
            assert_eq!(a.search().simulations_done(), sims);
        }
        // Fresh: the budget alone. Reusing: the budget on top of the visits kept.
        assert!(root_visits(&fresh) <= sims + 1, "{}", root_visits(&fresh));
        assert!(root_visits(&reusing) + 1 >= sims + kept, "{} after keeping {kept}", root_visits(&reusing));
        // The agent's move, then the reply its own tree visited most.
        let t = reusing.search().tree();
        let child = t.children(NodeId::ROOT).find(|&c| t.action(c) == ours).unwrap();
        let Some((visits, reply)) = t.children(child).map(|c| (t.visits(c), t.action(c))).max() else { break };
        line.play(ours).unwrap();
        line.play(reply).unwrap();
        if line.status().is_over() {
            break;
        }
        kept = visits;
        kept_any |= kept > 1;
    }
    assert!(kept_any, "no reply was visited twice");

    // A line that does not continue the last one searched (moves taken back past it) starts
    // afresh, and so does a new game.
    for _ in 0..3 {
        line.undo();
    }
    reusing.analyse(&line);
    assert_eq!(reusing.search().root_position(), line.position());
    assert!(root_visits(&reusing) <= sims + 1);
    let mut other = Line::new(game.clone());
    reusing.choose(&other);
    for _ in 0..2 {
        let first = other.legal_moves().iter().next().unwrap();
        other.play(first).unwrap();
    }
    reusing.new_game(2);
    reusing.analyse(&other);
    assert!(root_visits(&reusing) <= sims + 1);
}
