//! Value signs: each node's value is from the view of the player who moved into it, and the
//! sign flips only where the player to move changes, so Kalah and Ouril extra turns keep it.

mod common;

use common::{HashEvaluator, ToyEvaluator, ToyGame, ToyNode, a_few_plies_in, check_sums, position};
use mancala_mcts::{Evaluator, NodeId, NodeState, RolloutEvaluator, Search, SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, Game, Player, parse_rules};

const S: Player = Player::South;
const N: Player = Player::North;

/// R (south) -> X (south again: an extra turn) -> Y (north) -> Z (over, north won), one move
/// each; evaluations R +.3 and X +.5 for south, Y +.7 for north. One simulation at a time:
///
/// 1. R: R +.3
/// 2. X: +.5 for south; X's and R's movers are south: X +.5, R +.5
/// 3. Y: +.7 for north; Y's mover (south, who moved at X) gets -.7, so do X and R
/// 4. Z: over, -1 for south (to move at Z): Z's mover north +1; Y, X, R (movers south) -1
#[test]
fn backup_along_an_extra_turn_by_hand() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1], &[1.0], 0.3),
        ToyNode::inner(S, &[2], &[1.0], 0.5),
        ToyNode::inner(N, &[3], &[1.0], 0.7),
        ToyNode::end(S, Some(N)),
    ]);
    let config = SearchConfig { simulations: 4, ..SearchConfig::default() };
    let mut search = Search::new(game, config, 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    // The line is R, X, Y, Z in creation order.
    let expect = [(S, 4, 0.3 + 0.5 - 0.7 - 1.0), (S, 3, 0.5 - 0.7 - 1.0), (S, 2, -0.7 - 1.0), (N, 1, 1.0)];
    for (i, (mover, n, w)) in expect.into_iter().enumerate() {
        let i = NodeId(i as u32);
        assert_eq!(t.mover(i), mover, "mover of node {i}");
        assert_eq!(t.visits(i), n, "visits of node {i}");
        assert!((t.value_sum(i) - w).abs() < 1e-6, "value of node {i}: {} != {w}", t.value_sum(i));
    }
    // From the view of the player to move there: Y is north's turn.
    assert!((t.value_for_side(NodeId(2)).unwrap() - 0.85).abs() < 1e-6);
    assert!((t.value_for_side(NodeId(1)).unwrap() + 0.4).abs() < 1e-6);
    assert_eq!(t.state(NodeId(3)), NodeState::Terminal);
    assert_eq!(t.terminal_value(NodeId(3)), -1.0);
}

/// The Kalah position of the alpha-beta test: F, E, F is an extra-turn chain that wins 25-23;
/// E first draws 24-24. Every value below the root comes from exact results (the evaluator
/// says 0 everywhere), so the search must find F with a clearly positive value.
#[test]
fn kalah_extra_turn_line_is_preferred_for_south() {
    let (game, pos) = position("kalah", "south | 22 19 | 0 0 0 0 2 1 4 0 0 0 0 0 | ongoing");
    check_extra_turn_win(&game, pos, S);
}

/// The same position mirrored, North to move: signs must not depend on who is South.
#[test]
fn kalah_extra_turn_line_is_preferred_for_north() {
    let (game, pos) = position("kalah", "north | 19 22 | 4 0 0 0 0 0 0 0 0 0 2 1 | ongoing");
    check_extra_turn_win(&game, pos, N);
}

