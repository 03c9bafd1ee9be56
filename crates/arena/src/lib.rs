//! Matches between any agents for sowing games: pairs of games from a shared random opening
//! with colours swapped, run in parallel, scored as wins/draws/losses, a score and an Elo
//! difference with its 95% interval, optionally stopped early by an SPRT; every game is kept
//! as a record that replays.
//!
//! ```
//! use mancala_arena::{play_match, MatchConfig};
//! use mancala_rules::parse_rules;
//!
//! let game = parse_rules("kalah").unwrap();
//! let factory = |spec: &str, seed: u64| mancala_agents::build(&game, spec, seed);
//! let config = MatchConfig { games: 4, ..MatchConfig::default() };
//! let result = play_match(&game, "greedy", "random", &factory, &config, &mut |_| Ok(())).unwrap();
//! assert_eq!(result.games(), 4);
//! assert_eq!(result.records[0].south, "greedy");
//! assert_eq!(result.records[1].south, "random");
//! ```

pub mod calibration;
pub mod elo;
pub mod error;
pub mod matches;
pub mod opening;
pub mod play;
pub mod record;
pub mod table;

pub use calibration::{PhaseBy, PhaseCalibration, value_calibration};
pub use elo::{Sprt, SprtDecision, Wdl, elo_from_score, elo_interval, score_from_elo};
pub use error::ArenaError;
pub use matches::{AgentFactory, MatchConfig, MatchResult, OnGame, Pairs, SprtReport, play_match};
pub use opening::{Opening, openings};
pub use play::play_game;
pub use record::{GameRecord, read_records, write_record};
pub use table::{Table, fit_ratings, round_robin};
