//! Game status and final outcome.

use std::fmt;

use crate::player::{ByPlayer, Player};

/// The result of a finished game: who won and by how many seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Player>,
    /// Seeds of the winner minus seeds of the loser (0 for a draw). What counts as a player's
    /// seeds is game-specific (captures and stores; Owela: seeds on the player's side).
    pub margin: u16,
}

impl Outcome {
    pub const DRAW: Outcome = Outcome { winner: None, margin: 0 };

    /// The outcome of comparing both players' final seed totals: more seeds wins.
    pub fn from_totals(totals: ByPlayer<u16>) -> Outcome {
        let (s, n) = (totals.south, totals.north);
        match s.cmp(&n) {
            std::cmp::Ordering::Greater => Outcome { winner: Some(Player::South), margin: s - n },
            std::cmp::Ordering::Less => Outcome { winner: Some(Player::North), margin: n - s },
            std::cmp::Ordering::Equal => Outcome::DRAW,
        }
    }

    /// +1 win, 0 draw, -1 loss, from `player`'s view.
    pub fn value_for(self, player: Player) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == player => 1.0,
            Some(_) => -1.0,
        }
    }

    /// The seed margin from `player`'s view (negative when `player` lost).
    pub fn margin_for(self, player: Player) -> i32 {
        match self.winner {
            None => 0,
            Some(w) if w == player => i32::from(self.margin),
            Some(_) => -i32::from(self.margin),
        }
    }
}

impl fmt::Display for Outcome {
    /// `draw`, `south+N` or `north+N`, as the protocol writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            None => f.write_str("draw"),
            Some(p) => write!(f, "{}+{}", p.name(), self.margin),
        }
    }
}

/// Whether a game goes on, and how it ended if it did not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Over(Outcome),
}

impl Status {
    #[inline]
    pub fn is_over(self) -> bool {
        matches!(self, Status::Over(_))
    }

    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Over(o) => Some(o),
        }
    }
}

impl fmt::Display for Status {
    /// `ongoing`, `draw`, `south+N` or `north+N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ongoing => f.write_str("ongoing"),
            Status::Over(o) => o.fmt(f),
        }
    }
}
