//! Kalah's rules string: errors name the bad key, value or size and list what is allowed.

use mancala_rules::parse_rules;

fn error(rules: &str) -> String {
    parse_rules(rules).expect_err(rules).to_string()
}

#[test]
fn unknown_key_lists_the_options() {
    let e = error("kalah captures=yes");
    assert!(e.contains("'captures'") && e.contains("houses, seeds, empty_capture, end"), "{e}");
}

#[test]
fn bad_values_list_the_allowed_ones() {
    let e = error("kalah end=never");
    assert!(e.contains("'never'") && e.contains("either-row-empty, mover-row-empty"), "{e}");
    let e = error("kalah empty_capture=yes");
    assert!(e.contains("'yes'") && e.contains("true, false"), "{e}");
    let e = error("kalah houses=17");
    assert!(e.contains("'17'") && e.contains("1 to 16"), "{e}");
    let e = error("kalah houses=0");
    assert!(e.contains("'0'"), "{e}");
    let e = error("kalah seeds=0");
    assert!(e.contains("'seeds'"), "{e}");
    let e = error("kalah seeds=x");
    assert!(e.contains("'x'"), "{e}");
}

#[test]
fn more_than_255_seeds_are_refused() {
    let e = error("kalah seeds=22");
    assert!(e.contains("'22'") && e.contains("at most 21 seeds a house") && e.contains("255"), "{e}");
    let e = error("kalah houses=16 seeds=8");
    assert!(e.contains("at most 7 seeds a house with 16 houses"), "{e}");
    let e = error("kalah:8,16");
    assert!(e.contains("kalah:8,16") && e.contains("256 seeds") && e.contains("255"), "{e}");
    assert!(parse_rules("kalah:1,127").is_ok());
    assert!(parse_rules("kalah:16,7").is_ok());
    assert!(parse_rules("kalah houses=6 seeds=21").is_ok());
}

#[test]
fn bad_size_suffix() {
    let e = error("kalah:6");
    assert!(e.contains("kalah:HOUSES,SEEDS"), "{e}");
    let e = error("kalah:6,4,2");
    assert!(e.contains("kalah:HOUSES,SEEDS"), "{e}");
    let e = error("kalah:17,1");
    assert!(e.contains("17 houses") && e.contains("1 to 16"), "{e}");
    let e = error("kalah:6,0");
    assert!(e.contains("0 seeds"), "{e}");
    let e = error("kalah:6,x");
    assert!(e.contains("'x'"), "{e}");
}

#[test]
fn suffix_and_option_must_agree() {
    let e = error("kalah:6,4 houses=5");
    assert!(e.contains("'houses'") && e.contains("6, as the size suffix says"), "{e}");
    let e = error("kalah:6,4 seeds=3");
    assert!(e.contains("'seeds'") && e.contains("4, as the size suffix says"), "{e}");
}

#[test]
fn keys_with_dashes_and_any_case() {
    let a = parse_rules("kalah empty-capture=TRUE END=Mover-Row-Empty").unwrap();
    let b = parse_rules("kalah empty_capture=true end=mover-row-empty").unwrap();
    assert_eq!(a, b);
}
