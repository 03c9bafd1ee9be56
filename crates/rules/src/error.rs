//! Errors of the rules crate. Every message names the bad input.

use thiserror::Error;

use crate::player::Player;

/// A move refused by [`crate::Game::play`] (the position is left unchanged).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalMove {
    #[error("illegal move {label}: the game is over")]
    GameOver { label: String },
    #[error("illegal move {label}: {reason}")]
    NotLegal { label: String, reason: String },
    #[error("illegal move {action}: outside the action space 0..{space}")]
    OutOfRange { action: usize, space: usize },
}

/// A move label that does not name a pit the side to move may sow.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveParseError {
    #[error("'{text}' is not a pit label: expected one of {allowed}")]
    Unknown { text: String, allowed: String },
    #[error("'{text}' is a pit of {owner}, but {mover} is to move")]
    NotOwn { text: String, owner: Player, mover: Player },
}

/// A rules string that names no known game, option or value.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RulesError {
    #[error("empty rules string: expected a preset, one of {allowed}")]
    Empty { allowed: String },
    #[error("unknown preset '{name}': expected one of {allowed}")]
    UnknownPreset { name: String, allowed: String },
    #[error("unknown option '{key}' for {game}: allowed options are {allowed}")]
    UnknownKey { game: String, key: String, allowed: String },
    #[error("bad value '{value}' for option '{key}': expected {allowed}")]
    BadValue { key: String, value: String, allowed: String },
    #[error("'{token}' is not an option: write options as key=value")]
    NotKeyValue { token: String },
    #[error("option '{key}' given twice")]
    Duplicate { key: String },
    #[error("bad size in '{text}': {reason}")]
    BadSize { text: String, reason: String },
    #[error("bad game description: {key}: {reason}")]
    Description { key: String, reason: String },
    #[error("cannot read game description: {reason}")]
    DescriptionSyntax { reason: String },
    #[error("cannot read game description file {path}: {reason}")]
    DescriptionFile { path: String, reason: String },
}

/// A raw position ([`crate::Setup`]) that is not a valid position of the game.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    #[error("cannot read position line '{line}': {reason}")]
    Syntax { line: String, reason: String },
    #[error("position has {found} pits, this game has {expected}")]
    PitCount { found: usize, expected: usize },
    #[error("position holds {found} seeds in all, this game has {expected}")]
    SeedCount { found: u32, expected: u32 },
    #[error("position is not valid for this game: {reason}")]
    Invalid { reason: String },
}
