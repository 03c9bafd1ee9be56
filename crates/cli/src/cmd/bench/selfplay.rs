//! `bench selfplay`: self-play positions a second end to end (search, network, recording),
//! with the shipped network of the game (or a fresh one) on a given number of threads, each
//! thread calling the network itself or all of them through one inference service.

use std::sync::Arc;

use anyhow::bail;
use burn::prelude::Device;
use mancala_encoding::{Layout, layout, layout_for};
use mancala_mcts::evaluator::{CacheStats, EvalCache};
use mancala_mcts::{CachedEvaluator, Evaluator, SearchConfig};
use mancala_nn::{Net, NetConfig, NeuralEvaluator, Precision};
use mancala_rules::{AnyGame, Game};
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
    /// Arithmetic of the network's CPU kernel: fp32, int8 or auto (int8 where the CPU has an
    /// int8 SIMD path).
    #[arg(long, default_value = "fp32", value_parser = parse_precision)]
    precision: Precision,
    /// The evaluation cache of the direct path: `shared` by all threads, one a `thread`
    /// (each shared by that thread's games), or `off`. The service path always gives each
    /// thread's client its own.
    #[arg(long, value_enum, default_value_t = CacheMode::Shared)]
    cache: CacheMode,
    /// Slots of each evaluation cache, as a power of two (16: 65,536 answers).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=28))]
    cache_log2: u32,
    /// Play a preset with the sowing engine from its description, with the preset's network,
    /// to compare the two engines on the same game.
    #[arg(long)]
    described: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Path {
    Direct,
    Service,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum CacheMode {
    Shared,
    Thread,
    Off,
}

fn parse_precision(text: &str) -> Result<Precision, String> {
    text.parse().map_err(|e: mancala_nn::UnknownPrecision| e.to_string())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.threads == 0 || args.parallel_games == 0 || args.games == 0 {
        bail!("--threads, --parallel-games and --games must be at least 1");
    }
    let named = args.common.game.clone().unwrap_or_else(default_game);
    let (net, lay, what) = network_for(&named)?;
    let game = if args.described { described(named, lay)? } else { named };
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
    let probe = NeuralEvaluator::with_layout(&game, lay, net.clone(), Device::flex()).with_precision(args.precision);
    let kernel = match (probe.cpu_kernel(), probe.int8_path()) {
        (Some(set), Some(path)) => format!("int8 residual blocks on {path}, fp32 input layer and heads on {set}"),
        (Some(set), None) => format!("fp32 on {set}"),
        (None, _) => "none (burn)".to_string(),
    };
    // Each game's own engine, not the `AnyGame` wrapper, as a worker plays (see
    // `mancala_rules::with_concrete_game!`): its positions are the game's size, not the largest's.
    let m = mancala_rules::with_concrete_game!(&game, g => measure(g, lay, &net, &args, &config)?);
    println!(
        "{} with the {what}, {} thread(s), {} games at once a thread",
        game.rules_string(),
        args.threads,
        args.parallel_games
    );
    println!("CPU kernel: {kernel}");
    report_cache(&m.caches, &game, inference, args.cache, args.cache_log2);
    match inference {
        Inference::Direct => println!("inference: direct (each thread its own network)"),
        Inference::Service => println!(
            "inference: service (max batch {}, flush {} us): {} network calls, {:.1} positions a call",
            config.service_batch,
            config.service_flush_us,
            m.batches,
            m.evaluated as f64 / m.batches.max(1) as f64
        ),
    }
    println!("games: {} in {:.1} s ({:.2} games/s)", m.games, m.seconds, m.games as f64 / m.seconds);
    println!("simulations/s: {:.0}", m.simulations as f64 / m.seconds);
    println!("positions/s: {:.0}", m.moves as f64 / m.seconds);
    Ok(())
}

/// What the rounds of self-play of [`measure`] did.
#[derive(Default)]
struct Measured {
    games: usize,
    moves: usize,
    simulations: u64,
    seconds: f64,
    /// Network calls and positions they evaluated (the service path).
    batches: u64,
    evaluated: u64,
    caches: Vec<Arc<EvalCache>>,
}

/// Plays rounds of `threads * parallel_games` games until both `--games` and `--seconds`
/// are reached (or four times the seconds have passed).
fn measure<G: Game>(
    game: &G,
    lay: Layout,
    net: &Net,
    args: &Args,
    config: &SelfPlayConfig,
) -> anyhow::Result<Measured> {
    let evaluator =
        || NeuralEvaluator::with_layout(game, lay, net.clone(), Device::flex()).with_precision(args.precision);
    let caches: std::sync::Mutex<Vec<Arc<EvalCache>>> = std::sync::Mutex::new(Vec::new());
    // A new cache (or set of caches) each round, as a worker starts one each shard.
    let new_cache = || {
        let cache = Arc::new(EvalCache::new(args.cache_log2));
        caches.lock().expect("the list of caches").push(Arc::clone(&cache));
        cache
    };
    let search = SearchConfig::default();
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut m = Measured::default();
    let mut round = 0u64;
    while m.games < args.games || m.seconds < args.common.seconds.as_secs_f64() {
        let n = config.threads * config.parallel_games;
        let out = match config.inference {
            Inference::Direct => {
                let shared = new_cache();
                let make = |_| -> Box<dyn Evaluator<G>> {
                    match args.cache {
                        CacheMode::Shared => Box::new(CachedEvaluator::sharing(evaluator(), Arc::clone(&shared))),
                        CacheMode::Thread => Box::new(CachedEvaluator::sharing(evaluator(), new_cache())),
                        CacheMode::Off => Box::new(evaluator()),
                    }
                };
                play_games(game, config, &search, None, n, round, make, &|_| {}, &never)
            }
            Inference::Service => {
                let (out, stats) = play_games_served(
                    game,
                    config,
                    &search,
                    None,
                    n,
                    round,
                    evaluator(),
                    args.cache_log2,
                    &|_| {},
                    &never,
                )?;
                m.batches += stats.batches;
                m.evaluated += stats.positions;
                out
            }
        };
        m.games += out.games.len();
        m.moves += out.moves;
        m.simulations += out.simulations;
        m.seconds += out.seconds;
        round += 1;
        if m.seconds > args.common.seconds.as_secs_f64() * 4.0 {
            break;
        }
    }
    m.caches = caches.into_inner().expect("the list of caches");
    Ok(m)
}

/// The game's shipped network with its own input encoding version, or an untrained one;
/// and which of the two it is.
fn network_for(game: &AnyGame) -> anyhow::Result<(Net, Layout, &'static str)> {
    Ok(match crate::shipped::shipped_model(game)? {
        Some((meta, net)) => (net, layout_for(game, meta.encoding_version)?, "shipped network"),
        None => {
            let lay = layout(game);
            (NetConfig::for_layout(&lay, game.action_space()).init(&Device::flex()), lay, "untrained network")
        }
    })
}

/// A preset played by the sowing engine from its description (`--described`), which must
/// read the same inputs as the preset so that the preset's network plays it.
fn described(named: AnyGame, lay: Layout) -> anyhow::Result<AnyGame> {
    if matches!(named, AnyGame::Described(_)) {
        return Ok(named);
    }
    let described = AnyGame::Described(mancala_rules::sowing::Described::new(named.description())?);
    if layout_for(&described, lay.version)? != lay {
        bail!("the described {} encodes differently from the preset", named.name());
    }
    Ok(described)
}

/// The evaluation caches' hit rate and size over every round.
fn report_cache(caches: &[Arc<EvalCache>], game: &AnyGame, inference: Inference, mode: CacheMode, log2: u32) {
    let (mut stats, mut bytes) = (CacheStats::default(), 0usize);
    for cache in caches {
        let s = cache.stats();
        stats.lookups += s.lookups;
        stats.hits += s.hits;
        bytes = bytes.max(cache.bytes(game.action_space()));
    }
    match (inference, mode) {
        (Inference::Direct, CacheMode::Off) => println!("evaluation cache: off"),
        (Inference::Direct, mode) => println!(
            "evaluation cache: {} of 2^{} answers ({:.1} MiB each): hit rate {:.1}% ({} of {} lookups)",
            if mode == CacheMode::Shared { "one shared by all threads" } else { "one a thread" },
            log2,
            bytes as f64 / (1 << 20) as f64,
            stats.hit_rate() * 100.0,
            stats.hits,
            stats.lookups
        ),
        (Inference::Service, _) => println!(
            "evaluation cache: one of 2^{} answers a thread's client (hit rate not reported on this path)",
            log2
        ),
    }
}
