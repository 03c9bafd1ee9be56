//! `bench nn`: the network on the flex CPU backend, on one core by default.
//!
//! Two figures a batch size: the [`NeuralEvaluator`] (encoding, forward pass, read-back,
//! masked softmax: what the search pays a batch of leaves) and the raw forward pass (input
//! tensor from already encoded rows, forward, outputs read back). Then one training step.
//!
//! Threads: burn-flex 0.22.1 parallelises inside an operation with rayon: its own
//! `par_iter`s and gemm's `Parallelism::Rayon(0)`, which both size themselves by
//! `rayon::current_num_threads()`, i.e. the pool the calling thread runs in (the global pool
//! by default, all cores or `RAYON_NUM_THREADS`). Running the whole benchmark inside
//! `ThreadPool::install` of a pool of `--threads` threads therefore fixes the count, and on
//! one thread every operation runs inline on the calling thread.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use anyhow::Context;
use burn::prelude::*;
use mancala_mcts::Evaluator;
use mancala_nn::{
    Architecture, Batch, Learner, NetConfig, NeuralEvaluator, OptimConfig, encode, encode_batch,
    layout,
};
use mancala_rules::{AnyGame, AnyPosition, Game};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::Common;
use super::measure::{CpuShare, per_second, repeat_for};

/// Batch sizes of the inference figures.
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
    /// A run config: its `[network]` table (architecture, width, blocks) gives the sizes;
    /// the options below override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Network body.
    #[arg(long, value_parser = ["mlp", "conv"])]
    architecture: Option<String>,
    /// MLP width or conv channels [default: 128].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    width: Option<u32>,
    /// Residual blocks [default: 4].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=64))]
    blocks: Option<u32>,
    /// Threads of the pool the network runs in.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: u32,
    /// Seed of the weights and of the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The sizes the benchmark builds; unset fields keep `NetConfig`'s defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct NetworkTable {
    architecture: Option<Architecture>,
    width: Option<usize>,
    blocks: Option<usize>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Common { game, seconds } = args.common;
    let mut sizes = match &args.config {
        Some(path) => read_network_table(path)?,
        None => NetworkTable::default(),
    };
    if let Some(a) = &args.architecture {
        sizes.architecture = Some(parse_architecture(a).context("--architecture")?);
    }
    sizes.width = args.width.map(|w| w as usize).or(sizes.width);
    sizes.blocks = args.blocks.map(|b| b as usize).or(sizes.blocks);

    let mut net_config = NetConfig::for_layout(&layout(&game), game.action_space());
    if let Some(a) = sizes.architecture {
        net_config = net_config.with_architecture(a);
    }
    if let Some(w) = sizes.width {
        net_config = net_config.with_width(w);
    }
    if let Some(b) = sizes.blocks {
        net_config = net_config.with_blocks(b);
    }

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .thread_name(|i| format!("bench-nn-{i}"))
        .build()
        .context("could not start the benchmark's thread pool")?;
    // Each figure gets an equal share of the time: 2 modes x batches, and the training step.
    let budget = seconds / (2 * BATCHES.len() as u32 + 1);
    pool.install(|| measure(&game, &net_config, args.threads, budget, args.seed));
    Ok(())
}

