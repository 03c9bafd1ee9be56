//! Fits a network to an endgame database alone, with no self-play: how well can a network of
//! a given size and shape read a game's endgames, and how fast does it learn them?
//!
//! A run's endgame figure (`tablebase accuracy`) mixes two limits: what the network can hold,
//! and how much of its training went to endgames. Here every batch is database rows, drawn
//! as the run's feed draws them (`database_rows`, uniform over seed counts), so the figure
//! this prints is the network's own ceiling at that training budget. It prints, every
//! `every` steps, the prior's best move (the most likely legal move, no search) and the value
//! sign on the metric's sample (`sample_positions`, 1000 positions, the CLI's seed).
//!
//! ```text
//! mancala-zero tablebase build --game oware --seeds 15 --out oware-15.tb
//! cargo run --release -p mancala-train --example endgame_fit -- oware-15.tb \
//!     width=128 blocks=4 arch=mlp minutes=20 [average=1000] [encoding=2] [margin_bins=97]
//!     [margin_weight=0.25] [from=MODEL.mzm] [out=FIT.mzm] [ends=played-out|own]
//! ```
//!
//! `from` starts from a model file (its shape, its input encoding) instead of a fresh
//! network; `encoding` gives a fresh network an input encoding version other than this
//! build's (any it reads), to compare what two versions let a network hold; `out` writes the
//! fitted network as a model file. `margin_bins` gives a fresh network a distributional
//! margin head (`network.margin_bins` of a run), `margin_weight` weighs its loss
//! (`training.margin_weight`). `ends=own` takes the targets (best moves, result, margin) from
//! a scored database built first, so the network learns the game's own end (Oware's stop at a
//! majority) instead of the database's played-out one; the figures printed stay the
//! database's, so judge the result with `tablebase accuracy --real-end --model FIT.mzm`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use burn::prelude::Device;
use mancala_encoding::{Batch, ENCODING_VERSION, layout_for};
use mancala_mcts::Evaluator;
use mancala_nn::{
    Architecture, Learner, LrSchedule, ModelMeta, NetConfig, NeuralEvaluator, OptimConfig, load_model, save_model,
};
use mancala_rules::{Game, parse_rules};
use mancala_selfplay::window::push_row;
use mancala_selfplay::{database_rows, database_rows_with};
use mancala_tablebase::{
    DEFAULT_MEMORY_LIMIT, ScoredTablebase, SeedDraw, Tablebase, endgame_accuracy, sample_positions,
};
use mancala_train::config::MARGIN_BINS;

