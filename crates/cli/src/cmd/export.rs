//! `mancala-zero export RUN`: the run's best model as one self-describing file (the model
//! file format of `mancala_nn::file`, with the Elo measured against the references).

use std::path::PathBuf;

use anyhow::{bail, Context};
use burn::prelude::Device;
use mancala_nn::{load_model, save_model};
use mancala_rules::parse_rules;
use mancala_train::RunDir;

/// Arguments of `mancala-zero export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run directory (checkpoints/NAME).
    pub run: PathBuf,
    /// Output file (default: RUN/export/GAME-iterN.mzm).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format: mzm (weights + metadata; onnx needs a build with the `onnx` feature).
    #[arg(long, default_value = "mzm")]
    pub format: String,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.format != "mzm" {
        bail!("--format {}: this build writes 'mzm' only (ONNX export needs the cargo feature 'onnx')", args.format);
    }
    let dir = RunDir::new(&args.run);
    let best = dir.read_best().with_context(|| format!("{} is not a run directory", args.run.display()))?;
    let config_text = std::fs::read_to_string(dir.config_path()).with_context(|| format!("reading {}", dir.config_path().display()))?;
    let config = mancala_train::RunConfig::parse(&config_text)?;
    let game = parse_rules(&config.game.rules)?;
    let path = dir.root.join(&best.model);
    let (mut meta, net) = load_model(&path, Some(&mancala_rules::Game::rules_string(&game)), None, &Device::flex())?;
    // The Elo of the last evaluation in the run's metrics (best model against each reference).
    if let Ok(text) = std::fs::read_to_string(dir.metrics_path()) {
        for line in text.lines().rev() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let elos: Vec<(String, f64)> = v
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, x)| Some((k.strip_prefix("elo/")?.to_string(), x.as_f64()?)))
                .collect();
            if !elos.is_empty() {
                meta.elo.extend(elos);
                break;
            }
        }
    }
    meta.extra.insert("run".into(), args.run.display().to_string());
    meta.extra.insert("iteration".into(), best.iteration.to_string());
    let out = args.out.unwrap_or_else(|| {
        dir.root.join("export").join(format!("{}-iter{:04}.mzm", game.family(), best.iteration))
    });
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    save_model(&out, &meta, &net)?;
    let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!("exported {} (iteration {}, step {}) to {} ({size} bytes)", meta.rules, best.iteration, meta.step, out.display());
    for (r, e) in &meta.elo {
        println!("elo vs {r}: {e:+.0}");
    }
    Ok(())
}
