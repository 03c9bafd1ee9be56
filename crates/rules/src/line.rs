//! A game in progress: the position plus the history the cycle rule needs, and undo.
//!
//! Search keeps no history in its nodes; it checks repetitions along its own path. Everything
//! that plays real games (self-play, arena, engine, replay of records) goes through [`Line`],
//! so the repetition rule is applied in one place.

use crate::error::{IllegalMove, MoveParseError};
use crate::game::{Game, Sowing};
use crate::moves::{Action, MoveMask};
use crate::outcome::Status;
use crate::player::Player;

#[derive(Clone, Debug)]
struct Entry<P> {
    pos: P,
    hash: u64,
    /// Index of the first entry that a repetition of this position is looked for in.
    window: usize,
    /// The action that led here (none for the first entry).
    action: Option<Action>,
}

/// A game from a start position, with every position played so far.
#[derive(Clone, Debug)]
pub struct Line<G: Game> {
    game: G,
    entries: Vec<Entry<G::Position>>,
}

/// Why [`Line::play_label`] refused a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Parse(#[from] MoveParseError),
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

impl<G: Game> Line<G> {
    /// A new game from the initial position.
    pub fn new(game: G) -> Self {
        let start = game.start();
        Self::from_position(game, start)
    }

    /// A game of `plies` random legal moves from the initial position, or `None` when it ends
    /// within them: the openings of matches and of self-play's random starts. `pick(n)` says
    /// which of the `n` legal moves to play (an index below `n`; uniform for a random
    /// opening), so the caller keeps its generator and this crate needs none.
    pub fn random(game: G, plies: usize, mut pick: impl FnMut(usize) -> usize) -> Option<Self> {
        let mut line = Line::new(game);
        for _ in 0..plies {
            let legal = line.legal_moves();
            if legal.is_empty() {
                return None;
            }
            let action = legal.nth(pick(legal.len())).expect("pick gives an index below the move count");
            line.play(action).expect("a move from the legal mask is legal");
        }
        if line.status().is_over() { None } else { Some(line) }
    }

    /// A game from any position (no history before it).
    pub fn from_position(game: G, pos: G::Position) -> Self {
        let hash = game.hash(&pos);
        Line { game, entries: vec![Entry { pos, hash, window: 0, action: None }] }
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    /// The current position.
    pub fn position(&self) -> &G::Position {
        &self.entries.last().expect("a line always has its start").pos
    }

    /// The start position.
    pub fn start(&self) -> &G::Position {
        &self.entries[0].pos
    }

    pub fn side_to_move(&self) -> Player {
        self.game.side_to_move(self.position())
    }

    pub fn status(&self) -> Status {
        self.game.status(self.position())
    }

    pub fn legal_moves(&self) -> MoveMask {
        self.game.legal_moves(self.position())
    }

    /// Plies played so far.
    pub fn len(&self) -> usize {
        self.entries.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The actions played, in order.
    pub fn moves(&self) -> impl Iterator<Item = Action> + '_ {
        self.entries.iter().filter_map(|e| e.action)
    }

    /// Every position from the start to the current one.
    pub fn positions(&self) -> impl Iterator<Item = &G::Position> + '_ {
        self.entries.iter().map(|e| &e.pos)
    }

    /// Hashes of the positions a repetition of the current one would be looked for in
    /// (since the last irreversible move), for search to continue the cycle rule in its tree.
    pub fn repetition_window(&self) -> impl Iterator<Item = u64> + '_ {
        let last = self.entries.last().expect("a line always has its start");
        self.entries[last.window..].iter().map(|e| e.hash)
    }

    /// Plays a legal action; applies the cycle rule when the new position repeats.
    ///
    /// # Errors
    /// [`IllegalMove`]; nothing changes.
    pub fn play(&mut self, action: Action) -> Result<Sowing, IllegalMove> {
        let last = self.entries.last().expect("a line always has its start");
        let (mut pos, sowing) = self.game.play(&last.pos, action)?;
        let window = if sowing.irreversible { self.entries.len() } else { last.window };
        let mut hash = self.game.hash(&pos);
        if self.game.repetition_ends_game() && !self.game.status(&pos).is_over() {
            let repeated = self.entries[window..].iter().any(|e| e.hash == hash && e.pos == pos);
            if repeated {
                self.game.settle_cycle(&mut pos);
                hash = self.game.hash(&pos);
            }
        }
        self.entries.push(Entry { pos, hash, window, action: Some(action) });
        Ok(sowing)
    }

    /// Plays the move written as a pit label.
    ///
    /// # Errors
    /// [`PlayError`] when the label names no own pit or the move is illegal.
    pub fn play_label(&mut self, label: &str) -> Result<Action, PlayError> {
        let action = self.game.parse_move(self.position(), label)?;
        self.play(action)?;
        Ok(action)
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.entries.len() > 1 {
            self.entries.pop();
            true
        } else {
            false
        }
    }

    /// Back to the start position.
    pub fn reset(&mut self) {
        self.entries.truncate(1);
    }

    /// The labels of the moves played, in order.
    pub fn move_labels(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.len());
        for w in self.entries.windows(2) {
            let side = self.game.side_to_move(&w[0].pos);
            out.push(self.game.move_label(side, w[1].action.expect("every later entry has its move")));
        }
        out
    }
}
