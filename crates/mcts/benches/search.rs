//! Search speed: a 1000-simulation rollout MCTS (uniform priors, one random playout a leaf)
//! from the Oware and Kalah starts, on the concrete game types. Short measurement times keep
//! `cargo bench` quick.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mancala_mcts::{RolloutEvaluator, Search, SearchConfig};
use mancala_rules::{AnyGame, Game, parse_rules};

const SIMULATIONS: u32 = 1000;

fn bench_game<G: Game>(c: &mut Criterion, name: &str, game: &G) {
    let config = SearchConfig { simulations: SIMULATIONS, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    let mut evaluator = RolloutEvaluator::new(1);
    let start = game.start();
    let mut group = c.benchmark_group("rollout_search");
    group.throughput(Throughput::Elements(u64::from(SIMULATIONS)));
    group.bench_function(name, |b| {
        b.iter(|| {
            search.set_root(start, std::iter::empty());
            search.run(&mut evaluator);
            black_box(search.root_value())
        })
    });
    group.finish();
}

fn searches(c: &mut Criterion) {
    match parse_rules("oware").expect("a preset") {
        AnyGame::Oware(g) => bench_game(c, "oware", &g),
        other => unreachable!("oware parsed as {other:?}"),
    }
    match parse_rules("kalah").expect("a preset") {
        AnyGame::Kalah(g) => bench_game(c, "kalah", &g),
        other => unreachable!("kalah parsed as {other:?}"),
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = searches
}
criterion_main!(benches);
