//! `mancala-zero arena` end to end: the built binary on short matches.

use std::path::PathBuf;
use std::process::{Command, Output};

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero")).arg("arena").args(args).output().expect("the binary runs")
}

fn temp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mancala-arena-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_short_match_prints_its_table_and_writes_every_game() {
    let out = temp_file("match.jsonl");
    let output = arena(&[
        "--game",
        "kalah",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "6",
        "--seed",
        "3",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("A: greedy")), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("B: random")), "{stdout}");
    let total: Vec<&str> =
        lines.iter().find(|l| l.starts_with("total")).expect("a total row").split_whitespace().collect();
    assert_eq!(total[1], "6", "{stdout}");
    let (wins, draws, losses): (u32, u32, u32) =
        (total[2].parse().unwrap(), total[3].parse().unwrap(), total[4].parse().unwrap());
    assert_eq!(wins + draws + losses, 6);
    // The last two lines: score and Elo, consistent with the counts.
    let score_line = lines[lines.len() - 2];
    let elo_line = lines[lines.len() - 1];
    let score = 100.0 * (f64::from(wins) + 0.5 * f64::from(draws)) / 6.0;
    assert_eq!(score_line, format!("score: {score:.1}%"));
    assert!(elo_line.starts_with("elo: ") && elo_line.contains('[') && elo_line.ends_with(']'), "{elo_line}");
    // The pairs line: its six counts (2, 1.5, 1 split, 1 drawn, 0.5, 0) cover the 3 pairs
    // and give the score again.
    let pairs_line = lines.iter().find(|l| l.starts_with("pairs by A's points:")).expect("a pairs line");
    let counts: Vec<u32> = pairs_line
        .split([',', '+'])
        .map(|piece| piece.split_whitespace().find_map(|w| w.parse().ok()).expect("a count"))
        .collect();
    assert_eq!(counts.len(), 6, "{pairs_line}");
    assert_eq!(counts.iter().sum::<u32>(), 3, "{pairs_line}");
    let halves = 4 * counts[0] + 3 * counts[1] + 2 * (counts[2] + counts[3]) + counts[4];
    assert_eq!(f64::from(halves) / 2.0, f64::from(wins) + 0.5 * f64::from(draws), "{pairs_line}");

    let text = std::fs::read_to_string(&out).unwrap();
    let records: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 6);
    let mut a_wins = 0;
    for (i, r) in records.iter().enumerate() {
        let a_side = if i % 2 == 0 { "south" } else { "north" };
        assert_eq!(r[a_side], "greedy", "game {i}");
        assert!(r["rules"].as_str().unwrap().starts_with("kalah"));
        let moves = r["moves"].as_array().unwrap();
        assert_eq!(r["plies"].as_u64().unwrap() as usize, moves.len());
        assert_eq!(&moves[..4], r["opening"].as_array().unwrap().as_slice());
        if r["result"].as_str().unwrap().starts_with(a_side) {
            a_wins += 1;
        }
    }
    assert_eq!(a_wins, wins, "the file agrees with the table");
    std::fs::remove_file(out).unwrap();
}

