//! Fuzzing the engine's protocol: the built binary is fed scripts of valid commands with
//! characters, tokens and numbers changed, and arbitrary bytes. Every line that is not blank
//! or a comment gets one answer, `=` or `?`, and the engine exits cleanly at the end of its
//! input: a bad line never ends the session.

use std::io::Write;
use std::process::{Command, Stdio};

use proptest::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_mancala-zero");

/// Valid command lines (random rollouts on a small Kalah, so searches are quick).
const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "1 version",
    "list_commands",
    "game kalah:3,2",
    "game oware",
    "game kalah:4,3 empty_capture=true",
    "game owela",
    "game ba-awa",
    "clear_board",
    "play A",
    "2 play B",
    "play c",
    "undo",
    "genmove",
    "set seed 7",
    "set temperature 0.5",
    "set simulations 8",
    "set threads 2",
    "legal_moves",
    "position",
    "position south | 0 0 | 2 2 2 2 2 2 | ongoing",
    "position north | 3 1 | 0 1 0 2 0 1 | ongoing",
    "showboard",
    "result",
    "analyze",
    "# a comment",
];

/// Characters and tokens of the protocol.
const PIECES: &[&str] = &[
    " ",
    "\t",
    "\r",
    "|",
    "#",
    "=",
    "?",
    "-",
    "0",
    "1",
    "9",
    "12",
    "255",
    "256",
    "4294967296",
    "-1",
    "nan",
    "A",
    "F",
    "a",
    "z",
    "south",
    "north",
    "ongoing",
    "kalah",
    "oware",
    "play",
    "undo",
    "set",
    "game",
    "position",
    "analyze",
    "genmove",
    "quit",
    "é",
    "\u{0}",
];

// The text mutations every fuzz test of bad input shares.
#[path = "../../rules/tests/support/text_edit.rs"]
mod text_edit;
use text_edit::{apply_text, text_edit};

/// Whether a line would make a search too long for a test (the engine allows up to a million
/// simulations and as many threads as asked; both are right, neither is quick).
fn slow(line: &str) -> bool {
    let t = line.to_ascii_lowercase();
    let big = t.split(|c: char| !c.is_ascii_digit()).any(|n| n.len() > 2);
    (t.contains("simulations") || t.contains("threads") || t.contains("time")) && big
}

/// Runs the engine on `input` to its end; returns (exit code, stdout).
fn run(input: &[u8]) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(["engine", "--game", "kalah:3,2", "--no-model"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("the engine runs to the end");
    writer.join().expect("the writer ends");
    (out.status.code(), String::from_utf8(out.stdout).expect("the engine writes UTF-8"))
}

/// Lines that get an answer: not blank, not a comment. `None` when one may be a `quit`.
fn answered(input: &[u8]) -> Option<usize> {
    let text = String::from_utf8_lossy(input);
    let mut n = 0;
    for line in text.split('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.to_ascii_lowercase().contains("quit") {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// The engine answered every line, each with `=` or `?`, and ended cleanly.
fn check(input: &[u8]) {
    let (code, stdout) = run(input);
    assert_eq!(code, Some(0), "input {input:?}, output {stdout}");
    assert!(stdout.is_empty() || stdout.ends_with("\n\n"), "{stdout:?}");
    let answers: Vec<&str> = stdout.split_terminator("\n\n").collect();
    for a in &answers {
        assert!(a.starts_with('=') || a.starts_with('?'), "answer {a:?} to {input:?}");
    }
    match answered(input) {
        Some(n) => assert_eq!(answers.len(), n, "input {:?}, output {stdout}", String::from_utf8_lossy(input)),
        None => assert!(answers.len() <= input.len()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn changed_command_lines_are_answered_and_the_engine_goes_on(
        script in proptest::collection::vec((0..COMMANDS.len(), proptest::collection::vec(text_edit(PIECES.len()), 0..3)), 1..8),
    ) {
        let mut input = String::from("set simulations 8\n");
        for (which, edits) in &script {
            let line = apply_text(COMMANDS[*which], edits, PIECES);
            if !slow(&line) {
                input.push_str(&line);
                input.push('\n');
            }
        }
        check(input.as_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn arbitrary_bytes_are_answered_and_the_engine_goes_on(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        prop_assume!(!text.lines().any(slow));
        check(&bytes);
    }
}

#[test]
fn the_valid_commands_are_answered() {
    let mut input = String::new();
    for c in COMMANDS {
        input.push_str(c);
        input.push('\n');
    }
    check(input.as_bytes());
}
