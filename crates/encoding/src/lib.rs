//! What a network sees of a sowing game, apart from the network itself: the input encoding
//! ([`encode`], [`layout`], [`ENCODING_VERSION`]) and the training [`Batch`]. Self-play
//! encodes positions and writes training rows in this form and the trainer reads them;
//! keeping them out of `mancala-nn` lets self-play build without burn.

pub mod batch;
pub mod encoding;

pub use batch::Batch;
pub use encoding::*;
