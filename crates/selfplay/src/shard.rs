//! Shard files: the training rows of a batch of self-play games, compressed and checksummed.
//!
//! A shard is a `mancala_container` of kind `SHRD`, format version [`SHARD_VERSION`]; the
//! container does the magic, version, length and checksum. Its payload (little-endian), one
//! line a field:
//! - u32 input encoding version (`mancala_encoding::ENCODING_VERSION` when written);
//! - u32 length of the header, then the header as JSON ([`ShardHeader`]);
//! - the rows, deflate-compressed: the rest of the payload; each row is
//!   `inputs` f32 x header.inputs, `legal` u64, `policy` f32 x header.actions,
//!   `search_value` f32, `outcome` f32, `margin` f32.
//!
//! Shards of format version 1, from before the container, are still read, so a run started
//! before it resumes with its replay window whole: 8 bytes magic `MZSHARD\0`, u32 version 1,
//! u32 encoding version, u32 header length, header, u64 rows length, rows, u64 FNV-1a-64
//! checksum of every byte before it. Nothing writes them any more.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use mancala_container::{Builder, ContainerError, Kind, LegacyFormat};
use mancala_encoding::ENCODING_VERSION;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::record::Row;

/// The format version new shards are written in (1 was the framing before the container).
pub const SHARD_VERSION: u32 = 2;
/// Every format version this build reads.
pub const SUPPORTED_VERSIONS: [u32; 2] = [LEGACY_VERSION, SHARD_VERSION];
/// The magic bytes and format version of the shards written before the container.
pub const LEGACY_MAGIC: &[u8; 8] = b"MZSHARD\0";
pub const LEGACY_VERSION: u32 = 1;

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
    /// Reading or writing the file, or its framing: missing, not a shard, another format
    /// version, truncated, checksum mismatch (the container's errors, each naming the file).
    #[error(transparent)]
    File(#[from] ContainerError),
    /// The checksum passed but the content does not add up (it was written wrong).
    #[error("shard {path} is corrupt: {what}")]
    Corrupt { path: PathBuf, what: String },
    #[error(
        "shard {path} holds inputs of encoding version {found}; this build trains version {expected} networks only, \
         which cannot learn from them"
    )]
    Encoding { path: PathBuf, found: u32, expected: u32 },
    #[error("shard {path} is for '{found}', the run plays '{expected}'")]
    WrongGame { path: PathBuf, found: String, expected: String },
    #[error(
        "shard {path} holds rows of {found_inputs} inputs and {found_actions} actions; the run's network takes \
         {inputs} inputs and {actions} actions"
    )]
    Shape { path: PathBuf, found_inputs: usize, found_actions: usize, inputs: usize, actions: usize },
}

/// The most actions a row can hold: its legal moves are one bit each of a `u64`.
const MAX_ROW_ACTIONS: usize = 64;

/// Bytes a row takes, or `None` when a header's sizes overflow.
fn row_bytes(inputs: usize, actions: usize) -> Option<usize> {
    inputs.checked_add(actions)?.checked_mul(4)?.checked_add(20)
}

impl ShardHeader {
    /// Refuses a shard whose rows are not `inputs` wide with `actions` actions: rows that a
    /// network of another shape cannot learn from (a shard of the same rules from another
    /// encoding, or written wrong).
    ///
    /// # Errors
    /// [`ShardError::Shape`] naming `path` and both shapes.
    pub fn check_shape(&self, path: &Path, inputs: usize, actions: usize) -> Result<(), ShardError> {
        if (self.inputs, self.actions) != (inputs, actions) {
            return Err(ShardError::Shape {
                path: path.to_path_buf(),
                found_inputs: self.inputs,
                found_actions: self.actions,
                inputs,
                actions,
            });
        }
        Ok(())
    }
}

/// Serialises rows into shard bytes.
pub fn shard_bytes(header: &ShardHeader, rows: &[Row]) -> Vec<u8> {
    let head = serde_json::to_vec(header).expect("the header serialises");
    let mut out = Builder::new(Kind::SHARD, SHARD_VERSION);
    out.extend_from_slice(&ENCODING_VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    let mut raw = Vec::with_capacity(rows.len() * row_bytes(header.inputs, header.actions).unwrap_or(0));
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
    // The rows are compressed straight into the container's buffer.
    let mut enc = DeflateEncoder::new(out, Compression::fast());
    enc.write_all(&raw).expect("writing to memory cannot fail");
    enc.finish().expect("writing to memory cannot fail").finish()
}

/// Writes a shard atomically.
///
/// # Errors
/// Any I/O error, naming the file.
pub fn write_shard(path: &Path, header: &ShardHeader, rows: &[Row]) -> Result<(), ShardError> {
    Ok(mancala_container::write_bytes(path, &shard_bytes(header, rows))?)
}

/// Reads a shard, checking everything; `rules`, when given, must match its game.
///
/// # Errors
/// [`ShardError`] naming the file and the problem.
pub fn read_shard(path: &Path, rules: Option<&str>) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let bytes = mancala_container::read_all(path)?;
    parse_shard(path, &bytes, rules)
}

