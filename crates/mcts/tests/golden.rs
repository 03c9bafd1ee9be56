//! Golden searches on a tiny hand-made game with a fixed evaluator: visit counts, values,
//! chosen moves and policy targets worked out by hand for PUCT and for the Gumbel root.

mod common;

use common::{ToyEvaluator, ToyGame, ToyNode};
use mancala_mcts::{NodeId, NodeState, RootKind, Search, SearchConfig};
use mancala_rules::{Action, Player};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Gumbel};

const S: Player = Player::South;
const N: Player = Player::North;

/// ```text
/// 0 R  south  priors A .6  B .3  C .1   value +.1 (south)
/// 1 A  north  priors A1 .4  A2 .6       value +.2 (north)
///     4 A1 over: south won
///     5 A2 over: north won
/// 2 B  south again (an extra turn)  priors B1 .7  B2 .3   value +.5 (south)
///     6 B1 north  one move, to B1a      value -.6 (north)
///         8 B1a over: south won
///     7 B2 over: draw
/// 3 C  over: south won
/// ```
fn puct_tree() -> ToyGame {
    ToyGame::new(vec![
        ToyNode::inner(S, &[1, 2, 3], &[0.6, 0.3, 0.1], 0.1),
        ToyNode::inner(N, &[4, 5], &[0.4, 0.6], 0.2),
        ToyNode::inner(S, &[6, 7], &[0.7, 0.3], 0.5),
        ToyNode::end(N, Some(S)),
        ToyNode::end(S, Some(S)),
        ToyNode::end(S, Some(N)),
        ToyNode::inner(N, &[8], &[1.0], -0.6),
        ToyNode::end(N, None),
        ToyNode::end(S, Some(S)),
    ])
}

fn puct_config(simulations: u32) -> SearchConfig {
    SearchConfig { simulations, c_puct: 1.5, fpu_reduction: 0.2, ..SearchConfig::default() }
}

/// The tree node reached from the root by `path`, if it exists.
fn node_at<G: mancala_rules::Game>(search: &Search<G>, path: &[Action]) -> Option<NodeId> {
    let t = search.tree();
    let mut node = NodeId::ROOT;
    for &a in path {
        node = t.children(node).find(|&c| t.action(c) == a)?;
    }
    Some(node)
}

/// (visits, value sum from the view of the node's mover) of the node at `path`.
fn stats<G: mancala_rules::Game>(search: &Search<G>, path: &[Action]) -> (u32, f32) {
    let i = node_at(search, path).unwrap_or_else(|| panic!("no node at {path:?}"));
    (search.tree().visits(i), search.tree().value_sum(i))
}

fn assert_stats<G: mancala_rules::Game>(search: &Search<G>, path: &[Action], visits: u32, sum: f32) {
    let (n, w) = stats(search, path);
    assert_eq!(n, visits, "visits at {path:?}");
    assert!((w - sum).abs() < 1e-5, "value sum at {path:?}: {w}, expected {sum}");
}

/// Four simulations, traced by hand (c = 1.5, FPU reduction 0.2, q of an unvisited child =
/// parent's value - 0.2):
///
/// 1. R is evaluated: R n=1 w=+.1.
/// 2. At R: fpu = .1 - .2 = -.1, sqrt(1) = 1: A -.1+.9 = .8, B -.1+.45 = .35, C -.1+.15 = .05.
///    A is evaluated, +.2 for north = -.2 for south: A n=1 w=-.2, R n=2 w=-.1.
/// 3. At R: value -.05, fpu -.25, sqrt 2: A -.2 + 1.5*.6*1.414/2 = .436, B -.25+.636 = .386,
///    C -.25+.212. A again. At A (north): value +.2, fpu 0: A1 .6, A2 .9: A2, north won:
///    A2 (mover north) +1, A (mover south) -1, R -1. A n=2 w=-1.2, R n=3 w=-1.1.
/// 4. At R: value -.367, fpu -.567, sqrt 3: A -.6+.52 = -.08, B -.567+.779 = .212,
///    C -.567+.26: B, evaluated +.5 for south, the same player as at R: B n=1 w=+.5, R n=4 w=-.6.
#[test]
fn puct_four_simulations_by_hand() {
    let game = puct_tree();
    let mut search = Search::new(game, puct_config(4), 1);
    let mut eval = ToyEvaluator::default();
    search.run(&mut eval);
    assert_eq!(search.simulations_done(), 4);
    assert_stats(&search, &[], 4, -0.6);
    assert_stats(&search, &[0], 2, -1.2);
    assert_stats(&search, &[0, 1], 1, 1.0);
    assert_stats(&search, &[1], 1, 0.5);
    assert_stats(&search, &[2], 0, 0.0);
    // A2 was a finished game: it was never sent to the evaluator.
    assert_eq!(eval.batches, vec![vec![0], vec![1], vec![2]]);
}

