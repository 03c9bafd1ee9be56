//! Ba-awa (Ghana, Twi rules; docs/rules.md section 3): multi-lap relay sowing over all twelve
//! pits, fours captured while sowing, and pits that change hands between the games of a
//! match.
//!
//! ```
//! use mancala_rules::{parse_rules, Game, Line};
//!
//! let game = parse_rules("ba-awa").unwrap();
//! let mut line = Line::new(game);
//! // A's last seed lands in E (5 seeds): relay from E, then d, C and c, ending in empty C.
//! line.play_label("A").unwrap();
//! assert_eq!(
//!     line.game().to_setup(line.position()).to_string(),
//!     "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | s s s s s s n n n n n n | plies=1"
//! );
//! ```
//!
//! Open points decided here:
//! - The position line says who began the game with `starter=north`; without it South did
//!   (true of every single game).
//! - A position line whose side to move controls no non-empty pit is settled on reading
//!   (rule 4: the opponent takes the seeds left), so every position kept is consistent.
//! - `max_plies`: the game ends when its ply count reaches `max_plies` (counted from the
//!   start, or as the position line's `plies=N` says). The ply count is part of the
//!   position and its hash. A line whose count has reached `max_plies` with seeds still on
//!   the board is settled on reading as that move would have been (each player takes the
//!   pits they control); a count past it is refused.
//! - Rule 4's 8-seed end is checked when a move ends, as the rule says: a position read with
//!   8 seeds or fewer on the board goes on until the next move.
//! - A game is over exactly when the board is empty (every ending hands the seeds left to a
//!   player), so [`Game::status`] costs one subtraction.

mod matches;
mod position;
mod sow;

pub use matches::{match_layout, pits_earned};
pub use position::{BaAwaPosition, PITS, ROW, SEEDS_PER_PIT, TOTAL_SEEDS};

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::hash::{hash_pits, mix64};
use crate::moves::{Action, MoveMask};
use crate::options::{RulesSpec, parse_bool, parse_choice, parse_number, same_key, unknown_key};
use crate::outcome::{Outcome, Status};
use crate::player::{ByPlayer, Player};
use crate::setup::{KeptState, Setup};
use position::{ALL_PITS, north_mask};

/// Who takes a four made while sowing (rule 2, option `fours_to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FoursTo {
    /// The controller of the pit (default).
    Controller,
    /// The player who is sowing.
    Mover,
}

impl FoursTo {
    const CHOICES: [(&'static str, FoursTo); 2] = [("controller", FoursTo::Controller), ("mover", FoursTo::Mover)];

    pub fn name(self) -> &'static str {
        match self {
            FoursTo::Controller => "controller",
            FoursTo::Mover => "mover",
        }
    }
}

/// Ba-awa with its options fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaAwa {
    fours_to: FoursTo,
    /// Relays one move may make; the next one ends the move instead (rule 5).
    max_relay: u32,
    /// Plies after which the game ends, each player taking the pits they control (rule 5).
    max_plies: u16,
    /// Whether games are played as a match (rule 6).
    match_play: bool,
    /// Pits a player must control for the match to end.
    match_target: u8,
}

const PRESET: &str = "ba-awa";
const KEYS: [&str; 5] = ["fours_to", "max_relay", "max_plies", "match", "match_target"];
/// Pit labels in pit index order.
const LABELS: [&str; PITS] = ["A", "B", "C", "D", "E", "F", "a", "b", "c", "d", "e", "f"];

impl Default for BaAwa {
    fn default() -> Self {
        BaAwa { fours_to: FoursTo::Controller, max_relay: 1000, max_plies: 1000, match_play: false, match_target: 10 }
    }
}

