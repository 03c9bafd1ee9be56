//! `mancala-zero train` end to end with configs/tiny.toml: a run in a directory with every
//! object of its layout, a corrupt shard skipped by name, export of the best model, and a
//! run killed at many random moments that resumes every time and ends consistent, and initial
//! weights (`--init`) of another game refused before anything is written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use burn::prelude::Device;
use mancala_store::Store;
use mancala_train::Run;
use mancala_train::layout::{self, Candidate, Decision, GatingRecord};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn tiny() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml")
}

fn files_under(dir: &Path, sub: &str) -> usize {
    std::fs::read_dir(dir.join(sub)).map(|d| d.count()).unwrap_or(0)
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
    assert!(stdout.contains("candidate    2"), "{stdout}");
    assert!(stdout.contains("done: 2 iterations"), "{stdout}");
    let run = dir.path().join("t");
    for f in [
        "config.toml",
        "run.json",
        "best.json",
        "metrics.jsonl",
        "candidates/gen-000000.json",
        "candidates/gen-000002.json",
        "gating/gen-000002.json",
        "gating/gen-000002.jsonl",
        "workers/local-1.json",
    ] {
        assert!(run.join(f).is_file(), "missing {f}");
    }
    assert!(run.join("shards/local-1/00000001.shard").is_file());
    assert!(files_under(&run, "models") >= 3);
    // Only the newest candidate's restart point is kept: its optimiser state and, since the
    // model is the weights' moving average (`training.average_steps`), the weights themselves.
    assert_eq!(files_under(&run, "optim"), 2);
    assert!(files_under(&run, "tb") >= 1, "no TensorBoard event file");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let candidates: Vec<&serde_json::Value> = lines.iter().filter(|l| l["record"] == "candidate").collect();
    assert_eq!(candidates.len(), 2);
    for key in [
        "loss/policy",
        "loss/value",
        "loss/margin",
        "train/policy_entropy",
        "train/value_accuracy",
        "train/learning_rate",
        "selfplay/games_per_s",
        "selfplay/positions_per_s",
        "replay/window_rows",
    ] {
        assert!(candidates[1][key].is_number(), "metrics lack {key}");
    }
    assert!(lines.iter().any(|l| l["record"] == "gating" && l["gating/score"].is_number()));
    assert!(lines.iter().any(|l| l["elo/random"].is_number() && l["elo/greedy"].is_number()), "{metrics}");

    // An existing run is never overwritten silently.
    let again = bin()
        .args(["train", "--config"])
        .arg(tiny())
        .args(["--run", "t", "--checkpoints"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));

    // A corrupt shard from some worker is skipped with a warning naming it; training goes
    // on, and --iterations on resume extends the run.
    let good = std::fs::read(run.join("shards/local-1/00000001.shard")).unwrap();
    std::fs::create_dir_all(run.join("shards/broken")).unwrap();
    std::fs::write(run.join("shards/broken/00000001.shard"), &good[..good.len() / 2]).unwrap();
    let out = bin().args(["train", "--iterations", "1", "--resume"]).arg(&run).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("warning: trainer: skipping shard")
            && stdout.contains("broken/00000001.shard")
            && stdout.contains("truncated"),
        "{stdout}"
    );
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

    let best: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("best.json")).unwrap()).unwrap();
    let dev = Device::flex();
    let (best_meta, best_net) =
        mancala_nn::load_model(&run.join(best["model"].as_str().unwrap()), None, None, &dev).unwrap();
    let (meta, net) = mancala_nn::load_model(&exported, Some(&best_meta.rules), Some(&best_meta.net), &dev).unwrap();
    assert_eq!(meta.step, best_meta.step);
    assert_eq!(meta.extra["iteration"], best["generation"].as_u64().unwrap().to_string());
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

    // --average N: the mean of the weights of the N newest candidates up to the best one.
    let best_gen = best["generation"].as_u64().unwrap();
    let candidate_net = |g: u64| {
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join(format!("candidates/gen-{g:06}.json"))).unwrap())
                .unwrap();
        mancala_nn::load_model(&run.join(record["model"].as_str().unwrap()), None, None, &dev).unwrap().1
    };
    let averaged = scratch.join("out/kalah-avg.mzm");
    let n = best_gen + 1; // every candidate from generation 0 to the best
    let out =
        bin().arg("export").arg(run).args(["--average", &n.to_string(), "--out"]).arg(&averaged).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (avg_meta, avg_net) = mancala_nn::load_model(&averaged, Some(&best_meta.rules), None, &dev).unwrap();
    let nets: Vec<mancala_nn::Net> = (0..=best_gen).map(candidate_net).collect();
    let want = mancala_nn::flat_weights(&mancala_nn::mean_weights(&nets).unwrap());
    assert_eq!(mancala_nn::flat_weights(&avg_net), want);
    assert_eq!(avg_meta.extra["average"], format!("candidates 0 to {best_gen}"));
    assert!(avg_meta.elo.is_empty(), "no evaluation measured the average: {:?}", avg_meta.elo);
    let too_many = (best_gen + 2).to_string();
    let bad = bin().arg("export").arg(run).args(["--average", &too_many]).output().unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains(&format!("has {} candidates up to its best model", best_gen + 1)), "{err}");
    let bad = bin().arg("export").arg(&exported).args(["--average", "2"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is a model file"));

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
        let sidecar: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(scratch.join("out/kalah.onnx.json")).unwrap()).unwrap();
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

/// What the run was doing when it was killed, read from its records.
fn stage_at_kill(run: &Run) -> &'static str {
    let (Ok(c), Ok(g), Ok(e)) =
        (run.generations(layout::CANDIDATES), run.generations(layout::GATING), run.generations(layout::EVAL))
    else {
        return "starting";
    };
    let newest = c.last().copied().unwrap_or(0);
    let best = run.best().map(|b| b.generation).unwrap_or(0);
    if newest == 0 {
        "self-play before the first candidate"
    } else if !g.contains(&newest) {
        "gating"
    } else if best > 0 && !e.contains(&best) {
        "evaluation right after a promotion"
    } else {
        "self-play and training"
    }
}

