//! Errors of the tablebase crate; every message names what is wrong.

use std::path::PathBuf;

use mancala_container::ContainerError;
use mancala_rules::{Player, SetupError};
use thiserror::Error;

/// Why a database could not be built, read, written or used.
#[derive(Debug, Error)]
pub enum TablebaseError {
    #[error("tablebases exist for Oware and Kalah only, not for '{rules}': {reason}")]
    Unsupported { rules: String, reason: String },
    #[error("cannot build a database of {seeds} seeds for {rules}: {reason}")]
    BadSeedLimit { rules: String, seeds: usize, reason: String },
    /// The database would not fit: the memory it needs is named beside the limit.
    #[error(
        "a database of up to {seeds} seeds for '{rules}' holds {positions} positions and needs about {memory} to build: \
         {reason}; build it for fewer seeds"
    )]
    TooLarge { rules: String, seeds: usize, positions: String, memory: String, reason: String },
    #[error("the rules refuse board {pits:?} with {side} to move while building: {source}")]
    Setup {
        pits: Vec<u8>,
        side: Player,
        #[source]
        source: SetupError,
    },
    /// Reading or writing the file, or its framing: missing, not a tablebase, another format
    /// version, truncated, checksum mismatch (the container's errors, each naming the file).
    #[error(transparent)]
    // No `From`: with a second conversion into this type, the `?` in the builder's closures
    // could no longer infer their error type.
    File(ContainerError),
    #[error(
        "{path} is a tablebase in the old format (version 1, before the shared container); rebuild it, in seconds: {rebuild}"
    )]
    OldFormat { path: PathBuf, rebuild: String },
    #[error("the tablebase header of {path} is inconsistent: {reason}")]
    Header { path: PathBuf, reason: String },
    #[error("the database is for '{database}', not for '{game}'")]
    WrongGame { database: String, game: String },
}
