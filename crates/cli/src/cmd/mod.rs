//! One module a subcommand, each with its own `Args` and `run`.

pub mod arena;
pub mod bench;
pub mod engine;
pub mod export;
pub mod play;
pub mod plot;
pub mod serve;
pub mod status;
pub mod tablebase;
pub mod train;
pub mod worker;
