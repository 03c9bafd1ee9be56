//! `bench selfplay`: self-play positions a second end to end (search, network, recording),
//! with the shipped network of the game (or a fresh one) on a given number of threads.

use anyhow::bail;
use burn::prelude::Device;
use mancala_mcts::SearchConfig;
use mancala_nn::{layout, NetConfig, NeuralEvaluator};
use mancala_rules::Game;
use mancala_selfplay::{play_games, SelfPlayConfig};

use super::{default_game, Common};

/// Arguments of `mancala-zero bench selfplay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Games each worker plays at once (their leaves share network calls).
    #[arg(long, default_value_t = 24)]
    parallel_games: usize,
    /// Games to play (the run ends after this many, or after --seconds of whole batches).
    #[arg(long, default_value_t = 48)]
    games: usize,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.threads == 0 || args.parallel_games == 0 || args.games == 0 {
        bail!("--threads, --parallel-games and --games must be at least 1");
    }
    let game = args.common.game.clone().unwrap_or_else(default_game);
    let (net, what) = match crate::shipped::shipped_model(&game) {
        Some((_, net)) => (net, "shipped network"),
        None => (NetConfig::for_layout(&layout(&game), game.action_space()).init(&Device::flex()), "untrained network"),
    };
    let config = SelfPlayConfig { threads: args.threads, parallel_games: args.parallel_games, ..SelfPlayConfig::default() };
    let search = SearchConfig::default();
    let (mut games, mut moves, mut sims, mut secs) = (0usize, 0usize, 0u64, 0.0f64);
    let mut round = 0u64;
    while games < args.games || secs < args.common.seconds.as_secs_f64() {
        let n = config.threads * config.parallel_games;
        let out = play_games(&game, &config, &search, n, round, |_| NeuralEvaluator::new(&game, net.clone(), Device::flex()).cached(16), &|_| {}, &std::sync::atomic::AtomicBool::new(false));
        games += out.games.len();
        moves += out.moves;
        sims += out.simulations;
        secs += out.seconds;
        round += 1;
        if secs > args.common.seconds.as_secs_f64() * 4.0 {
            break;
        }
    }
    println!("{} with the {what}, {} thread(s), {} games at once a thread", game.rules_string(), args.threads, args.parallel_games);
    println!("games: {games} in {secs:.1} s ({:.2} games/s)", games as f64 / secs);
    println!("simulations/s: {:.0}", sims as f64 / secs);
    println!("positions/s: {:.0}", moves as f64 / secs);
    Ok(())
}
