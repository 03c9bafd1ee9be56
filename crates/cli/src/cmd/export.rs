//! `mancala-zero export RUN`: the run's best model as one self-describing file (the model
//! file format of `mancala_nn::file`, with the Elo measured against the references), or,
//! with `--format onnx` in a build with the `onnx` feature, as an ONNX graph with a JSON
//! sidecar holding the same metadata. `RUN` may also be a model file (`.mzm`), to convert a
//! shipped or exported model to ONNX.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::Device;
use mancala_nn::{ModelMeta, Net, load_model, save_model};
use mancala_rules::{AnyGame, parse_rules};
use mancala_store::Store;
use mancala_train::Run;

/// Arguments of `mancala-zero export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run (checkpoints/NAME or a store URL such as s3://BUCKET/RUN), or a model file
    /// (.mzm) to convert.
    pub run: PathBuf,
    /// Output file (default: RUN/export/GAME-iterN.mzm or .onnx).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format: mzm (weights + metadata) or onnx (needs a build with the cargo
    /// feature `onnx`; writes FILE and FILE.json with the metadata).
    #[arg(long, default_value = "mzm")]
    pub format: String,
    /// Export the mean of the weights of the run's N newest candidates up to its best model
    /// (the best one among them) instead of the best model alone: an average over a longer
    /// stretch than the trainer's moving average. In Ouril and Oware it measured no stronger
    /// (docs/experiments.md, "Ouril at 24 channels, and where in the hour its strength is").
    /// 1: the best model as it is.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub average: u32,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let onnx = match args.format.as_str() {
        "mzm" => false,
        "onnx" => true,
        other => bail!("--format {other}: expected mzm or onnx"),
    };
    if onnx && !cfg!(feature = "onnx") {
        bail!(
            "--format onnx needs mancala-zero built with the cargo feature 'onnx' (cargo build --release --features onnx)"
        );
    }
    if args.average > 1 && args.run.is_file() {
        bail!("--average {} averages a run's candidates; {} is a model file", args.average, args.run.display());
    }
    let (meta, net, game, default_out) =
        if args.run.is_file() { from_file(&args.run)? } else { from_run(&args.run, args.average as usize)? };
    let out = args.out.unwrap_or_else(|| if onnx { default_out.with_extension("onnx") } else { default_out });
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    if onnx {
        write_onnx(&out, &meta, &net, &game)?;
    } else {
        save_model(&out, &meta, &net)?;
    }
    let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!("exported {} (step {}) to {} ({size} bytes)", meta.rules, meta.step, out.display());
    for (r, e) in &meta.elo {
        println!("elo vs {r}: {e:+.0}");
    }
    Ok(())
}

/// The best model of a run (a directory or a store URL), with the Elo of the run's newest
/// evaluation; or, with `average` above 1, the mean of the weights of the `average` newest
/// candidates up to the best, which no evaluation has measured, so it carries no Elo.
fn from_run(run: &Path, average: usize) -> anyhow::Result<(ModelMeta, Net, AnyGame, PathBuf)> {
    let url = run.display().to_string();
    let store = Store::open(&url)?;
    let opened = Run::open(store).with_context(|| format!("{url} is not a run directory"))?;
    let device = Device::flex();
    let best = opened.load_best(&device)?;
    let mut meta = best.meta;
    let mut net = best.net;
    if average > 1 {
        // The best model is the newest of the candidates averaged; the rest come before it.
        let earlier = opened.load_candidates(best.generation, average - 1, &device)?;
        if earlier.len() + 1 < average {
            bail!(
                "--average {average}: {url} has {} candidates up to its best model (generation {})",
                earlier.len() + 1,
                best.generation
            );
        }
        if let Some(other) = earlier.iter().find(|m| m.meta.net != meta.net) {
            bail!("--average: candidate {} has another network than the best model", other.generation);
        }
        let first = earlier.first().map_or(best.generation, |m| m.generation);
        let nets: Vec<Net> = earlier.into_iter().map(|m| m.net).chain([net]).collect();
        net = mancala_nn::mean_weights(&nets)?;
        meta.extra.insert("average".into(), format!("candidates {first} to {}", best.generation));
    } else {
        meta.elo.extend(mancala_train::summarise(&opened)?.elo);
    }
    meta.extra.insert("run".into(), url);
    meta.extra.insert("iteration".into(), best.generation.to_string());
    let game = opened.game;
    let suffix = if average > 1 { format!("-avg{average}") } else { String::new() };
    let name = format!("{}-iter{:04}{suffix}.mzm", game.family(), best.generation);
    let out = match opened.store.local_dir() {
        Some(dir) => dir.join("export").join(name),
        None => PathBuf::from(name),
    };
    Ok((meta, net, game, out))
}

