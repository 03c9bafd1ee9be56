//! Golden searches on real games with a fixed evaluator and seed: the root visit counts and
//! moves of PUCT (also batched, with Dirichlet noise), of the Gumbel root, and after tree
//! reuse. The figures were recorded from the search before it was split into modules
//! (commit 41d3971) and are checked in, so any change of behaviour shows here.

mod common;

use common::HashEvaluator;
use mancala_mcts::{RootKind, Search, SearchConfig};
use mancala_rules::{AnyGame, parse_rules};

fn root_visits(search: &Search<AnyGame>) -> Vec<u32> {
    search.root_children().iter().map(|k| k.visits).collect()
}

fn search(rules: &str, config: SearchConfig, seed: u64) -> Search<AnyGame> {
    let game = parse_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    let mut search = Search::new(game, config, seed);
    search.run(&mut HashEvaluator::default());
    search
}

/// PUCT on Kalah, one leaf at a time.
#[test]
fn kalah_puct_200() {
    let config = SearchConfig { simulations: 200, ..SearchConfig::default() };
    let s = search("kalah", config, 7);
    assert_eq!(root_visits(&s), KALAH_PUCT_200);
}

/// PUCT on Oware with Dirichlet noise and four leaves a gather; then moves drawn at
/// temperature 1 from the same search's random stream.
#[test]
fn oware_puct_noise_batched_300() {
    let config =
        SearchConfig { simulations: 300, dirichlet_noise: true, leaves_per_gather: 4, ..SearchConfig::default() };
    let mut s = search("oware", config, 11);
    assert_eq!(root_visits(&s), OWARE_PUCT_NOISE_300);
    let drawn: Vec<u8> = (0..12).map(|_| s.select_action(1.0).unwrap()).collect();
    assert_eq!(drawn, OWARE_DRAWN);
}

/// The Gumbel root on Oware: 64 simulations over the best 4 of 6 actions.
#[test]
fn oware_gumbel_64() {
    let config = SearchConfig { simulations: 64, root: RootKind::Gumbel, gumbel_actions: 4, ..SearchConfig::default() };
    let mut s = search("oware", config, 5);
    assert_eq!(root_visits(&s), OWARE_GUMBEL_64);
    assert_eq!(s.select_action(0.0), Some(OWARE_GUMBEL_MOVE));
}

/// Tree reuse on Kalah: play the most visited move, search 150 more, twice.
#[test]
fn kalah_reuse_twice() {
    let config = SearchConfig { simulations: 150, ..SearchConfig::default() };
    let mut s = search("kalah", config, 3);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let a = s.select_action(0.0).unwrap();
        s.advance(a);
        seen.push(root_visits(&s));
        s.run(&mut HashEvaluator::default());
        seen.push(root_visits(&s));
    }
    assert_eq!(seen, KALAH_REUSE);
}

const KALAH_PUCT_200: [u32; 6] = [54, 69, 10, 17, 34, 15];
const OWARE_PUCT_NOISE_300: [u32; 6] = [46, 117, 40, 34, 51, 11];
const OWARE_DRAWN: [u8; 12] = [0, 0, 3, 1, 2, 1, 1, 1, 0, 4, 0, 2];
const OWARE_GUMBEL_64: [u32; 6] = [7, 27, 0, 0, 22, 7];
const OWARE_GUMBEL_MOVE: u8 = 1;
/// Root visits right after each advance (the kept subtree) and after each search.
const KALAH_REUSE: [&[u32]; 4] =
    [&[13, 1, 25, 1, 7, 7], &[41, 94, 27, 4, 17, 21], &[36, 9, 8, 11, 29], &[43, 91, 26, 44, 39]];
