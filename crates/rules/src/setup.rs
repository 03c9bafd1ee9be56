//! A raw, unchecked description of a position: the `position` line of the engine protocol.
//! [`crate::Game::from_setup`] validates it into a game's position.

use std::fmt;
use std::str::FromStr;

use crate::error::SetupError;
use crate::player::{ByPlayer, Player};

/// `SIDE | S0 S1 | P0 P1 ... Pk | STATUS [| C0 ... Ck] [| KEY=VALUE ...]` (docs/protocol.md,
/// "`position`"): side to move, seeds captured (or in the stores), seeds in every pit in
/// index order, for Ba-awa the controller of every pit, and the state beyond the board that
/// can decide the game (the ply counters, Ouril's bonus move, Ba-awa's starter).
///
/// The state fields default to a game's start (no plies played, no bonus move, South began)
/// and the line writes only those that differ, so a line without a state field reads as it
/// always did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub side: Player,
    pub scores: ByPlayer<u16>,
    pub pits: Vec<u8>,
    /// The controller of every pit (Ba-awa), `None` where pits belong to their row's owner.
    pub controllers: Option<Vec<Player>>,
    /// The status field as written (`ongoing`, `draw`, `south+N`, ...); informative only.
    pub status: String,
    /// `plies=N`: plies played since the start (or since the position it was set up from),
    /// for the `max_plies` limit.
    pub plies: u16,
    /// `since_capture=N`: plies since the last capture, for Oware's `cycle=plies:N`.
    pub since_capture: u16,
    /// `bonus`: the side to move makes the extra move of an Ouril grand slam.
    pub bonus: bool,
    /// `starter=north`: the player who began the game (Ba-awa rule 4 gives them the last
    /// seeds); South when not written.
    pub starter: Player,
    /// `tuzdyk=S,N`: the house each player has claimed under the `tuzdyk` special rule
    /// (Toguz Kumalak), as a house index, `-` for none; none when not written.
    pub tuzdyk: ByPlayer<Option<u8>>,
}

impl Default for Setup {
    /// South to move on an empty board with nothing captured, at the start of the game.
    fn default() -> Self {
        Setup {
            side: Player::South,
            scores: ByPlayer::new(0, 0),
            pits: Vec::new(),
            controllers: None,
            status: "ongoing".to_string(),
            plies: 0,
            since_capture: 0,
            bonus: false,
            starter: Player::South,
            tuzdyk: ByPlayer::new(None, None),
        }
    }
}

/// The state keys of the line's last field, for error messages.
const STATE_KEYS: &str = "plies=N, since_capture=N, bonus, starter=south|north, tuzdyk=S,N";

impl Setup {
    /// Whether any state field differs from its default (and so is written).
    fn has_state(&self) -> bool {
        self.plies != 0
            || self.since_capture != 0
            || self.bonus
            || self.starter != Player::South
            || self.tuzdyk != ByPlayer::new(None, None)
    }

    /// Refuses the state fields that `rules` do not keep, and ply counts past their limit;
    /// `kept` says which fields the rules keep. For [`crate::Game::from_setup`].
    ///
    /// # Errors
    /// [`SetupError::Invalid`] naming the field.
    pub(crate) fn check_state(&self, rules: &str, kept: KeptState) -> Result<(), SetupError> {
        let invalid = |reason: String| Err(SetupError::Invalid { reason });
        match kept.max_plies {
            None if self.plies != 0 => return invalid(format!("plies={}: {rules} counts no plies", self.plies)),
            Some(max) if self.plies > max => {
                return invalid(format!("plies={} is past the game's limit max_plies={max}", self.plies));
            }
            _ => {}
        }
        match kept.since_capture_limit {
            None if self.since_capture != 0 => {
                return invalid(format!(
                    "since_capture={}: {rules} counts no plies since a capture (only Oware's cycle=plies:N does)",
                    self.since_capture
                ));
            }
            Some(limit) if self.since_capture > limit => {
                return invalid(format!(
                    "since_capture={} is past the game's limit cycle=plies:{limit}",
                    self.since_capture
                ));
            }
            _ => {}
        }
        if self.bonus && !kept.bonus {
            return invalid(format!("bonus: {rules} has no bonus move (only grand_slam=extra-turn, as in Ouril)"));
        }
        if self.starter != Player::South && !kept.starter {
            return invalid(format!("starter={}: {rules} does not look at who began (only Ba-awa does)", self.starter));
        }
        if self.tuzdyk != ByPlayer::new(None, None) && !kept.tuzdyk {
            return invalid(format!("tuzdyk: {rules} has no claimed houses (only the tuzdyk special rule does)"));
        }
        Ok(())
    }
}

