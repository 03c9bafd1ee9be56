//! `mancala-zero calibrate`: how well a model's value head predicts the results of recorded
//! games, by game phase (seeds on the board), from any JSON-lines game records: `arena --out`
//! files or a run's `gating/*.jsonl` and `eval/*.jsonl`.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use anyhow::{Context, bail};
use mancala_arena::{GameRecord, PhaseBy, read_records, value_calibration};
use mancala_rules::{Game, parse_rules};

/// Arguments of `mancala-zero calibrate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game records (JSON lines, one game a line), all of one game's rules. May be repeated.
    #[arg(long, required = true, value_name = "FILE.jsonl")]
    pub records: Vec<PathBuf>,
    /// The model file; without it, the shipped network of the records' game.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Phases: equal ranges of seeds on the board, from the start to the last seeds (or of
    /// plies, with --plies).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=20))]
    pub phases: u16,
    /// Phases of this many plies from the start instead of by seeds on the board (the last
    /// takes every later ply): for Owela, whose seeds never leave the board.
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..))]
    pub plies: Option<u32>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut records: Vec<GameRecord> = Vec::new();
    for path in &args.records {
        let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
        records.extend(read_records(BufReader::new(file)).with_context(|| format!("{}", path.display()))?);
    }
    let Some(first) = records.first() else {
        bail!("no game in {}", args.records.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    };
    let game = parse_rules(&first.rules).with_context(|| format!("the rules of the first record '{}'", first.rules))?;
    let (meta, net) = crate::shipped::given_or_shipped(&game, args.model.as_deref())?;
    // The model's own input encoding version; the raw value (no margin in it), as trained.
    let layout = mancala_encoding::layout_for(&game, meta.encoding_version)?;
    let mut evaluator = mancala_nn::NeuralEvaluator::with_layout(&game, layout, net, burn::prelude::Device::flex());
    let by = args.plies.map_or(PhaseBy::Seeds, PhaseBy::Plies);
    let phases = value_calibration(&game, &records, &mut evaluator, by, usize::from(args.phases))?;

    let positions: usize = phases.iter().map(|p| p.positions).sum();
    println!("{} games, {positions} positions of {}", records.len(), game.rules_string());
    println!(
        "{:>14} {:>9} {:>9} {:>11} {:>7} {:>10} {:>12} {:>9}",
        if args.plies.is_some() { "plies" } else { "seeds on board" },
        "positions",
        "decisive",
        "value sign",
        "mse",
        "mse of 0",
        "calibration",
        "mean |v|"
    );
    for p in &phases {
        println!(
            "{:>14} {:>9} {:>9} {:>10.1}% {:>7.3} {:>10.3} {:>12.3} {:>9.3}",
            match p.range {
                (from, u32::MAX) => format!("{from}+"),
                (from, to) => format!("{from}-{to}"),
            },
            p.positions,
            p.decisive,
            p.sign_accuracy() * 100.0,
            p.mse(),
            p.baseline_mse(),
            p.calibration_error(),
            p.mean_confidence()
        );
    }
    if args.plies.is_none() && phases.len() > 1 && phases.iter().filter(|p| p.positions > 0).count() == 1 {
        // Owela keeps every seed on the board: by seeds, every position is one phase.
        eprintln!("note: every position has the same seeds on the board; --plies N divides the games by plies instead");
    }
    Ok(())
}
