//! What can go wrong in a match.

use std::error::Error as StdError;

/// An error of the arena; every message names the bad input.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("a match needs an even number of games (colours swap every other game), got {0}")]
    OddGames(u32),
    #[error("cannot make agent '{spec}'")]
    Agent {
        spec: String,
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    #[error("agent '{agent}' played an illegal move: {reason}")]
    IllegalMove { agent: String, reason: String },
    #[error("found only {found} distinct openings of {plies}+ plies, {wanted} needed")]
    Openings { wanted: usize, found: usize, plies: usize },
    #[error("a round robin needs at least two agents, got {0}")]
    TooFewAgents(usize),
    #[error("agent '{0}' appears twice in the round robin")]
    DuplicateAgent(String),
    #[error("cannot build a pool of {threads} threads: {reason}")]
    Threads { threads: usize, reason: String },
    #[error(transparent)]
    Sprt(#[from] crate::elo::SprtError),
    #[error("value calibration: {0}")]
    Calibration(String),
    #[error("record does not replay: {reason}")]
    Replay { reason: String },
    #[error("game record on line {line}: {reason}")]
    RecordParse { line: usize, reason: String },
    #[error("game records: {0}")]
    Io(#[from] std::io::Error),
}
