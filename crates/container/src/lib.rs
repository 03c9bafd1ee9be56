//! One container for every binary file mancala-zero writes: model files (`.mzm`), self-play
//! shards (`.shard`) and endgame databases (`.tb`). Each format used to frame and checksum
//! itself; now each only defines its payload, and this crate does the rest once: the framing,
//! the checksum, the atomic write and the checks on reading, with one set of errors that name
//! the file and what is wrong with it.
//!
//! Layout (all integers little-endian), a fixed 32-byte header and then the payload:
//!
//! ```text
//! offset  size  field
//!  0      8     magic "MZCNTNR\0"
//!  8      4     kind tag, ASCII: "MODL" model, "SHRD" self-play shard, "TBAS" tablebase
//! 12      4     u32 format version of the payload (each kind counts its own)
//! 16      8     u64 payload length in bytes
//! 24      4     u32 CRC-32 (IEEE) of the payload
//! 28      4     u32 CRC-32 (IEEE) of bytes 0..28
//! 32      n     the payload
//! ```
//!
//! Why the header has a checksum of its own: a damaged kind, version or length field is then
//! reported as corruption, not as "another kind of file" or "truncated", and a reader never
//! trusts a length it has not checked. Both checksums sit in the header, so the file's length
//! is known from its first 32 bytes and a cut-off file is always "truncated", whatever is
//! missing. CRC-32 catches every single-byte error and every burst up to 32 bits; it guards
//! against a damaged or half-copied file, not against tampering.
//!
//! ```
//! use std::path::Path;
//! use mancala_container::{Kind, decode, encode};
//!
//! let bytes = encode(Kind::SHARD, 2, b"rows");
//! let framed = decode(Path::new("x.shard"), &bytes, Kind::SHARD, &[2]).unwrap();
//! assert_eq!((framed.version, framed.payload), (2, &b"rows"[..]));
//! let err = decode(Path::new("x.shard"), &bytes, Kind::MODEL, &[2]).unwrap_err();
//! assert_eq!(err.to_string(), "x.shard is not a model file: it is a self-play shard");
//! ```

mod error;
mod fnv;
mod frame;
mod fs;
mod legacy;

pub use error::{ContainerError, Versions};
pub use fnv::fnv1a64;
pub use frame::{Builder, Framed, HEADER_LEN, MAGIC, decode, encode, is_container};
pub use fs::{Owned, atomic_write, read_all, read_file, write_bytes, write_file};
pub use legacy::{LegacyFormat, LegacyParts, split_legacy};

/// What a container holds. The tags of every kind live here, in one list, so that two
/// formats can never pick the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    tag: [u8; 4],
    name: &'static str,
}

impl Kind {
    /// A network and its metadata (`crates/nn/src/file.rs`).
    pub const MODEL: Kind = Kind { tag: *b"MODL", name: "model" };
    /// The training rows of a batch of self-play games (`crates/selfplay/src/shard.rs`).
    pub const SHARD: Kind = Kind { tag: *b"SHRD", name: "self-play shard" };
    /// An endgame database (`crates/tablebase/src/format.rs`).
    pub const TABLEBASE: Kind = Kind { tag: *b"TBAS", name: "tablebase" };
    /// Every kind there is.
    pub const ALL: [Kind; 3] = [Kind::MODEL, Kind::SHARD, Kind::TABLEBASE];

    /// The four bytes at offset 8.
    pub fn tag(self) -> [u8; 4] {
        self.tag
    }

    /// What a person calls it, for messages.
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The kind with this tag, if there is one.
    pub fn from_tag(tag: [u8; 4]) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.tag == tag)
    }
}
