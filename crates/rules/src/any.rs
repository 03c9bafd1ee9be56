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
use crate::sowing::{Described, DescribedPosition, Description, fast_path};

/// Every preset name [`parse_rules`] knows.
pub const PRESETS: &[&str] = &["oware", "abapa", "ouril", "awale", "oware-capture-all", "kalah", "ba-awa", "owela"];

/// Any game of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyGame {
    Oware(Oware),
    Kalah(Kalah),
    BaAwa(BaAwa),
    Owela(Owela),
    /// Any other sowing game, played from its description.
    Described(Described),
}

/// A position of an [`AnyGame`]; its variant always matches the game's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    Oware(OwarePosition),
    Kalah(KalahPosition),
    BaAwa(BaAwaPosition),
    Owela(OwelaPosition),
    Described(DescribedPosition),
}

/// Reads a rules string: a preset (`oware`, `abapa`, `ouril`, `awale`, `oware-capture-all`,
/// `kalah`, `kalah:H,S`, `ba-awa`, `owela`) then `key=value` options; or a game description:
/// the name of a catalogue game ([`crate::catalogue`]), the path of a description file
/// (`my-game.toml`), or `sowing {...}`, the one-line form a described game's rules string, a
/// model file and a shard carry.
///
/// A description equal to a preset is played by the preset's hand-written engine.
///
/// # Errors
/// [`RulesError`] naming the unknown preset, key or value and listing what is allowed, or
/// what is wrong with a description (its key and why) or its file.
pub fn parse_rules(text: &str) -> Result<AnyGame, RulesError> {
    parse(text, true)
}

/// [`parse_rules`] for text from someone who may not name files on this machine (a web
/// request): a path `NAME.toml` is refused instead of read. Presets, catalogue names and
/// `sowing {...}` are read as [`parse_rules`] reads them.
///
/// # Errors
/// As [`parse_rules`]; [`RulesError::DescriptionFile`] for a file path.
pub fn parse_rules_text(text: &str) -> Result<AnyGame, RulesError> {
    parse(text, false)
}

fn parse(text: &str, files: bool) -> Result<AnyGame, RulesError> {
    let trimmed = text.trim();
    if let Some(json) = trimmed.strip_prefix("sowing ") {
        return from_description(Description::from_canonical(json.trim())?);
    }
    if let Some(text) = crate::catalogue::find(trimmed) {
        return from_description(Description::from_toml(text)?);
    }
    if trimmed.ends_with(".toml") {
        let file = |reason: String| RulesError::DescriptionFile { path: trimmed.to_string(), reason };
        if !files {
            return Err(file(
                "description files are not read here: give the description itself, a catalogue name or the \
                 one-line form `sowing {...}`"
                    .to_string(),
            ));
        }
        let body = std::fs::read_to_string(trimmed).map_err(|e| file(e.to_string()))?;
        return from_description(Description::from_toml(&body).map_err(|e| file(e.to_string()))?);
    }
    let spec = RulesSpec::parse(text, PRESETS)?;
    match spec.preset.as_str() {
        "oware" | "abapa" | "ouril" | "awale" | "oware-capture-all" => Ok(AnyGame::Oware(Oware::from_spec(&spec)?)),
        "kalah" => Ok(AnyGame::Kalah(Kalah::from_spec(&spec)?)),
        "ba-awa" | "ba_awa" | "baawa" => Ok(AnyGame::BaAwa(BaAwa::from_spec(&spec)?)),
        "owela" => Ok(AnyGame::Owela(Owela::from_spec(&spec)?)),
        _ => {
            let catalogue: Vec<&str> = crate::catalogue::GAMES.iter().map(|(n, _)| *n).collect();
            let allowed = format!(
                "{}; a catalogue game ({}); or a description file NAME.toml",
                PRESETS.join(", "),
                catalogue.join(", ")
            );
            Err(RulesError::UnknownPreset { name: spec.preset.clone(), allowed })
        }
    }
}

/// The game a description states: a preset's hand-written engine when the description
/// equals that preset, the sowing engine otherwise.
///
/// # Errors
/// [`RulesError::Description`] naming the key and why the description cannot be played.
pub fn from_description(description: Description) -> Result<AnyGame, RulesError> {
    let rules = description.resolve()?;
    if let Some(game) = fast_path(&rules) {
        return Ok(game);
    }
    Ok(AnyGame::Described(Described::new(description)?))
}

impl std::str::FromStr for AnyGame {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, RulesError> {
        parse_rules(s)
    }
}