/// A model file as it is (for converting it to ONNX).
fn from_file(path: &Path) -> anyhow::Result<(ModelMeta, Net, AnyGame, PathBuf)> {
    let (meta, net) = load_model(path, None, None, &Device::flex())?;
    let game = parse_rules(&meta.rules).with_context(|| format!("{}: the rules it was trained for", path.display()))?;
    Ok((meta, net, game, path.to_path_buf()))
}

/// Writes the ONNX graph to `out` and its metadata to `out.json`.
#[cfg(feature = "onnx")]
fn write_onnx(out: &Path, meta: &ModelMeta, net: &Net, game: &AnyGame) -> anyhow::Result<()> {
    use mancala_rules::Game;
    // The model's own input encoding version, which the sidecar records (`model`).
    let layout = mancala_encoding::layout_for(game, meta.encoding_version)?;
    let (bytes, fixed_batch) = mancala_nn::onnx::onnx_bytes(net, layout.inputs())?;
    if let Some(b) = fixed_batch {
        println!(
            "note: this network's graph is exported for a fixed batch of {b} (its slices cannot keep a free batch axis)"
        );
    }
    mancala_container::atomic_write(out, &bytes).with_context(|| format!("writing {}", out.display()))?;
    let check = check_vectors(net, game, &layout)?;
    let sidecar = serde_json::json!({
        "format": "mancala-zero onnx export 1",
        "model": meta,
        "inputs": layout.inputs(),
        "actions": game.action_space(),
        "outputs": ["policy_logits", "wdl_logits", "margin"],
        "fixed_batch": fixed_batch,
        "notes": "input: the features of crates/encoding/src/encoding.rs at encoding_version, seen from the mover's seat; \
                  policy: mask illegal moves then softmax; wdl: win, draw, loss logits for the mover; \
                  margin: final seed margin / total seeds",
        "check": check,
    });
    let json_path = PathBuf::from(format!("{}.json", out.display()));
    mancala_container::atomic_write(&json_path, serde_json::to_string_pretty(&sidecar)?.as_bytes())
        .with_context(|| format!("writing {}", json_path.display()))?;
    Ok(())
}

/// Inputs of a few positions (random plies from the start, as `bench nn` samples them) with burn's outputs
/// for them, so that any runtime can check it reads the graph the same way
/// (`scripts/onnx_check.py` does, with onnxruntime).
#[cfg(feature = "onnx")]
fn check_vectors(net: &Net, game: &AnyGame, layout: &mancala_encoding::Layout) -> anyhow::Result<serde_json::Value> {
    use burn::prelude::*;

    let positions = super::bench::nn::sample_positions(game, 6, 1);
    let mut flat = Vec::new();
    mancala_encoding::encode_batch(game, layout, &positions, &mut flat);
    let inputs: Vec<Vec<f32>> = flat.chunks(layout.inputs()).map(<[f32]>::to_vec).collect();
    let data = TensorData::new(flat, [positions.len(), layout.inputs()]);
    let out = net.forward(Tensor::<2>::from_data(data, &Device::flex()));
    let rows = |t: Tensor<2>| -> anyhow::Result<Vec<Vec<f32>>> {
        let [_, width] = t.dims();
        let data = t.into_data().try_into_vec::<f32>().map_err(|e| anyhow::anyhow!("reading outputs: {e:?}"))?;
        Ok(data.chunks(width).map(<[f32]>::to_vec).collect())
    };
    Ok(serde_json::json!({
        "inputs": inputs,
        "policy_logits": rows(out.policy)?,
        "wdl_logits": rows(out.wdl)?,
        "margin": rows(out.margin)?,
    }))
}

#[cfg(not(feature = "onnx"))]
fn write_onnx(_out: &Path, _meta: &ModelMeta, _net: &Net, _game: &AnyGame) -> anyhow::Result<()> {
    unreachable!("refused in run() without the onnx feature")
}
