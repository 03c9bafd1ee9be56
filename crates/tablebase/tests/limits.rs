//! A database too large to build is refused before anything is allocated, with the
//! memory it would need named beside the limit.

use mancala_rules::parse_rules;
use mancala_tablebase::build::{human_bytes, memory_needed};
use mancala_tablebase::{DEFAULT_MEMORY_LIMIT, Tablebase, TablebaseError};

fn refusal(rules: &str, seeds: usize, limit: u64) -> String {
    let game = parse_rules(rules).unwrap();
    let err = Tablebase::build_within(&game, seeds, limit, &|_| panic!("nothing is built")).unwrap_err();
    assert!(matches!(err, TablebaseError::TooLarge { .. }), "{err}");
    err.to_string()
}

#[test]
fn an_index_beyond_64_bits_is_refused_not_a_panic() {
    // Kalah with 16 houses a side and 127 seeds: C(159, 32) boards do not fit a u64.
    let err = refusal("kalah:16,7", 127, DEFAULT_MEMORY_LIMIT);
    assert!(err.contains("up to 127 seeds") && err.contains("the limit is 16.0 GiB"), "{err}");
    assert!(err.contains("e33 positions"), "{err}");
}

#[test]
fn a_database_of_terabytes_is_refused_with_its_memory() {
    let err = refusal("kalah", 48, DEFAULT_MEMORY_LIMIT);
    // 2 C(60, 12) = 2 798 717 689 950 positions, one byte each, and the last layer's work.
    assert!(err.contains("2798717689950 positions"), "{err}");
    assert!(err.contains("TiB to build") && err.contains("the limit is 16.0 GiB"), "{err}");
    assert!(err.contains("fewer seeds"), "{err}");
}

#[test]
fn the_limit_can_be_set() {
    let game = parse_rules("kalah").unwrap();
    let need = memory_needed(12, 6);
    assert!(Tablebase::build_within(&game, 6, need as u64 + 1, &|_| {}).is_ok());
    let err = refusal("kalah", 6, need as u64 - 1);
    assert!(err.contains(&human_bytes(need)), "{err}");
}

#[test]
fn sizes_read_as_people_write_them() {
    assert_eq!(human_bytes(512.0), "512.0 bytes");
    assert_eq!(human_bytes(1536.0), "1.5 KiB");
    assert_eq!(human_bytes(16.0 * (1u64 << 30) as f64), "16.0 GiB");
    assert_eq!(human_bytes(3.0 * (1u64 << 40) as f64), "3.0 TiB");
    assert!(human_bytes(1e30).ends_with("e17 TiB"), "{}", human_bytes(1e30));
    // One byte a position plus the last layer's work: more than the positions alone.
    assert!(memory_needed(12, 10) > 1_293_292.0);
}
