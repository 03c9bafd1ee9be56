//! CachedEvaluator answers exactly as the evaluator behind it, counts its hits, and a search
//! through it is the same search.

mod common;

use std::collections::HashMap;

use common::HashEvaluator;
use mancala_mcts::{CachedEvaluator, Evaluator, Search, SearchConfig};
use mancala_rules::{AnyGame, AnyPosition, Game, Line, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn positions(game: &AnyGame, count: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut line = Line::new(game.clone());
    while out.len() < count {
        if line.status().is_over() {
            line.reset();
        }
        out.push(*line.position());
        let legal = line.legal_moves();
        line.play(legal.nth(rng.random_range(0..legal.len())).unwrap()).unwrap();
    }
    out
}

fn evaluate<E: Evaluator<AnyGame>>(e: &mut E, game: &AnyGame, batch: &[AnyPosition]) -> (Vec<f32>, Vec<f32>) {
    let a = game.action_space();
    // Garbage in the buffers: every answer must be written.
    let mut p = vec![f32::NAN; batch.len() * a];
    let mut v = vec![f32::NAN; batch.len()];
    e.evaluate(game, batch, &mut p, &mut v);
    (p, v)
}

/// A direct-mapped table modelled independently: which lookups of a batch sequence hit.
fn expected_hits(game: &AnyGame, batches: &[&[AnyPosition]], log2_slots: u32) -> u64 {
    let mask = (1u64 << log2_slots) - 1;
    let mut slots: HashMap<u64, u64> = HashMap::new();
    let mut hits = 0;
    for batch in batches {
        let mut misses = Vec::new();
        for p in batch.iter() {
            let h = game.hash(p);
            if slots.get(&(h & mask)) == Some(&h) {
                hits += 1;
            } else {
                misses.push(h);
            }
        }
        // Answers are stored after the whole batch was looked up.
        for h in misses {
            slots.insert(h & mask, h);
        }
    }
    hits
}

#[test]
fn same_answers_as_the_inner_evaluator_and_counted_hits() {
    for rules in ["oware", "kalah", "owela", "ba-awa"] {
        let game = parse_rules(rules).unwrap();
        let all = positions(&game, 300, 1);
        for log2 in [0, 3, 12] {
            let mut cached = CachedEvaluator::<AnyGame, _>::new(HashEvaluator::default(), log2);
            let mut plain = HashEvaluator::default();
            // Overlapping batches: the second repeats half of the first, the third is the first.
            let batches: [&[AnyPosition]; 4] = [&all[..100], &all[50..200], &all[..100], &all[290..300]];
            for batch in batches {
                let got = evaluate(&mut cached, &game, batch);
                let want = evaluate(&mut plain, &game, batch);
                assert_eq!(got, want, "{rules} 2^{log2}");
            }
            let lookups: u64 = batches.iter().map(|b| b.len() as u64).sum();
            assert_eq!(cached.lookups, lookups);
            assert_eq!(cached.hits, expected_hits(&game, &batches, log2), "{rules} 2^{log2}");
            assert_eq!(cached.inner().positions, lookups - cached.hits, "only misses reach the inner evaluator");
            if log2 == 12 {
                assert!(cached.hits >= 140, "{rules}: {} hits", cached.hits);
            }
        }
    }
}

#[test]
fn repeated_batch_is_answered_from_the_cache() {
    let game = parse_rules("kalah").unwrap();
    let batch = positions(&game, 20, 2);
    let mut cached = CachedEvaluator::<AnyGame, _>::new(HashEvaluator::default(), 16);
    let first = evaluate(&mut cached, &game, &batch);
    let distinct = {
        let mut h: Vec<u64> = batch.iter().map(|p| game.hash(p)).collect();
        h.sort_unstable();
        h.dedup();
        h.len() as u64
    };
    assert_eq!(cached.hits, 0);
    let calls = cached.inner().calls;
    let second = evaluate(&mut cached, &game, &batch);
    assert_eq!(first, second);
    assert_eq!(cached.hits, 20, "every position is in the cache ({distinct} distinct)");
    assert_eq!(cached.inner().calls, calls, "an all-hit batch never calls the inner evaluator");
    cached.clear();
    let third = evaluate(&mut cached, &game, &batch);
    assert_eq!(third, first);
    assert_eq!(cached.hits, 20, "after clear everything misses again");
}

#[test]
fn search_through_the_cache_is_the_same_search() {
    for rules in ["oware", "kalah"] {
        let game = parse_rules(rules).unwrap();
        let config = SearchConfig { simulations: 800, leaves_per_gather: 4, ..SearchConfig::default() };
        let mut plain = Search::new(game.clone(), config.clone(), 4);
        plain.run(&mut HashEvaluator::default());
        let mut cached = Search::new(game.clone(), config, 4);
        let mut eval = CachedEvaluator::<AnyGame, _>::new(HashEvaluator::default(), 14);
        cached.run(&mut eval);
        assert_eq!(plain.root_children(), cached.root_children(), "{rules}");
        assert_eq!(visits(&plain), visits(&cached), "{rules}");
        assert_eq!(eval.lookups, eval.hits + eval.inner().positions);
        // The same search again through the warm cache: the same tree, and (the cache being
        // large enough to keep most of it) most answers come from the cache.
        let misses_before = eval.inner().positions;
        let lookups_before = eval.lookups;
        let mut again = Search::new(game.clone(), plain.config().clone(), 4);
        again.run(&mut eval);
        assert_eq!(visits(&again), visits(&plain), "{rules}");
        let lookups = eval.lookups - lookups_before;
        let misses = eval.inner().positions - misses_before;
        assert!(misses * 4 < lookups, "{rules}: {misses} misses in {lookups} lookups");
    }
}

/// The visit count of every node of the search's tree, in node order.
fn visits<G: Game>(search: &Search<G>) -> Vec<u32> {
    let t = search.tree();
    t.node_ids().map(|n| t.visits(n)).collect()
}
