//! `mancala-zero engine` end to end: the built binary driven through its stdin, its whole
//! output checked against docs/protocol.md and against the rules crate.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use mancala_rules::{Game, Line, parse_rules};

const BIN: &str = env!("CARGO_BIN_EXE_mancala-zero");

/// The commands of docs/protocol.md, in the order `list_commands` answers them.
const PROTOCOL_COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "game",
    "clear_board",
    "play",
    "undo",
    "genmove",
    "set",
    "time_settings",
    "time_left",
    "legal_moves",
    "position",
    "showboard",
    "result",
    "analyze",
    "quit",
];

/// Every preset spelling the protocol promises.
const PRESETS: &[&str] = &[
    "oware",
    "abapa",
    "ouril",
    "awale",
    "oware-capture-all",
    "oware grand_slam=capture-all",
    "kalah",
    "kalah:6,6",
    "ba-awa",
    "owela",
];

struct Finished {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

/// Runs `mancala-zero engine ARGS` with `input` on stdin until it exits.
fn run_script(args: &[&str], input: &[u8]) -> Finished {
    let mut child = Command::new(BIN)
        .arg("engine")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    // Written from another thread: a long script and a long output would otherwise fill
    // both pipes and wait on each other.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The engine may quit before reading everything; a broken pipe is no failure.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("the engine runs to the end");
    writer.join().expect("the writer thread ends");
    Finished {
        stdout: String::from_utf8(out.stdout).expect("the engine writes UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// The answers in the output, each without its ending empty line.
fn answers(stdout: &str) -> Vec<String> {
    assert!(stdout.is_empty() || stdout.ends_with("\n\n"), "the output must end with an empty line: {stdout:?}");
    stdout.split_terminator("\n\n").map(str::to_string).collect()
}

/// Runs a script of commands to the end of input and returns the answers; the engine must
/// exit with status 0.
fn session(args: &[&str], commands: &[&str]) -> Vec<String> {
    let mut input = commands.join("\n");
    input.push('\n');
    let out = run_script(args, input.as_bytes());
    assert_eq!(out.code, Some(0), "exit status; stderr: {}", out.stderr);
    answers(&out.stdout)
}

/// An engine process answering one command at a time.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Engine { child, stdin, stdout }
    }

    /// Sends one line and reads its answer up to the ending empty line.
    fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").expect("the engine reads");
        self.stdin.flush().expect("the engine reads");
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("the engine writes");
            assert!(n > 0, "the engine closed its output while answering '{command}' (so far: {answer:?})");
            if line == "\n" {
                return answer.trim_end_matches('\n').to_string();
            }
            answer.push_str(&line);
        }
    }

    /// The result of a command that must succeed (text after `= `).
    fn ok(&mut self, command: &str) -> String {
        let answer = self.send(command);
        let text = answer.strip_prefix('=').unwrap_or_else(|| panic!("'{command}' failed: {answer}"));
        text.strip_prefix(' ').unwrap_or(text).to_string()
    }

    /// The message of a command that must fail (text after `? `).
    fn err(&mut self, command: &str) -> String {
        let answer = self.send(command);
        let text = answer.strip_prefix('?').unwrap_or_else(|| panic!("'{command}' succeeded: {answer}"));
        text.strip_prefix(' ').unwrap_or(text).to_string()
    }

    /// Ends the input and waits; the exit status must be 0.
    fn finish(self) {
        let Engine { mut child, stdin, stdout } = self;
        drop(stdin);
        drop(stdout);
        let status = child.wait().expect("the engine exits");
        assert_eq!(status.code(), Some(0));
    }
}

/// The position line the rules crate writes for `line`.
fn position_line(line: &Line<mancala_rules::AnyGame>) -> String {
    line.game().to_setup(line.position()).to_string()
}

