//! `mancala-zero train` end to end with configs/tiny.toml: two iterations, then a run killed
//! after its first checkpoint that resumes and finishes with its files intact.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn tiny() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml")
}

fn state_iteration(run: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(run.join("state.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["iteration"].as_u64()
}

#[test]
fn two_iterations_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["train", "--config"])
        .arg(tiny())
        .args(["--run", "t", "--checkpoints"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("iter    2"), "{stdout}");
    assert!(stdout.contains("done: 2 iterations"), "{stdout}");
    let run = dir.path().join("t");
    for f in ["config.toml", "state.json", "best.json", "metrics.jsonl", "models/iter-0000.mzm", "models/iter-0002.mzm", "shards/iter-0001.shard", "shards/iter-0002.shard", "arena/gating-0002.jsonl", "arena/eval-0002.jsonl"] {
        assert!(run.join(f).is_file(), "missing {f}");
    }
    assert!(std::fs::read_dir(run.join("tb")).unwrap().count() >= 1, "no TensorBoard event file");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    for key in ["loss/policy", "loss/value", "loss/margin", "train/policy_entropy", "train/value_accuracy", "train/learning_rate", "selfplay/games_per_s", "selfplay/positions_per_s", "selfplay/simulations_per_s", "gating/score", "gating/promotions"] {
        assert!(lines[1][key].is_number(), "metrics lack {key}");
    }
    assert!(lines[1]["elo/random"].is_number() && lines[1]["elo/greedy"].is_number());

    // An existing run is never overwritten silently.
    let again = bin().args(["train", "--config"]).arg(tiny()).args(["--run", "t", "--checkpoints"]).arg(dir.path()).output().unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));

    // A truncated shard is skipped with a warning naming it; training goes on.
    let shard = run.join("shards/iter-0001.shard");
    let bytes = std::fs::read(&shard).unwrap();
    std::fs::write(&shard, &bytes[..bytes.len() / 2]).unwrap();
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap().replace("iterations = 2", "iterations = 3");
    std::fs::write(run.join("config.toml"), config).unwrap();
    let out = bin().args(["train", "--resume"]).arg(&run).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("warning: skipping shard") && stdout.contains("iter-0001.shard"), "{stdout}");
    assert!(stdout.contains("done: 3 iterations"), "{stdout}");

    export_gives_the_best_model(&run, dir.path());
}

/// `export RUN` writes the run's best model with its metadata; loaded back it plays exactly
/// as the run's own best checkpoint. Bad formats and non-runs are refused by name.
fn export_gives_the_best_model(run: &Path, scratch: &Path) {
    use burn::prelude::Device;
    use mancala_mcts::Evaluator;
    use mancala_rules::{Game, Line};

    let exported = scratch.join("out/kalah.mzm");
    let out = bin().arg("export").arg(run).arg("--out").arg(&exported).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("exported kalah houses=3 seeds=2") && stdout.contains("elo vs random"), "{stdout}");

    let best: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("best.json")).unwrap()).unwrap();
    let dev = Device::flex();
    let (best_meta, best_net) = mancala_nn::load_model(&run.join(best["model"].as_str().unwrap()), None, None, &dev).unwrap();
    let (meta, net) = mancala_nn::load_model(&exported, Some(&best_meta.rules), Some(&best_meta.net), &dev).unwrap();
    assert_eq!(meta.step, best_meta.step);
    assert_eq!(meta.extra["iteration"], best["iteration"].as_u64().unwrap().to_string());
    assert!(meta.elo.contains_key("random") && meta.elo.contains_key("greedy"), "{:?}", meta.elo);

    let game = mancala_rules::parse_rules(&meta.rules).unwrap();
    let mut line = Line::new(game.clone());
    let mut positions = vec![*line.position()];
    for label in ["b", "B", "a"] {
        if line.play_label(label).is_ok() {
            positions.push(*line.position());
        }
    }
    let a = game.action_space();
    let outputs = |net: mancala_nn::Net| {
        let mut ev = mancala_nn::NeuralEvaluator::new(&game, net, dev.clone());
        let (mut p, mut v) = (vec![0.0f32; positions.len() * a], vec![0.0f32; positions.len()]);
        ev.evaluate(&game, &positions, &mut p, &mut v);
        (p, v)
    };
    assert_eq!(outputs(net), outputs(best_net), "exported model differs from the run's best");

    let bad = bin().arg("export").arg(run).args(["--format", "pickle"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--format pickle: expected mzm or onnx"));
    if cfg!(feature = "onnx") {
        // The graph and its sidecar with the metadata and burn's outputs for check inputs
        // (scripts/onnx_check.py compares them with onnxruntime's).
        let onnx = scratch.join("out/kalah.onnx");
        let out = bin().arg("export").arg(run).args(["--format", "onnx", "--out"]).arg(&onnx).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::metadata(&onnx).unwrap().len() > 1000);
        let sidecar: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(scratch.join("out/kalah.onnx.json")).unwrap()).unwrap();
        assert_eq!(sidecar["model"]["rules"], best_meta.rules.as_str());
        let inputs = sidecar["check"]["inputs"].as_array().unwrap();
        assert_eq!(sidecar["check"]["policy_logits"].as_array().unwrap().len(), inputs.len());
        assert_eq!(sidecar["check"]["policy_logits"][0].as_array().unwrap().len(), a);
    } else {
        let bad = bin().arg("export").arg(run).args(["--format", "onnx"]).output().unwrap();
        assert!(!bad.status.success());
        assert!(String::from_utf8_lossy(&bad.stderr).contains("cargo feature 'onnx'"));
    }
    let bad = bin().arg("export").arg(scratch.join("no-such-run")).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a run directory"));
}

