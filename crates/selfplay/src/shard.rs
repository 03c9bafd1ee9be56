//! Shard files: the training rows of a batch of self-play games, compressed and checksummed.
//!
//! Layout (little-endian), one line a field:
//! - 8 bytes magic `MZSHARD\0`;
//! - u32 format version ([`SHARD_VERSION`]);
//! - u32 input encoding version (`mancala_nn::ENCODING_VERSION` when written);
//! - u32 length of the header, then the header as JSON ([`ShardHeader`]);
//! - u64 length of the payload, then the payload: the rows, deflate-compressed; each row is
//!   `inputs` f32 x header.inputs, `legal` u64, `policy` f32 x header.actions,
//!   `search_value` f32, `outcome` f32, `margin` f32;
//! - u64 FNV-1a-64 checksum of every byte before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use mancala_nn::ENCODING_VERSION;
use mancala_nn::fsutil::{atomic_write, fnv1a64};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::record::Row;

pub const SHARD_MAGIC: &[u8; 8] = b"MZSHARD\0";
pub const SHARD_VERSION: u32 = 1;

/// What a shard holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    pub rules: String,
    pub inputs: usize,
    pub actions: usize,
    pub rows: usize,
    pub games: usize,
    /// The generation of the model that played these games.
    pub iteration: u64,
}

/// A shard that cannot be used; every variant names the file.
#[derive(Debug, Error)]
pub enum ShardError {
    #[error("cannot read shard {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a shard file (bad magic bytes)")]
    NotAShard { path: PathBuf },
    #[error("shard {path} is truncated: {what}")]
    Truncated { path: PathBuf, what: String },
    #[error("shard {path} is corrupt: {what}")]
    Corrupt { path: PathBuf, what: String },
    #[error("shard {path} has format version {found}, this build reads {expected}")]
    Version { path: PathBuf, found: u32, expected: u32 },
    #[error("shard {path} was encoded with input encoding version {found}, this build uses {expected}")]
    Encoding { path: PathBuf, found: u32, expected: u32 },
    #[error("shard {path} is for '{found}', the run plays '{expected}'")]
    WrongGame { path: PathBuf, found: String, expected: String },
}

fn row_bytes(inputs: usize, actions: usize) -> usize {
    4 * inputs + 8 + 4 * actions + 12
}

/// Serialises rows into shard bytes.
pub fn shard_bytes(header: &ShardHeader, rows: &[Row]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(rows.len() * row_bytes(header.inputs, header.actions));
    for r in rows {
        debug_assert_eq!(r.inputs.len(), header.inputs);
        debug_assert_eq!(r.policy.len(), header.actions);
        r.inputs.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        raw.extend_from_slice(&r.legal.to_le_bytes());
        r.policy.iter().for_each(|x| raw.extend_from_slice(&x.to_le_bytes()));
        for x in [r.search_value, r.outcome, r.margin] {
            raw.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(&raw).expect("writing to memory cannot fail");
    let payload = enc.finish().expect("writing to memory cannot fail");
    let head = serde_json::to_vec(header).expect("the header serialises");
    let mut out = Vec::with_capacity(payload.len() + head.len() + 40);
    out.extend_from_slice(SHARD_MAGIC);
    out.extend_from_slice(&SHARD_VERSION.to_le_bytes());
    out.extend_from_slice(&ENCODING_VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Writes a shard atomically.
///
/// # Errors
/// Any I/O error, naming the file.
pub fn write_shard(path: &Path, header: &ShardHeader, rows: &[Row]) -> Result<(), ShardError> {
    atomic_write(path, &shard_bytes(header, rows)).map_err(|source| ShardError::Io { path: path.to_path_buf(), source })
}

/// Reads a shard, checking everything; `rules`, when given, must match its game.
///
/// # Errors
/// [`ShardError`] naming the file and the problem.
pub fn read_shard(path: &Path, rules: Option<&str>) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let bytes = std::fs::read(path).map_err(|source| ShardError::Io { path: path.to_path_buf(), source })?;
    parse_shard(path, &bytes, rules)
}

/// Reads shard bytes already in memory (for example fetched from a store); `path` names
/// them in errors.
///
/// # Errors
/// As [`read_shard`].
pub fn parse_shard(path: &Path, bytes: &[u8], rules: Option<&str>) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let p = || path.to_path_buf();
    let truncated = |what: &str| ShardError::Truncated { path: p(), what: what.to_string() };
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if bytes.len() < 8 || &bytes[..8] != SHARD_MAGIC {
        return Err(ShardError::NotAShard { path: p() });
    }
    if bytes.len() < 20 {
        return Err(truncated("header cut short"));
    }
    let version = u32_at(8);
    if version != SHARD_VERSION {
        return Err(ShardError::Version { path: p(), found: version, expected: SHARD_VERSION });
    }
    let encoding = u32_at(12);
    let head_len = u32_at(16) as usize;
    let head_end = 20 + head_len;
    if bytes.len() < head_end + 8 {
        return Err(truncated("header cut short"));
    }
    let payload_len = u64_at(head_end) as usize;
    let payload_start = head_end + 8;
    let payload_end = payload_start.checked_add(payload_len).ok_or_else(|| truncated("bad payload length"))?;
    if bytes.len() < payload_end + 8 {
        return Err(truncated(&format!("payload needs {} bytes, file has {}", payload_end + 8, bytes.len())));
    }
    if bytes.len() != payload_end + 8 || u64_at(payload_end) != fnv1a64(&bytes[..payload_end]) {
        return Err(ShardError::Corrupt { path: p(), what: "checksum mismatch".into() });
    }
    if encoding != ENCODING_VERSION {
        return Err(ShardError::Encoding { path: p(), found: encoding, expected: ENCODING_VERSION });
    }
    let header: ShardHeader = serde_json::from_slice(&bytes[20..head_end])
        .map_err(|e| ShardError::Corrupt { path: p(), what: format!("header: {e}") })?;
    if let Some(r) = rules
        && header.rules != r
    {
        return Err(ShardError::WrongGame { path: p(), found: header.rules.clone(), expected: r.to_string() });
    }
    let mut raw = Vec::new();
    DeflateDecoder::new(&bytes[payload_start..payload_end])
        .read_to_end(&mut raw)
        .map_err(|e| ShardError::Corrupt { path: p(), what: format!("payload: {e}") })?;
    let size = row_bytes(header.inputs, header.actions);
    if raw.len() != size * header.rows {
        return Err(ShardError::Corrupt {
            path: p(),
            what: format!("{} payload bytes for {} rows of {size}", raw.len(), header.rows),
        });
    }
    let f32_at = |at: usize| f32::from_le_bytes(raw[at..at + 4].try_into().expect("4 bytes"));
    let mut rows = Vec::with_capacity(header.rows);
    for k in 0..header.rows {
        let mut at = k * size;
        let inputs: Vec<f32> = (0..header.inputs).map(|i| f32_at(at + 4 * i)).collect();
        at += 4 * header.inputs;
        let legal = u64::from_le_bytes(raw[at..at + 8].try_into().expect("8 bytes"));
        at += 8;
        let policy: Vec<f32> = (0..header.actions).map(|i| f32_at(at + 4 * i)).collect();
        at += 4 * header.actions;
        rows.push(Row {
            inputs,
            legal,
            policy,
            search_value: f32_at(at),
            outcome: f32_at(at + 4),
            margin: f32_at(at + 8),
        });
    }
    Ok((header, rows))
}