impl BaAwa {
    /// Reads the options of a `ba-awa` rules string: `fours_to` (`controller`, `mover`),
    /// `max_relay` (0 to 1000000), `max_plies` (1 to 65535), `match` (`true`, `false`),
    /// `match_target` (1 to 12).
    ///
    /// # Errors
    /// [`RulesError`] for a size suffix, an unknown key or a bad value, listing what is allowed.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<Self, RulesError> {
        if !spec.sizes.is_empty() {
            return Err(RulesError::BadSize {
                text: spec.preset.clone(),
                reason: "ba-awa has a fixed 2x6 board and takes no sizes".to_string(),
            });
        }
        let mut game = BaAwa::default();
        for &(key, value) in &spec.options {
            if same_key(key, "fours_to") {
                game.fours_to = parse_choice(key, value, &FoursTo::CHOICES)?;
            } else if same_key(key, "max_relay") {
                game.max_relay = parse_number(key, value, 0, 1_000_000)?;
            } else if same_key(key, "max_plies") {
                game.max_plies = parse_number(key, value, 1, u32::from(u16::MAX))? as u16;
            } else if same_key(key, "match") {
                game.match_play = parse_bool(key, value)?;
            } else if same_key(key, "match_target") {
                game.match_target = parse_number(key, value, 1, PITS as u32)? as u8;
            } else {
                return Err(unknown_key(PRESET, key, &KEYS));
            }
        }
        Ok(game)
    }

    pub fn fours_to(&self) -> FoursTo {
        self.fours_to
    }

    pub fn max_relay(&self) -> u32 {
        self.max_relay
    }

    pub fn max_plies(&self) -> u16 {
        self.max_plies
    }

    /// Whether `match=true` (rule 6).
    pub fn is_match(&self) -> bool {
        self.match_play
    }

    pub fn match_target(&self) -> u8 {
        self.match_target
    }

    /// The label of pit `pit` (`A`-`F`, `a`-`f`).
    ///
    /// # Panics
    /// If `pit` is not below 12.
    pub fn pit_label(pit: usize) -> &'static str {
        LABELS[pit]
    }

    /// The pit a label names, if any.
    pub fn parse_pit(text: &str) -> Option<usize> {
        LABELS.iter().position(|l| *l == text.trim())
    }

    /// Sows from `pit` (rules 1 to 3, the relay guard of rule 5); returns the seeds captured.
    #[inline]
    fn sow(&self, pos: &mut BaAwaPosition, pit: usize) -> u16 {
        let mover_north = pos.side == Player::North;
        // Bit `i` set: a four made while sowing in pit `i` goes to North.
        let fours_north = match self.fours_to {
            FoursTo::Controller => pos.north_controls,
            FoursTo::Mover => ALL_PITS * u16::from(mover_north),
        };
        let (south, north) = sow::sow(&mut pos.pits, pit, fours_north, mover_north, self.max_relay);
        pos.scores.south += south;
        pos.scores.north += north;
        south + north
    }
}

impl Game for BaAwa {
    type Position = BaAwaPosition;

    fn rules_string(&self) -> String {
        format!(
            "{PRESET} fours_to={} max_relay={} max_plies={} match={} match_target={}",
            self.fours_to.name(),
            self.max_relay,
            self.max_plies,
            self.match_play,
            self.match_target
        )
    }

    fn start(&self) -> BaAwaPosition {
        self.start_with(std::array::from_fn(|pit| if pit < ROW { Player::South } else { Player::North }), Player::South)
    }

    fn action_space(&self) -> usize {
        PITS
    }

    fn total_seeds(&self) -> u16 {
        TOTAL_SEEDS
    }

    #[inline]
    fn side_to_move(&self, pos: &BaAwaPosition) -> Player {
        pos.side
    }

    #[inline]
    fn legal_moves(&self, pos: &BaAwaPosition) -> MoveMask {
        let mask = pos.occupied() & pos.controlled_by(pos.side);
        let mask = match pos.side {
            Player::South => mask,
            Player::North => ((mask >> ROW) | (mask << ROW)) & ALL_PITS,
        };
        MoveMask(u64::from(mask))
    }

