//! Model files: the network, its config and everything needed to use it, in one file.
//!
//! Layout (all integers little-endian), one line a field:
//! - 8 bytes magic `MZMODEL\0`;
//! - u32 format version ([`FORMAT_VERSION`]);
//! - u32 length of the metadata, then the metadata as JSON ([`ModelMeta`]: game rules
//!   string, network config, input encoding version, training step, Elo, framework version);
//! - u64 length of the weights, then the weights as a burnpack record;
//! - u64 FNV-1a-64 checksum of every byte before it.

use std::collections::BTreeMap;
use std::path::Path;

use burn::module::Module;
use burn::prelude::Device;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use crate::encoding::ENCODING_VERSION;
use crate::error::NnError;
use crate::fsutil::{atomic_write, fnv1a64};
use crate::model::{Net, NetConfig};

pub const MAGIC: &[u8; 8] = b"MZMODEL\0";
pub const FORMAT_VERSION: u32 = 1;

/// What a model file says about its network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelMeta {
    /// Canonical rules string of the game it plays.
    pub rules: String,
    pub net: NetConfig,
    pub encoding_version: u32,
    /// Training steps taken.
    pub step: u64,
    /// Elo against the reference agents, where measured (name -> Elo difference).
    #[serde(default)]
    pub elo: BTreeMap<String, f64>,
    pub framework_version: String,
    /// Anything else worth keeping (run name, iteration, ...).
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

impl ModelMeta {
    pub fn new(rules: String, net: NetConfig, step: u64) -> Self {
        ModelMeta {
            rules,
            net,
            encoding_version: ENCODING_VERSION,
            step,
            elo: BTreeMap::new(),
            framework_version: env!("CARGO_PKG_VERSION").to_string(),
            extra: BTreeMap::new(),
        }
    }
}

/// Serialises a model with its metadata.
///
/// # Errors
/// When burn cannot serialise the weights.
pub fn model_bytes(meta: &ModelMeta, net: &Net) -> Result<Vec<u8>, NnError> {
    let header = serde_json::to_vec(meta).map_err(|e| NnError::Burn(e.to_string()))?;
    let weights = net.clone().into_record().into_bytes().map_err(|e| NnError::Burn(e.to_string()))?;
    let mut out = Vec::with_capacity(32 + header.len() + weights.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    out.extend_from_slice(&weights);
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Writes a model file atomically.
///
/// # Errors
/// [`NnError::Write`] or a serialisation error.
pub fn save_model(path: &Path, meta: &ModelMeta, net: &Net) -> Result<(), NnError> {
    let bytes = model_bytes(meta, net)?;
    atomic_write(path, &bytes).map_err(|source| NnError::Write { path: path.to_path_buf(), source })
}

/// Reads and checks the metadata and the raw weights of a model file.
///
/// # Errors
/// Every way a file can be wrong: missing, not a model, truncated, corrupt, another format
/// or encoding version.
pub fn read_model_file(path: &Path) -> Result<(ModelMeta, Vec<u8>), NnError> {
    let bytes = std::fs::read(path).map_err(|source| NnError::Read { path: path.to_path_buf(), source })?;
    parse_model_bytes(path, &bytes)
}

fn parse_model_bytes(path: &Path, bytes: &[u8]) -> Result<(ModelMeta, Vec<u8>), NnError> {
    let p = || path.to_path_buf();
    let truncated = |what: &str| NnError::Truncated { path: p(), what: what.to_string() };
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(NnError::NotAModel { path: p() });
    }
    if bytes.len() < 16 {
        return Err(truncated("header cut short"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(NnError::FormatVersion { path: p(), found: version, expected: FORMAT_VERSION });
    }
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let header_end = 16usize.checked_add(header_len).ok_or_else(|| truncated("bad metadata length"))?;
    if bytes.len() < header_end + 8 {
        return Err(truncated("metadata cut short"));
    }
    let weights_len = u64::from_le_bytes(bytes[header_end..header_end + 8].try_into().expect("8 bytes")) as usize;
    let weights_start = header_end + 8;
    let weights_end = weights_start.checked_add(weights_len).ok_or_else(|| truncated("bad weights length"))?;
    if bytes.len() < weights_end + 8 {
        return Err(truncated(&format!("weights need {} bytes, file has {}", weights_end + 8, bytes.len())));
    }
    if bytes.len() > weights_end + 8 {
        return Err(NnError::Checksum { path: p() });
    }
    let stored = u64::from_le_bytes(bytes[weights_end..weights_end + 8].try_into().expect("8 bytes"));
    if stored != fnv1a64(&bytes[..weights_end]) {
        return Err(NnError::Checksum { path: p() });
    }
    let meta: ModelMeta = serde_json::from_slice(&bytes[16..header_end])
        .map_err(|e| NnError::Metadata { path: p(), reason: e.to_string() })?;
    if meta.encoding_version != ENCODING_VERSION {
        return Err(NnError::EncodingVersion { path: p(), found: meta.encoding_version, expected: ENCODING_VERSION });
    }
    Ok((meta, bytes[weights_start..weights_end].to_vec()))
}

/// Builds the network of `meta` on `device` and loads `weights` into it.
///
/// # Errors
/// [`NnError::Burn`] when the weights do not fit the architecture.
pub fn net_from_weights(path: &Path, meta: &ModelMeta, weights: Vec<u8>, device: &Device) -> Result<Net, NnError> {
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights))
        .map_err(|e| NnError::Metadata { path: path.to_path_buf(), reason: format!("weights: {e}") })?;
    meta.net.init(device).try_load_record(record).map_err(|e| NnError::Metadata {
        path: path.to_path_buf(),
        reason: format!("weights do not fit the network: {e}"),
    })
}

/// Loads a model from bytes in memory (for example a model built into the binary); `name`
/// stands for the file in error messages.
///
/// # Errors
/// As [`load_model`].
pub fn model_from_bytes(
    name: &Path,
    bytes: &[u8],
    rules: Option<&str>,
    device: &Device,
) -> Result<(ModelMeta, Net), NnError> {
    let (meta, weights) = parse_model_bytes(name, bytes)?;
    if let Some(r) = rules
        && meta.rules != r
    {
        return Err(NnError::WrongGame {
            path: name.to_path_buf(),
            found: meta.rules.clone(),
            expected: r.to_string(),
        });
    }
    let net = net_from_weights(name, &meta, weights, device)?;
    Ok((meta, net))
}

/// Loads a model file, checking that it plays `rules` (a canonical rules string) and, when
/// given, that its network has the `expected` architecture.
///
/// # Errors
/// As [`read_model_file`], plus [`NnError::WrongGame`] and [`NnError::WrongArchitecture`].
pub fn load_model(
    path: &Path,
    rules: Option<&str>,
    expected: Option<&NetConfig>,
    device: &Device,
) -> Result<(ModelMeta, Net), NnError> {
    let (meta, weights) = read_model_file(path)?;
    if let Some(r) = rules
        && meta.rules != r
    {
        return Err(NnError::WrongGame {
            path: path.to_path_buf(),
            found: meta.rules.clone(),
            expected: r.to_string(),
        });
    }
    if let Some(e) = expected
        && &meta.net != e
    {
        return Err(NnError::WrongArchitecture {
            path: path.to_path_buf(),
            found: format!("{:?}", meta.net),
            expected: format!("{e:?}"),
        });
    }
    let net = net_from_weights(path, &meta, weights, device)?;
    Ok((meta, net))
}