/// The legal moves' labels as `legal_moves` writes them.
fn legal_labels(line: &Line<mancala_rules::AnyGame>) -> String {
    let side = line.side_to_move();
    line.legal_moves().iter().map(|a| line.game().move_label(side, a)).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_simple_command_answers_with_its_id() {
    let kalah = parse_rules("kalah").unwrap();
    let start = Line::new(kalah.clone());
    let mut after_d = start.clone();
    after_d.play_label("D").unwrap();
    let display = kalah.display(start.position());
    let board: Vec<&str> = display.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();

    let out = session(
        &[],
        &[
            "1 protocol_version",
            "2 name",
            "3 version",
            "4 list_commands",
            "# a comment, then blank lines",
            "",
            "   ",
            "5 game kalah",
            "6 play D",
            "7 position",
            "8 legal_moves",
            "9 undo",
            "10 position",
            "11 result",
            "12 play D",
            "13 clear_board",
            "14 position",
            "15 showboard",
            "16 set simulations 50",
            "17 set temperature 0",
            "18 set seed 3",
            "19 set threads 2",
            "20 quit",
            "21 name",
        ],
    );
    let expected = vec![
        "=1 1".to_string(),
        "=2 mancala-zero".to_string(),
        format!("=3 {}", env!("CARGO_PKG_VERSION")),
        format!("=4 {}", PROTOCOL_COMMANDS.join("\n")),
        format!("=5 {}", kalah.rules_string()),
        "=6".to_string(),
        format!("=7 {}", position_line(&after_d)),
        format!("=8 {}", legal_labels(&after_d)),
        "=9".to_string(),
        format!("=10 {}", position_line(&start)),
        "=11 ongoing".to_string(),
        "=12".to_string(),
        "=13".to_string(),
        format!("=14 {}", position_line(&start)),
        format!("=15\n{}", board.join("\n")),
        "=16".to_string(),
        "=17".to_string(),
        "=18".to_string(),
        "=19".to_string(),
        "=20".to_string(),
    ];
    assert_eq!(out, expected);
}

#[test]
fn the_protocol_example_holds() {
    let out = session(&[], &["game oware", "play D", "position"]);
    assert_eq!(out[1], "=");
    assert_eq!(out[2], "= north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing | plies=1");
    assert_eq!(out[0], format!("= {}", parse_rules("oware").unwrap().rules_string()));
}

#[test]
fn the_engine_starts_with_oware_unless_told() {
    let oware = Line::new(parse_rules("oware").unwrap());
    let kalah = Line::new(parse_rules("kalah:4,3").unwrap());
    assert_eq!(session(&[], &["position"]), vec![format!("= {}", position_line(&oware))]);
    assert_eq!(session(&["--game", "kalah:4,3"], &["position"]), vec![format!("= {}", position_line(&kalah))]);
}

#[test]
fn bad_command_lines_fail_without_changing_anything() {
    let mut e = Engine::start(&["--game", "kalah"]);
    e.ok("play C"); // the last seed lands in the store: South moves again
    let before = e.ok("position");

    let unknown = e.send("5 frobnicate");
    assert!(unknown.starts_with("?5 unknown command 'frobnicate'"), "{unknown}");

    let preset = e.err("game nonsense");
    assert!(preset.contains("unknown preset 'nonsense'"), "{preset}");
    for name in ["oware", "ouril", "awale", "oware-capture-all", "kalah", "ba-awa", "owela"] {
        assert!(preset.contains(name), "the message lists {name}: {preset}");
    }
    let option = e.err("game kalah houses=99");
    assert!(option.contains("'99'") && option.contains("houses"), "{option}");
    let key = e.err("game kalah colour=red");
    assert!(key.contains("'colour'"), "{key}");
    assert!(e.err("game").contains("presets: oware"));

    for (command, names) in [
        ("set simulations -5", ["'-5'", "simulations"]),
        ("set simulations 0", ["'0'", "simulations"]),
        ("set temperature hot", ["'hot'", "temperature"]),
        ("set temperature -1", ["'-1'", "temperature"]),
        ("set seed x", ["'x'", "seed"]),
        ("set threads 0", ["'0'", "threads"]),
        ("set colour red", ["'colour'", "simulations, movetime, temperature, seed, threads"]),
        ("set simulations", ["KEY VALUE", "simulations, movetime, temperature, seed, threads"]),
        ("set simulations 4000000000", ["'4000000000'", "MAX_SIMULATIONS = 1000000"]),
        ("set movetime -1", ["'-1'", "movetime"]),
    ] {
        let message = e.err(command);
        for name in names {
            assert!(message.contains(name), "'{command}': {message}");
        }
    }

    let empty = e.err("play C");
    assert!(empty.starts_with("illegal move: ") && empty.contains("C is empty"), "{empty}");
    let not_a_label = e.err("play Z");
    assert!(not_a_label.starts_with("illegal move: 'Z' is not a pit label"), "{not_a_label}");
    let not_own = e.err("play a");
    assert!(not_own.starts_with("illegal move: ") && not_own.contains("'a'"), "{not_own}");
    assert!(e.err("play").contains("one move label"));
    assert!(e.err("play D E").contains("one move label"));
    assert!(e.err("genmove now").contains("takes no arguments"));
    assert_eq!(e.send("12"), "?12 missing command name after the id");
    assert!(e.err("quit now").contains("takes no arguments"), "a refused quit does not quit");

    assert_eq!(e.ok("position"), before);
    e.ok("undo");
    let undo = e.send("8 undo");
    assert!(undo.starts_with("?8 nothing to undo"), "{undo}");
    assert_eq!(e.ok("position"), position_line(&Line::new(parse_rules("kalah").unwrap())));
    e.finish();
}

#[test]
fn unreadable_bytes_and_crlf_lines_are_answered_not_fatal() {
    let out = run_script(&[], b"name\r\n\xff\xfe\n2 version\r\n  # indented comment\nprotocol_version");
    assert_eq!(out.code, Some(0));
    let a = answers(&out.stdout);
    assert_eq!(a.len(), 4, "{a:?}");
    assert_eq!(a[0], "= mancala-zero");
    assert!(a[1].starts_with("? unknown command '\u{fffd}\u{fffd}'"), "{}", a[1]);
    assert_eq!(a[2], format!("=2 {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(a[3], "= 1", "the last line needs no line break");
}

#[test]
fn end_of_input_ends_cleanly() {
    let out = run_script(&[], b"");
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    let out = run_script(&[], b"\n# nothing but comments\n\n");
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
}

#[test]
fn command_line_errors_exit_with_a_message() {
    let model = run_script(&["--model", "no-such-net.mzm"], b"name\n");
    assert_eq!(model.code, Some(1));
    assert!(model.stderr.contains("no-such-net.mzm"), "{}", model.stderr);
    assert_eq!(model.stdout, "");
    let not_model = run_script(&["--model", "Cargo.toml"], b"name\n");
    assert_eq!(not_model.code, Some(1));
    assert!(not_model.stderr.contains("not a mancala-zero model"), "{}", not_model.stderr);
    let game = run_script(&["--game", "nonsense"], b"name\n");
    assert_eq!(game.code, Some(1));
    assert!(game.stderr.contains("unknown preset 'nonsense'"), "{}", game.stderr);
}

#[test]
fn genmove_plays_a_legal_move() {
    let mut e = Engine::start(&[]);
    e.ok("set simulations 100");
    let mut line = Line::new(parse_rules("oware").unwrap());
    for _ in 0..4 {
        let legal = e.ok("legal_moves");
        assert_eq!(legal, legal_labels(&line));
        let label = e.ok("genmove");
        assert!(legal.split(' ').any(|l| l == label), "{label} is not among {legal}");
        line.play_label(&label).unwrap();
        assert_eq!(e.ok("position"), position_line(&line));
    }
    e.finish();
}

/// Reads `value V policy L1:P1 ...`.
fn parse_analysis(text: &str) -> (f32, Vec<(String, f32)>) {
    let rest = text.strip_prefix("value ").unwrap_or_else(|| panic!("no value: {text}"));
    let (value, policy) = rest.split_once(" policy").unwrap_or_else(|| panic!("no policy: {text}"));
    let value: f32 = value.parse().unwrap_or_else(|_| panic!("bad value: {text}"));
    let policy = policy
        .split_whitespace()
        .map(|pair| {
            let (label, p) = pair.split_once(':').unwrap_or_else(|| panic!("bad pair '{pair}' in {text}"));
            assert_eq!(p.split_once('.').map(|(_, d)| d.len()), Some(3), "three decimals: {text}");
            (label.to_string(), p.parse::<f32>().unwrap_or_else(|_| panic!("bad share '{pair}' in {text}")))
        })
        .collect();
    (value, policy)
}

#[test]
fn analyze_gives_a_value_and_a_policy_over_the_legal_moves() {
    let mut e = Engine::start(&[]);
    e.ok("set simulations 200");
    e.ok("play D");
    let before = e.ok("position");
    let legal = e.ok("legal_moves");
    let (value, policy) = parse_analysis(&e.ok("analyze"));
    assert!((-1.0..=1.0).contains(&value), "{value}");
    let labels: Vec<&str> = policy.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels.join(" "), legal, "one share a legal move, in index order");
    assert!(policy.iter().all(|(_, p)| (0.0..=1.0).contains(p)));
    let sum: f32 = policy.iter().map(|(_, p)| p).sum();
    assert!((sum - 1.0).abs() < 0.01, "shares sum to {sum}");
    assert_eq!(e.ok("position"), before, "analyze plays nothing");
    e.finish();
}

/// Plays `rules` to the end by genmove on both sides, checking every move against the rules
/// crate, then the commands on a finished game.
fn play_to_the_end(rules: &str) {
    let mut e = Engine::start(&[]);
    assert_eq!(e.ok(&format!("game {rules}")), parse_rules(rules).unwrap().rules_string());
    e.ok("set simulations 50");
    let mut line = Line::new(parse_rules(rules).unwrap());
    while e.ok("result") == "ongoing" {
        assert!(line.len() <= 2000, "{rules}: no end after {} plies", line.len());
        let label = e.ok("genmove");
        line.play_label(&label).unwrap_or_else(|err| panic!("{rules}: genmove gave {label}: {err}"));
    }
    let result = e.ok("result");
    assert_eq!(result, line.status().to_string());
    assert_ne!(result, "ongoing");
    assert_eq!(e.ok("position"), position_line(&line));
    // The status field (a state field, `plies=N`, may follow it).
    assert_eq!(e.ok("position").parse::<mancala_rules::Setup>().unwrap().status, result);

    assert!(e.err("genmove").starts_with("game is over"));
    assert_eq!(e.ok("legal_moves"), "");
    let (value, policy) = parse_analysis(&e.ok("analyze"));
    assert!(policy.is_empty());
    assert!([-1.0, 0.0, 1.0].contains(&value), "{value}");
    e.ok("undo");
    assert_eq!(e.ok("result"), "ongoing", "undo takes back the last move");
    e.finish();
}

#[test]
fn oware_played_by_genmove_reaches_its_end() {
    play_to_the_end("oware");
}

#[test]
fn kalah_played_by_genmove_reaches_its_end() {
    play_to_the_end("kalah");
}

#[test]
fn a_finished_game_refuses_moves() {
    // Kalah with one house of one seed: South's only move ends the game.
    let out = session(&[], &["game kalah:1,1", "play A", "result", "1 genmove", "2 play A", "legal_moves"]);
    assert_eq!(out[2], "= draw");
    assert_eq!(out[3], "?1 game is over (draw)");
    assert_eq!(out[4], "?2 illegal move: the game is over");
    assert_eq!(out[5], "=");
}

#[test]
fn every_preset_starts_and_plays() {
    let mut e = Engine::start(&[]);
    e.ok("set simulations 50");
    for rules in PRESETS {
        let game = parse_rules(rules).unwrap();
        assert_eq!(e.ok(&format!("game {rules}")), game.rules_string());
        let line = Line::new(game);
        assert_eq!(e.ok("position"), position_line(&line), "{rules}");
        let legal = e.ok("legal_moves");
        assert_eq!(legal, legal_labels(&line), "{rules}");
        let label = e.ok("genmove");
        assert!(legal.split(' ').any(|l| l == label), "{rules}: {label} is not among {legal}");
        assert!(!e.ok("showboard").is_empty());
    }
    e.finish();
}

#[test]
fn the_same_seed_replays_the_same_game() {
    let script = [
        "set simulations 30",
        "set temperature 1",
        "set seed 11",
        "game kalah",
        "genmove",
        "genmove",
        "genmove",
        "genmove",
    ];
    let first = session(&[], &script);
    assert!(first[4..].iter().all(|a| a.starts_with("= ")), "{first:?}");
    assert_eq!(first, session(&[], &script));
}

fn shipped(name: &str) -> String {
    format!("{}/../../checkpoints/shipped/{name}.mzm", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_model_guides_genmove_and_analyze_for_its_own_game_only() {
    let kalah = shipped("kalah");
    let script = b"1 genmove\n2 analyze\n3 game oware\n4 legal_moves\n5 game kalah\n6 genmove\n";
    let out = run_script(&["--game", "kalah", "--model", &kalah], script);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.contains("network"), "{}", out.stderr);
    let answers: Vec<&str> = out.stdout.split("\n\n").filter(|a| !a.is_empty()).collect();
    assert!(answers[0].starts_with("=1 "), "{}", answers[0]);
    assert!(answers[1].starts_with("=2 value "), "{}", answers[1]);
    // A Kalah network cannot judge Oware: the game command is refused, Kalah stays.
    assert!(answers[2].starts_with("?3 ") && answers[2].contains("not for"), "{}", answers[2]);
    assert!(answers[3].starts_with("=4"), "{}", answers[3]);
    assert!(answers[4].starts_with("=5 kalah"), "{}", answers[4]);
    assert!(answers[5].starts_with("=6 "), "{}", answers[5]);
}

#[test]
fn the_shipped_network_is_the_default_for_its_game() {
    let out = run_script(&["--game", "oware"], b"set simulations 20\ngenmove\n");
    assert_eq!(out.code, Some(0));
    // The exact words of a loaded network: the fallback's text ("... else random rollouts")
    // must not satisfy this.
    assert!(out.stderr.contains("MCTS guided by the shipped oware network"), "{}", out.stderr);
    assert!(!out.stderr.contains("MCTS with random rollouts"), "{}", out.stderr);
    let plain = run_script(&["--game", "oware", "--no-model"], b"name\n");
    assert!(plain.stderr.contains("random rollouts"), "{}", plain.stderr);
    // Every preset has one now; rules of no preset say they have none.
    let owela = run_script(&["--game", "owela"], b"set simulations 20\ngenmove\n");
    assert!(owela.stderr.contains("MCTS guided by the shipped owela network"), "{}", owela.stderr);
    let other = run_script(&["--game", "kalah:4,3"], b"set simulations 10\ngenmove\n");
    assert!(other.stderr.contains("no shipped network for these rules"), "{}", other.stderr);
}

#[test]
fn position_lines_set_the_game_and_bad_ones_never_end_the_engine() {
    let game = parse_rules("oware").unwrap();
    let mut line = Line::new(game.clone());
    for label in ["D", "e", "B"] {
        line.play_label(label).unwrap();
    }
    let printed = position_line(&line);
    let mut engine = Engine::start(&["--no-model"]);
    engine.ok(&format!("position {printed}"));
    assert_eq!(engine.ok("position"), printed);
    assert_eq!(engine.ok("legal_moves"), legal_labels(&line));
    // Every byte of the line changed in turn, and every cut of it: each answer is `=` or `?`,
    // and a refused line leaves the position as it was.
    let bytes = printed.as_bytes();
    let mut tried = 0;
    for k in 0..bytes.len() {
        for replacement in [b'9', b'|', b'x', b' '] {
            let mut mutated = bytes.to_vec();
            mutated[k] = replacement;
            let text = String::from_utf8_lossy(&mutated).into_owned();
            let answer = engine.send(&format!("position {text}"));
            assert!(answer.starts_with('=') || answer.starts_with('?'), "{text}: {answer}");
            if answer.starts_with('?') {
                assert!(answer.contains("not a position"), "{text}: {answer}");
            }
            engine.ok(&format!("position {printed}"));
            tried += 1;
        }
        let cut = String::from_utf8_lossy(&bytes[..k]).into_owned();
        let answer = engine.send(&format!("position {cut}"));
        assert!(answer.starts_with('=') || answer.starts_with('?'), "{cut}: {answer}");
        engine.ok(&format!("position {printed}"));
    }
    assert!(tried > 100);
    let reason = engine.err("position south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 | ongoing");
    assert!(reason.starts_with("not a position of oware"), "{reason}");
    assert_eq!(engine.ok("position"), printed);
    assert_eq!(engine.ok("name"), "mancala-zero");
    engine.finish();
}

#[test]
fn time_controls_give_moves_within_a_clock() {
    let answers = session(
        &["--game", "kalah", "--no-model"],
        &[
            "set movetime 5",
            "genmove",
            "set movetime 0",
            "time_settings 2000 100",
            "time_left north 50",
            "genmove",
            "genmove",
            "time_settings 0 0",
            "time_left south 5",
        ],
    );
    assert_eq!(answers[0], "=");
    assert!(answers[1].starts_with("= "), "{}", answers[1]);
    assert!(answers[5].starts_with("= ") && answers[6].starts_with("= "), "{answers:?}");
    assert!(answers[8].starts_with("? time_left needs a clock"), "{}", answers[8]);
}