fn check_extra_turn_win(game: &AnyGame, pos: mancala_rules::AnyPosition, mover: Player) {
    assert_eq!(game.side_to_move(&pos), mover);
    for config in [
        SearchConfig { simulations: 60, ..SearchConfig::default() },
        SearchConfig { simulations: 60, root: mancala_mcts::RootKind::Gumbel, ..SearchConfig::default() },
    ] {
        let mut search = Search::new(game.clone(), config.clone(), 3);
        search.set_root(pos, std::iter::empty());
        search.run(&mut UniformEvaluator);
        let kids = search.root_children();
        let f = kids.iter().find(|k| k.action == 5).unwrap();
        let e = kids.iter().find(|k| k.action == 4).unwrap();
        assert!(f.q.unwrap() > 0.5, "{:?}: F is a forced win: {kids:?}", config.root);
        assert!(e.q.unwrap().abs() < 0.5, "{:?}: E is a forced draw: {kids:?}", config.root);
        assert_eq!(search.select_action(0.0), Some(5), "{:?}: {kids:?}", config.root);
        assert!(search.root_value() > 0.3, "{:?}: {}", config.root, search.root_value());
        // The finished position after F, E, F still has the mover to move, worth +1 to them.
        let t = search.tree();
        let mut node = NodeId::ROOT;
        for a in [5, 4, 5] {
            node = t.children(node).find(|&c| t.action(c) == a).expect("the chain is searched");
            assert_eq!(t.mover(node), mover);
        }
        assert_eq!(t.state(node), NodeState::Terminal);
        assert_eq!((t.side(node), t.terminal_value(node)), (mover, 1.0));
    }
}

/// Every node's statistics are the sum of what passed through it: its own evaluation (or its
/// exact result) plus its children's sums, each signed by whether the child's mover is the
/// same player. Checked over whole trees of real games with extra turns (Kalah, Ouril) and
/// without (Oware), after batched searches with a deterministic evaluator.
#[test]
fn every_node_sums_its_children_with_the_right_signs() {
    for rules in ["kalah", "kalah:4,3", "ouril", "oware"] {
        let line = a_few_plies_in(rules);
        let game = line.game().clone();
        for leaves in [1, 4] {
            let config = SearchConfig { simulations: 600, leaves_per_gather: leaves, ..SearchConfig::default() };
            let mut search = Search::new(game.clone(), config, 9);
            search.set_root_line(&line);
            search.run(&mut HashEvaluator::default());
            check_sums(&search, rules);
            // With rollouts as well: values of +-1 and 0.
            let mut search = Search::new(game.clone(), SearchConfig { simulations: 300, ..SearchConfig::default() }, 9);
            search.set_root_line(&line);
            search.run(&mut RolloutEvaluator::new(4));
            check_sums(&search, rules);
        }
    }
}

/// Extra turns at the root itself: in Kalah's opening, D (4 seeds from the 4th house) ends in
/// South's store. The root child's statistics are from South's view, its own player to move is
/// South as well, and its q in root_children equals its value for the side to move there.
#[test]
fn root_child_with_an_extra_turn_reports_q_for_the_root_player() {
    let game = parse_rules("kalah").unwrap();
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 400, ..SearchConfig::default() }, 2);
    search.run(&mut HashEvaluator::default());
    let t = search.tree();
    let d = t.children(NodeId::ROOT).find(|&c| t.action(c) == 2).unwrap();
    assert_eq!(t.side(d), S, "C (action 2) sows 4 seeds, the last one into South's store");
    let q = search.root_children().iter().find(|k| k.action == 2).unwrap().q.unwrap();
    assert!((q - t.value_for_side(d).unwrap()).abs() < 1e-6);
    let other = t.children(NodeId::ROOT).find(|&c| t.action(c) == 0).unwrap();
    assert_eq!(t.side(other), N);
    let q0 = search.root_children().iter().find(|k| k.action == 0).unwrap().q.unwrap();
    assert!((q0 + t.value_for_side(other).unwrap()).abs() < 1e-6);
}

/// The evaluator is never asked about a finished position.
#[test]
fn finished_positions_are_not_evaluated() {
    struct Strict(HashEvaluator);
    impl<G: Game> Evaluator<G> for Strict {
        fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
            for p in positions {
                assert!(!game.status(p).is_over(), "finished position sent to the evaluator");
            }
            self.0.evaluate(game, positions, policies, values);
        }
    }
    let (game, pos) = position("kalah", "south | 22 19 | 0 0 0 0 2 1 4 0 0 0 0 0 | ongoing");
    let mut search =
        Search::new(game, SearchConfig { simulations: 200, leaves_per_gather: 4, ..SearchConfig::default() }, 1);
    search.set_root(pos, std::iter::empty());
    search.run(&mut Strict(HashEvaluator::default()));
    assert_eq!(search.simulations_done(), 200);
}
