//! `bench mcts`: rollout MCTS (uniform priors, one random playout a leaf) from the start
//! position on one thread, searched again and again until the time is up.

use std::time::{Duration, Instant};

use mancala_mcts::{RolloutEvaluator, Search, SearchConfig};
use mancala_rules::{AnyGame, Game};

use super::measure::{CpuShare, per_second};
use super::{Common, default_game};

/// Arguments of `mancala-zero bench mcts`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Simulations a search.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    simulations: u32,
    /// Seed of the search and of the playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Common { game, seconds } = args.common;
    let game = game.unwrap_or_else(default_game);
    let share = CpuShare::start();
    let tally = match &game {
        AnyGame::Oware(g) => searches(g, args.simulations, seconds, args.seed),
        AnyGame::Kalah(g) => searches(g, args.simulations, seconds, args.seed),
        AnyGame::BaAwa(g) => searches(g, args.simulations, seconds, args.seed),
        AnyGame::Owela(g) => searches(g, args.simulations, seconds, args.seed),
        AnyGame::Described(g) => searches(g, args.simulations, seconds, args.seed),
    };
    println!("game: {}", game.rules_string());
    println!(
        "searches: {} of {} simulations in {:.2} s",
        tally.searches,
        args.simulations,
        tally.elapsed.as_secs_f64()
    );
    println!("searches/s: {:.1}", tally.searches as f64 / tally.elapsed.as_secs_f64());
    if let Some(line) = share.report() {
        println!("{line}");
    }
    println!("simulations/s: {}", per_second(tally.simulations, tally.elapsed));
    Ok(())
}

/// What a run of searches did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub searches: u64,
    pub simulations: u64,
    pub elapsed: Duration,
}

/// Searches the start position with `simulations` a search until `budget` has passed (at
/// least one search). The tree is cleared, not reallocated, between searches, as in play.
pub fn searches<G: Game>(game: &G, simulations: u32, budget: Duration, seed: u64) -> Tally {
    let config = SearchConfig { simulations, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, seed);
    let mut evaluator = RolloutEvaluator::new(seed);
    let start_pos = game.start();
    let (mut searches, mut total) = (0u64, 0u64);
    let start = Instant::now();
    loop {
        search.set_root(start_pos, std::iter::empty());
        search.run(&mut evaluator);
        total += u64::from(search.simulations_done());
        searches += 1;
        let elapsed = start.elapsed();
        if elapsed >= budget {
            return Tally { searches, simulations: total, elapsed };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::parse_rules;

    #[test]
    fn every_search_spends_its_whole_budget() {
        for rules in ["oware", "kalah"] {
            let game = parse_rules(rules).unwrap();
            let tally = searches(&game, 50, Duration::ZERO, 2);
            assert_eq!(tally, Tally { searches: 1, simulations: 50, elapsed: tally.elapsed }, "{rules}");
        }
    }
}