#[test]
fn sprt_reports_its_decision_before_the_score() {
    let output = arena(&["--game", "kalah", "--a", "greedy", "--b", "random", "--games", "200", "--sprt", "0,100"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[lines.len() - 3].starts_with("sprt: H1"), "{stdout}");
}

#[test]
fn round_robin_prints_a_row_a_pair_and_ratings() {
    let output = arena(&[
        "--game",
        "kalah",
        "--round-robin",
        "random,greedy,alphabeta:depth=2",
        "--games",
        "4",
        "--pair-games",
        "random=2",
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() > 3 && ["random", "greedy"].contains(&w[0]))
        .collect();
    let pairs: Vec<(&str, &str, &str)> = rows.iter().map(|w| (w[0], w[1], w[2])).collect();
    assert_eq!(
        pairs,
        [("random", "greedy", "2"), ("random", "alphabeta:depth=2", "2"), ("greedy", "alphabeta:depth=2", "4")]
    );
    assert!(stdout.contains("ratings"), "{stdout}");
}

#[test]
fn bad_input_fails_with_a_message_naming_it() {
    let cases: [(&[&str], &str); 7] = [
        // An absurd budget is refused by the cap's name before any memory is reserved.
        (&["--a", "mcts:sims=4000000000", "--b", "random", "--games", "2"], "MAX_SIMULATIONS = 1000000"),
        (&["--a", "mcts:ms=100,threads=0", "--b", "random", "--games", "2"], "threads=0"),
        (&["--a", "greedy", "--b", "mcts:sims=abc", "--games", "2"], "mcts:sims=abc"),
        (&["--a", "grredy", "--b", "random", "--games", "2"], "'grredy'"),
        (&["--game", "owari", "--a", "greedy", "--b", "random"], "owari"),
        (&["--a", "greedy", "--b", "random", "--games", "7"], "even number of games"),
        (&["--a", "greedy", "--b", "random", "--sprt", "5"], "--sprt"),
    ];
    for (args, needle) in cases {
        let output = arena(args);
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(!output.status.success(), "{args:?} should fail");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?} printed a table");
    }
}

#[test]
fn a_truncated_model_is_named_once() {
    // The error names its cause in its own message; the cause is not printed again under it.
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../checkpoints/shipped/kalah.mzm");
    let bytes = std::fs::read(shipped).unwrap();
    let cut = temp_file("cut.mzm");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let spec = format!("net:{}", cut.display());
    let output = arena(&["--game", "kalah", "--a", &spec, "--b", "random", "--games", "2"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success());
    assert_eq!(stderr.matches("is truncated").count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: agent '{spec}'")), "{stderr}");
}

fn calibrate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero")).arg("calibrate").args(args).output().expect("the binary runs")
}

#[test]
fn calibrate_judges_the_shipped_value_head_on_arena_games_by_phase() {
    let out = temp_file("calibrate.jsonl");
    let output =
        arena(&["--game", "kalah", "--a", "greedy", "--b", "random", "--games", "4", "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let plies: usize = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["plies"].as_u64().unwrap() as usize)
        .sum();
    let output = calibrate(&["--records", out.to_str().unwrap()]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with(&format!("4 games, {plies} positions of kalah")), "{stdout}");
    let rows: Vec<Vec<&str>> = stdout.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), ["37-48", "25-36", "13-24", "0-12"], "{stdout}");
    assert_eq!(rows.iter().map(|r| r[1].parse::<usize>().unwrap()).sum::<usize>(), plies, "{stdout}");
    // Greedy against random: the shipped network sees who is winning well before the end.
    let late_sign: f64 = rows[2][3].trim_end_matches('%').parse().unwrap();
    assert!(late_sign > 75.0, "{stdout}");

    let output = calibrate(&["--records", out.to_str().unwrap(), "--plies", "10", "--phases", "3"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let first: Vec<&str> = stdout.lines().skip(2).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(first, ["0-9", "10-19", "20+"], "{stdout}");

    // Owela keeps its seeds on the board: by seeds every position is one phase, and it says so.
    let owela = temp_file("owela.jsonl");
    let output =
        arena(&["--game", "owela", "--a", "greedy", "--b", "random", "--games", "2", "--out", owela.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let output = calibrate(&["--records", owela.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--plies"), "{}", String::from_utf8_lossy(&output.stderr));
    let output = calibrate(&["--records", owela.to_str().unwrap(), "--plies", "5"]);
    assert!(!String::from_utf8_lossy(&output.stderr).contains("--plies"));

    // Bad inputs are named: a missing file, a line that is not a record, a game with no model.
    let output = calibrate(&["--records", "/nonexistent/games.jsonl"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/games.jsonl"));
    let bad = temp_file("bad.jsonl");
    std::fs::write(&bad, "{\"rules\": 3}\n").unwrap();
    let err = String::from_utf8(calibrate(&["--records", bad.to_str().unwrap()]).stderr).unwrap();
    assert!(err.contains("bad.jsonl") && err.contains("line 1"), "{err}");
    let small = temp_file("small.jsonl");
    let output = arena(&[
        "--game",
        "kalah:4,3",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "2",
        "--out",
        small.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let err = String::from_utf8(calibrate(&["--records", small.to_str().unwrap()]).stderr).unwrap();
    assert!(err.contains("no shipped network") && err.contains("--model"), "{err}");
}

#[test]
fn agents_on_time_and_on_threads_play_a_match() {
    let output = arena(&["--game", "kalah", "--a", "mcts:ms=2,threads=2", "--b", "mcts:sims=20", "--games", "2"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("mcts:ms=2,threads=2"), "{stdout}");
}
