//! The Gumbel root: it reads the network's own priors (no Dirichlet noise mixed in), and with
//! tree reuse its sequential halving still spends each phase on every considered action.

mod common;

use common::HashEvaluator;
use mancala_mcts::{Evaluator, RootKind, Search, SearchConfig};
use mancala_rules::{Action, AnyGame, Game, parse_rules};

fn gumbel(simulations: u32, noise: bool) -> SearchConfig {
    SearchConfig { simulations, root: RootKind::Gumbel, dirichlet_noise: noise, ..SearchConfig::default() }
}

/// The root's priors as the evaluator gives them (renormalised over the legal moves).
fn network_priors(game: &AnyGame, search: &Search<AnyGame>) -> Vec<(Action, f32)> {
    let pos = *search.root_position();
    let a = game.action_space();
    let mut policy = vec![0.0; a];
    let mut value = [0.0];
    HashEvaluator::default().evaluate(game, &[pos], &mut policy, &mut value);
    let legal = game.legal_moves(&pos);
    let sum: f32 = legal.iter().map(|m| policy[usize::from(m)]).sum();
    legal.iter().map(|m| (m, policy[usize::from(m)] / sum)).collect()
}

#[test]
fn a_gumbel_root_reads_the_networks_priors_even_with_noise_on() {
    for rules in ["oware", "kalah"] {
        let game = parse_rules(rules).unwrap();
        for seed in 0..4 {
            let mut search = Search::new(game.clone(), gumbel(64, true), seed);
            search.run(&mut HashEvaluator::default());
            let expected = network_priors(&game, &search);
            let got: Vec<(Action, f32)> = search.root_children().iter().map(|k| (k.action, k.prior)).collect();
            assert_eq!(got.len(), expected.len());
            for ((a, p), (b, q)) in got.iter().zip(&expected) {
                assert_eq!(a, b);
                assert!((p - q).abs() < 1e-5, "{rules} seed {seed}: prior of {a} is {p}, the network says {q}");
            }
            // The policy target is then the same with and without the noise switch: the
            // switch must not change what a Gumbel root learns from.
            let mut quiet = Search::new(game.clone(), gumbel(64, false), seed);
            quiet.run(&mut HashEvaluator::default());
            let (mut t1, mut t2) = (vec![0.0; game.action_space()], vec![0.0; game.action_space()]);
            search.policy_target(&mut t1);
            quiet.policy_target(&mut t2);
            assert_eq!(t1, t2, "{rules} seed {seed}");
        }
    }
}

#[test]
fn a_puct_root_still_takes_dirichlet_noise() {
    let game = parse_rules("oware").unwrap();
    let config = SearchConfig { simulations: 64, dirichlet_noise: true, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    search.run(&mut HashEvaluator::default());
    let expected = network_priors(&game, &search);
    let moved = search.root_children().iter().zip(&expected).any(|(k, (_, q))| (k.prior - q).abs() > 1e-3);
    assert!(moved, "the priors should carry noise");
}

#[test]
fn with_tree_reuse_every_considered_action_gets_this_moves_visits() {
    // The root after one move keeps its children's visits. Sequential halving must still give
    // each of the m considered actions its first-phase share of this move's budget; counting
    // the old visits, the actions that already had them would be passed over and the halving
    // would run on the old figures.
    for rules in ["oware", "kalah"] {
        let game = parse_rules(rules).unwrap();
        for seed in 0..6 {
            let config = SearchConfig { gumbel_actions: 4, ..gumbel(600, false) };
            let mut search = Search::new(game.clone(), config, seed);
            search.run(&mut HashEvaluator::default());
            let a = search.select_action(0.0).unwrap();
            search.advance(a);
            let before: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
            if before.iter().filter(|&&v| v >= 10).count() < 2 {
                continue;
            }
            search.config_mut().simulations = 64;
            search.run(&mut HashEvaluator::default());
            let after: Vec<u32> = search.root_children().iter().map(|k| k.visits).collect();
            let gained: Vec<u32> = after.iter().zip(&before).map(|(x, y)| x - y).collect();
            let n = gained.len();
            let m = 4.min(n) as u32;
            // First phase: 64 / (ceil(log2 m) * m) visits each, at least 1.
            let phases = (m as f32).log2().ceil().max(1.0) as u32;
            let share = (64 / (phases * m)).max(1);
            let served = gained.iter().filter(|&&g| g >= share).count() as u32;
            assert!(
                served >= m,
                "{rules} seed {seed}: only {served} of {m} actions got {share} new visits: {gained:?} (before {before:?})"
            );
            assert_eq!(gained.iter().sum::<u32>(), 64, "{rules} seed {seed}");
        }
    }
}
