//! Game records: one JSON object a game, one game a line (JSON lines), and their replay.
//!
//! ```text
//! {"rules":"kalah houses=6 ...","south":"greedy","north":"random","opening":["C","d"],
//!  "moves":["C","d",...],"result":"south+12","plies":41}
//! ```
//!
//! - `rules`: the canonical rules string ([`mancala_rules::parse_rules`] reads it back);
//! - `south`, `north`: the agent specs that played each side;
//! - `opening`: the random opening's moves (pit labels), shared by both games of a pair;
//! - `moves`: every move of the game as pit labels, the opening included;
//! - `result`: `south+N`, `north+N` (the seed margin) or `draw`;
//! - `plies`: the number of moves, `moves.len()`.

use std::io::{BufRead, Write};

use mancala_rules::{Game, Line, Outcome, Status};
use serde::{Deserialize, Serialize};

use crate::error::ArenaError;

/// One finished game, as written to a JSON-lines file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub rules: String,
    pub south: String,
    pub north: String,
    pub opening: Vec<String>,
    pub moves: Vec<String>,
    pub result: String,
    pub plies: usize,
}

impl GameRecord {
    /// The record of a finished game.
    ///
    /// # Panics
    /// If the game is not over.
    pub fn from_line<G: Game>(line: &Line<G>, south: &str, north: &str, opening: &[String]) -> GameRecord {
        let Status::Over(outcome) = line.status() else { panic!("a record is made of a finished game") };
        GameRecord {
            rules: line.game().rules_string(),
            south: south.to_string(),
            north: north.to_string(),
            opening: opening.to_vec(),
            moves: line.move_labels(),
            result: outcome.to_string(),
            plies: line.len(),
        }
    }

    /// Plays the moves again in `game` and checks the record against it: same rules, the
    /// opening a prefix of the moves, `plies` the move count, every move legal, the game over
    /// after the last move with the recorded result.
    ///
    /// # Errors
    /// [`ArenaError::Replay`] saying which check failed.
    pub fn replay<G: Game>(&self, game: &G) -> Result<Outcome, ArenaError> {
        self.replay_line(game).map(|(_, outcome)| outcome)
    }

    /// [`GameRecord::replay`], also giving the finished game (every position it went through),
    /// for those that look at the positions.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn replay_line<G: Game>(&self, game: &G) -> Result<(Line<G>, Outcome), ArenaError> {
        let bad = |reason: String| ArenaError::Replay { reason };
        if self.rules != game.rules_string() {
            return Err(bad(format!("rules '{}' but the game is '{}'", self.rules, game.rules_string())));
        }
        if !self.moves.starts_with(&self.opening) {
            return Err(bad("the opening is not the start of the moves".into()));
        }
        if self.plies != self.moves.len() {
            return Err(bad(format!("plies {} but {} moves", self.plies, self.moves.len())));
        }
        let mut line = Line::new(game.clone());
        for (ply, label) in self.moves.iter().enumerate() {
            if line.status().is_over() {
                return Err(bad(format!("move {} ('{label}') after the game ended", ply + 1)));
            }
            line.play_label(label).map_err(|e| bad(format!("move {} ('{label}'): {e}", ply + 1)))?;
        }
        match line.status() {
            Status::Ongoing => Err(bad("the game is not over after the last move".into())),
            Status::Over(outcome) if outcome.to_string() == self.result => Ok((line, outcome)),
            Status::Over(outcome) => {
                Err(bad(format!("recorded result '{}' but the moves give '{outcome}'", self.result)))
            }
        }
    }
}

/// Writes `record` as one JSON line.
///
/// # Errors
/// [`ArenaError::Io`] when writing fails.
pub fn write_record<W: Write + ?Sized>(out: &mut W, record: &GameRecord) -> Result<(), ArenaError> {
    serde_json::to_writer(&mut *out, record).map_err(|e| ArenaError::Io(e.into()))?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Reads every record of a JSON-lines stream (blank lines skipped).
///
/// # Errors
/// [`ArenaError::Io`] on a read error, [`ArenaError::RecordParse`] naming the line.
pub fn read_records<R: BufRead>(input: R) -> Result<Vec<GameRecord>, ArenaError> {
    let mut out = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let record =
            serde_json::from_str(&line).map_err(|e| ArenaError::RecordParse { line: i + 1, reason: e.to_string() })?;
        out.push(record);
    }
    Ok(out)
}