/// Twelve simulations (steps 5 to 12 continue the trace above; checked with an independent
/// 40-line script). From step 5 on B wins every comparison at the root: B1 is bad for north
/// (-.6 for north is +.6 for south, and B1's only move reaches a south win), and B is an
/// extra turn, so its values keep their sign all the way up.
#[test]
fn puct_twelve_simulations_golden() {
    let game = puct_tree();
    let mut search = Search::new(game, puct_config(12), 1);
    let mut eval = ToyEvaluator::default();
    search.run(&mut eval);
    assert_eq!(search.simulations_done(), 12);
    // (path, visits, value sum for the node's mover)
    let expected: &[(&[Action], u32, f32)] = &[
        (&[], 12, 6.0),
        (&[0], 2, -1.2),
        (&[0, 0], 0, 0.0),
        (&[0, 1], 1, 1.0),
        (&[1], 9, 7.1),
        (&[1, 0], 7, 6.6),
        (&[1, 0, 0], 6, -6.0),
        (&[1, 1], 1, 0.0),
        (&[2], 0, 0.0),
    ];
    for &(path, n, w) in expected {
        assert_stats(&search, path, n, w);
    }
    assert_eq!(eval.batches, vec![vec![0], vec![1], vec![2], vec![6]]);

    let kids = search.root_children();
    assert_eq!(kids.iter().map(|k| k.visits).collect::<Vec<_>>(), vec![2, 9, 0]);
    assert_eq!(kids.iter().map(|k| k.prior).collect::<Vec<_>>(), vec![0.6, 0.3, 0.1]);
    assert!((kids[0].q.unwrap() + 0.6).abs() < 1e-6);
    assert!((kids[1].q.unwrap() - 7.1 / 9.0).abs() < 1e-6);
    assert_eq!(kids[2].q, None);
    assert!((search.root_value() - 0.5).abs() < 1e-6);
    assert_eq!(search.select_action(0.0), Some(1));

    // The PUCT policy target is the share of visits.
    let mut target = vec![0.0; 3];
    search.policy_target(&mut target);
    for (t, e) in target.iter().zip([2.0 / 11.0, 9.0 / 11.0, 0.0]) {
        assert!((t - e).abs() < 1e-6, "{target:?}");
    }
}

/// Finished positions are exact: A2 (north won) stays terminal with value -1 for south, the
/// player to move there.
#[test]
fn terminal_nodes_hold_the_exact_value_for_their_side() {
    let mut search = Search::new(puct_tree(), puct_config(12), 1);
    search.run(&mut ToyEvaluator::default());
    let t = search.tree();
    let a2 = node_at(&search, &[0, 1]).unwrap();
    assert_eq!(t.state(a2), NodeState::Terminal);
    assert_eq!(t.side(a2), S);
    assert_eq!(t.terminal_value(a2), -1.0);
    let b2 = node_at(&search, &[1, 1]).unwrap();
    assert_eq!((t.state(b2), t.terminal_value(b2)), (NodeState::Terminal, 0.0));
    let b1a = node_at(&search, &[1, 0, 0]).unwrap();
    assert_eq!((t.state(b1a), t.side(b1a), t.terminal_value(b1a)), (NodeState::Terminal, S, 1.0));
}

/// Temperature sampling follows N^(1/t): at t = 1 from visits 2:9:0, C is never drawn and B
/// about 9 times in 11.
#[test]
fn temperature_one_samples_in_proportion_to_visits() {
    let mut search = Search::new(puct_tree(), puct_config(12), 1);
    search.run(&mut ToyEvaluator::default());
    let mut counts = [0u32; 3];
    for _ in 0..11_000 {
        counts[usize::from(search.select_action(1.0).unwrap())] += 1;
    }
    assert_eq!(counts[2], 0);
    // 9000 expected, sd about 40
    assert!((8700..9300).contains(&counts[1]), "{counts:?}");
}

/// A root of four actions, each followed by a long line of single moves whose evaluations are
/// all worth `q[i]` to south: every visit of root action i backs up exactly q[i].
fn gumbel_tree(prior: [f32; 4], q: [f32; 4], root_value: f32) -> ToyGame {
    let depth = 40u16;
    let mut nodes = vec![ToyNode::inner(S, &[1, 1 + depth, 1 + 2 * depth, 1 + 3 * depth], &prior, root_value)];
    for (i, &qi) in q.iter().enumerate() {
        for d in 0..depth {
            let id = 1 + i as u16 * depth + d;
            let side = if d % 2 == 0 { N } else { S };
            let v = if side == S { qi } else { -qi };
            if d + 1 == depth {
                nodes.push(ToyNode::end(side, None));
            } else {
                nodes.push(ToyNode::inner(side, &[id + 1], &[1.0], v));
            }
        }
    }
    ToyGame::new(nodes)
}

