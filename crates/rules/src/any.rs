//! One type for any game chosen at run time from a rules string.
//!
//! Hot loops that know their game at compile time can use the concrete types
//! ([`crate::oware::Oware`], ...); everything chosen by a config or a protocol command goes
//! through [`AnyGame`], whose per-call cost is one predictable branch.

use crate::ba_awa::{BaAwa, BaAwaPosition};
use crate::error::{IllegalMove, MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::kalah::{Kalah, KalahPosition};
use crate::moves::{Action, MoveMask};
use crate::options::RulesSpec;
use crate::outcome::Status;
use crate::oware::{Oware, OwarePosition};
use crate::owela::{Owela, OwelaPosition};
use crate::player::{ByPlayer, Player};
use crate::setup::Setup;

/// Every preset name [`parse_rules`] knows.
pub const PRESETS: &[&str] = &["oware", "abapa", "ouril", "awale", "oware-capture-all", "kalah", "ba-awa", "owela"];

/// Any game of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyGame {
    Oware(Oware),
    Kalah(Kalah),
    BaAwa(BaAwa),
    Owela(Owela),
}

/// A position of an [`AnyGame`]; its variant always matches the game's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    Oware(OwarePosition),
    Kalah(KalahPosition),
    BaAwa(BaAwaPosition),
    Owela(OwelaPosition),
}

/// Reads a rules string: a preset (`oware`, `abapa`, `ouril`, `awale`, `oware-capture-all`,
/// `kalah`, `kalah:H,S`, `ba-awa`, `owela`) then `key=value` options.
///
/// # Errors
/// [`RulesError`] naming the unknown preset, key or value and listing what is allowed.
pub fn parse_rules(text: &str) -> Result<AnyGame, RulesError> {
    let spec = RulesSpec::parse(text, PRESETS)?;
    match spec.preset.as_str() {
        "oware" | "abapa" | "ouril" | "awale" | "oware-capture-all" => Ok(AnyGame::Oware(Oware::from_spec(&spec)?)),
        "kalah" => Ok(AnyGame::Kalah(Kalah::from_spec(&spec)?)),
        "ba-awa" | "ba_awa" | "baawa" => Ok(AnyGame::BaAwa(BaAwa::from_spec(&spec)?)),
        "owela" => Ok(AnyGame::Owela(Owela::from_spec(&spec)?)),
        _ => Err(RulesError::UnknownPreset { name: spec.preset.clone(), allowed: PRESETS.join(", ") }),
    }
}

impl std::str::FromStr for AnyGame {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, RulesError> {
        parse_rules(s)
    }
}

impl AnyGame {
    /// The game family's name: `oware`, `kalah`, `ba-awa` or `owela`.
    pub fn family(&self) -> &'static str {
        match self {
            AnyGame::Oware(_) => "oware",
            AnyGame::Kalah(_) => "kalah",
            AnyGame::BaAwa(_) => "ba-awa",
            AnyGame::Owela(_) => "owela",
        }
    }
}

/// Calls the same method on the concrete game and position; a position of another game is a
/// bug in the caller, not bad input.
macro_rules! with_pos {
    ($self:ident, $pos:expr, |$g:ident, $p:ident| $body:expr) => {
        match ($self, $pos) {
            (AnyGame::Oware($g), AnyPosition::Oware($p)) => $body,
            (AnyGame::Kalah($g), AnyPosition::Kalah($p)) => $body,
            (AnyGame::BaAwa($g), AnyPosition::BaAwa($p)) => $body,
            (AnyGame::Owela($g), AnyPosition::Owela($p)) => $body,
            _ => panic!("a position of another game was passed to {}", $self.rules_string()),
        }
    };
}

macro_rules! with_game {
    ($self:ident, |$g:ident| $body:expr) => {
        match $self {
            AnyGame::Oware($g) => $body,
            AnyGame::Kalah($g) => $body,
            AnyGame::BaAwa($g) => $body,
            AnyGame::Owela($g) => $body,
        }
    };
}

impl Game for AnyGame {
    type Position = AnyPosition;

    fn rules_string(&self) -> String {
        with_game!(self, |g| g.rules_string())
    }

    fn start(&self) -> AnyPosition {
        match self {
            AnyGame::Oware(g) => AnyPosition::Oware(g.start()),
            AnyGame::Kalah(g) => AnyPosition::Kalah(g.start()),
            AnyGame::BaAwa(g) => AnyPosition::BaAwa(g.start()),
            AnyGame::Owela(g) => AnyPosition::Owela(g.start()),
        }
    }

    fn action_space(&self) -> usize {
        with_game!(self, |g| g.action_space())
    }

    fn total_seeds(&self) -> u16 {
        with_game!(self, |g| g.total_seeds())
    }

    #[inline]
    fn side_to_move(&self, pos: &AnyPosition) -> Player {
        with_pos!(self, pos, |g, p| g.side_to_move(p))
    }

