//! A game no preset covers, from a description file, through the whole framework: a tiny
//! `train` run on the file, then `export`, `arena`, `play` and the engine on its model with
//! the file gone (the run, the model and the shard carry the description), and `bench rules`
//! on the sowing engine.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// Two ranks of three houses, two seeds each, sown clockwise; a last seed making 2 or 3 in
/// an opponent's house captures it and the run before it; a cap of 80 plies.
const GAME: &str = r#"
format = 1
name = "three-by-two"
title = "A test game"
[board]
houses = 3
seeds = 2
[sowing]
direction = "clockwise"
[capture]
counts = [2, 3]
on = "run"
[end]
majority = true
max_plies = 80
"#;

fn tiny_config(dir: &Path, game: &Path) -> PathBuf {
    let tiny = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml")).unwrap();
    let text = tiny.replace("rules = \"kalah:3,2\"", &format!("rules = {:?}", game.display().to_string()));
    assert_ne!(text, tiny, "configs/tiny.toml names its game as the test expects");
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_described_game_trains_and_its_model_plays_without_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("three-by-two.toml");
    std::fs::write(&game, GAME).unwrap();
    let config = tiny_config(dir.path(), &game);
    let runs = dir.path().join("runs");
    let stdout = ok(&bin()
        .args(["train", "--quiet", "--config"])
        .arg(&config)
        .args(["--run", "d", "--checkpoints"])
        .arg(&runs)
        .output()
        .unwrap());
    assert!(stdout.contains("done: 2 iterations"), "{stdout}");

    // The run stands alone: its config names the game by its one-line description.
    let stored = std::fs::read_to_string(runs.join("d/config.toml")).unwrap();
    let table: toml::Table = toml::from_str(&stored).unwrap();
    let rules = table["game"]["rules"].as_str().unwrap().to_string();
    assert!(rules.starts_with("sowing {") && rules.contains("\"three-by-two\""), "{rules}");
    std::fs::remove_file(&game).unwrap();

    let model = dir.path().join("d.mzm");
    ok(&bin().args(["export"]).arg(runs.join("d")).arg("--out").arg(&model).output().unwrap());
    let net = format!("net:{},sims=8", model.display());
    let stdout = ok(&bin()
        .args(["arena", "--game", &rules, "--a", &net, "--b", "random", "--games", "4", "--threads", "1"])
        .output()
        .unwrap());
    assert!(stdout.contains("games"), "{stdout}");

    // The terminal game against the model, moves through a pipe.
    let mut child = bin()
        .args(["play", "--game", &rules, "--model"])
        .arg(&model)
        .args(["--simulations", "8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"board\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("three-by-two"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));

    // The engine: the game by its rules string, a move asked of the model, one played.
    let mut child = bin()
        .args(["engine", "--game", &rules, "--model"])
        .arg(&model)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"set simulations 8\ngenmove\nposition\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains('?'), "{stdout}");
    assert!(stdout.contains("north |"), "{stdout}");

    // A model is refused for another game, by name.
    let out =
        bin().args(["arena", "--game", "kalah:3,2", "--a", &net, "--b", "random", "--games", "2"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("three-by-two") || stderr.contains("sowing"), "{stderr}");
}

#[test]
fn bench_rules_times_the_sowing_engine_on_a_preset_and_a_file() {
    let stdout =
        ok(&bin().args(["bench", "rules", "--game", "kalah", "--described", "--seconds", "0.2"]).output().unwrap());
    assert!(stdout.contains("engine: sowing (described)") && stdout.contains("moves/s:"), "{stdout}");
    let stdout = ok(&bin().args(["bench", "rules", "--game", "kalah", "--seconds", "0.2"]).output().unwrap());
    assert!(stdout.contains("engine: hand-written"), "{stdout}");
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../games/congkak.toml");
    let stdout = ok(&bin().args(["bench", "rules", "--game"]).arg(&games).args(["--seconds", "0.2"]).output().unwrap());
    assert!(stdout.contains("\"congkak\"") && stdout.contains("engine: sowing"), "{stdout}");
}

#[test]
fn train_takes_a_description_file_as_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("g.toml");
    std::fs::write(&game, GAME.replace("max_plies = 80", "max_plies = 0")).unwrap();
    let out = bin().args(["train", "--game"]).arg(&game).args(["--checkpoints"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("end.max_plies") && stderr.contains("for ever"), "{stderr}");
}

/// An endgame database of a described game whose positions are its board and scores, probed
/// by position line; a game whose seeds never leave the board is refused, with the reason.
#[test]
fn tablebase_builds_for_a_described_game_and_refuses_what_it_cannot_hold() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("three-by-two.toml");
    std::fs::write(&game, GAME.replace("max_plies = 80", "cycle = \"repetition\"\nmax_plies = 80")).unwrap();
    let db = dir.path().join("g.mzt");
    let stdout = ok(&bin()
        .args(["tablebase", "build", "--game"])
        .arg(&game)
        .args(["--seeds", "4", "--out"])
        .arg(&db)
        .output()
        .unwrap());
    assert!(!stdout.is_empty());
    // South to move with 4 seeds on the board, 8 captured in all.
    let stdout = ok(&bin()
        .args(["tablebase", "probe", "--db"])
        .arg(&db)
        .args(["--position", "south | 5 3 | 1 1 0 0 1 1 | ongoing"])
        .output()
        .unwrap());
    assert!(stdout.contains("value"), "{stdout}");
    let kept = dir.path().join("kept.toml");
    std::fs::write(
        &kept,
        "format = 1\nname = \"kept\"\n[board]\nhouses = 3\nseeds = 2\n[end]\nscore = \"board\"\nmax_plies = 50\n",
    )
    .unwrap();
    let out = bin()
        .args(["tablebase", "build", "--game"])
        .arg(&kept)
        .args(["--seeds", "4", "--out"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("never takes seeds off the board"), "{stderr}");
}
