//! A raw, unchecked description of a position: the `position` line of the engine protocol.
//! [`crate::Game::from_setup`] validates it into a game's position.

use std::fmt;
use std::str::FromStr;

use crate::error::SetupError;
use crate::player::{ByPlayer, Player};

/// `SIDE | S0 S1 | P0 P1 ... Pk | STATUS [| C0 ... Ck]` (docs/protocol.md, "`position`"):
/// side to move, seeds captured (or in the stores), seeds in every pit in index order, and
/// for Ba-awa the controller of every pit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub side: Player,
    pub scores: ByPlayer<u16>,
    pub pits: Vec<u8>,
    /// The controller of every pit (Ba-awa), `None` where pits belong to their row's owner.
    pub controllers: Option<Vec<Player>>,
    /// The status field as written (`ongoing`, `draw`, `south+N`, ...); informative only.
    pub status: String,
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} | {} {} |", self.side, self.scores.south, self.scores.north)?;
        for p in &self.pits {
            write!(f, " {p}")?;
        }
        write!(f, " | {}", self.status)?;
        if let Some(c) = &self.controllers {
            f.write_str(" |")?;
            for p in c {
                f.write_str(if *p == Player::South { " s" } else { " n" })?;
            }
        }
        Ok(())
    }
}

impl FromStr for Setup {
    type Err = SetupError;

    fn from_str(line: &str) -> Result<Setup, SetupError> {
        let bad = |reason: &str| SetupError::Syntax { line: line.to_string(), reason: reason.to_string() };
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if !(3..=5).contains(&fields.len()) {
            return Err(bad("expected 'SIDE | S0 S1 | PITS... | STATUS [| CONTROLLERS]'"));
        }
        let side = Player::parse(fields[0]).ok_or_else(|| bad("side must be 'south' or 'north'"))?;
        let scores: Vec<u16> = fields[1]
            .split_whitespace()
            .map(|s| s.parse::<u16>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad("scores must be two whole numbers"))?;
        if scores.len() != 2 {
            return Err(bad("scores must be two whole numbers"));
        }
        let pits: Vec<u8> = fields[2]
            .split_whitespace()
            .map(|s| s.parse::<u8>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad("pit counts must be whole numbers from 0 to 255"))?;
        if pits.is_empty() {
            return Err(bad("no pit counts"));
        }
        let status = fields.get(3).map_or("ongoing", |s| s).to_string();
        let controllers = match fields.get(4) {
            None => None,
            Some(c) => Some(
                c.split_whitespace()
                    .map(|t| match t {
                        "s" | "S" => Ok(Player::South),
                        "n" | "N" => Ok(Player::North),
                        _ => Err(bad("controllers must be 's' or 'n'")),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        Ok(Setup { side, scores: ByPlayer::new(scores[0], scores[1]), pits, controllers, status })
    }
}
