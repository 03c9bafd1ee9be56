//! Fuzzing the run config reader: every shipped config with characters, tokens and numbers
//! changed, each key of the tiny config set to values of every type and edge, and arbitrary
//! text. Parsing never panics; a config that parses gives its game, network, search,
//! optimiser and window without a panic; an error names what is wrong.

use mancala_train::RunConfig;
use proptest::prelude::*;

const SHIPPED: &[&str] = &["tiny", "oware", "kalah", "awale", "ouril", "oware-capture-all", "ba-awa", "owela"];

/// Characters and tokens of TOML and of the config's values.
const PIECES: &[&str] = &[
    " ",
    "=",
    "[",
    "]",
    "\"",
    "'",
    ",",
    ".",
    "#",
    "\n",
    "0",
    "1",
    "-1",
    "9",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "18446744073709551616",
    "4294967296",
    "[run]",
    "[game]",
    "[network]",
    "iterations",
    "rules",
    "width",
    "blocks",
    "device",
    "\"cuda\"",
    "\"kalah:16,7\"",
    "seeds",
    "window_max",
    "batch_size",
    "é",
];

// The text mutations every fuzz test of bad input shares.
#[path = "../../rules/tests/support/text_edit.rs"]
mod text_edit;
use text_edit::{apply_text, text_edit};

/// A config that parses gives everything the roles build from it.
fn use_config(text: &str) {
    match RunConfig::parse(text) {
        Ok(config) => {
            let game = config.game().expect("a validated config has a game");
            let _ = config.net_config(&game);
            let _ = config.search_config(config.selfplay.simulations);
            let _ = config.optim_config();
            for iteration in [0, 1, 1000, u64::MAX] {
                assert!(config.window_size(iteration) <= config.training.window_max);
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// A TOML value of every type, with the edges of each range.
fn value() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        prop_oneof![
            Just(0i64),
            Just(1),
            Just(-1),
            Just(2),
            Just(i64::MAX),
            Just(i64::MIN),
            Just(1 << 32),
            any::<i64>()
        ]
        .prop_map(toml::Value::Integer),
        prop_oneof![Just(0.0f64), Just(-0.5), Just(0.5), Just(1.0), Just(1e30), Just(f64::NAN), Just(f64::INFINITY)]
            .prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
        prop_oneof![
            Just(""),
            Just("kalah:16,7"),
            Just("oware"),
            Just("cuda"),
            Just("random"),
            Just("mcts:sims=0"),
            Just("x")
        ]
        .prop_map(|s| toml::Value::String(s.into())),
        Just(toml::Value::Array(vec![])),
        Just(toml::Value::Table(toml::Table::new())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_changed_shipped_config_is_refused_or_usable(which in 0..SHIPPED.len(), edits in proptest::collection::vec(text_edit(PIECES.len()), 1..4)) {
        let text = RunConfig::shipped(SHIPPED[which]).unwrap();
        use_config(&apply_text(text, &edits, PIECES));
    }

    #[test]
    fn any_value_of_any_key_is_refused_or_usable(section in any::<usize>(), key in any::<usize>(), v in value()) {
        let mut table: toml::Table = toml::from_str(RunConfig::shipped("tiny").unwrap()).unwrap();
        let names: Vec<String> = table.keys().cloned().collect();
        let name = &names[section % names.len()];
        if let Some(toml::Value::Table(t)) = table.get_mut(name) {
            let keys: Vec<String> = t.keys().cloned().collect();
            if !keys.is_empty() {
                t.insert(keys[key % keys.len()].clone(), v);
            }
        }
        use_config(&toml::to_string(&table).unwrap());
    }

    #[test]
    fn arbitrary_text_is_refused_or_usable(text in "\\PC{0,80}") {
        use_config(&text);
    }
}

#[test]
fn the_shipped_configs_are_usable() {
    for name in SHIPPED {
        RunConfig::parse(RunConfig::shipped(name).unwrap()).unwrap();
        use_config(RunConfig::shipped(name).unwrap());
    }
}
