//! One module a subcommand, each with its own `Args` and `run`.

pub mod arena;
pub mod bench;
pub mod engine;
pub mod export;
pub mod plot;
pub mod play;
pub mod serve;
pub mod tablebase;
pub mod status;
pub mod train;
pub mod worker;
