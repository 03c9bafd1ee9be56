//! Rollout MCTS simulations a second from the Oware opening on one thread (DESIGN.md target:
//! 200,000). A figure to read, not a test: `cargo run --release -p mancala-mcts --example
//! rollout_speed -- [simulations] [repeats] [rules]`.

use std::time::Instant;

use mancala_mcts::{RolloutEvaluator, Search, SearchConfig};
use mancala_rules::parse_rules;

fn main() {
    let mut args = std::env::args().skip(1);
    let sims: u32 = args.next().map_or(20_000, |s| s.parse().expect("simulations must be a number"));
    let repeats: u32 = args.next().map_or(5, |s| s.parse().expect("repeats must be a number"));
    let rules = args.next().unwrap_or_else(|| "oware".to_string());
    let game = parse_rules(&rules).expect("valid rules");
    let config = SearchConfig { simulations: sims, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    let mut evaluator = RolloutEvaluator::new(2);
    let mut best = 0.0f64;
    for r in 0..repeats {
        search.set_root(mancala_rules::Game::start(&game), std::iter::empty());
        let t = Instant::now();
        search.run(&mut evaluator);
        let secs = t.elapsed().as_secs_f64();
        let rate = f64::from(search.simulations_done()) / secs;
        best = best.max(rate);
        println!("run {r}: {} simulations in {:.3} s = {:.0} simulations/s, tree {} nodes", search.simulations_done(), secs, rate, search.tree().len());
    }
    println!("best: {best:.0} simulations/s ({rules}, one thread)");
}