/// Which state fields of a [`Setup`] a game's rules keep, with the limits of its ply counts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KeptState {
    /// `max_plies`, when the rules count plies.
    pub max_plies: Option<u16>,
    /// `N` of Oware's `cycle=plies:N`.
    pub since_capture_limit: Option<u16>,
    pub bonus: bool,
    pub starter: bool,
    pub tuzdyk: bool,
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
        if self.has_state() {
            f.write_str(" |")?;
            if self.plies != 0 {
                write!(f, " plies={}", self.plies)?;
            }
            if self.since_capture != 0 {
                write!(f, " since_capture={}", self.since_capture)?;
            }
            if self.bonus {
                f.write_str(" bonus")?;
            }
            if self.starter != Player::South {
                write!(f, " starter={}", self.starter)?;
            }
            if self.tuzdyk != ByPlayer::new(None, None) {
                let house = |h: Option<u8>| h.map_or("-".to_string(), |h| h.to_string());
                write!(f, " tuzdyk={},{}", house(self.tuzdyk.south), house(self.tuzdyk.north))?;
            }
        }
        Ok(())
    }
}

/// Whether a field after the status lists controllers: empty, or only `s` and `n` tokens
/// (a state field always holds something else, so a line of today reads as before).
fn is_controllers(field: &str) -> bool {
    field.split_whitespace().all(|t| matches!(t, "s" | "S" | "n" | "N"))
}

impl FromStr for Setup {
    type Err = SetupError;

    fn from_str(line: &str) -> Result<Setup, SetupError> {
        let bad = |reason: &str| SetupError::Syntax { line: line.to_string(), reason: reason.to_string() };
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if !(3..=6).contains(&fields.len()) {
            return Err(bad("expected 'SIDE | S0 S1 | PITS... | STATUS [| CONTROLLERS] [| KEY=VALUE...]'"));
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
        // After the status: the controllers, the state, or both in that order.
        let (controllers, state) = match fields.get(4..).unwrap_or_default() {
            [] => (None, None),
            [one] if is_controllers(one) => (Some(*one), None),
            [one] => (None, Some(*one)),
            [c, s] if is_controllers(c) => (Some(*c), Some(*s)),
            _ => {
                return Err(bad(
                    "with six fields the fifth must list controllers ('s' or 'n') and the sixth the state",
                ));
            }
        };
        let controllers = match controllers {
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
        let mut setup =
            Setup { side, scores: ByPlayer::new(scores[0], scores[1]), pits, controllers, status, ..Setup::default() };
        if let Some(state) = state {
            read_state(&mut setup, state).map_err(|reason| bad(&reason))?;
        }
        Ok(setup)
    }
}

/// Reads the state field's `KEY=VALUE` tokens into `setup`; `Err` says which token is bad.
fn read_state(setup: &mut Setup, field: &str) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    for token in field.split_whitespace() {
        let (key, value) = match token.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (token, None),
        };
        if seen.contains(&key) {
            return Err(format!("state field '{key}' given twice"));
        }
        let count = |v: Option<&str>| {
            v.and_then(|v| v.parse::<u16>().ok())
                .ok_or_else(|| format!("bad value in '{token}': {key} must be a whole number from 0 to 65535"))
        };
        match key {
            "plies" => setup.plies = count(value)?,
            "since_capture" => setup.since_capture = count(value)?,
            "bonus" => {
                setup.bonus = match value {
                    None | Some("true") => true,
                    Some("false") => false,
                    Some(_) => {
                        return Err(format!("bad value in '{token}': write 'bonus' (or bonus=true, bonus=false)"));
                    }
                }
            }
            "starter" => {
                setup.starter = value
                    .and_then(Player::parse)
                    .ok_or_else(|| format!("bad value in '{token}': starter must be 'south' or 'north'"))?;
            }
            "tuzdyk" => {
                let bad = || format!("bad value in '{token}': write tuzdyk=S,N, each a house index or '-'");
                let (south, north) = value.and_then(|v| v.split_once(',')).ok_or_else(bad)?;
                let house = |t: &str| match t {
                    "-" => Ok(None),
                    t => t.parse::<u8>().map(Some).map_err(|_| bad()),
                };
                setup.tuzdyk = ByPlayer::new(house(south)?, house(north)?);
            }
            _ => return Err(format!("unknown state field '{token}': expected {STATE_KEYS}")),
        }
        seen.push(key);
    }
    Ok(())
}
