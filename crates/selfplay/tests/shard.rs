//! Shards across format versions: a shard of format version 1 (before the container) is
//! still read, so a run resumed after the change keeps its replay window; new shards are
//! containers.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::DeflateEncoder;
use mancala_container::{ContainerError, Kind, fnv1a64};
use mancala_encoding::ENCODING_VERSION;
use mancala_selfplay::shard::{LEGACY_MAGIC, SHARD_VERSION};
use mancala_selfplay::{Row, ShardError, ShardHeader, parse_shard, shard_bytes};

fn header() -> ShardHeader {
    ShardHeader { rules: "kalah:3,2".into(), inputs: 3, actions: 2, rows: 4, games: 2, iteration: 7 }
}

fn rows() -> Vec<Row> {
    (0..4)
        .map(|i| Row {
            inputs: vec![i as f32, 0.25, -1.0],
            legal: 0b10 | (i & 1),
            policy: vec![0.5, 0.5],
            search_value: -0.1 * i as f32,
            outcome: [1.0, 0.0, -1.0][(i % 3) as usize],
            margin: 0.02 * i as f32,
        })
        .collect()
}

/// A shard in format version 1 exactly as the writer before the container made it (its code,
/// kept here as the definition of that format).
fn legacy_bytes(header: &ShardHeader, rows: &[Row]) -> Vec<u8> {
    let mut raw = Vec::new();
    for r in rows {
        r.inputs.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        raw.extend_from_slice(&r.legal.to_le_bytes());
        r.policy.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        for x in [r.search_value, r.outcome, r.margin] {
            raw.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(&raw).unwrap();
    let payload = enc.finish().unwrap();
    let head = serde_json::to_vec(header).unwrap();
    let mut out = Vec::new();
    out.extend_from_slice(b"MZSHARD\0");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&ENCODING_VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn a_version_1_shard_reads_as_its_rows() {
    let old = legacy_bytes(&header(), &rows());
    assert!(old.starts_with(LEGACY_MAGIC));
    let (h, r) = parse_shard(Path::new("old.shard"), &old, Some("kalah:3,2")).unwrap();
    assert_eq!((h, r), (header(), rows()));
    // What is written now is a container of the current version holding the same rows.
    let new = shard_bytes(&header(), &rows());
    let framed = mancala_container::decode(Path::new("new.shard"), &new, Kind::SHARD, &[SHARD_VERSION]).unwrap();
    assert_eq!(framed.version, 2);
    assert_eq!(parse_shard(Path::new("new.shard"), &new, None).unwrap(), (header(), rows()));
}

#[test]
fn a_damaged_version_1_shard_is_an_error_naming_it() {
    let old = legacy_bytes(&header(), &rows());
    let parse = |b: &[u8]| parse_shard(Path::new("runs/a/old.shard"), b, None);
    for len in 0..old.len() {
        let e = parse(&old[..len]).unwrap_err();
        assert!(e.to_string().contains("runs/a/old.shard"), "{len}: {e}");
        let expected =
            matches!(e, ShardError::File(ContainerError::Truncated { .. } | ContainerError::NotAContainer { .. }));
        assert!(expected, "cut at {len}: {e}");
    }
    for at in 0..old.len() {
        let mut bad = old.clone();
        bad[at] ^= 0x81;
        let e = parse(&bad).unwrap_err();
        assert!(e.to_string().contains("runs/a/old.shard"), "{at}: {e}");
    }
    let mut version = old.clone();
    version[8] = 3;
    let e = parse(&version).unwrap_err();
    assert_eq!(
        e.to_string(),
        "runs/a/old.shard is a self-play shard file of format version 3; this build reads version 1 or 2"
    );
}

#[test]
fn a_container_whose_header_length_overruns_is_corrupt_not_a_panic() {
    let mut payload = ENCODING_VERSION.to_le_bytes().to_vec();
    payload.extend_from_slice(&1000u32.to_le_bytes());
    payload.extend_from_slice(b"{}");
    let bytes = mancala_container::encode(Kind::SHARD, SHARD_VERSION, &payload);
    let e = parse_shard(Path::new("s.shard"), &bytes, None).unwrap_err();
    assert!(matches!(e, ShardError::Corrupt { .. }), "{e}");
    let bytes = mancala_container::encode(Kind::SHARD, SHARD_VERSION, b"abc");
    let e = parse_shard(Path::new("s.shard"), &bytes, None).unwrap_err();
    assert!(matches!(e, ShardError::Corrupt { .. }), "{e}");
    let model = mancala_container::encode(Kind::MODEL, 2, b"weights");
    let e = parse_shard(Path::new("m.mzm"), &model, None).unwrap_err();
    assert_eq!(e.to_string(), "m.mzm is not a self-play shard file: it is a model");
}