const GUMBEL_PRIOR: [f32; 4] = [0.4, 0.3, 0.2, 0.1];
const GUMBEL_Q: [f32; 4] = [0.2, -0.5, 0.6, 0.0];

fn gumbel_config(simulations: u32, m: usize) -> SearchConfig {
    SearchConfig { simulations, root: RootKind::Gumbel, gumbel_actions: m, ..SearchConfig::default() }
}

/// The Gumbel noise the search draws for seed `seed`: its first draws, one per root action.
fn gumbel_noise(seed: u64, n: usize) -> Vec<f32> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let dist = Gumbel::new(0.0f32, 1.0).unwrap();
    (0..n).map(|_| dist.sample(&mut rng)).collect()
}

/// Runs one simulation at a time and records which root action each one went through.
fn root_sequence(search: &mut Search<ToyGame>) -> Vec<Action> {
    let mut eval = ToyEvaluator::default();
    let mut seq = Vec::new();
    let mut before: Vec<u32> = vec![0; 4];
    let mut leaves = Vec::new();
    let mut policies = [0.0; 4];
    let mut values = [0.0; 1];
    while !search.is_done() {
        leaves.clear();
        let n = search.gather(&mut leaves);
        mancala_mcts::Evaluator::evaluate(&mut eval, search.game(), &leaves, &mut policies[..n * 4], &mut values[..n]);
        search.apply(&policies[..n * 4], &values[..n]);
        let now: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
        if !now.is_empty() {
            if let Some(k) = (0..4).find(|&k| now[k] != before[k]) {
                seq.push(k as Action);
            }
            before = now;
        }
    }
    seq
}

/// Seed 3 draws g = (-1.088, 0.835, 1.947, 1.780); with log-priors (ln .4, ln .3, ln .2,
/// ln .1) the sums rank C (0.338), B (-0.369), D (-0.523), A (-2.004): the top m = 3 are
/// C, B, D, and A, the action with the largest prior, is never searched.
///
/// 16 simulations: one evaluates the root, 15 are left for the root actions. Sequential
/// halving with ceil(log2 3) = 2 phases: phase 1 gives floor(15 / (2*3)) = 2 visits to each of
/// C, B, D in that order (6 simulations). Then sigma(q) = (50 + 2) * (q + 1) / 2 makes
/// C 0.338 + 41.6, D -0.523 + 26, B -0.369 + 13: C and D stay. Phase 2 gives
/// floor(15 / (2*2)) = 3 more to each (6 simulations, 12 in all). The 3 left go to the single
/// best, C (again by g + logit + sigma(q)). Final visits A 0, B 2, C 8, D 5; the move is C.
#[test]
fn gumbel_sequential_halving_golden() {
    let g = gumbel_noise(3, 4);
    let expected_g = [-1.0875907, 0.8347297, 1.9470105, 1.7800552];
    for (a, b) in g.iter().zip(expected_g) {
        assert!((a - b).abs() < 1e-5, "the test's draw of the noise changed: {g:?}");
    }
    let game = gumbel_tree(GUMBEL_PRIOR, GUMBEL_Q, 0.05);
    let mut search = Search::new(game, gumbel_config(16, 3), 3);
    let seq = root_sequence(&mut search);
    assert_eq!(seq, vec![2, 1, 3, 2, 1, 3, 2, 3, 2, 3, 2, 3, 2, 2, 2]);
    assert_eq!(search.simulations_done(), 16);
    let visits: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
    assert_eq!(visits, vec![0, 2, 8, 5]);
    for k in search.root_children() {
        if let Some(q) = k.q {
            assert!((q - GUMBEL_Q[usize::from(k.action)]).abs() < 1e-6, "{k:?}");
        }
    }
    assert_eq!(search.select_action(0.0), Some(2));
    // The Gumbel choice does not depend on the temperature.
    assert_eq!(search.select_action(1.0), Some(2));
}

/// With all four actions considered, a budget that is an exact multiple of the schedule:
/// 4 actions, 2 phases, 17 simulations = root + 16: phase 1 floor(16/8) = 2 each (8), phase
/// 2 floor(16/4) = 4 each for the two best (8). Every simulation is used by the schedule and
/// both finalists end with 6 visits.
#[test]
fn gumbel_schedule_fills_the_budget_exactly() {
    let game = gumbel_tree(GUMBEL_PRIOR, GUMBEL_Q, 0.05);
    let mut search = Search::new(game, gumbel_config(17, 4), 3);
    let seq = root_sequence(&mut search);
    assert_eq!(seq.len(), 16);
    let visits: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
    // A (q .2) and C (q .6) are the best two whatever the noise: sigma spreads q by 26 a unit.
    assert_eq!(visits, vec![6, 2, 6, 2]);
    assert_eq!(search.select_action(0.0), Some(2));
}

