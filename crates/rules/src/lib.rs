//! Rules of the sowing games (the mancala family): Oware with its variants (Abapa, Ouril,
//! Awale, grand-slam rules), Kalah, Ba-awa and Owela, as `docs/rules.md` describes them.
//!
//! Every game implements [`Game`]; positions are small `Copy` values and playing a move does
//! not allocate. [`parse_rules`] turns a rules string into an [`AnyGame`].
//!
//! ```
//! use mancala_rules::{parse_rules, Game, Line};
//!
//! let game = parse_rules("oware").unwrap();
//! let mut line = Line::new(game);
//! line.play_label("D").unwrap();
//! assert_eq!(
//!     line.game().to_setup(line.position()).to_string(),
//!     "north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing | plies=1"
//! );
//! ```

pub mod any;
pub mod ba_awa;
pub mod catalogue;
pub mod error;
pub mod game;
pub mod hash;
pub mod kalah;
pub mod line;
pub mod moves;
pub mod options;
pub mod outcome;
pub mod oware;
pub mod owela;
pub mod player;
pub mod setup;
pub mod sowing;

pub use any::{AnyGame, AnyPosition, PRESETS, from_description, parse_rules, parse_rules_text};
pub use error::{IllegalMove, MoveParseError, RulesError, SetupError};
pub use game::{Game, Sowing, passed_by_setup};
pub use line::{Line, PlayError};
pub use moves::{Action, MAX_ACTIONS, MoveMask};
pub use outcome::{Outcome, Status};
pub use player::{ByPlayer, Player};
pub use setup::Setup;