#[test]
fn a_killed_run_resumes_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("k");
    // Enough iterations that the kill lands while the run is still going.
    let mut child = bin()
        .args(["train", "--config"])
        .arg(tiny())
        .args(["--run", "k", "--iterations", "40", "--quiet", "--checkpoints"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while state_iteration(&run).unwrap_or(0) < 1 {
        assert!(Instant::now() < deadline, "no checkpoint within two minutes");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be killed");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_at = state_iteration(&run).unwrap();
    assert!(killed_at >= 1);
    // Every completed iteration's files are intact.
    for it in 1..=killed_at {
        assert!(run.join(format!("shards/iter-{it:04}.shard")).is_file());
        assert!(run.join(format!("models/iter-{it:04}.mzm")).is_file());
    }
    let out = bin().args(["train", "--resume"]).arg(&run).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("resuming {} after iteration {killed_at}", run.display())), "{stdout}");
    assert!(stdout.contains("done: 40 iterations"), "{stdout}");
    assert_eq!(state_iteration(&run), Some(40));
    for it in 1..=40 {
        assert!(run.join(format!("shards/iter-{it:04}.shard")).is_file(), "shard {it} missing");
        assert!(run.join(format!("models/iter-{it:04}.mzm")).is_file(), "model {it} missing");
    }
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let iters: Vec<u64> = metrics
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["iteration"].as_u64().unwrap())
        .collect();
    // one line per iteration (the final evaluation may add one more for the last)
    for it in 1..=40 {
        assert!(iters.contains(&it), "metrics lack iteration {it}");
    }
}

#[test]
fn bad_configs_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("[game]\nrules = \"oware\"\n[network]\nwidht = 3\n", "widht"),
        ("[game]\nrules = \"chess\"\n", "unknown preset 'chess'"),
        ("[game]\nrules = \"oware\"\n[network]\narchitecture = \"transformer\"\n", "network.architecture"),
        ("[game]\nrules = \"oware\"\n[gating]\ngames = 7\n", "gating.games"),
        ("[game]\nrules = \"oware\"\n[evaluation]\nreferences = [\"alphabeta:depht=3\"]\n", "depht"),
        ("[game]\nrules = \"oware\"\n[search]\nroot = \"ucb\"\n", "puct or gumbel"),
    ];
    for (k, (text, needle)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("bad{k}.toml"));
        std::fs::write(&path, text).unwrap();
        let out = bin().args(["train", "--config"]).arg(&path).args(["--checkpoints"]).arg(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(needle), "case {k}: '{err}' lacks '{needle}'");
    }
    // nothing was created for refused configs
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| e.unwrap().path().extension().is_some_and(|x| x == "toml")));
}
