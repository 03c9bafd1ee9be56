//! The training loop of mancala-zero: self-play with the current best network, training on
//! a replay window, gating the candidate against the best in arena matches, promotion, Elo
//! against fixed references, TensorBoard and JSON-lines metrics, and a run directory that
//! survives a kill at any instant (`resume`).

pub mod config;
pub mod error;
pub mod metrics;
pub mod rundir;
pub mod trainer;

pub use config::{RunConfig, DEFAULT_CONFIG, SHIPPED};
pub use error::TrainError;
pub use rundir::{default_run_name, BestPointer, RunDir, RunState};
pub use trainer::{resume, start, Quiet, Reporter, Summary};
