//! Atomic file writes and the FNV-1a-64 hash, now kept in `mancala_container` with the
//! framing of every binary file; re-exported here because the run store names models by
//! `fnv1a64` of their bytes (`crates/train/src/layout.rs`) and other crates reach them
//! through this path.

pub use mancala_container::{atomic_write, fnv1a64};
