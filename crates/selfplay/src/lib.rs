//! Parallel self-play for sowing games: many games a worker share batched evaluator calls
//! (gather / evaluate / apply), with root noise, a temperature schedule and playout-cap
//! randomization; game records become training rows, written as compressed, versioned,
//! checksummed shards, and kept in a replay window.

pub mod config;
pub mod feed;
pub mod generator;
pub mod record;
pub mod shard;
pub mod window;

pub use config::{Inference, SelfPlayConfig};
pub use feed::{database_rows, database_rows_with};
pub use generator::{SelfPlayOutput, play_games, play_games_pipelined, play_games_served};
pub use record::{GameRecord, Row};
pub use shard::{ShardError, ShardHeader, parse_shard, read_shard, shard_bytes, write_shard};
pub use window::ReplayWindow;
