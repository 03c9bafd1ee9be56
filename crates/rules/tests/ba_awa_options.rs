//! Ba-awa rules strings: the canonical form, every option and value, and the errors.

use mancala_rules::ba_awa::{BaAwa, FoursTo};
use mancala_rules::{AnyGame, Game, RulesError, parse_rules};

fn ba_awa(rules: &str) -> BaAwa {
    match parse_rules(rules).unwrap() {
        AnyGame::BaAwa(g) => g,
        other => panic!("{rules} gave {other:?}"),
    }
}

const CANONICAL: &str = "ba-awa fours_to=controller max_relay=1000 max_plies=1000 match=false match_target=10";

#[test]
fn defaults_and_canonical_string() {
    let game = ba_awa("ba-awa");
    assert_eq!(game.rules_string(), CANONICAL);
    assert_eq!(game.fours_to(), FoursTo::Controller);
    assert_eq!((game.max_relay(), game.max_plies(), game.is_match(), game.match_target()), (1000, 1000, false, 10));
    assert_eq!(ba_awa(CANONICAL), game);
    assert_eq!(ba_awa("ba_awa"), game);
    assert_eq!(ba_awa("BaAwa"), game);
    assert_eq!(game.action_space(), 12);
    assert_eq!(game.total_seeds(), 48);
}

#[test]
fn every_option_value_reads_back() {
    let game = ba_awa("ba-awa fours-to=MOVER max-relay=0 max_plies=1 match=true match_target=12");
    assert_eq!(game.fours_to(), FoursTo::Mover);
    assert_eq!((game.max_relay(), game.max_plies(), game.is_match(), game.match_target()), (0, 1, true, 12));
    assert_eq!(game.rules_string(), "ba-awa fours_to=mover max_relay=0 max_plies=1 match=true match_target=12");
    for rules in [
        "ba-awa fours_to=controller",
        "ba-awa max_relay=1000000",
        "ba-awa max_plies=65535",
        "ba-awa match=false match_target=1",
    ] {
        let game = ba_awa(rules);
        assert_eq!(ba_awa(&game.rules_string()), game, "{rules}");
    }
}

fn error(rules: &str) -> RulesError {
    parse_rules(rules).unwrap_err()
}

#[test]
fn unknown_key_lists_the_options() {
    let e = error("ba-awa seeds=5");
    assert!(matches!(e, RulesError::UnknownKey { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("'seeds'") && msg.contains("ba-awa"), "{msg}");
    for key in ["fours_to", "max_relay", "max_plies", "match", "match_target"] {
        assert!(msg.contains(key), "{msg}");
    }
}

#[test]
fn bad_values_name_what_is_allowed() {
    let cases = [
        ("ba-awa fours_to=owner", "controller, mover"),
        ("ba-awa max_relay=-1", "0 to 1000000"),
        ("ba-awa max_relay=1000001", "0 to 1000000"),
        ("ba-awa max_plies=0", "1 to 65535"),
        ("ba-awa max_plies=70000", "1 to 65535"),
        ("ba-awa match=yes", "true, false"),
        ("ba-awa match_target=0", "1 to 12"),
        ("ba-awa match_target=13", "1 to 12"),
        ("ba-awa match_target=ten", "1 to 12"),
    ];
    for (rules, allowed) in cases {
        let e = error(rules);
        assert!(matches!(e, RulesError::BadValue { .. }), "{rules}: {e:?}");
        let msg = e.to_string();
        let value = rules.split('=').nth(1).unwrap();
        assert!(msg.contains(allowed) && msg.contains(value), "{rules}: {msg}");
    }
}

#[test]
fn sizes_and_malformed_options_are_refused() {
    assert!(matches!(error("ba-awa:6"), RulesError::BadSize { .. }));
    assert!(error("ba-awa:6").to_string().contains("takes no sizes"));
    assert!(matches!(error("ba-awa match"), RulesError::NotKeyValue { .. }));
    assert!(matches!(error("ba-awa match=true match=false"), RulesError::Duplicate { .. }));
    assert!(matches!(error("ba-awa max_plies=5 max-plies=6"), RulesError::Duplicate { .. }));
}
