//! `bench selfplay`: self-play positions a second end to end (search, network, recording),
//! with the shipped network of the game (or a fresh one) on a given number of threads, each
//! thread calling the network itself or all of them through one inference service.

use anyhow::bail;
use burn::prelude::Device;
use mancala_mcts::SearchConfig;
use mancala_nn::{NetConfig, NeuralEvaluator, layout, layout_for};
use mancala_rules::Game;
use mancala_selfplay::{Inference, SelfPlayConfig, play_games, play_games_served};

use super::{Common, default_game};

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
    /// `direct`: each thread calls its own copy of the network; `service`: the threads queue
    /// their leaves to one inference thread and search in two groups of games
    /// (`selfplay.inference`).
    #[arg(long, value_enum, default_value_t = Path::Direct)]
    inference: Path,
    /// With `--inference service`: most positions in one network call.
    #[arg(long, default_value_t = SelfPlayConfig::default().service_batch)]
    service_batch: usize,
    /// With `--inference service`: microseconds a batch that is not full waits for more.
    #[arg(long, default_value_t = SelfPlayConfig::default().service_flush_us)]
    service_flush_us: u64,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Path {
    Direct,
    Service,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.threads == 0 || args.parallel_games == 0 || args.games == 0 {
        bail!("--threads, --parallel-games and --games must be at least 1");
    }
    let game = args.common.game.clone().unwrap_or_else(default_game);
    // The shipped network is encoded with its own input encoding version (1).
    let (net, lay, what) = match crate::shipped::shipped_model(&game)? {
        Some((meta, net)) => (net, layout_for(&game, meta.encoding_version)?, "shipped network"),
        None => {
            let lay = layout(&game);
            (NetConfig::for_layout(&lay, game.action_space()).init(&Device::flex()), lay, "untrained network")
        }
    };
    let inference = match args.inference {
        Path::Direct => Inference::Direct,
        Path::Service => Inference::Service,
    };
    let config = SelfPlayConfig {
        threads: args.threads,
        parallel_games: args.parallel_games,
        inference,
        service_batch: args.service_batch,
        service_flush_us: args.service_flush_us,
        ..SelfPlayConfig::default()
    };
    config.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let evaluator = || NeuralEvaluator::with_layout(&game, lay, net.clone(), Device::flex());
    let kernel = evaluator().cpu_kernel().unwrap_or("none (burn)");
    let search = SearchConfig::default();
    let never = std::sync::atomic::AtomicBool::new(false);
    let (mut games, mut moves, mut sims, mut secs) = (0usize, 0usize, 0u64, 0.0f64);
    let (mut batches, mut evaluated) = (0u64, 0u64);
    let mut round = 0u64;
    while games < args.games || secs < args.common.seconds.as_secs_f64() {
        let n = config.threads * config.parallel_games;
        let out = match inference {
            Inference::Direct => {
                play_games(&game, &config, &search, None, n, round, |_| evaluator().cached(16), &|_| {}, &never)
            }
            Inference::Service => {
                let (out, stats) =
                    play_games_served(&game, &config, &search, None, n, round, evaluator(), 16, &|_| {}, &never)?;
                batches += stats.batches;
                evaluated += stats.positions;
                out
            }
        };
        games += out.games.len();
        moves += out.moves;
        sims += out.simulations;
        secs += out.seconds;
        round += 1;
        if secs > args.common.seconds.as_secs_f64() * 4.0 {
            break;
        }
    }
    println!(
        "{} with the {what}, {} thread(s), {} games at once a thread",
        game.rules_string(),
        args.threads,
        args.parallel_games
    );
    println!("CPU kernel: {kernel}");
    match inference {
        Inference::Direct => println!("inference: direct (each thread its own network)"),
        Inference::Service => println!(
            "inference: service (max batch {}, flush {} us): {batches} network calls, {:.1} positions a call",
            config.service_batch,
            config.service_flush_us,
            evaluated as f64 / batches.max(1) as f64
        ),
    }
    println!("games: {games} in {secs:.1} s ({:.2} games/s)", games as f64 / secs);
    println!("simulations/s: {:.0}", sims as f64 / secs);
    println!("positions/s: {:.0}", moves as f64 / secs);
    Ok(())
}
