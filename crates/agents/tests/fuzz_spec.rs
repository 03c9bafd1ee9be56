//! Fuzzing the agent spec parser: valid specs of every kind (naming a real model file and
//! endgame database) with characters, tokens and numbers changed, and arbitrary text.
//! Parsing never panics; a spec that parses is checked against a game (its files read and
//! matched) without a panic, and an error names the spec.

use std::path::PathBuf;
use std::sync::OnceLock;

use burn::prelude::Device;
use mancala_agents::AgentSpec;
use mancala_nn::{ModelMeta, NetConfig, layout, save_model};
use mancala_rules::{AnyGame, Game, parse_rules};
use mancala_tablebase::Tablebase;
use proptest::prelude::*;

/// Kalah with a small untrained model and a small database on disk, and valid specs naming
/// them.
struct Fixture {
    game: AnyGame,
    specs: Vec<String>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let game = parse_rules("kalah").unwrap();
        let config = NetConfig::for_layout(&layout(&game), game.action_space()).with_width(8).with_blocks(1);
        let model: PathBuf = dir.path().join("k.mzm");
        save_model(&model, &ModelMeta::new(game.rules_string(), config.clone(), 0), &config.init(&Device::flex()))
            .unwrap();
        let db = dir.path().join("k.tb");
        Tablebase::build(&game, 3, &|_| {}).unwrap().0.write(&db).unwrap();
        let (model, db) = (model.display(), db.display());
        let specs = vec![
            "random".to_string(),
            "greedy".to_string(),
            "alphabeta:depth=2".to_string(),
            "ab:ms=5".to_string(),
            "mcts:sims=20,cpuct=2,solver=true".to_string(),
            format!("net:{model}"),
            format!("net:{model},sims=8,tb={db},margin=0.3,cpuct=1.5,gather=4,pick=value:0.5,reuse=false,minimax=0.2,solver=true"),
            format!("net:{model},pick=visits"),
            format!("perfect:db={db},depth=2"),
            format!("perfect:db={db},ms=3"),
        ];
        Fixture { game, specs, _dir: dir }
    })
}

/// Characters and tokens that the grammar gives meaning to, and some it does not.
const PIECES: &[&str] = &[
    " ",
    "=",
    ":",
    ",",
    "-",
    ".",
    "0",
    "1",
    "9",
    "1e9",
    "4294967296",
    "-1",
    "NaN",
    "inf",
    "true",
    "false",
    "sims",
    "depth",
    "ms",
    "cpuct",
    "gather",
    "pick",
    "value",
    "value:",
    "visits",
    "margin",
    "minimax",
    "reuse",
    "solver",
    "tb",
    "db",
    "net",
    "mcts",
    "ab",
    "perfect",
    "random",
    "/",
    "..",
    "é",
    "\u{0}",
    "\n",
];

/// One change to a text.
#[derive(Clone, Debug)]
enum TextEdit {
    /// Put a piece at a char position.
    Insert(usize, usize),
    /// Replace the char at a position by a piece.
    Replace(usize, usize),
    /// Remove a run of chars.
    Remove(usize, usize),
    /// Duplicate a whitespace-separated token.
    Repeat(usize),
    /// Replace a number by another.
    Number(usize, u64),
}

fn text_edit() -> impl Strategy<Value = TextEdit> {
    let piece = 0..PIECES.len();
    prop_oneof![
        3 => (any::<usize>(), piece.clone()).prop_map(|(a, p)| TextEdit::Insert(a, p)),
        3 => (any::<usize>(), piece).prop_map(|(a, p)| TextEdit::Replace(a, p)),
        2 => (any::<usize>(), 1..6usize).prop_map(|(a, n)| TextEdit::Remove(a, n)),
        1 => any::<usize>().prop_map(TextEdit::Repeat),
        3 => (any::<usize>(), prop_oneof![0..300u64, Just(u16::MAX as u64), Just(u16::MAX as u64 + 1), Just(u64::MAX)])
            .prop_map(|(a, n)| TextEdit::Number(a, n)),
    ]
}

fn apply_text(text: &str, edits: &[TextEdit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let at = |k: usize, len: usize| if len == 0 { 0 } else { k % len };
        match e {
            TextEdit::Insert(k, p) => {
                let i = at(*k, chars.len() + 1);
                chars.splice(i..i, PIECES[*p].chars());
            }
            TextEdit::Replace(k, p) if !chars.is_empty() => {
                let i = at(*k, chars.len());
                chars.splice(i..i + 1, PIECES[*p].chars());
            }
            TextEdit::Remove(k, n) if !chars.is_empty() => {
                let i = at(*k, chars.len());
                chars.drain(i..(i + n).min(chars.len()));
            }
            TextEdit::Repeat(k) => {
                let s: String = chars.iter().collect();
                let tokens: Vec<&str> = s.split(' ').collect();
                let i = at(*k, tokens.len());
                let mut out = tokens.clone();
                out.insert(i, tokens[i]);
                chars = out.join(" ").chars().collect();
            }
            TextEdit::Number(k, n) => {
                // The k-th run of digits becomes n.
                let s: String = chars.iter().collect();
                let runs: Vec<(usize, usize)> = digit_runs(&chars);
                if !runs.is_empty() {
                    let (a, b) = runs[at(*k, runs.len())];
                    let mut out: Vec<char> = s.chars().collect();
                    out.splice(a..b, n.to_string().chars());
                    chars = out;
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn digit_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in chars.iter().enumerate() {
        match (c.is_ascii_digit(), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                runs.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        runs.push((a, chars.len()));
    }
    runs
}

/// A spec that parses is checked against the game; an error names the spec.
fn use_spec(text: &str) {
    match AgentSpec::parse(text) {
        Ok(spec) => {
            let _ = spec.files();
            if let Err(e) = spec.check(&fixture().game) {
                assert!(!e.to_string().is_empty());
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_changed_spec_is_refused_or_checks(which in any::<usize>(), edits in proptest::collection::vec(text_edit(), 1..4)) {
        let specs = &fixture().specs;
        use_spec(&apply_text(&specs[which % specs.len()], &edits));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_text_is_refused_or_checks(text in "\\PC{0,40}") {
        use_spec(&text);
    }

    #[test]
    fn specs_of_the_grammar_with_any_values_are_refused_or_check(
        kind in prop_oneof![Just("random"), Just("greedy"), Just("ab"), Just("alphabeta"), Just("mcts"), Just("perfect"), Just("net")],
        params in proptest::collection::vec(
            (
                prop_oneof![Just("sims"), Just("depth"), Just("ms"), Just("cpuct"), Just("gather"), Just("pick"), Just("margin"), Just("minimax"), Just("reuse"), Just("solver"), Just("tb"), Just("db"), Just("")],
                prop_oneof![Just("0".to_string()), Just("-1".to_string()), Just("NaN".to_string()), Just("inf".to_string()), Just("1e40".to_string()), Just("value:2".to_string()), Just("true".to_string()), Just(String::new()), any::<u32>().prop_map(|n| n.to_string()), (0.0..2.0f64).prop_map(|x| x.to_string())],
            ),
            0..4,
        ),
    ) {
        let params: Vec<String> = params.iter().map(|(k, v)| if k.is_empty() { v.clone() } else { format!("{k}={v}") }).collect();
        use_spec(&format!("{kind}:{}", params.join(",")));
    }
}

#[test]
fn the_valid_specs_check() {
    for text in &fixture().specs {
        AgentSpec::parse(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .check(&fixture().game)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}