impl AnyGame {
    /// The game family's name: `oware`, `kalah`, `ba-awa`, `owela`, or `sowing` for a
    /// described game.
    pub fn family(&self) -> &'static str {
        match self {
            AnyGame::Oware(_) => "oware",
            AnyGame::Kalah(_) => "kalah",
            AnyGame::BaAwa(_) => "ba-awa",
            AnyGame::Owela(_) => "owela",
            AnyGame::Described(_) => "sowing",
        }
    }

    /// The game's short name: the preset family, or a described game's `name`.
    pub fn name(&self) -> &str {
        match self {
            AnyGame::Described(g) => g.name(),
            other => other.family(),
        }
    }

    /// The game as a description: a described game's own, a preset's written out
    /// ([`crate::sowing::preset_description`]).
    pub fn description(&self) -> Description {
        crate::sowing::preset_description(self)
    }

    /// Plays a legal action and records it seed by seed ([`crate::sowing::Trace`]: lifts,
    /// seeds dropped, stores, captures, relays, the end), for every game: a preset's move is
    /// traced by the sowing engine on its description, which plays the same moves
    /// (`tests/described.rs`); the position returned is the game's own.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and why.
    pub fn play_traced(
        &self,
        pos: &AnyPosition,
        action: Action,
    ) -> Result<(AnyPosition, Sowing, crate::sowing::Trace), IllegalMove> {
        let (next, sowing) = self.play(pos, action)?;
        let trace = match (self, pos) {
            (AnyGame::Described(g), AnyPosition::Described(p)) => g.play_traced(p, action)?.2,
            _ => {
                let described = Described::new(self.description()).expect("a preset's description is valid");
                let mut setup = self.to_setup(pos);
                // Match play's controllers are a Ba-awa state the description keeps too.
                if described.rules().from == crate::sowing::SowFrom::Own {
                    setup.controllers = None;
                }
                let p = described.from_setup(&setup).expect("a preset's position reads as its description's");
                described.play_traced(&p, action)?.2
            }
        };
        Ok((next, sowing, trace))
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
            (AnyGame::Described($g), AnyPosition::Described($p)) => $body,
            _ => panic!("a position of another game was passed to {}", $self.rules_string()),
        }
    };
}

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so that generic
/// code (a search, self-play) is compiled for each game and works on its own position type,
/// not on [`AnyPosition`], which is as large as the largest (a described game's 64 pits).
///
/// ```
/// use mancala_rules::{Game, parse_rules};
/// let game = parse_rules("ouril").unwrap();
/// let bytes = mancala_rules::with_concrete_game!(&game, g => position_bytes(g));
/// fn position_bytes<G: Game>(_: &G) -> usize { std::mem::size_of::<G::Position>() }
/// assert!(bytes < std::mem::size_of::<mancala_rules::AnyPosition>());
/// ```
#[macro_export]
macro_rules! with_concrete_game {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            $crate::AnyGame::Oware($g) => $body,
            $crate::AnyGame::Kalah($g) => $body,
            $crate::AnyGame::BaAwa($g) => $body,
            $crate::AnyGame::Owela($g) => $body,
            $crate::AnyGame::Described($g) => $body,
        }
    };
}

impl Game for AnyGame {
    type Position = AnyPosition;

    fn rules_string(&self) -> String {
        with_concrete_game!(self, g => g.rules_string())
    }

    fn start(&self) -> AnyPosition {
        match self {
            AnyGame::Oware(g) => AnyPosition::Oware(g.start()),
            AnyGame::Kalah(g) => AnyPosition::Kalah(g.start()),
            AnyGame::BaAwa(g) => AnyPosition::BaAwa(g.start()),
            AnyGame::Owela(g) => AnyPosition::Owela(g.start()),
            AnyGame::Described(g) => AnyPosition::Described(g.start()),
        }
    }

    fn action_space(&self) -> usize {
        with_concrete_game!(self, g => g.action_space())
    }

    fn total_seeds(&self) -> u16 {
        with_concrete_game!(self, g => g.total_seeds())
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
            (AnyGame::Described(g), AnyPosition::Described(p)) => {
                g.play(p, action).map(|(p, s)| (AnyPosition::Described(p), s))
            }
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
        with_concrete_game!(self, g => g.repetition_ends_game())
    }

    fn stops_at_majority(&self) -> bool {
        with_concrete_game!(self, g => g.stops_at_majority())
    }

    fn settle_cycle(&self, pos: &mut AnyPosition) {
        with_pos!(self, pos, |g, p| g.settle_cycle(p))
    }

    fn plies_left(&self, pos: &AnyPosition) -> Option<u16> {
        with_pos!(self, pos, |g, p| g.plies_left(p))
    }

    fn moves_twice(&self) -> bool {
        with_concrete_game!(self, g => g.moves_twice())
    }

    fn control_changes(&self) -> bool {
        with_concrete_game!(self, g => g.control_changes())
    }

    fn claims_houses(&self) -> bool {
        with_concrete_game!(self, g => g.claims_houses())
    }

    fn claimed(&self, pos: &AnyPosition, pit: usize) -> Option<Player> {
        with_pos!(self, pos, |g, p| g.claimed(p, pit))
    }

    fn endgame_database(&self) -> Result<(), String> {
        with_concrete_game!(self, g => g.endgame_database())
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
        with_concrete_game!(self, g => g.action_pit(side, action))
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        with_concrete_game!(self, g => g.move_label(side, action))
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
            (AnyGame::Described(g), AnyPosition::Described(p)) => g.passed(p).map(AnyPosition::Described),
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
            AnyGame::Described(g) => g.from_setup(setup).map(AnyPosition::Described),
        }
    }

    fn display(&self, pos: &AnyPosition) -> String {
        with_pos!(self, pos, |g, p| g.display(p))
    }
}
