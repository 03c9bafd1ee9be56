//! A shard's rows are inputs of one encoding version: a shard of another version than this
//! build's is refused, naming the file and both versions, so the trainer skips it by name.

use std::path::Path;

use mancala_container::Kind;
use mancala_encoding::ENCODING_VERSION;
use mancala_selfplay::shard::SHARD_VERSION;
use mancala_selfplay::{Row, ShardError, ShardHeader, parse_shard, shard_bytes};

#[test]
fn a_shard_of_another_encoding_version_is_refused_by_name() {
    let header = ShardHeader { rules: "kalah:3,2".into(), inputs: 2, actions: 1, rows: 1, games: 1, iteration: 3 };
    let row =
        Row { inputs: vec![0.5, 0.25], legal: 1, policy: vec![1.0], search_value: 0.0, outcome: 1.0, margin: 0.1 };
    let bytes = shard_bytes(&header, &[row]);
    let name = Path::new("shards/w/00000001.shard");
    assert!(parse_shard(name, &bytes, None).is_ok());
    // The same rows said to be of version 1 (the first field of the payload).
    let framed = mancala_container::decode(name, &bytes, Kind::SHARD, &[SHARD_VERSION]).unwrap();
    let mut payload = framed.payload.to_vec();
    assert_eq!(payload[..4], ENCODING_VERSION.to_le_bytes());
    payload[..4].copy_from_slice(&1u32.to_le_bytes());
    let old = mancala_container::encode(Kind::SHARD, SHARD_VERSION, &payload);
    let e = parse_shard(name, &old, None).unwrap_err();
    assert!(matches!(e, ShardError::Encoding { found: 1, expected: ENCODING_VERSION, .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("shards/w/00000001.shard") && text.contains("encoding version 1"), "{text}");
}