    fn control_changes(&self) -> bool {
        true
    }

    fn endgame_database(&self) -> Result<(), String> {
        Err("Ba-awa pits change controller, so the board alone is not the position".to_string())
    }

    /// # Panics
    /// May panic (or leave a meaningless position) if `action` is not legal.
    fn play_unchecked(&self, pos: &mut BaAwaPosition, action: Action) -> Sowing {
        let mover = pos.side;
        let mut captured = self.sow(pos, self.action_pit(mover, action));
        pos.plies += 1;
        pos.side = mover.opponent();
        let left = pos.seeds_on_board();
        if left <= 8 {
            let starter = pos.starter;
            captured += pos.sweep(|_| starter);
        } else if pos.plies >= self.max_plies {
            let owners = pos.north_controls;
            captured += pos.sweep(|pit| if owners >> pit & 1 == 1 { Player::North } else { Player::South });
        } else {
            captured += pos.settle_if_stuck();
        }
        Sowing { captured, irreversible: captured > 0 }
    }

    fn why_illegal(&self, pos: &BaAwaPosition, action: Action) -> String {
        if usize::from(action) >= PITS {
            return format!("action {action} is outside 0..{PITS}");
        }
        if self.status(pos).is_over() {
            return "the game is over".to_string();
        }
        let side = pos.side;
        let pit = self.action_pit(side, action);
        let label = LABELS[pit];
        let owner = pos.controller(pit);
        if owner != side {
            format!("pit {label} is controlled by {owner}")
        } else if pos.pits[pit] == 0 {
            format!("pit {label} is empty")
        } else {
            format!("pit {label} is playable")
        }
    }

    #[inline]
    fn status(&self, pos: &BaAwaPosition) -> Status {
        if pos.seeds_on_board() == 0 { Status::Over(Outcome::from_totals(pos.scores)) } else { Status::Ongoing }
    }

    fn hash(&self, pos: &BaAwaPosition) -> u64 {
        let extra = u64::from(pos.scores.south)
            | u64::from(pos.scores.north) << 8
            | u64::from(pos.north_controls) << 16
            | (pos.side.index() as u64) << 28
            | (pos.starter.index() as u64) << 29
            | u64::from(pos.plies) << 32;
        mix64(hash_pits(&pos.pits, extra) ^ 0xba_a3a0)
    }

    /// `max_plies` less the plies played: the move that brings the count to `max_plies`
    /// ends the game.
    fn plies_left(&self, pos: &BaAwaPosition) -> Option<u16> {
        Some(self.max_plies.saturating_sub(pos.plies))
    }

    fn starter(&self, pos: &BaAwaPosition) -> Option<Player> {
        Some(pos.starter)
    }

    fn scores(&self, pos: &BaAwaPosition) -> ByPlayer<u16> {
        pos.scores
    }

