//! The file format: a `mancala_container` of kind `TBAS`, format version [`VERSION`]; the
//! container does the magic, version, length and checksum. Its payload (little-endian), one
//! line a field:
//!
//! ```text
//! rules_len   u32      length of the rules string
//! rules       bytes    the game's canonical rules string (UTF-8)
//! pits        u32      pits on the board
//! max_seeds   u32      the largest seed count on the board the file holds
//! slots       u64      number of values = 2 * C(max_seeds + pits, pits)
//! values      slots    one i8 a slot, in index order (see `index`)
//! ```
//!
//! Reading checks the container, then every field against the others, before any value is
//! used, so a truncated, corrupt or foreign file is refused with the reason.
//!
//! Files of format version 1, from before the container (magic `MZTBASE\0`, an FNV-1a-64
//! checksum at the end), are not read: a database is rebuilt in seconds, so reading one is
//! an error that says so and gives the command that rebuilds it, rather than a second reader
//! to keep.

use std::path::Path;

use mancala_container::{Builder, Kind};
use mancala_rules::Game;

use crate::Tablebase;
use crate::error::TablebaseError;
use crate::index::Indexer;

/// The format version written and read (1 was the framing before the container).
pub const VERSION: u32 = 2;
/// The magic bytes of the files written before the container.
pub const LEGACY_MAGIC: &[u8; 8] = b"MZTBASE\0";

/// The bytes of `tb` in the file format.
pub fn encode(tb: &Tablebase) -> Vec<u8> {
    let rules = tb.rules().as_bytes();
    let mut out = Builder::with_capacity(Kind::TABLEBASE, VERSION, 20 + rules.len() + tb.values().len());
    out.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    out.extend_from_slice(rules);
    out.extend_from_slice(&(tb.pits() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.max_seeds() as u32).to_le_bytes());
    out.extend_from_slice(&(tb.values().len() as u64).to_le_bytes());
    out.extend(tb.values().iter().map(|&v| v as u8));
    out.finish()
}

/// A cursor over the payload that names the field it could not read. The payload's
/// checksum has passed by then, so a field that does not fit was written wrong: a header
/// error, not a truncation.
struct Reader<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn header_error(&self, reason: String) -> TablebaseError {
        TablebaseError::Header { path: self.path.to_path_buf(), reason }
    }

    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], TablebaseError> {
        let available = (self.bytes.len() - self.at) as u64;
        if n > available {
            return Err(self.header_error(format!("{what} needs {n} bytes, only {available} are left")));
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

/// Reads a database from its bytes; `name` stands for the file in errors.
///
/// # Errors
/// [`TablebaseError::File`] for the container (not a tablebase, another version, truncated,
/// checksum), [`TablebaseError::OldFormat`] for a file of format version 1,
/// [`TablebaseError::Header`] for fields that disagree.
pub fn decode(name: &Path, bytes: &[u8]) -> Result<Tablebase, TablebaseError> {
    if bytes.starts_with(LEGACY_MAGIC) {
        return Err(TablebaseError::OldFormat { path: name.to_path_buf(), rebuild: rebuild_command(name, bytes) });
    }
    let payload =
        mancala_container::decode(name, bytes, Kind::TABLEBASE, &[VERSION]).map_err(TablebaseError::File)?.payload;
    let mut r = Reader { path: name, bytes: payload, at: 0 };
    let rules_len = r.u32("the rules length")?;
    let rules = std::str::from_utf8(r.take(u64::from(rules_len), "the rules string")?)
        .map_err(|_| r.header_error("the rules string is not UTF-8".into()))?
        .to_string();
    let pits = r.u32("the pit count")? as usize;
    let max_seeds = r.u32("the seed limit")? as usize;
    let slots = r.u64("the slot count")?;
    if !(2..=64).contains(&pits) || max_seeds > 127 {
        return Err(
            r.header_error(format!("{pits} pits and {max_seeds} seeds are outside 2..=64 pits and 0..=127 seeds"))
        );
    }
    let indexer = Indexer::new(pits, max_seeds).ok_or_else(|| {
        r.header_error(format!("{pits} pits and {max_seeds} seeds make more slots than 64 bits count"))
    })?;
    // A probe reads the game's boards through this index: they must have its pit count.
    let game = mancala_rules::parse_rules(&rules)
        .map_err(|e| r.header_error(format!("the rules '{rules}' are not a game of this build: {e}")))?;
    // Databases are written with the canonical rules string, which a model or a game is
    // compared with: any other spelling would read and then be refused as another game.
    if game.rules_string() != rules {
        return Err(r.header_error(format!("the rules '{rules}' are not written as this build writes them")));
    }
    let game_pits = game.pits(&game.start()).len();
    if game_pits != pits {
        return Err(r.header_error(format!("'{rules}' has {game_pits} pits, the header says {pits}")));
    }
    if max_seeds > usize::from(game.total_seeds()) {
        return Err(r.header_error(format!("'{rules}' has {} seeds, the header says {max_seeds}", game.total_seeds())));
    }
    if slots != indexer.slots() {
        return Err(
            r.header_error(format!("{slots} values, but {pits} pits and {max_seeds} seeds make {}", indexer.slots()))
        );
    }
    let values = r.take(slots, "the values")?;
    if r.at != payload.len() {
        return Err(r.header_error(format!("{} bytes after the values", payload.len() - r.at)));
    }
    let values: Vec<i8> = values.iter().map(|&b| b as i8).collect();
    Ok(Tablebase::from_parts(rules, indexer, values))
}

/// The command that rebuilds a file of format version 1, read from its header where it is
/// whole enough (nothing in it is trusted beyond making this suggestion).
fn rebuild_command(name: &Path, bytes: &[u8]) -> String {
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let fields = u32_at(12).and_then(|len| {
        let end = 16usize.checked_add(len as usize)?;
        let rules = std::str::from_utf8(bytes.get(16..end)?).ok()?;
        Some((rules.to_string(), u32_at(end.checked_add(4)?)?))
    });
    let (game, seeds) = match fields {
        Some((rules, seeds)) => (format!("'{rules}'"), seeds.to_string()),
        None => ("RULES".to_string(), "N".to_string()),
    };
    format!("mancala-zero tablebase build --game {game} --seeds {seeds} --out {}", name.display())
}

/// Writes `tb` to `path` atomically (a temporary file renamed into place), so a reader never
/// sees half a database.
///
/// # Errors
/// [`TablebaseError::File`] naming the path.
pub fn write(tb: &Tablebase, path: &Path) -> Result<(), TablebaseError> {
    mancala_container::write_bytes(path, &encode(tb)).map_err(TablebaseError::File)
}

/// Reads a database file.
///
/// # Errors
/// [`TablebaseError::File`] for I/O, otherwise as [`decode`].
pub fn read(path: &Path) -> Result<Tablebase, TablebaseError> {
    let bytes = mancala_container::read_all(path).map_err(TablebaseError::File)?;
    decode(path, &bytes)
}
