//! Framing a payload and checking a framed one (the layout is in the crate's docs).

use std::path::Path;

use crate::Kind;
use crate::error::{ContainerError, Versions};

pub const MAGIC: &[u8; 8] = b"MZCNTNR\0";
/// The fixed header before the payload.
pub const HEADER_LEN: usize = 32;
/// The header bytes its own checksum covers.
const HEADER_BODY: usize = 28;

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Builds a container in one buffer: the payload is written straight after a reserved
/// header, so a large payload (a tablebase's values, a model's weights) is never copied.
#[derive(Debug)]
pub struct Builder {
    kind: Kind,
    version: u32,
    bytes: Vec<u8>,
}

impl Builder {
    pub fn new(kind: Kind, version: u32) -> Self {
        Builder::with_capacity(kind, version, 0)
    }

    /// With room for `payload` bytes of payload.
    pub fn with_capacity(kind: Kind, version: u32, payload: usize) -> Self {
        let mut bytes = Vec::with_capacity(HEADER_LEN + payload);
        bytes.resize(HEADER_LEN, 0);
        Builder { kind, version, bytes }
    }

    /// Appends to the payload.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends to the payload.
    pub fn extend(&mut self, bytes: impl IntoIterator<Item = u8>) {
        self.bytes.extend(bytes);
    }

    /// Payload bytes so far.
    pub fn payload_len(&self) -> usize {
        self.bytes.len() - HEADER_LEN
    }

    /// The finished container: fills in the header.
    pub fn finish(self) -> Vec<u8> {
        let Builder { kind, version, mut bytes } = self;
        let payload_crc = crc32fast::hash(&bytes[HEADER_LEN..]);
        let payload_len = (bytes.len() - HEADER_LEN) as u64;
        bytes[0..8].copy_from_slice(MAGIC);
        bytes[8..12].copy_from_slice(&kind.tag());
        bytes[12..16].copy_from_slice(&version.to_le_bytes());
        bytes[16..24].copy_from_slice(&payload_len.to_le_bytes());
        bytes[24..28].copy_from_slice(&payload_crc.to_le_bytes());
        let header_crc = crc32fast::hash(&bytes[..HEADER_BODY]);
        bytes[28..32].copy_from_slice(&header_crc.to_le_bytes());
        bytes
    }
}

impl std::io::Write for Builder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `payload` framed as a container of `kind`, format `version`.
pub fn encode(kind: Kind, version: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = Builder::with_capacity(kind, version, payload.len());
    b.extend_from_slice(payload);
    b.finish()
}

/// Whether `bytes` start with the container's magic bytes (so a reader that also accepts an
/// older format knows which parser to use).
pub fn is_container(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// A checked container: its format version and its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framed<'a> {
    pub kind: Kind,
    pub version: u32,
    pub payload: &'a [u8],
}

