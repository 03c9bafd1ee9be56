//! Why a container cannot be read or written; every message names the file.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

/// The format versions a reader supports, for messages: `2`, `1 or 2`, `1, 2 or 3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versions(pub Vec<u32>);

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => write!(f, "none"),
            [only] => write!(f, "{only}"),
            [init @ .., last] => {
                let init: Vec<String> = init.iter().map(u32::to_string).collect();
                write!(f, "{} or {last}", init.join(", "))
            }
        }
    }
}

#[derive(Debug, Error)]
pub enum ContainerError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    /// The file does not start with the container's magic bytes (nor, where the reader knows
    /// one, with an older format's).
    #[error("{path} is not a mancala-zero {expected} file (it does not start with the magic bytes {magic})")]
    NotAContainer { path: PathBuf, expected: &'static str, magic: &'static str },
    /// A container, but of another kind (a shard where a model was asked for, ...).
    #[error("{path} is not a {expected} file: it is {found}")]
    WrongKind { path: PathBuf, expected: &'static str, found: String },
    #[error("{path} is a {kind} file of format version {found}; this build reads version {supported}")]
    UnsupportedVersion { path: PathBuf, kind: &'static str, found: u32, supported: Versions },
    #[error("{path} is truncated: {what} needs {expected} bytes, the file has {actual}")]
    Truncated { path: PathBuf, what: &'static str, expected: u64, actual: u64 },
    #[error("{path} has {} bytes after its end (the header says {expected} bytes, the file has {actual})", actual - expected)]
    TrailingBytes { path: PathBuf, expected: u64, actual: u64 },
    #[error("{path} is corrupt: checksum mismatch in the {part} (stored {stored:#x}, computed {computed:#x})")]
    Checksum { path: PathBuf, part: &'static str, stored: u64, computed: u64 },
}

impl ContainerError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ContainerError::Read { path, .. }
            | ContainerError::Write { path, .. }
            | ContainerError::NotAContainer { path, .. }
            | ContainerError::WrongKind { path, .. }
            | ContainerError::UnsupportedVersion { path, .. }
            | ContainerError::Truncated { path, .. }
            | ContainerError::TrailingBytes { path, .. }
            | ContainerError::Checksum { path, .. } => path,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Versions;

    #[test]
    fn versions_read_as_a_list() {
        assert_eq!(Versions(vec![]).to_string(), "none");
        assert_eq!(Versions(vec![2]).to_string(), "2");
        assert_eq!(Versions(vec![1, 2]).to_string(), "1 or 2");
        assert_eq!(Versions(vec![1, 2, 3]).to_string(), "1, 2 or 3");
    }
}
