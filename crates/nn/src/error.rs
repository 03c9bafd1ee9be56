//! Errors of the network crate; every message names the file or value at fault.

use std::path::PathBuf;

use mancala_container::ContainerError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum NnError {
    /// Reading or writing the file, or its framing: missing, not a model file, another
    /// format version, truncated, corrupt (the container's errors, each naming the file).
    #[error(transparent)]
    File(#[from] ContainerError),
    #[error(
        "{path} was made with input encoding version {found}; this build reads versions {}",
        mancala_encoding::versions_read()
    )]
    EncodingVersion { path: PathBuf, found: u32 },
    /// A layout asked for an encoding version this build does not have.
    #[error(transparent)]
    Encoding(#[from] mancala_encoding::UnknownEncoding),
    #[error("{path} is a model for '{found}', not for '{expected}'")]
    WrongGame { path: PathBuf, found: String, expected: String },
    #[error("{path} has another network architecture: file {found}, expected {expected}")]
    WrongArchitecture { path: PathBuf, found: String, expected: String },
    #[error("{path}: bad metadata: {reason}")]
    Metadata { path: PathBuf, reason: String },
    /// A network paired with an input encoding of another width: it would misread every
    /// position.
    #[error(
        "{rules}: the network takes {network} inputs, input encoding version {version} has {encoding}; encode a \
         model with its own version's layout"
    )]
    InputsMismatch { rules: String, network: usize, version: u32, encoding: usize },
    #[error("ONNX export: {0}")]
    Export(String),
    #[error("averaging networks: {0}")]
    Average(String),
    #[error("burn: {0}")]
    Burn(String),
    #[error("unknown device '{name}': expected flex{cuda}{wgpu}", cuda = if cfg!(feature = "cuda") { ", cuda" } else { "" }, wgpu = if cfg!(feature = "wgpu") { ", wgpu" } else { "" })]
    UnknownDevice { name: String },
    #[error("device '{name}' needs this program built with the cargo feature '{name}'")]
    DeviceNotBuilt { name: String },
}
