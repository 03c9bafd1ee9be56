//! Owela's rules-string options: defaults, ranges and the errors for bad input.

use mancala_rules::{Game, RulesError, parse_rules};

fn error(rules: &str) -> RulesError {
    parse_rules(rules).expect_err(rules)
}

#[test]
fn unknown_key_lists_the_options() {
    let err = error("owela rows=4");
    assert_eq!(
        err,
        RulesError::UnknownKey {
            game: "owela".to_string(),
            key: "rows".to_string(),
            allowed: "columns, min_sow, max_relay, max_plies".to_string(),
        }
    );
    assert!(err.to_string().contains("rows"));
}

#[test]
fn bad_values_name_the_range() {
    for (rules, key, allowed) in [
        ("owela columns=5", "columns", "from 6 to 16"),
        ("owela columns=17", "columns", "from 6 to 16"),
        ("owela columns=eight", "columns", "from 6 to 16"),
        ("owela min_sow=0", "min_sow", "from 1 to 2"),
        ("owela min_sow=3", "min_sow", "from 1 to 2"),
        ("owela max_relay=0", "max_relay", "from 1 to 1000000"),
        ("owela max_plies=0", "max_plies", "from 1 to 65535"),
        ("owela max_plies=70000", "max_plies", "from 1 to 65535"),
        ("owela max-plies=-1", "max-plies", "from 1 to 65535"),
    ] {
        match error(rules) {
            RulesError::BadValue { key: k, allowed: a, .. } => {
                assert_eq!(k, key, "{rules}");
                assert!(a.contains(allowed), "{rules}: {a}");
            }
            other => panic!("{rules}: {other}"),
        }
    }
}

#[test]
fn size_suffix_and_repeats_are_refused() {
    assert!(matches!(error("owela:8"), RulesError::BadSize { .. }));
    let text = error("owela:8").to_string();
    assert!(text.contains("owela:8") && text.contains("columns="), "{text}");
    assert!(matches!(error("owela columns=8 columns=6"), RulesError::Duplicate { .. }));
    assert!(matches!(error("owela columns"), RulesError::NotKeyValue { .. }));
}

#[test]
fn every_option_value_is_kept() {
    let game = parse_rules("owela max_plies=7 max-relay=3 min_sow=1 columns=16").unwrap();
    assert_eq!(game.rules_string(), "owela columns=16 min_sow=1 max_relay=3 max_plies=7");
    assert_eq!(game.action_space(), 32);
    assert_eq!(game.total_seeds(), 80);
    assert_eq!(parse_rules(&game.rules_string()).unwrap(), game);
    let small = parse_rules("owela columns=6").unwrap();
    assert_eq!((small.action_space(), small.total_seeds()), (12, 40));
}
