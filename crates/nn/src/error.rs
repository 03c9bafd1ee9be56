//! Errors of the network crate; every message names the file or value at fault.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum NnError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a mancala-zero model file (bad magic bytes)")]
    NotAModel { path: PathBuf },
    #[error("{path} is truncated: {what}")]
    Truncated { path: PathBuf, what: String },
    #[error("{path} is corrupt: checksum mismatch")]
    Checksum { path: PathBuf },
    #[error("{path} has format version {found}; this build reads version {expected}")]
    FormatVersion { path: PathBuf, found: u32, expected: u32 },
    #[error("{path} was made with input encoding version {found}; this build uses version {expected}")]
    EncodingVersion { path: PathBuf, found: u32, expected: u32 },
    #[error("{path} is a model for '{found}', not for '{expected}'")]
    WrongGame { path: PathBuf, found: String, expected: String },
    #[error("{path} has another network architecture: file {found}, expected {expected}")]
    WrongArchitecture { path: PathBuf, found: String, expected: String },
    #[error("{path}: bad metadata: {reason}")]
    Metadata { path: PathBuf, reason: String },
    #[error("ONNX export: {0}")]
    Export(String),
    #[error("burn: {0}")]
    Burn(String),
    #[error("unknown device '{name}': expected flex{cuda}{wgpu}", cuda = if cfg!(feature = "cuda") { ", cuda" } else { "" }, wgpu = if cfg!(feature = "wgpu") { ", wgpu" } else { "" })]
    UnknownDevice { name: String },
    #[error("device '{name}' needs this program built with the cargo feature '{name}'")]
    DeviceNotBuilt { name: String },
}
