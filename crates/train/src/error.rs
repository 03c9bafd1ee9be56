//! Errors of the training loop.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TrainError {
    #[error("bad config: {0}")]
    Config(String),
    #[error("run directory {path} already exists: use --resume {path} to continue it, or another --run name")]
    RunExists { path: PathBuf },
    #[error("cannot resume {path}: {reason}")]
    Resume { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Nn(#[from] mancala_nn::NnError),
    #[error(transparent)]
    Arena(#[from] mancala_arena::ArenaError),
    #[error(transparent)]
    Shard(#[from] mancala_selfplay::ShardError),
}

/// Wraps an I/O error with the path it concerns.
pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TrainError {
    let path = path.into();
    move |source| TrainError::Io { path, source }
}
