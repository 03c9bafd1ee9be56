//! Fuzzing the agent spec parser: valid specs of every kind (naming a real model file and
//! endgame database) with characters, tokens and numbers changed, and arbitrary text.
//! Parsing never panics; a spec that parses is checked against a game (its files read and
//! matched) without a panic, and an error names the spec.

use std::path::PathBuf;
use std::sync::OnceLock;

use burn::prelude::Device;
use mancala_agents::AgentSpec;
use mancala_encoding::layout;
use mancala_nn::{ModelMeta, NetConfig, save_model};
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

// The text mutations every fuzz test of bad input shares.
#[path = "../../rules/tests/support/text_edit.rs"]
mod text_edit;
use text_edit::{apply_text, text_edit};

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
    fn a_changed_spec_is_refused_or_checks(which in any::<usize>(), edits in proptest::collection::vec(text_edit(PIECES.len()), 1..4)) {
        let specs = &fixture().specs;
        use_spec(&apply_text(&specs[which % specs.len()], &edits, PIECES));
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