/// Checks what must hold in a run at any moment: every candidate's model matches its
/// checksum, the pointer names the newest promotion and its model loads, no shard is
/// ingested twice, and the metrics view has one line per record.
fn consistent(run: &Run) -> u64 {
    let dev = Device::flex();
    let gens = run.generations(layout::CANDIDATES).unwrap();
    for g in &gens {
        let c: Candidate = run.read(&layout::candidate_key(*g)).unwrap();
        run.load_model(*g, &c.model, &c.checksum, &dev).unwrap();
        assert_eq!(
            c.ingested.iter().collect::<HashSet<_>>().len(),
            c.ingested.len(),
            "candidate {g} ingested a shard twice"
        );
    }
    let mut promoted = 0;
    for g in run.generations(layout::GATING).unwrap() {
        if run.read::<GatingRecord>(&layout::gating_key(g)).unwrap().decision == Decision::Promoted {
            promoted = g;
        }
    }
    let best = run.best().unwrap();
    // The pointer is written after the decision: a kill between them leaves it one
    // promotion behind, which the gatekeeper's restart mends.
    assert!(best.generation <= promoted);
    run.load_best(&dev).unwrap();
    if let Some(bytes) = run.store.get_opt(layout::METRICS).unwrap() {
        let text = String::from_utf8(bytes).unwrap();
        let keys: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|v| format!("{}/{}", v["record"], v["iteration"]))
            .collect();
        assert_eq!(keys.iter().collect::<HashSet<_>>().len(), keys.len(), "a metrics line twice: {text}");
    }
    *gens.last().unwrap()
}

#[test]
fn a_run_killed_at_random_moments_resumes_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let url = dir.path().join("k").display().to_string();
    // Gating always promotes and every best model is evaluated, so kills also land in the
    // window right after a promotion.
    let config = std::fs::read_to_string(tiny())
        .unwrap()
        .replace("iterations = 2", "iterations = 40")
        .replace("threshold = 0.5", "threshold = 0.0")
        .replace("every = 2", "every = 1")
        .replace("tensorboard = true", "tensorboard = false");
    let config_path = dir.path().join("kill.toml");
    std::fs::write(&config_path, config).unwrap();
    // Deterministic but spread kill moments: a small LCG over 0.1 to 1.5 seconds.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut stages = std::collections::BTreeMap::new();
    let (mut kills, mut sessions, mut extend) = (0, 0, false);
    while kills < 22 {
        let mut cmd = bin();
        if sessions == 0 {
            cmd.args(["train", "--config"]).arg(&config_path).args(["--store", &url]);
        } else {
            cmd.args(["train", "--resume", &url]);
        }
        if extend {
            // The run reached its limit before this kill: give it more to do.
            cmd.args(["--iterations", "20"]);
        }
        sessions += 1;
        let mut child = cmd.arg("--quiet").stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let wait = Duration::from_millis(100 + (x >> 33) % 1400);
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            assert!(status.success(), "session {sessions} failed: {err}");
            extend = true;
            continue;
        }
        extend = false;
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        if let Ok(run) = Run::open(Store::open(&url).unwrap()) {
            *stages.entry(stage_at_kill(&run)).or_insert(0) += 1;
            consistent(&run);
        } else {
            *stages.entry("creating the run").or_insert(0) += 1;
        }
    }
    eprintln!("{kills} kills in {sessions} sessions, by stage: {stages:?}");
    let out = bin().args(["train", "--resume", &url]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Run::open(Store::open(&url).unwrap()).unwrap();
    let info = run.info().unwrap();
    assert!(info.finished);
    assert!(stdout.contains(&format!("done: {} iterations", info.iterations)), "{stdout}");
    assert_eq!(consistent(&run), info.iterations);
    // After the final session the pointer is mended to the newest promotion.
    let status = bin().args(["status", "--json", "--store", &url]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(v["generation"], info.iterations);
    assert_eq!(v["best"]["generation"], info.iterations, "gating always promotes");
    assert_eq!(
        v["promotions"].as_u64(),
        Some(run.generations(layout::GATING).unwrap().len() as u64 - superseded(&run))
    );
    assert_eq!(v["evaluated"], info.iterations);
}

fn superseded(run: &Run) -> u64 {
    run.generations(layout::GATING)
        .unwrap()
        .into_iter()
        .filter(|g| run.read::<GatingRecord>(&layout::gating_key(*g)).unwrap().decision == Decision::Superseded)
        .count() as u64
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
        let out =
            bin().args(["train", "--config"]).arg(&path).args(["--checkpoints"]).arg(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(needle), "case {k}: '{err}' lacks '{needle}'");
    }
    // nothing was created for refused configs
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| e.unwrap().path().extension().is_some_and(|x| x == "toml")));
}

#[test]
fn a_model_of_another_game_is_refused_as_the_initial_weights() {
    let dir = tempfile::tempdir().unwrap();
    let oware = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../checkpoints/shipped/oware.mzm");
    let out = bin()
        .args(["train", "--game", "kalah", "--init"])
        .arg(&oware)
        .args(["--run", "from-oware", "--checkpoints"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("run.init_model") && err.contains("oware.mzm") && err.contains("kalah"), "{err}");
    let run = dir.path().join("from-oware");
    assert!(!run.join("run.json").exists() && !run.join("config.toml").exists(), "nothing of a run is written");
}