    #[inline]
    fn legal_moves(&self, pos: &AnyPosition) -> MoveMask {
        with_pos!(self, pos, |g, p| g.legal_moves(p))
    }

    #[inline]
    fn play_unchecked(&self, pos: &mut AnyPosition, action: Action) -> Sowing {
        with_pos!(self, pos, |g, p| g.play_unchecked(p, action))
    }

    fn play(&self, pos: &AnyPosition, action: Action) -> Result<(AnyPosition, Sowing), IllegalMove> {
        match (self, pos) {
            (AnyGame::Oware(g), AnyPosition::Oware(p)) => g.play(p, action).map(|(p, s)| (AnyPosition::Oware(p), s)),
            (AnyGame::Kalah(g), AnyPosition::Kalah(p)) => g.play(p, action).map(|(p, s)| (AnyPosition::Kalah(p), s)),
            (AnyGame::BaAwa(g), AnyPosition::BaAwa(p)) => g.play(p, action).map(|(p, s)| (AnyPosition::BaAwa(p), s)),
            (AnyGame::Owela(g), AnyPosition::Owela(p)) => g.play(p, action).map(|(p, s)| (AnyPosition::Owela(p), s)),
            _ => panic!("a position of another game was passed to {}", self.rules_string()),
        }
    }

    fn why_illegal(&self, pos: &AnyPosition, action: Action) -> String {
        with_pos!(self, pos, |g, p| g.why_illegal(p, action))
    }

    #[inline]
    fn status(&self, pos: &AnyPosition) -> Status {
        with_pos!(self, pos, |g, p| g.status(p))
    }

    #[inline]
    fn hash(&self, pos: &AnyPosition) -> u64 {
        with_pos!(self, pos, |g, p| g.hash(p))
    }

    fn repetition_ends_game(&self) -> bool {
        with_game!(self, |g| g.repetition_ends_game())
    }

    fn settle_cycle(&self, pos: &mut AnyPosition) {
        with_pos!(self, pos, |g, p| g.settle_cycle(p))
    }

    fn plies_left(&self, pos: &AnyPosition) -> Option<u16> {
        with_pos!(self, pos, |g, p| g.plies_left(p))
    }

    fn bonus_move(&self, pos: &AnyPosition) -> Option<bool> {
        with_pos!(self, pos, |g, p| g.bonus_move(p))
    }

    fn starter(&self, pos: &AnyPosition) -> Option<Player> {
        with_pos!(self, pos, |g, p| g.starter(p))
    }

    fn scores(&self, pos: &AnyPosition) -> ByPlayer<u16> {
        with_pos!(self, pos, |g, p| g.scores(p))
    }

    fn pits<'a>(&self, pos: &'a AnyPosition) -> &'a [u8] {
        with_pos!(self, pos, |g, p| g.pits(p))
    }

    fn controller(&self, pos: &AnyPosition, pit: usize) -> Player {
        with_pos!(self, pos, |g, p| g.controller(p, pit))
    }

    fn action_pit(&self, side: Player, action: Action) -> usize {
        with_game!(self, |g| g.action_pit(side, action))
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        with_game!(self, |g| g.move_label(side, action))
    }

    fn parse_move(&self, pos: &AnyPosition, text: &str) -> Result<Action, MoveParseError> {
        with_pos!(self, pos, |g, p| g.parse_move(p, text))
    }

    fn passed(&self, pos: &AnyPosition) -> Option<AnyPosition> {
        match (self, pos) {
            (AnyGame::Oware(g), AnyPosition::Oware(p)) => g.passed(p).map(AnyPosition::Oware),
            (AnyGame::Kalah(g), AnyPosition::Kalah(p)) => g.passed(p).map(AnyPosition::Kalah),
            (AnyGame::BaAwa(g), AnyPosition::BaAwa(p)) => g.passed(p).map(AnyPosition::BaAwa),
            (AnyGame::Owela(g), AnyPosition::Owela(p)) => g.passed(p).map(AnyPosition::Owela),
            _ => panic!("a position of another game was passed to {}", self.rules_string()),
        }
    }

    fn to_setup(&self, pos: &AnyPosition) -> Setup {
        with_pos!(self, pos, |g, p| g.to_setup(p))
    }

    fn from_setup(&self, setup: &Setup) -> Result<AnyPosition, SetupError> {
        match self {
            AnyGame::Oware(g) => g.from_setup(setup).map(AnyPosition::Oware),
            AnyGame::Kalah(g) => g.from_setup(setup).map(AnyPosition::Kalah),
            AnyGame::BaAwa(g) => g.from_setup(setup).map(AnyPosition::BaAwa),
            AnyGame::Owela(g) => g.from_setup(setup).map(AnyPosition::Owela),
        }
    }

    fn display(&self, pos: &AnyPosition) -> String {
        with_pos!(self, pos, |g, p| g.display(p))
    }
}
