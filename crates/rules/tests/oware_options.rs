//! Reading Oware rules strings: presets, size suffix, options overriding presets, and the
//! errors for unknown keys and bad values.

use mancala_rules::oware::{Cycle, GrandSlam, Oware, Singletons, UnfedEnd};
use mancala_rules::{AnyGame, Game, RulesError, parse_rules};

fn oware(rules: &str) -> Oware {
    match parse_rules(rules).unwrap() {
        AnyGame::Oware(g) => g,
        other => panic!("{rules} is not oware: {other:?}"),
    }
}

fn error(rules: &str) -> String {
    parse_rules(rules).unwrap_err().to_string()
}

#[test]
fn presets_and_canonical_strings() {
    let cases = [
        (
            "oware",
            "oware houses=6 seeds=4 grand_slam=no-capture unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "abapa",
            "oware houses=6 seeds=4 grand_slam=no-capture unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "ouril",
            "oware houses=6 seeds=4 grand_slam=extra-turn unfed_end=mover-takes singletons=restricted cycle=repetition max_plies=1000",
        ),
        (
            "awale",
            "oware houses=6 seeds=4 grand_slam=forbidden unfed_end=not-scored singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "oware-capture-all",
            "oware houses=6 seeds=4 grand_slam=capture-all unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "oware:4,3 cycle=plies:40 max-plies=200",
            "oware houses=4 seeds=3 grand_slam=no-capture unfed_end=mover-takes singletons=free cycle=plies:40 max_plies=200",
        ),
        (
            "OURIL singletons=free Grand-Slam=Capture-All",
            "oware houses=6 seeds=4 grand_slam=capture-all unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "oware:5",
            "oware houses=5 seeds=4 grand_slam=no-capture unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
        (
            "oware:8,3 houses=16 seeds=7",
            "oware houses=16 seeds=7 grand_slam=no-capture unfed_end=mover-takes singletons=free cycle=repetition max_plies=1000",
        ),
    ];
    for (rules, canonical) in cases {
        let game = oware(rules);
        assert_eq!(game.rules_string(), canonical, "{rules}");
        assert_eq!(oware(canonical), game, "{rules}");
    }
}

#[test]
fn options_override_presets() {
    let g = oware("awale unfed_end=mover-takes");
    assert_eq!(g.options().grand_slam, GrandSlam::Forbidden);
    assert_eq!(g.options().unfed_end, UnfedEnd::MoverTakes);
    let g = oware("ouril cycle=plies:50");
    assert_eq!(g.options().singletons, Singletons::Restricted);
    assert_eq!(g.options().cycle, Cycle::Plies(50));
    assert!(!g.repetition_ends_game());
    assert!(oware("oware").repetition_ends_game());
}

#[test]
fn preset_names() {
    assert_eq!(oware("abapa").preset_name(), Some("oware"));
    assert_eq!(oware("ouril").preset_name(), Some("ouril"));
    assert_eq!(oware("oware grand_slam=forbidden unfed_end=not-scored").preset_name(), Some("awale"));
    assert_eq!(oware("oware-capture-all").preset_name(), Some("oware-capture-all"));
    assert_eq!(oware("oware:4,4").preset_name(), None);
    assert_eq!(oware("ouril singletons=free").preset_name(), None);
}

#[test]
fn sizes_and_totals() {
    let g = oware("oware:4,3");
    assert_eq!((g.action_space(), g.total_seeds()), (4, 24));
    assert_eq!(oware("oware houses=1 seeds=1").total_seeds(), 2);
    assert_eq!(oware("oware houses=16 seeds=7").total_seeds(), 224);
}

#[test]
fn unknown_key_lists_the_options() {
    let e = error("oware colour=red");
    assert!(e.contains("unknown option 'colour'"), "{e}");
    for key in ["houses", "seeds", "grand_slam", "unfed_end", "singletons", "cycle", "max_plies"] {
        assert!(e.contains(key), "{e}");
    }
}

#[test]
fn bad_values_list_what_is_allowed() {
    let e = error("oware grand_slam=sometimes");
    assert!(e.contains("'sometimes'") && e.contains("no-capture, forbidden, capture-all, extra-turn"), "{e}");
    let e = error("oware unfed_end=nobody");
    assert!(e.contains("mover-takes, not-scored"), "{e}");
    let e = error("oware singletons=maybe");
    assert!(e.contains("free, restricted"), "{e}");
    for bad in ["cycle=forever", "cycle=plies:0", "cycle=plies:x", "cycle=moves:10", "cycle=plies:70000"] {
        let e = error(&format!("oware {bad}"));
        assert!(e.contains("repetition or plies:N"), "{bad}: {e}");
    }
    for bad in ["houses=0", "houses=17", "houses=six"] {
        let e = error(&format!("oware {bad}"));
        assert!(e.contains("from 1 to 16"), "{bad}: {e}");
    }
    assert!(error("oware max_plies=0").contains("max_plies"));
    assert!(error("oware seeds=0").contains("seeds"));
}

#[test]
fn more_than_255_seeds_are_refused() {
    let e = error("oware seeds=22");
    assert!(e.contains("'22'") && e.contains("255") && e.contains("at most 21"), "{e}");
    let e = error("oware houses=16 seeds=8");
    assert!(e.contains("255") && e.contains("at most 7"), "{e}");
    let e = error("oware:16,8");
    assert!(e.contains("255"), "{e}");
    assert!(matches!(parse_rules("oware houses=11 seeds=12"), Err(RulesError::BadValue { .. })));
    assert!(parse_rules("oware houses=16").is_ok());
}

#[test]
fn bad_sizes() {
    assert!(error("oware:0,4").contains("houses must be from 1 to 16"));
    assert!(error("oware:6,4,2").contains("oware:HOUSES"));
    assert!(error("oware:6,300").contains("seeds"));
    assert!(error("oware:six").contains("not a whole number"));
}

#[test]
fn syntax_errors() {
    assert!(matches!(parse_rules("oware houses"), Err(RulesError::NotKeyValue { .. })));
    assert!(matches!(parse_rules("oware houses=6 houses=5"), Err(RulesError::Duplicate { .. })));
    assert!(matches!(parse_rules("owari"), Err(RulesError::UnknownPreset { .. })));
}
