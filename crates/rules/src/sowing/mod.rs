//! Any sowing game as data: a [`Description`] (a TOML document in the literature's terms,
//! docs/rules.md "Describing a game") and one engine, [`Described`], that plays it.
//!
//! ```
//! use mancala_rules::sowing::{Described, Description};
//! use mancala_rules::Game;
//!
//! let text = r#"
//! format = 1
//! name = "my-kalah"
//! [board]
//! houses = 4
//! seeds = 3
//! stores = true
//! [sowing]
//! extra_turn = true
//! [capture]
//! cross = "occupied"
//! [end]
//! empty_row = true
//! "#;
//! let game = Described::new(Description::from_toml(text).unwrap()).unwrap();
//! let pos = game.start();
//! let (pos, _) = game.play(&pos, 1).unwrap(); // South sows B: C, D, the store
//! assert_eq!(game.pits(&pos), &[3, 0, 4, 4, 3, 3, 3, 3]);
//! assert_eq!(game.side_to_move(&pos), mancala_rules::Player::South); // an extra turn
//! ```
//!
//! The seven presets are descriptions too ([`preset_description`]); a description equal to
//! a preset is played by the preset's hand-written engine ([`crate::parse_rules`] picks it),
//! which is faster and plays the same moves.

mod description;
mod engine;
mod presets;
mod trace;

pub use description::{
    BoardDesc, CaptureDesc, CaptureFrom, CaptureOn, Cross, CrossFrom, CrossSeed, CycleDesc, Description, Direction,
    EmptyRowTo, EndDesc, FORMAT, GrandSlam, MAX_PITS, MAX_RELAY_LIMIT, MAX_SEEDS, MoveDesc, NoMove, Origin, Rules,
    SPECIALS, Score, Singletons, SowFrom, SowingDesc, SowingTo,
};
pub use engine::{Described, DescribedPosition};
pub use presets::{fast_path, preset_description};
pub use trace::{Step, Trace};
