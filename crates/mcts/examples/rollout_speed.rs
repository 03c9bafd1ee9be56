//! Rollout MCTS simulations a second from the opening on one thread (the speed target of
//! docs/design.md for Oware: 200,000). A figure to read, not a test:
//! `cargo run --release -p mancala-mcts --example rollout_speed -- [simulations] [repeats] [rules]`.
//! Runs the game chosen at run time ([`AnyGame`], as agents and self-play use it) and, for
//! plain `oware`, the concrete [`Oware`] type as well.

use std::time::Instant;

use mancala_mcts::{RolloutEvaluator, Search, SearchConfig};
use mancala_rules::oware::Oware;
use mancala_rules::{Game, parse_rules};

fn measure<G: Game>(label: &str, game: G, sims: u32, repeats: u32) {
    let config = SearchConfig { simulations: sims, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    let mut evaluator = RolloutEvaluator::new(2);
    let mut best = 0.0f64;
    for r in 0..repeats {
        search.set_root(game.start(), std::iter::empty());
        let t = Instant::now();
        search.run(&mut evaluator);
        let secs = t.elapsed().as_secs_f64();
        let rate = f64::from(search.simulations_done()) / secs;
        best = best.max(rate);
        println!(
            "{label} run {r}: {} simulations in {secs:.3} s = {rate:.0}/s, tree {} nodes",
            search.simulations_done(),
            search.tree().len()
        );
    }
    println!("{label}: best {best:.0} simulations/s (one thread)");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sims: u32 = args.next().map_or(20_000, |s| s.parse().expect("simulations must be a number"));
    let repeats: u32 = args.next().map_or(5, |s| s.parse().expect("repeats must be a number"));
    let rules = args.next().unwrap_or_else(|| "oware".to_string());
    let game = parse_rules(&rules).expect("valid rules");
    measure(&format!("{rules} (AnyGame)"), game, sims, repeats);
    if rules == "oware" {
        measure("oware (concrete type)", Oware::default(), sims, repeats);
    }
}