/// Independent v_mix and improved policy (Danihelka et al. 2022, eq. 33 and appendix D).
fn expected_gumbel_target(
    prior: &[f32],
    visits: &[u32],
    q: &[Option<f32>],
    raw_value: f32,
    c_visit: f32,
    c_scale: f32,
) -> Vec<f32> {
    let total: f32 = visits.iter().map(|&n| n as f32).sum();
    let visited_prior: f32 = (0..prior.len()).filter(|&i| q[i].is_some()).map(|i| prior[i]).sum();
    let weighted: f32 = (0..prior.len()).filter_map(|i| q[i].map(|qi| prior[i] * qi)).sum();
    let v_mix =
        if visited_prior > 0.0 { (raw_value + total / visited_prior * weighted) / (1.0 + total) } else { raw_value };
    let max_n = *visits.iter().max().unwrap() as f32;
    let scores: Vec<f32> = (0..prior.len())
        .map(|i| {
            let completed = q[i].unwrap_or(v_mix);
            prior[i].ln() + (c_visit + max_n) * c_scale * (completed + 1.0) / 2.0
        })
        .collect();
    let max = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// The Gumbel policy target is softmax(logit + sigma(completed q)), where an unvisited
/// action's q is completed with v_mix. Small c_visit and c_scale keep it far from one-hot.
#[test]
fn gumbel_policy_target_is_softmax_of_completed_q() {
    let game = gumbel_tree(GUMBEL_PRIOR, GUMBEL_Q, 0.05);
    let mut config = gumbel_config(16, 3);
    config.gumbel_c_visit = 2.0;
    config.gumbel_c_scale = 0.25;
    let mut search = Search::new(game, config, 3);
    search.run(&mut ToyEvaluator::default());
    let kids = search.root_children();
    let visits: Vec<u32> = kids.iter().map(|k| k.visits).collect();
    let q: Vec<Option<f32>> = kids.iter().map(|k| k.q).collect();
    assert_eq!(q[0], None, "action A is outside the considered set and never visited");
    let expected = expected_gumbel_target(&GUMBEL_PRIOR, &visits, &q, 0.05, 2.0, 0.25);
    let mut target = vec![0.0; 4];
    search.policy_target(&mut target);
    for (t, e) in target.iter().zip(&expected) {
        assert!((t - e).abs() < 1e-5, "target {target:?}, expected {expected:?}");
    }
    assert!(target[0] > 0.05, "an unvisited action keeps probability through v_mix: {target:?}");
    assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

/// ```text
/// 0 R south, one move to X              value +.4
/// 1 X north, moves Y1 .5 Y2 .3 Y3 .2   value -.3 (north)
/// 2, 3, 4: Y1..Y3 south, one move each to a draw; values +.1, +.2, +.3 (south)
/// 5 draw
/// ```
/// After `advance` into X, v_mix must use X's own evaluation (-.3 for north, the new root's
/// player), not the old root's.
#[test]
fn gumbel_policy_target_after_advance_uses_the_new_roots_value() {
    let game = ToyGame::new(vec![
        ToyNode::inner(S, &[1], &[1.0], 0.4),
        ToyNode::inner(N, &[2, 3, 4], &[0.5, 0.3, 0.2], -0.3),
        ToyNode::inner(S, &[5], &[1.0], 0.1),
        ToyNode::inner(S, &[5], &[1.0], 0.2),
        ToyNode::inner(S, &[5], &[1.0], 0.3),
        ToyNode::end(N, None),
    ]);
    let mut config = gumbel_config(3, 16);
    config.gumbel_c_visit = 2.0;
    config.gumbel_c_scale = 0.25;
    let mut search = Search::new(game, config, 5);
    search.run(&mut ToyEvaluator::default());
    // R, X and one Y were evaluated.
    search.advance(0);
    let kids = search.root_children();
    let visits: Vec<u32> = kids.iter().map(|k| k.visits).collect();
    assert_eq!(visits.iter().sum::<u32>(), 1, "{kids:?}");
    let q: Vec<Option<f32>> = kids.iter().map(|k| k.q).collect();
    let expected = expected_gumbel_target(&[0.5, 0.3, 0.2], &visits, &q, -0.3, 2.0, 0.25);
    let mut target = vec![0.0; 3];
    search.policy_target(&mut target);
    for (t, e) in target.iter().zip(&expected) {
        assert!((t - e).abs() < 1e-5, "target {target:?}, expected {expected:?}");
    }
}
