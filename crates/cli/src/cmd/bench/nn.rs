//! `bench nn`: the network on the flex CPU backend, on one core by default.
//!
//! Two figures a batch size: the [`NeuralEvaluator`] (encoding, forward pass, read-back,
//! masked softmax: what the search pays a batch of leaves) and burn's raw forward pass (input
//! tensor from already encoded rows, forward, outputs read back). Then one training step.
//! On the flex device an MLP's evaluator runs the plain-Rust kernel (`mancala_nn::cpu`),
//! which works on the calling thread only: self-play and arena matches run one evaluator per
//! thread, so `--threads` only changes the burn figures and the training step.
//!
//! Threads: burn-flex 0.22.1 parallelises inside an operation with rayon: its own
//! `par_iter`s and gemm's `Parallelism::Rayon(0)`, which both size themselves by
//! `rayon::current_num_threads()`, i.e. the pool the calling thread runs in (the global pool
//! by default, all cores or `RAYON_NUM_THREADS`). Running the whole benchmark inside
//! `ThreadPool::install` of a pool of `--threads` threads therefore fixes the count, and on
//! one thread every operation runs inline on the calling thread.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::*;
use mancala_encoding::{Batch, encode, encode_batch, layout};
use mancala_mcts::Evaluator;
use mancala_nn::int8::Int8Path;
use mancala_nn::{Architecture, Learner, NetConfig, NeuralEvaluator, OptimConfig, Precision};
use mancala_rules::{AnyGame, AnyPosition, Game};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use mancala_train::RunConfig;

use super::measure::{CpuShare, per_second, repeat_for};
use super::{Common, default_game};

/// Batch sizes of the inference figures, unless `--batches` says otherwise.
const BATCHES: [usize; 5] = [1, 8, 32, 128, 512];
/// Batch size of the training step figure.
const TRAIN_BATCH: usize = 256;
/// Fewest timed calls a figure rests on, however short `--seconds`.
const MIN_CALLS: u64 = 3;

/// Arguments of `mancala-zero bench nn`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// A run config (TOML, as `train --config` reads it): its `[network]` table gives the
    /// sizes and, without --game, its `[game]` the game; the options below override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Network body [default: mlp].
    #[arg(long, value_enum)]
    architecture: Option<Body>,
    /// MLP width or conv channels [default: 128].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    width: Option<u32>,
    /// Residual blocks [default: 4].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    blocks: Option<u32>,
    /// Threads of the pool the network runs in.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: u32,
    /// Seed of the weights and of the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Compute device: flex (CPU), or cuda / wgpu where built with those cargo features.
    #[arg(long, default_value = "flex")]
    device: String,
    /// Arithmetic of the evaluator's plain-Rust CPU kernel (on flex): fp32, int8
    /// (residual blocks quantized at load), or auto (int8 where the CPU has an int8 SIMD path).
    #[arg(long, default_value = "fp32", value_parser = parse_precision)]
    precision: Precision,
    /// Instruction set of the evaluator's plain-Rust CPU kernel (on flex): in fp32
    /// avx512, avx2, neon or scalar; in int8 the path of the int8 products, avx512-vnni, avx2
    /// or scalar; as this CPU has them [default: the fastest].
    #[arg(long)]
    kernel: Option<String>,
    /// Batch sizes to measure, comma-separated [default: 1,8,32,128,512].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=65536))]
    batches: Vec<u32>,
}

/// The network bodies, as the command line names them.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Mlp,
    Conv,
}

