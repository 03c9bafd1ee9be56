//! What a network sees of a sowing game, apart from the network itself: the training
//! [`Batch`] (and the input encoding). Self-play writes training rows in this form and the
//! trainer reads them; keeping it out of `mancala-nn` lets self-play build without burn.

pub mod batch;

pub use batch::Batch;
