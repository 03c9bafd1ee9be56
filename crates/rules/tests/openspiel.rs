//! Oware and Kalah with default options agree move by move with OpenSpiel's `oware` and
//! `mancala` (docs/rules.md, "Tests").
//!
//! `tests/data/openspiel/{oware,mancala}.jsonl` hold random games played by OpenSpiel and
//! recorded by `scripts/openspiel_record.py`: one JSON object a line with the moves (pit
//! labels), the moves legal before each one, the position line after each one (engine protocol,
//! `SIDE | S0 S1 | PITS | STATUS`) and OpenSpiel's returns. Every game is replayed through
//! [`Line`], so the cycle rule applies as in real games; at every ply the legal moves and the
//! position line must be equal, and at the end the result must have the sign of the returns.
//!
//! Where OpenSpiel only books the end of a game differently (it moves the seeds left on the
//! board into the scores when an Oware game is won by a majority; it leaves a Kalah row's seeds
//! on the board), the recorded final position is written the docs/rules.md way; the script's header
//! says exactly what it changed, and each game keeps OpenSpiel's own last board in
//! `openspiel_final`.

use std::fs;
use std::path::Path;

use mancala_rules::sowing::{Described, preset_description};
use mancala_rules::{AnyGame, Game, Line, Player, Setup, parse_rules};
use serde_json::Value;

struct Recorded {
    seed: i64,
    moves: Vec<String>,
    positions: Vec<String>,
    legal: Vec<Vec<String>>,
    returns: [f64; 2],
    end: String,
    openspiel_final: String,
}

fn strings(v: &Value, what: &str) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("'{what}' is not an array"))
        .iter()
        .map(|s| s.as_str().unwrap_or_else(|| panic!("'{what}' holds a non-string")).to_string())
        .collect()
}

fn read_games(file: &str) -> Vec<Recorded> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/openspiel").join(file);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
            let returns: Vec<f64> =
                v["returns"].as_array().expect("returns").iter().map(|x| x.as_f64().expect("a number")).collect();
            let game = Recorded {
                seed: v["seed"].as_i64().expect("seed"),
                moves: strings(&v["moves"], "moves"),
                positions: strings(&v["positions"], "positions"),
                legal: v["legal"].as_array().expect("legal").iter().map(|l| strings(l, "legal")).collect(),
                returns: [returns[0], returns[1]],
                end: v["end"].as_str().unwrap_or("").to_string(),
                openspiel_final: v["openspiel_final"].as_str().unwrap_or("").to_string(),
            };
            assert!(
                game.moves.len() == game.positions.len() && game.moves.len() == game.legal.len(),
                "{file}:{}: moves, positions and legal differ in length",
                i + 1
            );
            game
        })
        .collect()
}

/// The game of `rules`: the preset's hand-written engine, or with `described` the sowing
/// engine playing the preset's description.
fn engine(rules: &str, described: bool) -> AnyGame {
    let game = parse_rules(rules).unwrap_or_else(|e| panic!("rules '{rules}': {e}"));
    if !described {
        return game;
    }
    let described = Described::new(preset_description(&game)).expect("a preset's description plays");
    AnyGame::Described(described)
}

/// Replays one game; `Err` describes the first disagreement.
fn replay(game: &AnyGame, index: usize, rec: &Recorded) -> Result<(), String> {
    let mut line = Line::new(game.clone());
    let at = |ply: usize| {
        format!(
            "game {index} (seed {}, ends by {}), ply {ply}, moves so far: [{}]",
            rec.seed,
            rec.end,
            rec.moves[..ply].join(" ")
        )
    };
    let start = line.game().to_setup(line.position()).to_string();
    let expected_start = format!("south | 0 0 |{} | ongoing", " 4".repeat(12));
    if start != expected_start {
        return Err(format!("{}: start position\n  expected: {expected_start}\n  got:      {start}", at(0)));
    }
    // OpenSpiel's lines carry no ply count; ours, for `max_plies`, is the moves played so far.
    let counts_plies = line.game().plies_left(line.position()).is_some();
    for (ply, mv) in rec.moves.iter().enumerate() {
        let side = line.side_to_move();
        let ours: Vec<String> = line.legal_moves().iter().map(|a| line.game().move_label(side, a)).collect();
        if ours != rec.legal[ply] {
            return Err(format!(
                "{}: legal moves of {side}\n  expected: {:?}\n  got:      {ours:?}\n  position: {}",
                at(ply),
                rec.legal[ply],
                line.game().to_setup(line.position())
            ));
        }
        if let Err(e) = line.play_label(mv) {
            return Err(format!("{}: move {mv} refused: {e}", at(ply)));
        }
        let got = line.game().to_setup(line.position()).to_string();
        let mut want: Setup =
            rec.positions[ply].parse().map_err(|e| format!("{}: recorded position: {e}", at(ply + 1)))?;
        if counts_plies {
            want.plies = u16::try_from(ply + 1).expect("recorded games are shorter than 65536 plies");
        }
        if got != want.to_string() {
            let last = if ply + 1 == rec.moves.len() {
                format!(" (the final position; OpenSpiel's own last board: {})", rec.openspiel_final)
            } else {
                String::new()
            };
            return Err(format!("{}: position after {mv}{last}\n  expected: {}\n  got:      {got}", at(ply), want));
        }
    }
    let status = line.status();
    let Some(outcome) = status.outcome() else {
        return Err(format!("{}: OpenSpiel's game is over, ours is {status}", at(rec.moves.len())));
    };
    if !line.legal_moves().is_empty() {
        return Err(format!("{}: the game is over but moves are still legal", at(rec.moves.len())));
    }
    let expected_winner = match rec.returns[0].partial_cmp(&rec.returns[1]) {
        Some(std::cmp::Ordering::Greater) => Some(Player::South),
        Some(std::cmp::Ordering::Less) => Some(Player::North),
        _ => None,
    };
    if outcome.winner != expected_winner {
        return Err(format!(
            "{}: result {status} disagrees with OpenSpiel's returns {:?}",
            at(rec.moves.len()),
            rec.returns
        ));
    }
    Ok(())
}

fn check_file(rules: &str, described: bool, file: &str) {
    let game = engine(rules, described);
    let rules = if described { format!("{rules} (described)") } else { rules.to_string() };
    let games = read_games(file);
    assert!(!games.is_empty(), "{file} holds no games");
    let mut failures = Vec::new();
    let mut plies = 0;
    for (i, rec) in games.iter().enumerate() {
        plies += rec.moves.len();
        if let Err(e) = replay(&game, i, rec) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "'{rules}' disagrees with OpenSpiel in {} of {} games of {file}; the first {}:\n{}",
        failures.len(),
        games.len(),
        failures.len().min(5),
        failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n\n")
    );
    eprintln!("{rules}: {} OpenSpiel games ({plies} plies) replayed", games.len());
}

#[test]
fn oware_agrees_with_openspiel_oware() {
    check_file("oware", false, "oware.jsonl");
}

#[test]
fn kalah_agrees_with_openspiel_mancala() {
    check_file("kalah", false, "mancala.jsonl");
}

/// The same recorded games on the sowing engine playing the presets' descriptions.
#[test]
fn described_oware_agrees_with_openspiel_oware() {
    check_file("oware", true, "oware.jsonl");
}

#[test]
fn described_kalah_agrees_with_openspiel_mancala() {
    check_file("kalah", true, "mancala.jsonl");
}
