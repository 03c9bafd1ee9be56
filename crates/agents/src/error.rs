//! What can be wrong with a spec, and with the files it names. Every message names the spec
//! (or the file) and the problem, so a config key or a command-line flag can be fixed from
//! the message alone.

use std::path::PathBuf;

use mancala_nn::NnError;
use mancala_tablebase::TablebaseError;
use thiserror::Error;

/// A spec that names no agent, has a bad parameter, or names a file that cannot be used.
#[derive(Debug, Error)]
pub enum SpecError {
    #[error("agent '{spec}': unknown kind '{kind}', expected one of {allowed}", allowed = crate::ALL_AGENTS)]
    UnknownKind { spec: String, kind: String },
    #[error("agent '{spec}': unknown parameter '{key}' for {kind}, allowed: {allowed}")]
    UnknownKey { spec: String, kind: &'static str, key: String, allowed: &'static str },
    #[error("agent '{spec}': parameter '{key}' is given twice")]
    DuplicateKey { spec: String, key: String },
    #[error("agent '{spec}': '{piece}' is not key=value")]
    NotKeyValue { spec: String, piece: String },
    #[error("agent '{spec}': {key}={value} is not {expected}")]
    BadNumber { spec: String, key: String, value: String, expected: &'static str },
    #[error("agent '{spec}': {what} is required (write {form})")]
    Missing { spec: String, what: &'static str, form: &'static str },
    #[error("agent '{spec}': give depth or ms, not both")]
    DepthAndTime { spec: String },
    #[error("agent '{spec}': sims={value} is above the cap on simulations, MAX_SIMULATIONS = {cap}")]
    TooManySimulations { spec: String, value: String, cap: u32 },
    /// Boxed, as `File` is.
    #[error("agent '{spec}': {source}")]
    Player { spec: String, source: Box<PlayerError> },
    /// Boxed: a file error carries the reader's own error, and would make every result of
    /// parsing as large as the rarest failure.
    #[error("agent '{spec}': {source}")]
    File { spec: String, source: Box<FileError> },
}

/// A model or database file that cannot be used for the game at hand.
#[derive(Debug, Error)]
pub enum FileError {
    #[error("no file {path}")]
    Missing { path: PathBuf },
    #[error("{path} is a model for '{found}', not for '{expected}'")]
    ModelForOtherGame { path: PathBuf, found: String, expected: String },
    #[error("{path} is an endgame database for '{found}', not for '{expected}'")]
    DatabaseForOtherGame { path: PathBuf, found: String, expected: String },
    /// Boxed: the readers' errors are large beside the others.
    #[error("model {path}: {source}")]
    Model { path: PathBuf, source: Box<NnError> },
    #[error("endgame database {path}: {source}")]
    Database { path: PathBuf, source: Box<TablebaseError> },
}

/// Settings or a guide a player cannot be built from.
#[derive(Debug, Error)]
pub enum PlayerError {
    #[error("{asked} simulations a move is out of range: expected 1 to the cap MAX_SIMULATIONS = {cap}", cap = mancala_mcts::MAX_SIMULATIONS)]
    Simulations { asked: u64 },
    #[error("{asked} threads is out of range: expected 1 to {max}", max = crate::MAX_THREADS)]
    Threads { asked: usize },
    #[error("a time of 0 ms a move leaves no time to search")]
    ZeroTime,
    #[error("margin weight {asked} is outside 0 to 0.5")]
    Margin { asked: f32 },
    #[error("{model} is a model for '{found}', not for '{expected}'")]
    ModelForOtherGame { model: String, found: String, expected: String },
    /// Boxed: the readers' errors are large beside the others.
    #[error("model {model}: {source}")]
    Model { model: String, source: Box<NnError> },
    #[error("endgame database: {source}")]
    Database { source: Box<TablebaseError> },
}
