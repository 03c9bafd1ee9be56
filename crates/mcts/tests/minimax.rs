//! Implicit minimax backups (Lanctot et al. 2014): each node keeps the minimax of the
//! evaluations in its subtree beside its mean, and selection and the final pick read a blend
//! of the two. Checked by hand on a toy tree, as an invariant over real trees with extra
//! turns, and for what the blend changes.

mod common;

use common::{HashEvaluator, ToyEvaluator, ToyGame, ToyNode, a_few_plies_in, check_sums};
use mancala_mcts::{NodeId, NodeState, Search, SearchConfig};
use mancala_rules::Player;

const S: Player = Player::South;
const N: Player = Player::North;

fn config(simulations: u32, weight: f32) -> SearchConfig {
    SearchConfig { simulations, minimax_weight: weight, ..SearchConfig::default() }
}

/// R (South, value 0) -> A (North to move, valued -.2 for North), whose replies are a1
/// (South to move, +.6 for South) and a2 (South to move, -.4 for South, so +.4 for North).
/// After four simulations (R, A, then A's two replies), A's mean from South's view is
/// (.2 + .6 - .4) / 3 and its minimax is North's best reply, a2: -.4 for South.
#[test]
fn minimax_by_hand() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1], &[1.0], 0.0),
        ToyNode::inner(N, &[2, 3], &[0.5, 0.5], -0.2),
        ToyNode::inner(S, &[2], &[1.0], 0.6),
        ToyNode::inner(S, &[3], &[1.0], -0.4),
    ]);
    let mut search = Search::new(game, config(4, 0.5), 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    let a = t.children(NodeId::ROOT).next().unwrap();
    assert_eq!(t.visits(a), 3);
    assert!((t.value_sum(a) / 3.0 - 0.4 / 3.0).abs() < 1e-6);
    let kids: Vec<NodeId> = t.children(a).collect();
    assert_eq!(t.minimax(kids[0]), Some(-0.6), "a1 from North's view (its mover)");
    assert_eq!(t.minimax(kids[1]), Some(0.4));
    assert_eq!(t.minimax(a), Some(-0.4), "North plays a2: -.4 for South, A's mover");
    assert_eq!(t.minimax(NodeId::ROOT), Some(-0.4), "the root's only line");
    // The root child's q is the blend: half the mean, half the minimax.
    let q = search.root_children()[0].q.unwrap();
    assert!((q - (0.5 * 0.4 / 3.0 - 0.5 * 0.4)).abs() < 1e-6, "q {q}");
    // Without the weight, q is the mean and nothing keeps a minimax above the leaves.
    let mut plain = Search::new(search.game().clone(), config(4, 0.0), 1);
    plain.run(&mut ToyEvaluator::default());
    assert!((plain.root_children()[0].q.unwrap() - 0.4 / 3.0).abs() < 1e-6);
}

/// Over whole trees of real games (extra turns in Kalah and Ouril), after batched searches:
/// every expanded node's minimax is the best of its evaluated children's for its player to
/// move (its own evaluation while none is), signed for its mover; a finished game's is its
/// exact value. The visit and value sums stay what they are without the weight.
#[test]
fn every_node_holds_the_minimax_of_its_children() {
    for rules in ["kalah", "ouril", "oware"] {
        let line = a_few_plies_in(rules);
        let game = line.game().clone();
        for leaves in [1, 4] {
            let c = SearchConfig { leaves_per_gather: leaves, ..config(800, 0.3) };
            let mut search = Search::new(game.clone(), c, 5);
            search.set_root_line(&line);
            search.run(&mut HashEvaluator::default());
            check_sums(&search, rules);
            let t = search.tree();
            for n in t.node_ids() {
                let own = |side_view: f32| if t.side(n) == t.mover(n) { side_view } else { -side_view };
                match t.state(n) {
                    NodeState::Expanded => {
                        let best = t.children(n).filter_map(|c| t.minimax(c)).fold(f32::NEG_INFINITY, f32::max);
                        let want = own(if best == f32::NEG_INFINITY { t.raw_value(n) } else { best });
                        assert_eq!(t.minimax(n), Some(want), "{rules}: node {n}");
                    }
                    NodeState::Terminal => assert_eq!(t.minimax(n), Some(own(t.terminal_value(n))), "{rules}: {n}"),
                    _ => assert_eq!(t.minimax(n), None, "{rules}: node {n} is not evaluated"),
                }
            }
        }
    }
}

/// A move whose one bad reply the mean hides: South's move 0 leads to A, where North has
/// many replies that are fine for South (+.5) and one (prior .15) that is a clear loss for
/// South (-.9); move 1 leads to B, a quiet +.2 for South. The mean over A's replies stays
/// high while the minimax sees North's best; with weight 1 the search plays move 1.
#[test]
fn the_minimax_sees_the_reply_the_mean_averages_away() {
    let mut nodes = vec![
        ToyNode::inner(S, &[1, 2], &[0.5, 0.5], 0.0),
        ToyNode::inner(N, &[3, 4, 5, 6, 7, 8], &[0.17, 0.17, 0.17, 0.17, 0.17, 0.15], -0.5),
        ToyNode::inner(N, &[9], &[1.0], -0.2),
    ];
    for _ in 0..5 {
        nodes.push(ToyNode::inner(S, &[9], &[1.0], 0.5));
    }
    nodes.push(ToyNode::inner(S, &[9], &[1.0], -0.9));
    nodes.push(ToyNode::inner(S, &[9], &[1.0], 0.2));
    let game = ToyGame::new(nodes);
    const SIMULATIONS: u32 = 30;
    let pick = |weight: f32| {
        let mut s = Search::new(game.clone(), config(SIMULATIONS, weight), 1);
        s.run(&mut ToyEvaluator::default());
        s.select_action(0.0).unwrap()
    };
    assert_eq!(pick(0.0), 0, "the mean prefers A");
    assert_eq!(pick(1.0), 1, "the minimax sees North's refutation");
}
