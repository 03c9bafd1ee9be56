//! `mancala-zero tablebase build | probe | bench` end to end, on small databases.

use std::path::PathBuf;
use std::process::{Command, Output};

fn mz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero")).args(args).output().expect("the binary runs")
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn temp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tb-cli-{}-{name}", std::process::id()))
}

fn build(game: &str, seeds: &str, name: &str) -> PathBuf {
    let path = temp(name);
    let out = mz(&["tablebase", "build", "--game", game, "--seeds", seeds, "--out", path.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    // 2 * C(4 + 12, 12) positions of at most 4 seeds on 12 pits.
    if seeds == "4" {
        assert!(stdout.contains("positions 3640 "), "{stdout}");
    }
    assert!(stdout.contains("size"), "{stdout}");
    path
}

#[test]
fn build_then_probe_prints_the_value_and_the_best_moves() {
    let db = build("kalah", "4", "kalah4.mztb");
    // South's B sows its seed into the empty C and captures the seed in d opposite.
    let out = mz(&[
        "tablebase",
        "probe",
        "--db",
        db.to_str().unwrap(),
        "--position",
        "south | 23 23 | 0 1 0 0 0 0 0 0 0 1 0 0 | ongoing",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("value     +2 for south"), "{stdout}");
    assert!(stdout.contains("south wins by 2"), "{stdout}");
    assert!(stdout.contains("best      B"), "{stdout}");
    assert!(stdout.contains("moves     B=+2"), "{stdout}");
}

#[test]
fn probe_refuses_positions_it_cannot_answer() {
    let db = build("oware", "4", "oware4.mztb");
    let db = db.to_str().unwrap();
    let cases = [
        ("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing", "48 seeds on the board"),
        ("south | 0 0 | 4 4 4 | ongoing", "3 pits"),
        ("sideways | 0 0 | 1 | ongoing", "side must be"),
    ];
    for (position, expected) in cases {
        let out = mz(&["tablebase", "probe", "--db", db, "--position", position]);
        let (_, stderr) = text(&out);
        assert!(!out.status.success());
        assert!(stderr.contains(expected), "{position}: {stderr}");
    }
}

#[test]
fn a_corrupt_or_missing_database_is_refused() {
    let db = build("kalah", "3", "kalah3.mztb");
    let mut bytes = std::fs::read(&db).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    let bad = temp("corrupt.mztb");
    std::fs::write(&bad, &bytes).unwrap();
    let position = "south | 22 23 | 1 0 0 0 0 0 0 0 0 1 1 0 | ongoing";
    let out = mz(&["tablebase", "probe", "--db", bad.to_str().unwrap(), "--position", position]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    std::fs::write(&bad, &bytes[..bytes.len() - 20]).unwrap();
    let out = mz(&["tablebase", "probe", "--db", bad.to_str().unwrap(), "--position", position]);
    assert!(text(&out).1.contains("truncated"), "{}", text(&out).1);
    let out = mz(&["tablebase", "probe", "--db", temp("absent.mztb").to_str().unwrap(), "--position", position]);
    assert!(text(&out).1.contains("absent.mztb"), "{}", text(&out).1);
}

#[test]
fn build_refuses_games_and_limits_it_cannot_do() {
    let out = temp("never.mztb");
    let out = out.to_str().unwrap();
    for (game, seeds, expected) in [
        ("owela", "4", "Oware and Kalah only"),
        ("kalah:2,1", "5", "only 4 seeds"),
        ("nosuchgame", "4", "unknown preset"),
    ] {
        let res = mz(&["tablebase", "build", "--game", game, "--seeds", seeds, "--out", out]);
        let (_, stderr) = text(&res);
        assert!(!res.status.success());
        assert!(stderr.contains(expected), "{game}: {stderr}");
    }
}

#[test]
fn bench_reports_probe_speed() {
    let db = build("oware", "4", "oware4-bench.mztb");
    let out = mz(&["tablebase", "bench", "--db", db.to_str().unwrap(), "--probes", "1000"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("full probes"), "{stdout}");
}

#[test]
fn accuracy_splits_its_figures_by_seeds_and_by_margin() {
    let db = build("kalah", "6", "kalah6-accuracy.mztb");
    let out = mz(&["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--positions", "80", "--simulations", "16"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("positions: 80 with at most 6 seeds on the board"), "{stdout}");
    // A split's row: positions, value sign, best move, result kept, seeds given.
    let columns = |label: &str| -> Vec<f64> {
        let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label}: {stdout}"));
        line[label.len()..].split_whitespace().map(|c| c.trim_end_matches('%').parse().unwrap()).collect()
    };
    // Each split covers every judged position exactly once.
    let count = |label: &str| columns(label)[0] as usize;
    let by_seeds: usize =
        ["1-2 seeds on the board", "3-4 seeds on the board", "5-6 seeds on the board"].iter().map(|l| count(l)).sum();
    let by_margin: usize =
        ["drawn with perfect play", "decided by 1-2 seeds", "decided by 3-6 seeds", "decided by 7+ seeds"]
            .iter()
            .map(|l| count(l))
            .sum();
    assert_eq!((by_seeds, by_margin), (80, 80), "{stdout}");
    // A share that keeps the result is at least the best-move share.
    for label in ["1-2 seeds on the board", "decided by 3-6 seeds"] {
        let c = columns(label);
        assert_eq!(c.len(), 5, "{label}: {stdout}");
        assert!(c[3] >= c[2] && c[4] >= 0.0, "{label}: {c:?}");
    }
    assert!(stdout.contains("result kept (a move of perfect play's result, any margin): "), "{stdout}");
    // A bad margin weight is refused by name.
    let out = mz(&["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--margin-utility", "0.9"]);
    assert!(!out.status.success());
    assert!(text(&out).1.contains("--margin-utility 0.9 is outside 0 to 0.5"), "{}", text(&out).1);
    // So is a bad exploration constant.
    let out = mz(&["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--cpuct=-1"]);
    assert!(!out.status.success());
    assert!(text(&out).1.contains("--cpuct -1 is not a number of at least 0"), "{}", text(&out).1);
    // The final pick is named in the figure it moves, and a bad one is refused by name.
    assert!(stdout.contains("best move (16 simulations, pick value:0.5): "), "{stdout}");
    let args = ["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--positions", "80", "--simulations", "16"];
    let out = mz(&[&args[..], &["--pick", "visits"]].concat());
    assert!(out.status.success(), "{}", text(&out).1);
    assert!(text(&out).0.contains("best move (16 simulations, pick visits): "), "{}", text(&out).0);
    let out = mz(&[&args[..], &["--pick", "value:3"]].concat());
    assert!(!out.status.success());
    assert!(text(&out).1.contains("--pick value:3: expected visits, value or value:S"), "{}", text(&out).1);
}

#[test]
fn accuracy_judges_by_the_games_own_end_on_request() {
    // The last figure of a line such as "best move by the game's own end: 96.7%".
    let figure = |stdout: &str, label: &str| -> f64 {
        let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label}: {stdout}"));
        line.rsplit(' ').next().unwrap().trim_end_matches('%').parse().unwrap()
    };
    let own_end = "best move by the game's own end: ";
    let perfect = "a player perfect by the game's own end, judged by the database's best moves: ";
    let played_out = "best move (16 simulations, pick value:0.5): ";
    let run = |db: &PathBuf| {
        let args = ["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--positions", "300", "--simulations", "16"];
        let out = mz(&[&args[..], &["--real-end"]].concat());
        assert!(out.status.success(), "{}", text(&out).1);
        text(&out).0
    };
    // Kalah has no stop at a majority: the game's own end is the database's, move for move.
    let kalah = run(&build("kalah", "6", "kalah6-real-end.mztb"));
    assert_eq!(figure(&kalah, perfect), 100.0, "{kalah}");
    assert_eq!(figure(&kalah, own_end), figure(&kalah, played_out), "{kalah}");
    // Oware's stop changes some best moves of the fuller boards, so even perfect play by the real
    // rules misses some of the database's.
    let oware = run(&build("oware", "8", "oware8-real-end.mztb"));
    assert!(figure(&oware, perfect) < 100.0, "{oware}");
    assert!(oware.contains("5-8 seeds on the board"), "{oware}");
    // Without the flag the section is not printed (nor built).
    let db = build("oware", "4", "oware4-no-real-end.mztb");
    let out = mz(&["tablebase", "accuracy", "--db", db.to_str().unwrap(), "--positions", "50", "--simulations", "8"]);
    assert!(out.status.success() && !text(&out).0.contains(own_end), "{}", text(&out).0);
}