/// Builds the network and prints every figure (runs inside the benchmark's pool); each
/// figure is measured for `budget`.
fn measure(
    game: &AnyGame,
    net_config: &NetConfig,
    threads: u32,
    budget: std::time::Duration,
    seed: u64,
) {
    let cpu = CpuShare::start();
    let mut learner = Learner::new(
        net_config.clone(),
        OptimConfig::default(),
        Device::flex().autodiff(),
        seed,
    );
    let device = Device::flex();
    let model = learner.inference_model(&device);
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
    println!("threads: {threads} (flex device)");

    let positions = sample_positions(game, BATCHES[BATCHES.len() - 1].max(TRAIN_BATCH), seed);
    let lay = layout(game);
    let actions = game.action_space();

    println!("evaluator (encode + forward + masked softmax):");
    let mut evaluator = NeuralEvaluator::new(game, model.clone(), device.clone());
    let mut policies = vec![0.0f32; positions.len() * actions];
    let mut values = vec![0.0f32; positions.len()];
    for n in BATCHES {
        let (calls, elapsed) = repeat_for(budget, MIN_CALLS, || {
            evaluator.evaluate(
                game,
                &positions[..n],
                &mut policies[..n * actions],
                &mut values[..n],
            );
            black_box((&policies, &values));
        });
        print_batch(n, calls, elapsed);
    }

    println!("forward (input tensor + forward + outputs read back):");
    let mut encoded = Vec::new();
    for n in BATCHES {
        encode_batch(game, &lay, &positions[..n], &mut encoded);
        let (calls, elapsed) = repeat_for(budget, MIN_CALLS, || {
            let input = Tensor::<2>::from_data(
                TensorData::new(encoded.clone(), [n, lay.inputs()]),
                &device,
            );
            let out = model.forward(input);
            black_box((out.policy.into_data(), out.wdl.into_data()));
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
    println!(
        "train step (batch {TRAIN_BATCH}): {:.2} ms",
        elapsed.as_secs_f64() * 1e3 / steps as f64
    );
}

fn print_batch(n: usize, calls: u64, elapsed: std::time::Duration) {
    let us_per_call = elapsed.as_secs_f64() * 1e6 / calls as f64;
    println!(
        "batch {n}: {} positions/s ({us_per_call:.1} us/call)",
        per_second(calls * n as u64, elapsed)
    );
}

/// `count` ongoing positions from random games (0 to 59 random plies from the start), so
/// the inputs look like the positions a search evaluates rather than one repeated board.
fn sample_positions(game: &AnyGame, count: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = game.start();
        for _ in 0..rng.random_range(0..60) {
            let legal = game.legal_moves(&pos);
            let mut next = pos;
            game.play_unchecked(
                &mut next,
                legal
                    .nth(rng.random_range(0..legal.len()))
                    .expect("ongoing"),
            );
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
    let mut batch = Batch {
        n: positions.len(),
        ..Batch::default()
    };
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
        batch
            .wdl
            .extend((0..3).map(|k| if k == class { 1.0 } else { 0.0 }));
        batch.margin.push(rng.random_range(-0.5f32..0.5));
    }
    batch
}

fn parse_architecture(text: &str) -> anyhow::Result<Architecture> {
    match text {
        "mlp" => Ok(Architecture::Mlp),
        "conv" => Ok(Architecture::Conv),
        _ => anyhow::bail!("unknown architecture '{text}': use mlp or conv"),
    }
}

/// Reads the `[network]` table of a run config.
fn read_network_table(path: &Path) -> anyhow::Result<NetworkTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the config {}", path.display()))?;
    parse_network_table(&text).with_context(|| format!("in the config {}", path.display()))
}

/// The `architecture`, `width` and `blocks` keys of the `[network]` table of a TOML text;
/// everything else is ignored. The cli has no TOML parser among its dependencies, so this
/// reads just enough TOML for those three keys: `key = value` lines under a `[network]`
/// header, `#` comments, basic or literal strings, integers with `_` separators.
fn parse_network_table(text: &str) -> anyhow::Result<NetworkTable> {
    let mut table = NetworkTable::default();
    let mut in_network = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = strip_comment(raw).trim();
        if line.starts_with('[') {
            in_network = line.trim_start_matches('[').trim_end_matches(']').trim() == "network";
            continue;
        }
        if !in_network || line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            anyhow::bail!("line {line_no} of [network]: expected 'key = value', found '{line}'");
        };
        let (key, value) = (key.trim().trim_matches('"'), value.trim());
        match key {
            "architecture" => {
                let name = toml_string(value)
                    .with_context(|| format!("line {line_no}: network.architecture"))?;
                table.architecture = Some(
                    parse_architecture(name)
                        .with_context(|| format!("line {line_no}: network.architecture"))?,
                );
            }
            "width" => {
                table.width = Some(
                    toml_integer(value, 1, 4096)
                        .with_context(|| format!("line {line_no}: network.width"))?,
                )
            }
            "blocks" => {
                table.blocks = Some(
                    toml_integer(value, 0, 64)
                        .with_context(|| format!("line {line_no}: network.blocks"))?,
                )
            }
            _ => {}
        }
    }
    Ok(table)
}

/// The line up to a `#` that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

fn toml_string(value: &str) -> anyhow::Result<&str> {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return Ok(inner);
        }
    }
    anyhow::bail!("expected a quoted string such as \"mlp\", found {value}")
}

fn toml_integer(value: &str, min: usize, max: usize) -> anyhow::Result<usize> {
    let n: usize = value
        .replace('_', "")
        .parse()
        .map_err(|_| anyhow::anyhow!("expected a whole number, found {value}"))?;
    anyhow::ensure!(
        (min..=max).contains(&n),
        "{n} is out of range: allowed {min} to {max}"
    );
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_table_is_read_and_the_rest_ignored() {
        let text = r#"
game = "oware"
width = 999   # not in [network]: ignored

[network]
architecture = "conv" # the tower
width = 1_024
blocks = 6
dropout = 0.1

[training]
blocks = 99
"#;
        let table = parse_network_table(text).unwrap();
        assert_eq!(
            table,
            NetworkTable {
                architecture: Some(Architecture::Conv),
                width: Some(1024),
                blocks: Some(6)
            }
        );
    }

    #[test]
    fn a_config_without_the_table_keeps_the_defaults() {
        assert_eq!(
            parse_network_table("game = \"kalah\"\n[selfplay]\nthreads = 2\n").unwrap(),
            NetworkTable::default()
        );
        let sub = parse_network_table("[network.extra]\nwidth = 7\n").unwrap();
        assert_eq!(sub, NetworkTable::default());
    }

    #[test]
    fn bad_values_name_the_key_and_the_line() {
        for (text, words) in [
            (
                "[network]\narchitecture = \"transformer\"\n",
                ["line 2", "network.architecture", "transformer"],
            ),
            (
                "[network]\narchitecture = mlp\n",
                ["line 2", "network.architecture", "quoted"],
            ),
            (
                "\n[network]\nwidth = 0\n",
                ["line 3", "network.width", "out of range"],
            ),
            (
                "[network]\nblocks = many\n",
                ["line 2", "network.blocks", "many"],
            ),
            ("[network]\nwidth\n", ["line 2", "key = value", "width"]),
        ] {
            let err = format!("{:#}", parse_network_table(text).unwrap_err());
            for w in words {
                assert!(err.contains(w), "{text:?}: '{err}' lacks '{w}'");
            }
        }
    }

    #[test]
    fn comments_inside_strings_are_kept() {
        assert_eq!(strip_comment("a = \"x # y\" # z"), "a = \"x # y\" ");
        assert_eq!(strip_comment("# all"), "");
    }

    #[test]
    fn sampled_positions_are_ongoing_and_varied() {
        let game = mancala_rules::parse_rules("oware").unwrap();
        let positions = sample_positions(&game, 64, 5);
        assert_eq!(positions.len(), 64);
        assert!(positions.iter().all(|p| !game.status(p).is_over()));
        assert!(positions.iter().any(|p| *p != game.start()));
    }
}
