//! A move seed by seed: what [`super::Described::play_traced`] records for the browser's
//! animation and for worked examples in tests.

use serde::Serialize;

use crate::outcome::Status;
use crate::player::Player;

/// One step of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// The seeds of a house are lifted (the move's first house, or a relay).
    Lift { house: u8, seeds: u8 },
    /// A seed falls into a house.
    Drop { house: u8 },
    /// A seed falls into a player's store.
    Store { player: Player },
    /// A house's seeds are captured by a player.
    Capture { house: u8, seeds: u8, player: Player },
    /// A house's seeds are taken into the mover's hand and sown on (four-rank capture).
    Take { house: u8, seeds: u8 },
    /// A house becomes a player's for the rest of the game (the `tuzdyk` special rule):
    /// every seed sown into it from now on goes to that player.
    Claim { house: u8, player: Player },
    /// The move is over: the status and the side to move next.
    End {
        #[serde(serialize_with = "status_text")]
        status: Status,
        side: Player,
    },
}

fn status_text<S: serde::Serializer>(status: &Status, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&status.to_string())
}

/// The steps of one move, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub steps: Vec<Step>,
}

impl Trace {
    pub(crate) fn push(&mut self, step: Step) {
        self.steps.push(step);
    }
}