/// Reads shard bytes already in memory (for example fetched from a store); `path` names
/// them in errors.
///
/// # Errors
/// As [`read_shard`].
pub fn parse_shard(path: &Path, bytes: &[u8], rules: Option<&str>) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let p = || path.to_path_buf();
    let Parts { encoding, header, rows: compressed } =
        if bytes.starts_with(LEGACY_MAGIC) { split_legacy(path, bytes)? } else { split_payload(path, bytes)? };
    // A run's models are all of this build's version (the trainer refuses a run of another),
    // so rows encoded otherwise do not fit them.
    if encoding != ENCODING_VERSION {
        return Err(ShardError::Encoding { path: p(), found: encoding, expected: ENCODING_VERSION });
    }
    let header: ShardHeader =
        serde_json::from_slice(header).map_err(|e| ShardError::Corrupt { path: p(), what: format!("header: {e}") })?;
    if let Some(r) = rules
        && header.rules != r
    {
        return Err(ShardError::WrongGame { path: p(), found: header.rules.clone(), expected: r.to_string() });
    }
    let corrupt = |what: String| ShardError::Corrupt { path: p(), what };
    if header.actions > MAX_ROW_ACTIONS {
        return Err(corrupt(format!(
            "{} actions, more than the {MAX_ROW_ACTIONS} a row's legal mask holds",
            header.actions
        )));
    }
    let size = row_bytes(header.inputs, header.actions)
        .ok_or_else(|| corrupt(format!("rows of {} inputs do not fit in memory", header.inputs)))?;
    let expected = size
        .checked_mul(header.rows)
        .ok_or_else(|| corrupt(format!("{} rows of {size} bytes do not fit in memory", header.rows)))?;
    // Read one byte past what the header promises, no more: a stream that inflates without
    // end (or to far more than the header says) is caught without holding it all.
    let mut raw = Vec::new();
    DeflateDecoder::new(compressed)
        .take(expected as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|e| corrupt(format!("payload: {e}")))?;
    if raw.len() != expected {
        let found = if raw.len() > expected { "more".to_string() } else { raw.len().to_string() };
        return Err(corrupt(format!("{found} payload bytes for {} rows of {size}", header.rows)));
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

/// A checked shard's fields, before the header is parsed and the rows decompressed.
struct Parts<'a> {
    encoding: u32,
    header: &'a [u8],
    rows: &'a [u8],
}

/// The fields of a container (format version 2).
fn split_payload<'a>(path: &Path, bytes: &'a [u8]) -> Result<Parts<'a>, ShardError> {
    let payload = mancala_container::decode(path, bytes, Kind::SHARD, &SUPPORTED_VERSIONS)?.payload;
    // The checksum passed, so lengths that do not fit were written that way: corrupt.
    let corrupt = |what: String| ShardError::Corrupt { path: path.to_path_buf(), what };
    if payload.len() < 8 {
        return Err(corrupt(format!("{} payload bytes, too few for its two lengths", payload.len())));
    }
    let encoding = u32::from_le_bytes(payload[0..4].try_into().expect("4 bytes"));
    let head_len = u32::from_le_bytes(payload[4..8].try_into().expect("4 bytes")) as usize;
    let rest = &payload[8..];
    if head_len > rest.len() {
        return Err(corrupt(format!("a header of {head_len} bytes in the {} bytes left", rest.len())));
    }
    let (header, rows) = rest.split_at(head_len);
    Ok(Parts { encoding, header, rows })
}

/// The fields of a shard of format version 1, from before the container (magic, version,
/// encoding version, header length, header, rows length, rows, FNV-1a-64); its errors are
/// the container's, so a caller sees one set.
fn split_legacy<'a>(path: &Path, bytes: &'a [u8]) -> Result<Parts<'a>, ShardError> {
    const FORMAT: LegacyFormat = LegacyFormat {
        kind: Kind::SHARD.name(),
        supported: &SUPPORTED_VERSIONS,
        lead: 20,
        header: "the header",
        body: "the rows",
    };
    let parts = mancala_container::split_legacy(path, bytes, &FORMAT)?;
    let encoding = u32::from_le_bytes(parts.lead[12..16].try_into().expect("4 bytes"));
    Ok(Parts { encoding, header: parts.header, rows: parts.body })
}
