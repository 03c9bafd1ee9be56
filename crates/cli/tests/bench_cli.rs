//! `mancala-zero bench` end to end: every kind runs briefly and prints its figures in the
//! documented form; bad input is refused with a message naming it. No test looks at speed.

use std::path::PathBuf;
use std::process::{Command, Output};

use burn::prelude::*;
use mancala_encoding::layout;
use mancala_nn::{Architecture, NetConfig};
use mancala_rules::{Game, parse_rules};

const BIN: &str = env!("CARGO_BIN_EXE_mancala-zero");

fn bench(args: &[&str]) -> Output {
    Command::new(BIN).arg("bench").args(args).output().expect("the binary runs")
}

/// Runs a bench that must succeed; returns its stdout lines.
fn bench_ok(args: &[&str]) -> Vec<String> {
    let out = bench(args);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(out.status.success(), "{args:?} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    stdout.lines().map(str::to_string).collect()
}

/// The number after `prefix` on the line that starts with it (the first word after it).
fn figure(lines: &[String], prefix: &str) -> f64 {
    let line =
        lines.iter().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no '{prefix}' line in {lines:#?}"));
    let rest = line[prefix.len()..].trim();
    let word = rest.split_whitespace().next().unwrap_or_else(|| panic!("nothing after '{prefix}': {line}"));
    word.parse().unwrap_or_else(|_| panic!("'{word}' in '{line}' is not a number"))
}

/// Checks that the last line is exactly `{name}: N` with a positive integer N; returns N.
fn last_integer(lines: &[String], name: &str) -> u64 {
    let last = lines.last().expect("some output");
    let value =
        last.strip_prefix(&format!("{name}: ")).unwrap_or_else(|| panic!("last line '{last}' is not '{name}: N'"));
    let n: u64 = value.parse().unwrap_or_else(|_| panic!("'{value}' in '{last}' is not an integer"));
    assert!(n > 0, "{last}");
    n
}

fn fails_naming(args: &[&str], words: &[&str]) {
    let out = bench(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    for w in words {
        assert!(stderr.contains(w), "{args:?}: stderr lacks '{w}':\n{stderr}");
    }
}

#[test]
fn rules_bench_reports_moves_per_second_for_every_game() {
    for game in ["oware", "ouril", "awale", "kalah", "ba-awa", "owela", "kalah:4,3", "oware grand_slam=capture-all"] {
        let lines = bench_ok(&["rules", "--game", game, "--seconds", "0.2"]);
        let moves_per_s = last_integer(&lines, "moves/s") as f64;
        let games_per_s = figure(&lines, "games/s:");
        let plies = figure(&lines, "plies/game:");
        assert!(games_per_s > 0.0 && plies >= 1.0, "{game}: {lines:#?}");
        // The figures describe the same run: moves = games x plies a game (rounding aside).
        let implied = games_per_s * plies;
        assert!((implied - moves_per_s).abs() <= 0.01 * moves_per_s + plies + 1.0, "{game}: {lines:#?}");
        let rules = parse_rules(game).unwrap().rules_string();
        assert_eq!(lines[0], format!("game: {rules}"));
    }
}

#[test]
fn mcts_bench_reports_simulations_per_second() {
    for game in ["oware", "kalah"] {
        let lines = bench_ok(&["mcts", "--game", game, "--simulations", "300", "--seconds", "0.2"]);
        last_integer(&lines, "simulations/s");
        assert!(lines.iter().any(|l| l.starts_with("searches: ") && l.contains("of 300 simulations")), "{lines:#?}");
    }
}

/// Every batch line twice (evaluator and forward), the parameter count of the network asked
/// for, and the training step last.
fn check_nn(lines: &[String], expected: &NetConfig) {
    let batch_lines: Vec<&String> = lines.iter().filter(|l| l.starts_with("batch ")).collect();
    assert_eq!(batch_lines.len(), 10, "{lines:#?}");
    for (line, n) in batch_lines.iter().zip([1, 8, 32, 128, 512].repeat(2)) {
        let rest = line.strip_prefix(&format!("batch {n}: ")).unwrap_or_else(|| panic!("'{line}' is not batch {n}"));
        let (rate, per_call) = rest.split_once(" positions/s (").unwrap_or_else(|| panic!("'{line}'"));
        assert!(rate.parse::<u64>().unwrap() > 0, "{line}");
        let us: f64 = per_call.strip_suffix(" us/call)").unwrap_or_else(|| panic!("'{line}'")).parse().unwrap();
        assert!(us > 0.0, "{line}");
    }
    let params = figure(lines, "parameters:") as usize;
    assert_eq!(params, expected.init(&Device::flex()).num_params());
    let last = lines.last().unwrap();
    let ms: f64 = last
        .strip_prefix("train step (batch 256): ")
        .and_then(|r| r.strip_suffix(" ms"))
        .unwrap_or_else(|| panic!("last line '{last}'"))
        .parse()
        .unwrap();
    assert!(ms > 0.0, "{last}");
}

fn small_config(game: &str, arch: Architecture, width: usize, blocks: usize) -> NetConfig {
    let game = parse_rules(game).unwrap();
    NetConfig::for_layout(&layout(&game), game.action_space())
        .with_architecture(arch)
        .with_width(width)
        .with_blocks(blocks)
}

#[test]
fn nn_bench_reports_every_batch_and_the_training_step() {
    let lines = bench_ok(&["nn", "--game", "oware", "--width", "16", "--blocks", "1", "--seconds", "0.2"]);
    check_nn(&lines, &small_config("oware", Architecture::Mlp, 16, 1));
    // On the CPU the plain-Rust kernel evaluates an MLP and a conv tower (in int8 too).
    let evaluator = |lines: &[String]| lines.iter().find(|l| l.starts_with("evaluator (")).cloned().unwrap_or_default();
    assert!(evaluator(&lines).contains("plain-Rust"), "{lines:#?}");
    let lines = bench_ok(&[
        "nn",
        "--game",
        "kalah",
        "--width",
        "16",
        "--blocks",
        "1",
        "--kernel",
        "scalar",
        "--batches",
        "3",
        "--seconds",
        "0.1",
    ]);
    assert!(evaluator(&lines).contains("plain-Rust scalar kernel"), "{lines:#?}");
    // A conv tower of 8 channels, one block, with `extra` options.
    let conv = |game: &str, extra: &[&str]| {
        let mut args = vec!["nn", "--game", game, "--architecture", "conv", "--width", "8", "--blocks", "1"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--seconds", "0.2"]);
        let lines = bench_ok(&args);
        check_nn(&lines, &small_config(game, Architecture::Conv, 8, 1));
        lines
    };
    let lines = conv("ba-awa", &[]);
    assert!(evaluator(&lines).contains("plain-Rust"), "{lines:#?}");
    let lines = conv("oware", &["--precision", "int8"]);
    assert!(evaluator(&lines).contains("residual blocks int8 on"), "{lines:#?}");
}

fn temp_config(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("mancala-bench-{}-{name}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn nn_bench_reads_the_network_table_of_a_config() {
    let path =
        temp_config("good", "[game]\nrules = \"kalah\"\n[network]\narchitecture = \"conv\"\nwidth = 8\nblocks = 1\n");
    let p = path.to_str().unwrap();
    // Without --game the config's game is benchmarked.
    let lines = bench_ok(&["nn", "--config", p, "--seconds", "0.2"]);
    check_nn(&lines, &small_config("kalah", Architecture::Conv, 8, 1));
    let kalah = parse_rules("kalah").unwrap().rules_string();
    assert_eq!(lines[0], format!("game: {kalah}"));
    // Options on the command line win over the file.
    let lines = bench_ok(&["nn", "--game", "owela", "--config", p, "--architecture", "mlp", "--seconds", "0.2"]);
    check_nn(&lines, &small_config("owela", Architecture::Mlp, 8, 1));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_clear_message() {
    fails_naming(&["rules", "--game", "chess", "--seconds", "0.1"], &["chess", "oware"]);
    fails_naming(&["mcts", "--game", "oware houses=99", "--seconds", "0.1"], &["houses"]);
    fails_naming(&["rules", "--game", "kalah", "--seconds", "-1"], &["--seconds", "-1"]);
    fails_naming(&["rules", "--seconds", "soon"], &["soon"]);
    fails_naming(&["mcts", "--simulations", "0"], &["--simulations", "0"]);
    fails_naming(&["nn", "--architecture", "transformer"], &["transformer", "mlp"]);
    fails_naming(&["nn", "--width", "0"], &["--width"]);
    fails_naming(&["nn", "--kernel", "mmx"], &["--kernel", "mmx", "scalar"]);
    fails_naming(&["nn", "--config", "/no/such/run.toml"], &["/no/such/run.toml"]);
    for (name, text, words) in [
        ("narrow", "[game]\nrules = \"oware\"\n[network]\nwidth = 0\n", &["network.width", "0"][..]),
        ("wide", "[game]\nrules = \"oware\"\n[network]\nwidth = \"wide\"\n", &["width", "wide"][..]),
        ("gameless", "[network]\nwidth = 8\n", &["game"][..]),
    ] {
        let bad = temp_config(name, text);
        let path = bad.to_str().unwrap();
        fails_naming(&["nn", "--config", path], &[&[path][..], words].concat());
        std::fs::remove_file(bad).unwrap();
    }
    fails_naming(&["tennis"], &["tennis"]);
}

#[test]
fn fleet_bench_ingests_every_simulated_shard() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("fleet").display().to_string();
    let lines = bench_ok(&["fleet", "--store", &store, "--config", "tiny", "--workers", "3", "--shards", "2"]);
    assert!(lines[0].starts_with("sample shard: 4 games"), "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("3 simulated workers x 2 shards")), "{lines:#?}");
    last_integer(&lines, "ingest rows/s");
    // Every simulated worker's shards are in the store, named by worker and sequence.
    for w in 0..3 {
        for s in 1..=2 {
            assert!(dir.path().join(format!("fleet/shards/sim-{w:03}/{s:08}.shard")).is_file());
        }
    }
    // The store now holds a run: a second bench there is refused, naming it.
    fails_naming(&["fleet", "--store", &store, "--config", "tiny"], &["already holds a run"]);
    fails_naming(&["fleet", "--store", "memory://f", "--workers", "0"], &["--workers and --shards must be at least 1"]);
}
