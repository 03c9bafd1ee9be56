//! Fuzzing the shard reader: arbitrary bytes, a real shard's file with bytes changed, cut or
//! added, its payload changed and framed again (so the checksum passes), and headers whose
//! sizes disagree with the rows they hold. Reading never panics, and a shard that reads
//! holds the rows its header says; one whose shape is not a run's is refused by name.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use flate2::Compression;
use flate2::write::DeflateEncoder;
use mancala_container::Kind;
use mancala_encoding::ENCODING_VERSION;
use mancala_rules::{Game, parse_rules};
use mancala_selfplay::shard::SHARD_VERSION;
use mancala_selfplay::{Row, ShardError, ShardHeader, parse_shard, shard_bytes};
use proptest::prelude::*;

const RULES: &str = "kalah:3,2";

/// The shape a run of `RULES` writes.
fn shape() -> (usize, usize) {
    let game = parse_rules(RULES).unwrap();
    (mancala_encoding::layout(&game).inputs(), game.action_space())
}

fn rows(n: usize) -> Vec<Row> {
    let (inputs, actions) = shape();
    (0..n)
        .map(|i| Row {
            inputs: (0..inputs).map(|k| ((i * 7 + k) % 5) as f32 * 0.25).collect(),
            legal: (1u64 << actions) - 1 - (i as u64 & 1),
            policy: (0..actions).map(|a| if a == i % actions { 1.0 } else { 0.0 }).collect(),
            search_value: 0.1 * i as f32 - 0.3,
            outcome: [1.0, 0.0, -1.0][i % 3],
            margin: 0.05 * i as f32,
        })
        .collect()
}

fn header(n: usize) -> ShardHeader {
    let (inputs, actions) = shape();
    ShardHeader { rules: RULES.into(), inputs, actions, rows: n, games: 2, iteration: 3 }
}

/// A real shard of six rows.
fn shard() -> &'static Vec<u8> {
    static SHARD: OnceLock<Vec<u8>> = OnceLock::new();
    SHARD.get_or_init(|| shard_bytes(&header(6), &rows(6)))
}

/// The raw (uncompressed) rows of the real shard.
fn raw_rows() -> Vec<u8> {
    let mut raw = Vec::new();
    for r in rows(6) {
        r.inputs.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        raw.extend_from_slice(&r.legal.to_le_bytes());
        r.policy.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        for x in [r.search_value, r.outcome, r.margin] {
            raw.extend_from_slice(&x.to_le_bytes());
        }
    }
    raw
}

/// A shard framed from its parts: a header as JSON and raw rows, compressed.
fn framed(head: &[u8], raw: &[u8]) -> Vec<u8> {
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(raw).unwrap();
    let rows = enc.finish().unwrap();
    let mut p = Vec::new();
    p.extend_from_slice(&ENCODING_VERSION.to_le_bytes());
    p.extend_from_slice(&(head.len() as u32).to_le_bytes());
    p.extend_from_slice(head);
    p.extend_from_slice(&rows);
    mancala_container::encode(Kind::SHARD, SHARD_VERSION, &p)
}

// The byte mutations every fuzz test of a file format shares.
#[path = "../../rules/tests/support/byte_edit.rs"]
mod byte_edit;
use byte_edit::{apply, edit};

fn read(bytes: &[u8]) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    parse_shard(Path::new("fuzz.shard"), bytes, Some(RULES))
}

/// A shard that reads holds its header's rows, each of its header's shape.
fn check_read(header: &ShardHeader, rows: &[Row]) {
    assert_eq!(rows.len(), header.rows);
    assert!(header.actions <= 64);
    for r in rows {
        assert_eq!((r.inputs.len(), r.policy.len()), (header.inputs, header.actions));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_bytes_are_refused_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert!(read(&bytes).is_err());
    }

    #[test]
    fn a_changed_file_is_refused_or_reads_whole(edits in proptest::collection::vec(edit(), 1..4)) {
        match read(&apply(shard(), &edits)) {
            Ok((h, r)) => check_read(&h, &r),
            Err(e) => prop_assert!(e.to_string().contains("fuzz.shard"), "{e}"),
        }
    }

    /// The payload is changed and framed again, so the checksum passes.
    #[test]
    fn a_changed_payload_is_refused_or_reads_whole(edits in proptest::collection::vec(edit(), 1..4)) {
        let payload = &shard()[mancala_container::HEADER_LEN..];
        let bytes = mancala_container::encode(Kind::SHARD, SHARD_VERSION, &apply(payload, &edits));
        if let Ok((h, r)) = read(&bytes) {
            check_read(&h, &r);
        }
    }

    /// The header's JSON and the rows are changed before they are framed and compressed, so
    /// the reader's size checks and the row decoding are reached.
    #[test]
    fn a_changed_header_or_rows_are_refused_or_read_whole(
        head_edits in proptest::collection::vec(edit(), 0..3),
        row_edits in proptest::collection::vec(edit(), 0..3),
    ) {
        let head = apply(&serde_json::to_vec(&header(6)).unwrap(), &head_edits);
        if let Ok((h, r)) = read(&framed(&head, &apply(&raw_rows(), &row_edits))) {
            check_read(&h, &r);
        }
    }

    /// Headers whose sizes come from the edges of every range, over the real rows.
    #[test]
    fn any_sizes_in_the_header_are_refused_or_read_whole(
        inputs in prop_oneof![0..40usize, Just(usize::MAX / 4), Just(usize::MAX)],
        actions in prop_oneof![0..70usize, Just(usize::MAX / 4), Just(usize::MAX)],
        n in prop_oneof![0..12usize, Just(usize::MAX / 20), Just(usize::MAX)],
    ) {
        let h = ShardHeader { inputs, actions, rows: n, ..header(6) };
        if let Ok((h, r)) = read(&framed(&serde_json::to_vec(&h).unwrap(), &raw_rows())) {
            check_read(&h, &r);
        }
    }
}

#[test]
fn the_unchanged_shard_reads_back_and_fits_its_run() {
    let (h, r) = read(shard()).unwrap();
    assert_eq!((h.clone(), r), (header(6), rows(6)));
    let (inputs, actions) = shape();
    h.check_shape(Path::new("fuzz.shard"), inputs, actions).unwrap();
}

#[test]
fn a_shard_of_another_shape_is_refused_by_name() {
    let (inputs, actions) = shape();
    // The same rows read as two more inputs and two fewer actions: the sizes add up, the
    // shape is not the run's.
    let h = ShardHeader { inputs: inputs + 2, actions: actions - 2, ..header(6) };
    let (h, _) = read(&framed(&serde_json::to_vec(&h).unwrap(), &raw_rows())).unwrap();
    let err = h.check_shape(Path::new("shards/w/1.shard"), inputs, actions).unwrap_err();
    assert!(matches!(err, ShardError::Shape { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("shards/w/1.shard") && text.contains(&format!("{inputs} inputs")), "{text}");
}

#[test]
fn more_actions_than_a_legal_mask_holds_are_refused() {
    // Refused before the sizes are compared with the rows.
    let h = ShardHeader { actions: 65, ..header(6) };
    let err = read(&framed(&serde_json::to_vec(&h).unwrap(), &raw_rows())).unwrap_err();
    assert!(err.to_string().contains("legal mask"), "{err}");
}

#[test]
fn a_header_whose_sizes_overflow_is_refused() {
    let h = ShardHeader { rows: usize::MAX, ..header(6) };
    let err = read(&framed(&serde_json::to_vec(&h).unwrap(), &raw_rows())).unwrap_err();
    assert!(err.to_string().contains("do not fit in memory"), "{err}");
}