struct Args {
    db: PathBuf,
    width: usize,
    blocks: usize,
    arch: Architecture,
    minutes: f64,
    batch: usize,
    lr: f64,
    every: u64,
    average: u64,
    encoding: Option<u32>,
    margin_bins: usize,
    margin_weight: f32,
    from: Option<PathBuf>,
    out: Option<PathBuf>,
    own_end: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut it = std::env::args().skip(1);
    let db = it.next().context(
        "usage: endgame_fit DB [width=N blocks=N arch=mlp|conv minutes=M batch=N lr=X every=N average=N encoding=V \
         margin_bins=N margin_weight=X from=FILE out=FILE ends=played-out|own]",
    )?;
    let mut a = Args {
        db: db.into(),
        width: 128,
        blocks: 4,
        arch: Architecture::Mlp,
        minutes: 10.0,
        batch: 256,
        lr: 0.002,
        every: 500,
        average: 0,
        encoding: None,
        margin_bins: 0,
        margin_weight: OptimConfig::default().margin_weight,
        from: None,
        out: None,
        own_end: false,
    };
    for kv in it {
        let (k, v) = kv.split_once('=').with_context(|| format!("'{kv}': expected key=value"))?;
        let bad = || format!("{k}={v}: not a valid value");
        match k {
            "width" => a.width = v.parse().with_context(bad)?,
            "blocks" => a.blocks = v.parse().with_context(bad)?,
            "arch" => {
                a.arch = match v {
                    "mlp" => Architecture::Mlp,
                    "conv" => Architecture::Conv,
                    _ => bail!("arch={v}: expected mlp or conv"),
                }
            }
            "minutes" => a.minutes = v.parse().with_context(bad)?,
            "batch" => a.batch = v.parse().with_context(bad)?,
            "lr" => a.lr = v.parse().with_context(bad)?,
            "every" => a.every = v.parse::<u64>().with_context(bad)?.max(1),
            "average" => a.average = v.parse().with_context(bad)?,
            "encoding" => a.encoding = Some(v.parse().with_context(bad)?),
            "margin_bins" => a.margin_bins = v.parse().with_context(bad)?,
            "margin_weight" => a.margin_weight = v.parse().with_context(bad)?,
            "from" => a.from = Some(v.into()),
            "out" => a.out = Some(v.into()),
            "ends" => {
                a.own_end = match v {
                    "played-out" => false,
                    "own" => true,
                    _ => bail!("ends={v}: expected played-out or own"),
                }
            }
            _ => bail!("unknown key '{k}'"),
        }
    }
    if a.from.is_some() && (a.encoding.is_some() || a.margin_bins != 0) {
        bail!("encoding= and margin_bins= are for a fresh network: a model given with from= keeps its own");
    }
    if a.margin_bins != 0 && !MARGIN_BINS.contains(&a.margin_bins) {
        let (low, high) = (MARGIN_BINS.start(), MARGIN_BINS.end());
        bail!("margin_bins={}: 0 for the tanh head, or {low} to {high} for a distribution", a.margin_bins);
    }
    if a.minutes.is_nan() || a.minutes <= 0.0 {
        bail!("minutes={}: must be above 0", a.minutes);
    }
    Ok(a)
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let tb = Tablebase::read(&args.db).with_context(|| format!("reading {}", args.db.display()))?;
    let game = parse_rules(tb.rules()).with_context(|| format!("{}: rules", args.db.display()))?;
    let scored = if args.own_end {
        let (scored, _) = ScoredTablebase::build_within(&game, tb.max_seeds(), DEFAULT_MEMORY_LIMIT, &|_| {})?;
        Some(scored)
    } else {
        None
    };
    let infer = Device::flex();
    let train = mancala_nn::training_device("flex")?;
    let (meta, net) = match &args.from {
        Some(path) => {
            let (meta, net) = load_model(path, Some(&game.rules_string()), None, &train)
                .with_context(|| format!("reading {}", path.display()))?;
            (meta, Some(net))
        }
        None => {
            let lay = layout_for(&game, args.encoding.unwrap_or(ENCODING_VERSION))?;
            let config = NetConfig::for_layout(&lay, game.action_space())
                .with_architecture(args.arch)
                .with_width(args.width)
                .with_blocks(args.blocks)
                .with_margin_bins(args.margin_bins);
            let mut meta = ModelMeta::new(game.rules_string(), config, 0);
            meta.encoding_version = lay.version;
            (meta, None)
        }
    };
    let lay = layout_for(&game, meta.encoding_version)?;
    let optim = OptimConfig {
        learning_rate: args.lr,
        schedule: LrSchedule::CosineOverRun { min_factor: 0.1 },
        margin_weight: args.margin_weight,
        ..OptimConfig::default()
    };
    let mut learner = match net {
        Some(net) => Learner::from_model(meta.net.clone(), optim, train, net, 0),
        None => Learner::new(meta.net.clone(), optim, train, 1),
    };
    // With `average=N` the figures (and `out`) are of the weights' moving average over about
    // N steps, as a run publishes with `training.average_steps`.
    learner.keep_average(args.average, None);
    let sample = sample_positions(&game, &tb, 1000, 0xe4d9);
    let a = game.action_space();
    let report = |learner: &Learner, minutes: f64, loss: f64| {
        let mut eval = NeuralEvaluator::with_layout(&game, lay, learner.published_model(&infer), infer.clone());
        let (mut policy, mut value) = (vec![0.0; a], [0.0f32]);
        let acc = endgame_accuracy(&game, &tb, &sample, |pos| {
            eval.evaluate(&game, std::slice::from_ref(pos), &mut policy, &mut value);
            let legal = game.legal_moves(pos).0;
            let best = (0..a)
                .filter(|&m| legal & (1u64 << m) != 0)
                .max_by(|&x, &y| policy[x].total_cmp(&policy[y]))
                .expect("a sampled position has a move");
            (value[0], best as _)
        });
        println!(
            "step {:>7}  min {:>6.2}  policy loss {:.4}  prior best move {:>5.1}%  value sign {:>5.1}%  result kept {:>5.1}%  seeds given {:.2}",
            learner.step(),
            minutes,
            loss,
            acc.best_move * 100.0,
            acc.value_sign * 100.0,
            acc.result_kept * 100.0,
            acc.seeds_given
        );
    };
    println!(
        "{}: {:?} width {} blocks {} margin bins {}, encoding version {}, batch {}, lr {}, margin weight {}",
        game.rules_string(),
        meta.net.architecture,
        meta.net.width,
        meta.net.blocks,
        meta.net.margin_bins,
        meta.encoding_version,
        args.batch,
        args.lr,
        args.margin_weight
    );
    report(&learner, 0.0, f64::NAN);
    let start = Instant::now();
    let limit = args.minutes * 60.0;
    let mut batch = Batch::default();
    let (mut loss, mut n, mut seed) = (0.0, 0u64, 0u64);
    loop {
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed >= limit {
            break;
        }
        learner.set_run_progress(elapsed / limit);
        // Emptied in place, so the vectors keep their capacity from step to step.
        batch.n = 0;
        for v in [&mut batch.inputs, &mut batch.legal, &mut batch.policy, &mut batch.wdl, &mut batch.margin] {
            v.clear();
        }
        seed += 1;
        let rows = match &scored {
            Some(scored) => database_rows_with(&game, &lay, &tb, args.batch, seed, SeedDraw::Uniform, |pos| {
                scored.probe(&game, pos)
            }),
            None => database_rows(&game, &lay, &tb, args.batch, seed, SeedDraw::Uniform),
        };
        for row in rows {
            push_row(&mut batch, &row, 0.0);
        }
        let l = learner.train_step(&batch);
        loss += f64::from(l.policy);
        n += 1;
        if learner.step() % args.every == 0 {
            report(&learner, elapsed / 60.0, loss / n as f64);
            (loss, n) = (0.0, 0);
        }
    }
    report(&learner, start.elapsed().as_secs_f64() / 60.0, loss / n.max(1) as f64);
    if let Some(out) = &args.out {
        let mut meta = ModelMeta::new(game.rules_string(), learner.net_config.clone(), learner.step());
        meta.encoding_version = lay.version;
        save_model(out, &meta, &learner.published_model(&infer))
            .with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}
