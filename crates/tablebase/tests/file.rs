//! The file format: a database written and read back is the same; a corrupt, truncated,
//! foreign or other-game file is refused with the reason.

use std::path::{Path, PathBuf};

use mancala_container::{ContainerError, Kind};
use mancala_rules::parse_rules;
use mancala_tablebase::format::encode;
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

fn decode(bytes: &[u8]) -> Result<Tablebase, TablebaseError> {
    mancala_tablebase::format::decode(Path::new("dbs/kalah-4.tb"), bytes)
}

#[test]
fn a_flipped_byte_anywhere_is_caught_by_a_checksum() {
    let tb = small();
    let bytes = encode(&tb);
    let values_start = bytes.len() - tb.values().len();
    for at in [values_start, values_start + tb.values().len() / 2, bytes.len() - 1, 40, 20, 29] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let err = decode(&bad).unwrap_err();
        assert!(matches!(err, TablebaseError::File(ContainerError::Checksum { .. })), "byte {at}: {err}");
        assert!(err.to_string().contains("dbs/kalah-4.tb"), "{err}");
    }
}

#[test]
fn a_truncated_file_is_refused_naming_what_is_missing() {
    let bytes = encode(&small());
    for len in [0, 5, 12, 30, 32, bytes.len() / 2, bytes.len() - 1] {
        let err = decode(&bytes[..len]).unwrap_err();
        assert!(matches!(err, TablebaseError::File(ContainerError::Truncated { .. })), "{len} bytes: {err}");
    }
    let err = decode(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(err.to_string().contains("the payload"), "{err}");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(decode(&longer), Err(TablebaseError::File(ContainerError::TrailingBytes { .. }))));
}

#[test]
fn a_foreign_file_or_another_version_is_refused() {
    let bytes = encode(&small());
    let err = decode(b"PK\x03\x04 a zip file").unwrap_err();
    assert!(matches!(err, TablebaseError::File(ContainerError::NotAContainer { .. })), "{err}");
    let other = mancala_container::encode(Kind::TABLEBASE, 9, &bytes[mancala_container::HEADER_LEN..]);
    let err = decode(&other).unwrap_err();
    assert!(matches!(err, TablebaseError::File(ContainerError::UnsupportedVersion { found: 9, .. })), "{err}");
    assert!(err.to_string().ends_with("this build reads version 2"), "{err}");
    let model = mancala_container::encode(Kind::MODEL, 2, b"weights");
    assert_eq!(decode(&model).unwrap_err().to_string(), "dbs/kalah-4.tb is not a tablebase file: it is a model");
}

/// A file of format version 1 (before the container), as its writer made it.
fn version_1_bytes(tb: &Tablebase) -> Vec<u8> {
    let rules = tb.rules().as_bytes();
    let mut out = b"MZTBASE\0".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    out.extend_from_slice(rules);
    out.extend_from_slice(&(tb.pits() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.max_seeds() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.values().len() as u64).to_le_bytes());
    out.extend(tb.values().iter().map(|&v| v as u8));
    out.extend_from_slice(&mancala_container::fnv1a64(&out).to_le_bytes());
    out
}

#[test]
fn a_file_of_the_old_format_says_how_to_rebuild_it() {
    let tb = small();
    let err = decode(&version_1_bytes(&tb)).unwrap_err();
    assert!(matches!(err, TablebaseError::OldFormat { .. }), "{err}");
    let rebuild = format!("mancala-zero tablebase build --game '{}' --seeds 4 --out dbs/kalah-4.tb", tb.rules());
    assert!(err.to_string().contains(&rebuild), "{err}");
    // Cut short, it still gets the old-format error, with placeholders for what is missing.
    let err = decode(&version_1_bytes(&tb)[..14]).unwrap_err();
    assert!(err.to_string().contains("--game RULES --seeds N --out dbs/kalah-4.tb"), "{err}");
}

#[test]
fn a_header_that_disagrees_with_itself_is_refused() {
    let tb = small();
    let bytes = encode(&tb);
    // max_seeds sits just before the 8-byte slot count that precedes the values.
    let mut payload = bytes[mancala_container::HEADER_LEN..].to_vec();
    let at = payload.len() - tb.values().len() - 8 - 4;
    assert_eq!(payload[at], 4);
    payload[at] = 5;
    let err = decode(&mancala_container::encode(Kind::TABLEBASE, 2, &payload)).unwrap_err();
    assert!(matches!(err, TablebaseError::Header { .. }), "{err}");
    assert!(err.to_string().contains("dbs/kalah-4.tb"), "{err}");
    payload[at] = 4;
    payload.push(0);
    let err = decode(&mancala_container::encode(Kind::TABLEBASE, 2, &payload)).unwrap_err();
    assert!(err.to_string().contains("1 bytes after the values"), "{err}");
    let err = decode(&mancala_container::encode(Kind::TABLEBASE, 2, &payload[..10])).unwrap_err();
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
