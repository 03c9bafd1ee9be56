//! Containers on disk: atomic writes and checked reads.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Kind;
use crate::error::ContainerError;
use crate::frame::{HEADER_LEN, decode, encode};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, written,
/// synced, renamed over `path`, then the directory synced. A process killed at any instant
/// leaves the old file or the new one, never half a file, and once this returns the new file
/// survives a power cut.
///
/// # Errors
/// Any I/O error of creating, writing, syncing or renaming; the temporary file is removed.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Unique in the process as well as across processes: two threads may write one path.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}-{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir)
}

/// The rename is durable only once the directory's entry is on disk.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Other systems cannot open a directory as a file; their rename is as durable as it gets.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Writes already framed bytes (from [`crate::encode`] or [`crate::Builder`]) atomically.
///
/// # Errors
/// [`ContainerError::Write`] naming the file.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), ContainerError> {
    atomic_write(path, bytes).map_err(|source| ContainerError::Write { path: path.to_path_buf(), source })
}

/// Frames `payload` and writes it atomically.
///
/// # Errors
/// [`ContainerError::Write`] naming the file.
pub fn write_file(path: &Path, kind: Kind, version: u32, payload: &[u8]) -> Result<(), ContainerError> {
    write_bytes(path, &encode(kind, version, payload))
}

/// Every byte of a file, with an error that names it.
///
/// # Errors
/// [`ContainerError::Read`].
pub fn read_all(path: &Path) -> Result<Vec<u8>, ContainerError> {
    fs::read(path).map_err(|source| ContainerError::Read { path: path.to_path_buf(), source })
}

/// A checked container read from a file: the file's bytes and where the payload is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owned {
    pub path: PathBuf,
    pub kind: Kind,
    pub version: u32,
    bytes: Vec<u8>,
}

impl Owned {
    pub fn payload(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..]
    }

    /// The payload, owned (one copy).
    pub fn into_payload(mut self) -> Vec<u8> {
        self.bytes.drain(..HEADER_LEN);
        self.bytes
    }
}

/// Reads and checks a container file of `kind` whose version is one of `supported`.
///
/// # Errors
/// [`ContainerError::Read`], or as [`decode`].
pub fn read_file(path: &Path, kind: Kind, supported: &[u32]) -> Result<Owned, ContainerError> {
    let bytes = read_all(path)?;
    let version = decode(path, &bytes, kind, supported)?.version;
    Ok(Owned { path: path.to_path_buf(), kind, version, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_reads_back_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.tb");
        write_file(&path, Kind::TABLEBASE, 2, b"values").unwrap();
        // Overwriting replaces the file whole.
        write_file(&path, Kind::TABLEBASE, 2, b"other values").unwrap();
        let owned = read_file(&path, Kind::TABLEBASE, &[2]).unwrap();
        assert_eq!((owned.version, owned.payload()), (2, &b"other values"[..]));
        assert_eq!(owned.into_payload(), b"other values");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["a.tb"]);
    }

    #[test]
    fn reading_or_writing_a_bad_path_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.mzm");
        let e = read_file(&missing, Kind::MODEL, &[2]).unwrap_err();
        assert!(matches!(e, ContainerError::Read { .. }) && e.to_string().contains("missing.mzm"), "{e}");
        let nowhere = dir.path().join("no-such-dir").join("x.shard");
        let e = write_file(&nowhere, Kind::SHARD, 2, b"").unwrap_err();
        assert!(matches!(e, ContainerError::Write { .. }) && e.to_string().contains("x.shard"), "{e}");
    }

    #[test]
    fn a_failed_write_removes_its_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails after the temporary file is written.
        let target = dir.path().join("taken");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), b"x").unwrap();
        assert!(atomic_write(&target, b"bytes").is_err());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["taken"]);
    }
}
