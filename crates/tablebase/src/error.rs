//! Errors of the tablebase crate; every message names what is wrong.

use std::path::PathBuf;

use mancala_rules::{Player, SetupError};
use thiserror::Error;

/// Why a database could not be built, read, written or used.
#[derive(Debug, Error)]
pub enum TablebaseError {
    #[error("tablebases exist for Oware and Kalah only, not for '{rules}': {reason}")]
    Unsupported { rules: String, reason: String },
    #[error("cannot build a database of {seeds} seeds for {rules}: {reason}")]
    BadSeedLimit { rules: String, seeds: usize, reason: String },
    #[error("the rules refuse board {pits:?} with {side} to move while building: {source}")]
    Setup {
        pits: Vec<u8>,
        side: Player,
        #[source]
        source: SetupError,
    },
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("not a mancala-zero tablebase: the file does not start with the magic bytes MZTBASE")]
    BadMagic,
    #[error("tablebase format version {found} is not supported (this build reads version {supported})")]
    Version { found: u32, supported: u32 },
    #[error("tablebase file is truncated: {what} needs {needed} bytes, only {available} are left")]
    Truncated { what: &'static str, needed: u64, available: u64 },
    #[error("tablebase file has {extra} bytes after the checksum")]
    TrailingBytes { extra: u64 },
    #[error("tablebase checksum mismatch: stored {stored:016x}, computed {computed:016x} (the file is corrupt)")]
    Checksum { stored: u64, computed: u64 },
    #[error("tablebase header is inconsistent: {reason}")]
    Header { reason: String },
    #[error("the database is for '{database}', not for '{game}'")]
    WrongGame { database: String, game: String },
}
