//! One player in every front-end: the same position, seed and settings give the same move and
//! the same analysis from the player builder itself, from the engine binary, and from the web
//! page's engine, because all three build their search with `mancala_agents::build_player`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use mancala_agents::{Guide, PlayerSettings, build_player};
use mancala_rules::{AnyGame, Game, Line, MAX_ACTIONS, parse_rules};
use mancala_web::engine::{Opponent, think};
use mancala_web::{Brains, SearchLimits, Strength};

const BIN: &str = env!("CARGO_BIN_EXE_mancala-zero");
const SIMULATIONS: u32 = 120;
const SEED: u64 = 7;

fn shipped_kalah() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../checkpoints/shipped/kalah.mzm")
}

/// A Kalah position a few moves in, where the moves differ.
fn position() -> Line<AnyGame> {
    let mut line = Line::new(parse_rules("kalah").unwrap());
    for k in [2, 5, 1, 3, 4] {
        let legal = line.legal_moves();
        let action = legal.nth(k % legal.len()).unwrap();
        line.play(action).unwrap();
    }
    line
}

/// `value V policy L:P ...` as the engine writes it.
fn analysis_text(value: f32, moves: &[(String, f32)]) -> String {
    let three = |x: f32| format!("{:.3}", (x * 1000.0).round() / 1000.0 + 0.0);
    let mut out = format!("value {} policy", three(value.clamp(-1.0, 1.0)));
    for (label, share) in moves {
        out.push_str(&format!(" {label}:{}", three(*share)));
    }
    out
}

/// The builder asked directly: (move, analysis).
fn from_the_builder(line: &Line<AnyGame>, threads: usize) -> (String, String) {
    let game = line.game().clone();
    let guide = Guide::model_file(&game, &shipped_kalah()).unwrap();
    let settings = PlayerSettings { simulations: SIMULATIONS, threads, ..PlayerSettings::network() };
    let mut player = build_player(&game, &guide, None, &settings, SEED, "builder".into()).unwrap();
    let search = player.analyse(line);
    let mut policy = [0.0f32; MAX_ACTIONS];
    search.policy_target(&mut policy[..game.action_space()]);
    let side = line.side_to_move();
    let moves: Vec<(String, f32)> =
        line.legal_moves().iter().map(|a| (game.move_label(side, a), policy[usize::from(a)])).collect();
    let analysis = analysis_text(search.root_value(), &moves);
    let best = player.pick(0.0).unwrap();
    (game.move_label(side, best), analysis)
}

/// The engine binary with the shipped network: (genmove, analyze).
fn from_the_engine(line: &Line<AnyGame>, threads: usize) -> (String, String) {
    let printed = line.game().to_setup(line.position()).to_string();
    let script = format!(
        "set simulations {SIMULATIONS}\nset seed {SEED}\nset threads {threads}\nposition {printed}\nanalyze\ngenmove\n"
    );
    let mut child = Command::new(BIN)
        .args(["engine", "--game", "kalah"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = stdout.split_terminator("\n\n").collect();
    assert_eq!(answers.len(), 6, "{stdout}");
    assert!(answers[..4].iter().all(|a| *a == "="), "{stdout}");
    let result = |a: &str| a.strip_prefix("= ").unwrap_or_else(|| panic!("{a}")).to_string();
    (result(answers[5]), result(answers[4]))
}

/// The web page's engine with the same network as `--model`: (best move, analysis).
fn from_the_web(line: &Line<AnyGame>, threads: usize) -> (String, String) {
    let brains = Brains::new(Some(&shipped_kalah()), None, None).unwrap();
    // A think time far beyond what the simulations take: the simulations end the search.
    let limits = SearchLimits { max_simulations: 50_000, max_think: Duration::from_secs(3600) };
    let thought =
        think(&brains, &Opponent::Default, line, Strength::Simulations(SIMULATIONS), &limits, SEED, threads).unwrap();
    assert_eq!(thought.simulations, SIMULATIONS);
    let total: u32 = thought.moves.iter().map(|m| m.visits).sum();
    let moves: Vec<(String, f32)> =
        thought.moves.iter().map(|m| (m.house.clone(), m.visits as f32 / total as f32)).collect();
    (thought.best.unwrap(), analysis_text(thought.value, &moves))
}

#[test]
fn every_front_end_plays_and_analyses_alike() {
    let line = position();
    for threads in [1, 2] {
        let builder = from_the_builder(&line, threads);
        assert_eq!(from_the_engine(&line, threads), builder, "engine, {threads} thread(s)");
        assert_eq!(from_the_web(&line, threads), builder, "web, {threads} thread(s)");
    }
}
