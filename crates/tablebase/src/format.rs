//! The file format, version 1. All integers little-endian; one line a field:
//!
//! ```text
//! magic       8 bytes  "MZTBASE\0"
//! version     u32      1
//! rules_len   u32      length of the rules string
//! rules       bytes    the game's canonical rules string (UTF-8)
//! pits        u32      pits on the board
//! max_seeds   u32      the largest seed count on the board the file holds
//! slots       u64      number of values = 2 * C(max_seeds + pits, pits)
//! values      slots    one i8 a slot, in index order (see `index`)
//! checksum    u64      FNV-1a 64 of every byte before it
//! ```
//!
//! Reading checks every field against the others and the checksum before any value is used,
//! so a truncated, corrupt or foreign file is refused with the reason.

use std::io::Write;
use std::path::Path;

use crate::Tablebase;
use crate::error::TablebaseError;
use crate::index::Indexer;

pub const MAGIC: &[u8; 8] = b"MZTBASE\0";
pub const VERSION: u32 = 1;

/// FNV-1a, 64 bits: simple, dependency-free and enough to catch corruption (not tampering).
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// The bytes of `tb` in the file format.
pub fn encode(tb: &Tablebase) -> Vec<u8> {
    let rules = tb.rules().as_bytes();
    let mut out = Vec::with_capacity(40 + rules.len() + tb.values().len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    out.extend_from_slice(rules);
    out.extend_from_slice(&(tb.pits() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.max_seeds() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.values().len() as u64).to_le_bytes());
    out.extend(tb.values().iter().map(|&v| v as u8));
    let mut h = Fnv64::default();
    h.update(&out);
    out.extend_from_slice(&h.finish().to_le_bytes());
    out
}

/// A cursor that names the field it could not read.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], TablebaseError> {
        let available = (self.bytes.len() - self.at) as u64;
        if n > available {
            return Err(TablebaseError::Truncated { what, needed: n, available });
        }
        let n = n as usize;
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, TablebaseError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, TablebaseError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("8 bytes")))
    }
}

/// Reads a database from its bytes.
///
/// # Errors
/// [`TablebaseError`] naming the bad magic, version, truncated field, inconsistent header or
/// checksum mismatch.
pub fn decode(bytes: &[u8]) -> Result<Tablebase, TablebaseError> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take(MAGIC.len() as u64, "the magic bytes").map_err(|_| TablebaseError::BadMagic)?;
    if magic != MAGIC {
        return Err(TablebaseError::BadMagic);
    }
    let version = r.u32("the version")?;
    if version != VERSION {
        return Err(TablebaseError::Version { found: version, supported: VERSION });
    }
    let rules_len = r.u32("the rules length")?;
    let rules = std::str::from_utf8(r.take(u64::from(rules_len), "the rules string")?)
        .map_err(|_| TablebaseError::Header { reason: "the rules string is not UTF-8".into() })?
        .to_string();
    let pits = r.u32("the pit count")? as usize;
    let max_seeds = r.u32("the seed limit")? as usize;
    let slots = r.u64("the slot count")?;
    if !(2..=64).contains(&pits) || max_seeds > 127 {
        return Err(TablebaseError::Header {
            reason: format!("{pits} pits and {max_seeds} seeds are outside 2..=64 pits and 0..=127 seeds"),
        });
    }
    let indexer = Indexer::new(pits, max_seeds);
    if slots != indexer.slots() {
        return Err(TablebaseError::Header {
            reason: format!("{slots} values, but {pits} pits and {max_seeds} seeds make {}", indexer.slots()),
        });
    }
    let values = r.take(slots, "the values")?;
    let body_end = r.at;
    let stored = r.u64("the checksum")?;
    if r.at != bytes.len() {
        return Err(TablebaseError::TrailingBytes { extra: (bytes.len() - r.at) as u64 });
    }
    let mut h = Fnv64::default();
    h.update(&bytes[..body_end]);
    if h.finish() != stored {
        return Err(TablebaseError::Checksum { stored, computed: h.finish() });
    }
    let values: Vec<i8> = values.iter().map(|&b| b as i8).collect();
    Ok(Tablebase::from_parts(rules, indexer, values))
}

/// Writes `tb` to `path` through a temporary file renamed into place, so a reader never sees
/// half a database.
///
/// # Errors
/// [`TablebaseError::Write`] with the path.
pub fn write(tb: &Tablebase, path: &Path) -> Result<(), TablebaseError> {
    let err = |source| TablebaseError::Write { path: path.to_path_buf(), source };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut file = std::fs::File::create(&tmp).map_err(err)?;
    file.write_all(&encode(tb)).map_err(err)?;
    file.sync_all().map_err(err)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(err)
}

/// Reads a database file.
///
/// # Errors
/// [`TablebaseError::Read`] for I/O, otherwise as [`decode`].
pub fn read(path: &Path) -> Result<Tablebase, TablebaseError> {
    let bytes = std::fs::read(path).map_err(|source| TablebaseError::Read { path: path.to_path_buf(), source })?;
    decode(&bytes)
}
