//! The file format: a database written and read back is the same; a corrupt, truncated,
//! foreign or other-game file is refused with the reason.

use std::path::PathBuf;

use mancala_rules::parse_rules;
use mancala_tablebase::format::{decode, encode};
use mancala_tablebase::{Tablebase, TablebaseError};

fn small() -> Tablebase {
    Tablebase::build(&parse_rules("kalah").unwrap(), 4, &|_| {}).unwrap().0
}

fn temp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tablebase-{}-{name}", std::process::id()))
}

#[test]
fn a_written_database_reads_back_the_same() {
    let tb = small();
    let path = temp("roundtrip.mztb");
    tb.write(&path).unwrap();
    assert_eq!(Tablebase::read(&path).unwrap(), tb);
    assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, encode(&tb).len());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_flipped_byte_anywhere_in_the_values_is_caught_by_the_checksum() {
    let tb = small();
    let bytes = encode(&tb);
    let values_start = bytes.len() - 8 - tb.values().len();
    for at in [values_start, values_start + tb.values().len() / 2, bytes.len() - 9] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        assert!(matches!(decode(&bad), Err(TablebaseError::Checksum { .. })), "byte {at}");
    }
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(matches!(decode(&bad), Err(TablebaseError::Checksum { .. })), "the checksum itself");
}

#[test]
fn a_truncated_file_is_refused_naming_what_is_missing() {
    let bytes = encode(&small());
    for len in [0, 5, 12, 30, bytes.len() / 2, bytes.len() - 1] {
        let err = decode(&bytes[..len]).unwrap_err();
        assert!(matches!(err, TablebaseError::Truncated { .. } | TablebaseError::BadMagic), "{len} bytes: {err}");
    }
    let err = decode(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(err.to_string().contains("the checksum"), "{err}");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(decode(&longer), Err(TablebaseError::TrailingBytes { extra: 1 })));
}

#[test]
fn a_foreign_file_or_another_version_is_refused() {
    let bytes = encode(&small());
    let mut bad = bytes.clone();
    bad[..4].copy_from_slice(b"PK\x03\x04");
    assert!(matches!(decode(&bad), Err(TablebaseError::BadMagic)));
    let mut bad = bytes.clone();
    bad[8] = 9;
    assert!(matches!(decode(&bad), Err(TablebaseError::Version { found: 9, supported: 1 })));
}

#[test]
fn a_header_that_disagrees_with_itself_is_refused() {
    let tb = small();
    let mut bytes = encode(&tb);
    // max_seeds sits just before the 8-byte slot count that precedes the values.
    let at = bytes.len() - 8 - tb.values().len() - 8 - 4;
    assert_eq!(bytes[at], 4);
    bytes[at] = 5;
    let err = decode(&bytes).unwrap_err();
    assert!(matches!(err, TablebaseError::Header { .. }), "{err}");
}

#[test]
fn a_database_for_another_game_is_refused() {
    let tb = small();
    let err = tb.check_game(&parse_rules("oware").unwrap()).unwrap_err();
    assert!(matches!(err, TablebaseError::WrongGame { .. }));
    assert!(err.to_string().contains("kalah"), "{err}");
    tb.check_game(&parse_rules("kalah").unwrap()).unwrap();
}

#[test]
fn a_missing_file_names_its_path() {
    let err = Tablebase::read(&temp("missing.mztb")).unwrap_err();
    assert!(err.to_string().contains("missing.mztb"), "{err}");
}
