//! Fuzzing the tablebase reader: arbitrary bytes, a real database's file with bytes changed,
//! cut or added, and its payload changed and framed again (so the checksum passes and the
//! fields themselves are tested). Reading never panics; a file that reads is whole enough to
//! probe every position of its game inside it without a panic.

use std::path::Path;
use std::sync::OnceLock;

use mancala_container::Kind;
use mancala_rules::{Game, Setup, parse_rules};
use mancala_tablebase::build::endgame_scores;
use mancala_tablebase::format::{VERSION, decode, encode};
use mancala_tablebase::{Tablebase, TablebaseError};
use proptest::prelude::*;

/// A small real database: Kalah with three houses a side, up to 5 seeds on the board.
fn database() -> &'static (Tablebase, Vec<u8>) {
    static DB: OnceLock<(Tablebase, Vec<u8>)> = OnceLock::new();
    DB.get_or_init(|| {
        let tb = Tablebase::build(&parse_rules("kalah:3,2").unwrap(), 5, &|_| {}).unwrap().0;
        let bytes = encode(&tb);
        (tb, bytes)
    })
}

/// The payload of the real database's file (after the container's 32-byte header).
fn payload() -> &'static [u8] {
    &database().1[mancala_container::HEADER_LEN..]
}

// The byte mutations every fuzz test of a file format shares.
#[path = "../../rules/tests/support/byte_edit.rs"]
mod byte_edit;
use byte_edit::{apply, edit};

fn read(bytes: &[u8]) -> Result<Tablebase, TablebaseError> {
    decode(Path::new("fuzz.tb"), bytes)
}

/// Probes every position a read database holds under its own rules: a file that reads is
/// one a user can use.
fn use_it(tb: &Tablebase) {
    let game = parse_rules(tb.rules()).expect("a database that reads names rules this build knows");
    tb.check_game(&game).unwrap();
    let pits = game.pits(&game.start()).len();
    assert_eq!(pits, tb.pits());
    let mut board = vec![0u8; pits];
    for seeds in 0..=tb.max_seeds().min(4) {
        for rank in 0..tb.indexer().boards(seeds).min(200) {
            tb.indexer().unrank(rank, seeds, &mut board);
            let scores = endgame_scores(game.total_seeds(), seeds);
            let setup = Setup { pits: board.clone(), scores, ..Setup::default() };
            let pos = game.from_setup(&setup).unwrap();
            assert_probed(tb.probe(&game, &pos).is_some());
        }
    }
}

/// A position inside a database that reads has a probe.
fn assert_probed(probed: bool) {
    assert!(probed, "a position inside the database has no probe");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_bytes_are_refused_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert!(read(&bytes).is_err());
    }

    #[test]
    fn a_changed_file_is_refused_or_reads_whole(edits in proptest::collection::vec(edit(), 1..4)) {
        let bytes = apply(&database().1, &edits);
        match read(&bytes) {
            Ok(tb) => use_it(&tb),
            Err(e) => prop_assert!(e.to_string().contains("fuzz.tb"), "{e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The payload is changed and framed again, so the checksum passes and the fields are
    /// tested against each other.
    #[test]
    fn a_changed_payload_is_refused_or_reads_whole(edits in proptest::collection::vec(edit(), 1..4)) {
        let bytes = mancala_container::encode(Kind::TABLEBASE, VERSION, &apply(payload(), &edits));
        if let Ok(tb) = read(&bytes) {
            use_it(&tb);
        }
    }

    /// Headers written field by field, with sizes from the edges of every range.
    #[test]
    fn any_header_is_refused_or_reads_whole(
        rules in prop_oneof![Just("kalah:3,2"), Just("kalah"), Just("oware"), Just("owela"), Just("no such game"), Just("")],
        pits in prop_oneof![0..16u32, Just(64), Just(65), Just(u32::MAX)],
        seeds in prop_oneof![0..8u32, Just(127), Just(128), Just(u32::MAX)],
        slots in prop_oneof![0..600u64, Just(u64::MAX)],
        extra in 0..600usize,
    ) {
        let mut p = Vec::new();
        p.extend_from_slice(&(rules.len() as u32).to_le_bytes());
        p.extend_from_slice(rules.as_bytes());
        p.extend_from_slice(&pits.to_le_bytes());
        p.extend_from_slice(&seeds.to_le_bytes());
        p.extend_from_slice(&slots.to_le_bytes());
        p.extend(std::iter::repeat_n(0u8, extra));
        if let Ok(tb) = read(&mancala_container::encode(Kind::TABLEBASE, VERSION, &p)) {
            use_it(&tb);
        }
    }
}

#[test]
fn the_unchanged_file_reads_back() {
    let (tb, bytes) = database();
    assert_eq!(&read(bytes).unwrap(), tb);
    use_it(tb);
}

#[test]
fn a_header_whose_index_overflows_is_refused_by_name() {
    // 64 pits and 127 seeds: more slots than a u64 counts.
    let mut p = Vec::new();
    p.extend_from_slice(&5u32.to_le_bytes());
    p.extend_from_slice(b"kalah");
    p.extend_from_slice(&64u32.to_le_bytes());
    p.extend_from_slice(&127u32.to_le_bytes());
    p.extend_from_slice(&0u64.to_le_bytes());
    let err = read(&mancala_container::encode(Kind::TABLEBASE, VERSION, &p)).unwrap_err();
    assert!(matches!(err, TablebaseError::Header { .. }), "{err}");
    assert!(err.to_string().contains("fuzz.tb") && err.to_string().contains("64 bits"), "{err}");
}

#[test]
fn a_header_whose_pits_are_not_its_games_is_refused() {
    let tb = &database().0;
    let mut p = Vec::new();
    p.extend_from_slice(&(tb.rules().len() as u32).to_le_bytes());
    p.extend_from_slice(tb.rules().as_bytes());
    p.extend_from_slice(&4u32.to_le_bytes());
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&10u64.to_le_bytes());
    p.extend(std::iter::repeat_n(0u8, 10));
    let err = read(&mancala_container::encode(Kind::TABLEBASE, VERSION, &p)).unwrap_err();
    assert!(err.to_string().contains("has 6 pits, the header says 4"), "{err}");
}