/// Checks `bytes` as a container of `kind` whose version is one of `supported`, and returns
/// its payload; `name` stands for the file in errors. Nothing in the payload is looked at
/// before both checksums pass.
///
/// # Errors
/// [`ContainerError`] naming `name` and the first thing wrong, in this order: the magic bytes,
/// a header cut short, the header's checksum, the kind, the version, the length (truncated or
/// trailing bytes), the payload's checksum.
pub fn decode<'a>(name: &Path, bytes: &'a [u8], kind: Kind, supported: &[u32]) -> Result<Framed<'a>, ContainerError> {
    let path = || name.to_path_buf();
    let actual = bytes.len() as u64;
    // A file shorter than the magic that agrees with it as far as it goes was cut short; one
    // that disagrees is something else.
    let prefix = bytes.len().min(MAGIC.len());
    if bytes[..prefix] != MAGIC[..prefix] {
        return Err(ContainerError::NotAContainer { path: path(), expected: kind.name(), magic: "MZCNTNR" });
    }
    if bytes.len() < HEADER_LEN {
        return Err(ContainerError::Truncated {
            path: path(),
            what: "the header",
            expected: HEADER_LEN as u64,
            actual,
        });
    }
    let stored = u32_at(bytes, HEADER_BODY);
    let computed = crc32fast::hash(&bytes[..HEADER_BODY]);
    if stored != computed {
        return Err(ContainerError::Checksum {
            path: path(),
            part: "header",
            stored: stored.into(),
            computed: computed.into(),
        });
    }
    let tag: [u8; 4] = bytes[8..12].try_into().expect("4 bytes");
    if tag != kind.tag() {
        let found = match Kind::from_tag(tag) {
            Some(k) => format!("a {}", k.name()),
            None => format!("a container of an unknown kind '{}'", tag.escape_ascii()),
        };
        return Err(ContainerError::WrongKind { path: path(), expected: kind.name(), found });
    }
    let version = u32_at(bytes, 12);
    if !supported.contains(&version) {
        return Err(ContainerError::UnsupportedVersion {
            path: path(),
            kind: kind.name(),
            found: version,
            supported: Versions(supported.to_vec()),
        });
    }
    let expected = (HEADER_LEN as u64).saturating_add(u64_at(bytes, 16));
    if actual < expected {
        return Err(ContainerError::Truncated { path: path(), what: "the payload", expected, actual });
    }
    if actual > expected {
        return Err(ContainerError::TrailingBytes { path: path(), expected, actual });
    }
    let payload = &bytes[HEADER_LEN..];
    let stored = u32_at(bytes, 24);
    let computed = crc32fast::hash(payload);
    if stored != computed {
        return Err(ContainerError::Checksum {
            path: path(),
            part: "payload",
            stored: stored.into(),
            computed: computed.into(),
        });
    }
    Ok(Framed { kind, version, payload })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;

    fn name() -> &'static Path {
        Path::new("dir/file.bin")
    }

    #[test]
    fn a_container_reads_back_and_the_layout_is_as_documented() {
        let bytes = encode(Kind::MODEL, 7, b"hello");
        assert_eq!(bytes.len(), HEADER_LEN + 5);
        assert_eq!(&bytes[..8], b"MZCNTNR\0");
        assert_eq!(&bytes[8..12], b"MODL");
        assert_eq!(u32_at(&bytes, 12), 7);
        assert_eq!(u64_at(&bytes, 16), 5);
        assert_eq!(u32_at(&bytes, 24), crc32fast::hash(b"hello"));
        assert_eq!(u32_at(&bytes, 28), crc32fast::hash(&bytes[..28]));
        let framed = decode(name(), &bytes, Kind::MODEL, &[6, 7]).unwrap();
        assert_eq!(framed, Framed { kind: Kind::MODEL, version: 7, payload: b"hello" });
        let empty = encode(Kind::TABLEBASE, 1, b"");
        assert_eq!(decode(name(), &empty, Kind::TABLEBASE, &[1]).unwrap().payload, b"");
    }

    #[test]
    fn the_builder_writes_what_encode_writes() {
        use std::io::Write;
        let mut b = Builder::new(Kind::SHARD, 3);
        b.extend_from_slice(b"ab");
        b.extend(*b"cd");
        b.write_all(b"ef").unwrap();
        assert_eq!(b.payload_len(), 6);
        assert_eq!(b.finish(), encode(Kind::SHARD, 3, b"abcdef"));
    }

    #[test]
    fn each_error_says_what_is_wrong_and_names_the_file() {
        let good = encode(Kind::SHARD, 2, b"some rows");
        let err = |bytes: &[u8], kind: Kind| {
            let e = decode(name(), bytes, kind, &[2]).unwrap_err();
            assert!(e.to_string().contains("dir/file.bin"), "{e}");
            assert_eq!(e.path(), name());
            e
        };
        let e = err(b"PK\x03\x04 a zip file", Kind::SHARD);
        assert!(matches!(e, ContainerError::NotAContainer { expected: "self-play shard", .. }), "{e}");
        let e = err(&good, Kind::MODEL);
        assert_eq!(e.to_string(), "dir/file.bin is not a model file: it is a self-play shard");
        let mut unknown = good.clone();
        unknown[8..12].copy_from_slice(b"ABCD");
        let crc = crc32fast::hash(&unknown[..28]);
        unknown[28..32].copy_from_slice(&crc.to_le_bytes());
        let e = err(&unknown, Kind::MODEL);
        assert!(e.to_string().ends_with("an unknown kind 'ABCD'"), "{e}");

        let e = decode(name(), &encode(Kind::SHARD, 9, b""), Kind::SHARD, &[1, 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/file.bin is a self-play shard file of format version 9; this build reads version 1 or 2"
        );

        let e = err(&good[..good.len() - 3], Kind::SHARD);
        assert!(matches!(e, ContainerError::Truncated { expected: 41, actual: 38, .. }), "{e}");
        let e = err(&good[..20], Kind::SHARD);
        assert!(matches!(e, ContainerError::Truncated { expected: 32, actual: 20, .. }), "{e}");
        let e = err(&good[..3], Kind::SHARD);
        assert!(matches!(e, ContainerError::Truncated { .. }), "{e}");
        let e = err(b"", Kind::SHARD);
        assert!(matches!(e, ContainerError::Truncated { .. }), "{e}");
        // A length near u64::MAX, under a valid header checksum, is a cut file, not an overflow.
        let mut huge = good.clone();
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        let crc = crc32fast::hash(&huge[..28]);
        huge[28..32].copy_from_slice(&crc.to_le_bytes());
        let e = err(&huge, Kind::SHARD);
        assert!(matches!(e, ContainerError::Truncated { expected: u64::MAX, actual: 41, .. }), "{e}");
        let mut longer = good.clone();
        longer.extend_from_slice(b"xy");
        let e = err(&longer, Kind::SHARD);
        assert!(matches!(e, ContainerError::TrailingBytes { expected: 41, actual: 43, .. }), "{e}");
        assert!(e.to_string().contains("has 2 bytes after its end"), "{e}");

        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let e = err(&flipped, Kind::SHARD);
        assert!(matches!(e, ContainerError::Checksum { part: "payload", .. }), "{e}");
        let mut flipped = good.clone();
        flipped[13] ^= 1;
        let e = err(&flipped, Kind::SHARD);
        assert!(matches!(e, ContainerError::Checksum { part: "header", .. }), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Cutting a container anywhere short of its end is an error, and never a panic.
        #[test]
        fn any_truncation_is_an_error(payload in proptest::collection::vec(any::<u8>(), 0..200), cut in any::<prop::sample::Index>()) {
            let bytes = encode(Kind::TABLEBASE, 1, &payload);
            let len = cut.index(bytes.len());
            prop_assert!(decode(name(), &bytes[..len], Kind::TABLEBASE, &[1]).is_err());
        }

        /// Changing any one byte of a container to any other value is an error, never a panic.
        #[test]
        fn any_single_byte_corruption_is_an_error(
            payload in proptest::collection::vec(any::<u8>(), 0..200),
            at in any::<prop::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let mut bytes = encode(Kind::MODEL, 2, &payload);
            let at = at.index(bytes.len());
            bytes[at] ^= flip;
            prop_assert!(decode(name(), &bytes, Kind::MODEL, &[2]).is_err(), "byte {} ^ {:#x}", at, flip);
        }

        /// Arbitrary bytes, with or without the magic in front, never make the reader panic.
        #[test]
        fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..80), magic in any::<bool>()) {
            let mut bytes = if magic { MAGIC.to_vec() } else { Vec::new() };
            bytes.extend_from_slice(&tail);
            let _ = decode(name(), &bytes, Kind::SHARD, &[1, 2]);
        }
    }
}
