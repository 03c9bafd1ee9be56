//! Errors of the training roles; each names the object or key that is wrong.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TrainError {
    #[error("bad config: {0}")]
    Config(String),
    #[error("{url} already holds a run: use --resume {url} to continue it, or another --run name or --store")]
    RunExists { url: String },
    #[error("{url} holds no run (no run.json); start one with `mancala-zero train --store {url}`")]
    NoRun { url: String },
    #[error(
        "{object} was written by store format {found}, this build reads format {expected} (an earlier version's run cannot be resumed; start a new one)"
    )]
    Format { object: String, found: u32, expected: u32 },
    #[error(
        "{object} was made with input encoding version {found}; this build trains and runs version {expected} only, \
         and a run keeps one version: start a new run (the model itself still plays: net:FILE, engine --model)"
    )]
    EncodingVersion { object: String, found: u32, expected: u32 },
    #[error("{object} is corrupt: {reason}")]
    Corrupt { object: String, reason: String },
    #[error("{0}")]
    Run(String),
    #[error(transparent)]
    Store(#[from] mancala_store::StoreError),
    #[error(transparent)]
    Nn(#[from] mancala_nn::NnError),
    #[error(transparent)]
    Arena(#[from] mancala_arena::ArenaError),
    #[error(transparent)]
    Shard(#[from] mancala_selfplay::ShardError),
    #[error("self-play: {0}")]
    SelfPlay(#[from] mancala_mcts::service::ServiceError),
    /// A role's thread panicked; the run stopped the other roles and kept what was stored.
    #[error("the {role} stopped on a panic: {message}")]
    Panicked { role: String, message: String },
}

impl TrainError {
    /// Whether a role should wait and try again: only a store that is briefly unreachable.
    pub fn is_transient(&self) -> bool {
        matches!(self, TrainError::Store(e) if e.is_transient())
    }
}
