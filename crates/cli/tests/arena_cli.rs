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
    let cases: [(&[&str], &str); 5] = [
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