    fn pits<'a>(&self, pos: &'a BaAwaPosition) -> &'a [u8] {
        &pos.pits
    }

    fn controller(&self, pos: &BaAwaPosition, pit: usize) -> Player {
        pos.controller(pit)
    }

    #[inline]
    fn action_pit(&self, side: Player, action: Action) -> usize {
        (usize::from(action) + ROW * side.index()) % PITS
    }

    fn move_label(&self, side: Player, action: Action) -> String {
        LABELS[self.action_pit(side, action)].to_string()
    }

    fn parse_move(&self, pos: &BaAwaPosition, text: &str) -> Result<Action, MoveParseError> {
        let pit = BaAwa::parse_pit(text)
            .ok_or_else(|| MoveParseError::Unknown { text: text.to_string(), allowed: LABELS.join(" ") })?;
        let owner = pos.controller(pit);
        if owner != pos.side {
            return Err(MoveParseError::NotOwn { text: text.to_string(), owner, mover: pos.side });
        }
        Ok(((pit + PITS - ROW * pos.side.index()) % PITS) as Action)
    }

    fn to_setup(&self, pos: &BaAwaPosition) -> Setup {
        Setup {
            side: pos.side,
            scores: pos.scores,
            pits: pos.pits.to_vec(),
            controllers: Some(pos.controllers().to_vec()),
            status: self.status(pos).to_string(),
            plies: pos.plies,
            since_capture: 0,
            bonus: false,
            starter: pos.starter,
            ..Setup::default()
        }
    }

    /// Reads a position line; the controllers field is required, the ply count and who began
    /// (South unless `starter=north`) are read from the state field. A ply count at
    /// `max_plies` ends the game at once (each player takes the pits they control); else a
    /// side to move that controls no non-empty pit is settled at once (rule 4: the opponent
    /// takes the seeds left).
    fn from_setup(&self, setup: &Setup) -> Result<BaAwaPosition, SetupError> {
        if setup.pits.len() != PITS {
            return Err(SetupError::PitCount { found: setup.pits.len(), expected: PITS });
        }
        let found = setup.pits.iter().map(|&n| u32::from(n)).sum::<u32>()
            + u32::from(setup.scores.south)
            + u32::from(setup.scores.north);
        if found != u32::from(TOTAL_SEEDS) {
            return Err(SetupError::SeedCount { found, expected: u32::from(TOTAL_SEEDS) });
        }
        let kept = KeptState { max_plies: Some(self.max_plies), starter: true, ..KeptState::default() };
        setup.check_state(PRESET, kept)?;
        let controllers = setup.controllers.as_ref().ok_or_else(|| SetupError::Invalid {
            reason: "a Ba-awa position needs the controllers of its 12 pits: append '| s s s s s s n n n n n n'"
                .to_string(),
        })?;
        let controllers: &[Player; PITS] = controllers.as_slice().try_into().map_err(|_| SetupError::Invalid {
            reason: format!("{} controllers given, Ba-awa needs one for each of its {PITS} pits", controllers.len()),
        })?;
        let mut pos = BaAwaPosition {
            pits: std::array::from_fn(|i| setup.pits[i]),
            scores: setup.scores,
            north_controls: north_mask(controllers),
            side: setup.side,
            starter: setup.starter,
            plies: setup.plies,
        };
        if pos.plies >= self.max_plies {
            let owners = pos.north_controls;
            pos.sweep(|pit| if owners >> pit & 1 == 1 { Player::North } else { Player::South });
        } else {
            pos.settle_if_stuck();
        }
        Ok(pos)
    }

    fn display(&self, pos: &BaAwaPosition) -> String {
        let cell = |pit: usize| {
            format!("{:>3}{}", pos.pits[pit], if pos.controller(pit) == Player::North { 'n' } else { 's' })
        };
        let label = |pit: usize| format!("{:>3} ", LABELS[pit]);
        let north: Vec<usize> = (ROW..PITS).rev().collect();
        let south: Vec<usize> = (0..ROW).collect();
        let row = |pits: &[usize], f: &dyn Fn(usize) -> String| pits.iter().map(|&p| f(p)).collect::<String>();
        let mut out = String::new();
        out.push_str(&format!("North captured {}\n", pos.scores.north));
        out.push_str(&format!("{}\n", row(&north, &label).trim_end()));
        out.push_str(&format!("{}\n", row(&north, &cell)));
        out.push_str(&format!("{}\n", row(&south, &cell)));
        out.push_str(&format!("{}\n", row(&south, &label).trim_end()));
        out.push_str(&format!("South captured {}\n", pos.scores.south));
        out.push_str("(s/n after a count: the pit's controller)\n");
        match self.status(pos) {
            Status::Ongoing => out.push_str(&format!("{} to move, {} began\n", pos.side, pos.starter)),
            Status::Over(o) => out.push_str(&format!("game over: {o}\n")),
        }
        out
    }
}
