//! A scripted `mancala-zero play` session through a pipe: moves, a bad move, undo, hint, to
//! the end.

use std::io::Write;
use std::process::{Command, Stdio};

fn play(args: &[&str], script: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let script = script.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(script.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_scripted_game_to_the_end() {
    // Kalah(3,1) is short; plenty of "A B C" answers finish it whatever the engine plays.
    let mut script = String::from("Z\nhelp\nhint\nA\nundo\nundo\nboard\n");
    for _ in 0..20 {
        script.push_str("A\nB\nC\n");
    }
    let (code, out, err) = play(&["--game", "kalah:3,1", "--simulations", "30", "--no-model"], &script);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("You play south"), "{out}");
    assert!(out.contains("not a move: 'Z' is not a pit label"), "{out}");
    assert!(out.contains("Type a pit label"), "{out}");
    assert!(out.contains("hint: "), "{out}");
    assert!(out.contains("took back"), "{out}");
    assert!(out.contains("engine plays "), "{out}");
    assert!(out.contains("game over: "), "{out}");
    // An illegal (empty) house is refused with the reason.
    assert!(out.contains("is empty") || out.contains("not a move"), "{out}");
}

#[test]
fn undo_with_nothing_played_and_end_of_input() {
    let (code, out, _) = play(&["--game", "kalah", "--no-model", "--simulations", "10"], "undo\n");
    assert_eq!(code, Some(0));
    assert!(out.contains("nothing to undo"), "{out}");
    assert!(out.contains("end of input"), "{out}");
}

#[test]
fn the_engine_moves_first_when_you_play_north_and_bad_sides_are_refused() {
    let (code, out, _) = play(&["--game", "oware", "--side", "north", "--simulations", "20"], "quit\n");
    assert_eq!(code, Some(0));
    let engine_line = out.find("engine plays").expect("the engine opened");
    assert!(engine_line < out.find("your move").unwrap());
    assert!(
        out.contains("against MCTS guided by the shipped oware network"),
        "the shipped Oware network plays by default: {out}"
    );
    let (code, _, err) = play(&["--side", "east"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("--side 'east'"), "{err}");
}
