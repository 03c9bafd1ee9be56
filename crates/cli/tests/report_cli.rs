//! `mancala-zero report`: a tiny run's best model reports on its game, the figures add up,
//! the Markdown row is appended under one header, and bad arguments are refused by name.

use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// The percentage after `label` on the line that starts with `line`.
fn figure(text: &str, line: &str, label: &str) -> f64 {
    let l = text.lines().find(|l| l.starts_with(line)).unwrap_or_else(|| panic!("no line {line}: {text}"));
    let at = l.find(label).unwrap_or_else(|| panic!("no {label} in {l}")) + label.len();
    l[at..].trim_start().split('%').next().unwrap().trim().parse().unwrap_or_else(|_| panic!("{l}"))
}

#[test]
fn a_tiny_run_reports_on_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml");
    ok(&bin()
        .args(["train", "--quiet", "--config"])
        .arg(&tiny)
        .args(["--run", "tiny", "--checkpoints"])
        .arg(dir.path())
        .output()
        .unwrap());
    let row = dir.path().join("report.md");
    // An introduction above the table, as the catalogue script writes it: the header still
    // comes before the first row.
    std::fs::write(&row, "# Report\n\nHow it was made.\n\n").unwrap();
    let report = |games: &str| {
        bin()
            .args(["report", "--game", "kalah:3,2", "--run"])
            .arg(dir.path().join("tiny"))
            .args(["--games", games, "--sims", "8", "--references", "random,greedy", "--threads", "1", "--row"])
            .arg(&row)
            .output()
            .unwrap()
    };
    let text = ok(&report("6"));
    let first = figure(&text, "self-play", "first player (South) wins");
    let draws = figure(&text, "self-play", "draws");
    let second = figure(&text, "self-play", "second player wins");
    assert!((first + draws + second - 100.0).abs() < 0.2, "{text}");
    assert!(text.contains("the side decided") && text.contains("of 3 pairs"), "{text}");
    assert!(figure(&text, "a single legal move", "move in") <= 100.0);
    for reference in ["random", "greedy"] {
        let score = figure(&text, &format!("against {reference}"), ":");
        assert!((0.0..=100.0).contains(&score), "{text}");
    }
    ok(&report("2"));
    let table = std::fs::read_to_string(&row).unwrap();
    let lines: Vec<&str> = table.lines().skip(4).collect();
    assert_eq!(lines.len(), 4, "one header, one rule, a row a report: {table}");
    assert!(lines[0].contains("vs random") && lines[0].contains("vs greedy"), "{table}");
    assert!(lines[0].contains("| player |"), "{table}");
    let run = dir.path().join("tiny");
    let want = format!("| kalah:3,2 | 2x3, 12 seeds | run {}, 8 sims |", run.display());
    assert!(lines[2].starts_with(&want), "{table}");

    for (args, want) in [
        (vec!["--games", "3"], "--games"),
        (vec!["--sims", "0"], "--sims"),
        (vec!["--model", "/no/such/model.mzm"], "/no/such/model.mzm"),
        (vec!["--game", "atlantis"], "atlantis"),
    ] {
        let mut command = bin();
        command.args(["report", "--game", "kalah:3,2", "--games", "2"]);
        let mut args = args;
        if args[0] == "--game" {
            command = bin();
            command.args(["report", "--games", "2", "--model", "x.mzm"]);
        } else if args[0] != "--model" {
            args.extend(["--model", "/no/such/model.mzm"]);
        }
        let out = command.args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