impl From<Body> for Architecture {
    fn from(body: Body) -> Architecture {
        match body {
            Body::Mlp => Architecture::Mlp,
            Body::Conv => Architecture::Conv,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Common { game, seconds } = args.common;
    let config = args.config.as_deref().map(read_run_config).transpose()?;
    let game = match (game, &config) {
        (Some(game), _) => game,
        (None, Some(config)) => config.game()?,
        (None, None) => default_game(),
    };
    let mut net_config = match &config {
        Some(config) => config.net_config(&game),
        None => NetConfig::for_layout(&layout(&game), game.action_space()),
    };
    if let Some(body) = args.architecture {
        net_config = net_config.with_architecture(body.into());
    }
    if let Some(width) = args.width {
        net_config = net_config.with_width(width as usize);
    }
    if let Some(blocks) = args.blocks {
        net_config = net_config.with_blocks(blocks as usize);
    }

    let device =
        mancala_nn::inference_device(&args.device).with_context(|| format!("bench nn --device {}", args.device))?;
    let batches: Vec<usize> =
        if args.batches.is_empty() { BATCHES.to_vec() } else { args.batches.iter().map(|&b| b as usize).collect() };
    let precision = args.precision.resolve();
    if let Some(kernel) = &args.kernel {
        let sets: Vec<&str> = match precision {
            Precision::Int8 => Int8Path::available().into_iter().map(Int8Path::name).collect(),
            _ => mancala_nn::cpu::CpuMlp::instruction_sets(),
        };
        if !sets.contains(&kernel.as_str()) {
            bail!("--kernel {kernel}: this CPU runs the {precision} kernel with {}", sets.join(", "));
        }
    }
    if (args.kernel.is_some() || precision == Precision::Int8) && device != Device::flex() {
        bail!("--kernel and --precision int8: the plain-Rust kernel runs only on the flex device");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .thread_name(|i| format!("bench-nn-{i}"))
        .build()
        .context("could not start the benchmark's thread pool")?;
    // Each figure gets an equal share of the time: 2 modes x batches, and the training step.
    let budget = seconds / (2 * batches.len() as u32 + 1);
    let setup = Setup {
        threads: args.threads,
        device_name: &args.device,
        device,
        batches: &batches,
        seed: args.seed,
        kernel: args.kernel.as_deref(),
        precision,
    };
    pool.install(|| measure(&game, &net_config, &setup, budget));
    Ok(())
}

/// What the figures are measured on.
struct Setup<'a> {
    threads: u32,
    device_name: &'a str,
    device: Device,
    batches: &'a [usize],
    seed: u64,
    /// The CPU kernel's instruction set, when not the default (checked by the caller).
    kernel: Option<&'a str>,
    /// `Fp32` or `Int8`.
    precision: Precision,
}

/// Builds the network and prints every figure (runs inside the benchmark's pool); each
/// figure is measured for `budget`.
fn measure(game: &AnyGame, net_config: &NetConfig, setup: &Setup, budget: std::time::Duration) {
    let Setup { threads, device_name, ref device, batches, seed, kernel, precision } = *setup;
    let cpu = CpuShare::start();
    let mut learner = Learner::new(net_config.clone(), OptimConfig::default(), device.clone().autodiff(), seed);
    let model = learner.inference_model(device);
    let arch = match net_config.architecture {
        Architecture::Mlp => "mlp",
        Architecture::Conv => "conv",
    };
    println!("game: {}", game.rules_string());
    println!(
        "network: {arch}, width {}, {} blocks, {} inputs",
        net_config.width,
        net_config.blocks,
        net_config.inputs()
    );
    println!("parameters: {}", model.num_params());
    println!("threads: {threads} ({device_name} device)");

    let largest = batches.iter().copied().max().unwrap_or(1);
    let positions = sample_positions(game, largest.max(TRAIN_BATCH), seed);
    let lay = layout(game);
    let actions = game.action_space();

    let mut evaluator = NeuralEvaluator::new(game, model.clone(), device.clone()).with_precision(precision);
    match (kernel, evaluator.int8_path()) {
        (Some(kernel), Some(_)) => {
            evaluator.use_int8_path(Int8Path::named(kernel).expect("checked by the caller"));
        }
        (Some(kernel), None) => {
            evaluator.use_cpu_kernel(kernel);
        }
        (None, _) => {}
    }
    match (evaluator.cpu_kernel(), evaluator.int8_path()) {
        (Some(set), Some(path)) => println!(
            "evaluator (encode + forward + masked softmax; plain-Rust kernel, residual blocks int8 on {path}, \
             input layer and heads fp32 on {set}):"
        ),
        (Some("scalar"), None) => println!(
            "evaluator (encode + forward + masked softmax; plain-Rust scalar kernel for 1-2 rows, burn above):"
        ),
        (Some(set), None) => println!("evaluator (encode + forward + masked softmax; plain-Rust {set} kernel):"),
        (None, _) => println!("evaluator (encode + forward + masked softmax; burn):"),
    }
    // The work a position: each layer's inputs x outputs, and how much of it is in the
    // residual blocks (what int8 runs), to set the figures against the CPU's peak.
    let (body, all) = multiply_adds(net_config, game.action_space());
    if net_config.architecture == Architecture::Mlp {
        println!("multiply-adds a position: {all} ({body} in the residual blocks)");
    }
    let mut policies = vec![0.0f32; positions.len() * actions];
    let mut values = vec![0.0f32; positions.len()];
    for &n in batches {
        let (calls, elapsed) = repeat_for(budget, MIN_CALLS, || {
            evaluator.evaluate(game, &positions[..n], &mut policies[..n * actions], &mut values[..n]);
            black_box((&policies, &values));
        });
        print_batch(n, calls, elapsed);
        if net_config.architecture == Architecture::Mlp {
            let positions = (calls * n as u64) as f64 / elapsed.as_secs_f64();
            println!(
                "  {:.1} G multiply-adds/s ({:.1} G in the residual blocks)",
                positions * all as f64 / 1e9,
                positions * body as f64 / 1e9
            );
        }
    }

    println!("burn forward (input tensor + forward + outputs read back):");
    let mut encoded = Vec::new();
    let heads = model.heads().fused();
    for &n in batches {
        encode_batch(game, &lay, &positions[..n], &mut encoded);
        let (calls, elapsed) = repeat_for(budget, MIN_CALLS, || {
            let input = Tensor::<2>::from_data(TensorData::new(encoded.clone(), [n, lay.inputs()]), device);
            black_box(heads.forward(model.features(input)).into_data());
        });
        print_batch(n, calls, elapsed);
    }

    let batch = synthetic_batch(game, &positions[..TRAIN_BATCH], seed);
    let (steps, elapsed) = repeat_for(budget, MIN_CALLS, || {
        black_box(learner.train_step(&batch));
    });
    // With more threads, the calling thread's share says little about the others'.
    if threads == 1
        && let Some(line) = cpu.report()
    {
        println!("{line}");
    }
    println!("train step (batch {TRAIN_BATCH}): {:.2} ms", elapsed.as_secs_f64() * 1e3 / steps as f64);
}

/// An MLP's multiply-adds a position: (in the residual blocks, in all layers with the three
/// heads as one). A conv net is not counted.
fn multiply_adds(net: &NetConfig, actions: usize) -> (u64, u64) {
    let (w, blocks) = (net.width as u64, net.blocks as u64);
    let body = blocks * 2 * w * w;
    let heads = actions as u64 + 3 + net.margin_bins.max(1) as u64;
    (body, net.inputs() as u64 * w + body + w * heads)
}

fn parse_precision(text: &str) -> Result<Precision, String> {
    text.parse().map_err(|e: mancala_nn::UnknownPrecision| e.to_string())
}

fn print_batch(n: usize, calls: u64, elapsed: std::time::Duration) {
    let us_per_call = elapsed.as_secs_f64() * 1e6 / calls as f64;
    println!("batch {n}: {} positions/s ({us_per_call:.1} us/call)", per_second(calls * n as u64, elapsed));
}

/// `count` ongoing positions from random games (0 to 59 random plies from the start), so
/// the inputs look like the positions a search evaluates rather than one repeated board.
pub(crate) fn sample_positions(game: &AnyGame, count: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = game.start();
        for _ in 0..rng.random_range(0..60) {
            let legal = game.legal_moves(&pos);
            let mut next = pos;
            game.play_unchecked(&mut next, legal.nth(rng.random_range(0..legal.len())).expect("ongoing"));
            if game.status(&next).is_over() {
                break;
            }
            pos = next;
        }
        out.push(pos);
    }
    out
}

/// A training batch over `positions`: uniform policy over the legal moves and random
/// win/draw/loss and margin targets (the step's cost does not depend on the targets).
fn synthetic_batch(game: &AnyGame, positions: &[AnyPosition], seed: u64) -> Batch {
    let lay = layout(game);
    let actions = game.action_space();
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let mut batch = Batch { n: positions.len(), ..Batch::default() };
    let mut row = vec![0.0; lay.inputs()];
    for pos in positions {
        encode(game, &lay, pos, &mut row);
        batch.inputs.extend_from_slice(&row);
        let legal = game.legal_moves(pos);
        let p = 1.0 / legal.len().max(1) as f32;
        for a in 0..actions {
            let is_legal = legal.contains(a as u8);
            batch.legal.push(if is_legal { 1.0 } else { 0.0 });
            batch.policy.push(if is_legal { p } else { 0.0 });
        }
        let class = rng.random_range(0..3usize);
        batch.wdl.extend((0..3).map(|k| if k == class { 1.0 } else { 0.0 }));
        batch.margin.push(rng.random_range(-0.5f32..0.5));
    }
    batch
}

/// Reads and validates a run config, as `mancala-zero train` does.
fn read_run_config(path: &Path) -> anyhow::Result<RunConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("could not read the config {}", path.display()))?;
    RunConfig::parse(&text).with_context(|| format!("in the config {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_positions_are_ongoing_and_varied() {
        let game = mancala_rules::parse_rules("oware").unwrap();
        let positions = sample_positions(&game, 64, 5);
        assert_eq!(positions.len(), 64);
        assert!(positions.iter().all(|p| !game.status(p).is_over()));
        assert!(positions.iter().any(|p| *p != game.start()));
    }
}
