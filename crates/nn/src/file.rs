//! Model files: the network, its config and everything needed to use it, in one file.
//!
//! A model file is a `mancala_container` of kind `MODL`, format version [`FORMAT_VERSION`];
//! the container does the magic, version, length and checksum. Its payload (little-endian),
//! one line a field:
//! - u32 length of the metadata, then the metadata as JSON ([`ModelMeta`]: game rules
//!   string, network config, input encoding version, training step, Elo, framework version);
//! - the weights as a burnpack record: the rest of the payload.
//!
//! Files of format version 1, from before the container, are still read (the shipped models
//! built into the binary are such files): 8 bytes magic `MZMODEL\0`, u32 version 1, u32
//! metadata length, metadata, u64 weights length, weights, u64 FNV-1a-64 checksum of every
//! byte before it. Nothing writes them any more.

use std::collections::BTreeMap;
use std::path::Path;

use burn::module::Module;
use burn::prelude::Device;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use mancala_container::{Builder, Kind, LegacyFormat};
use serde::{Deserialize, Serialize};

use crate::error::NnError;
use crate::model::{Net, NetConfig};
use mancala_encoding::{ENCODING_VERSION, ENCODING_VERSIONS};

/// The format version new model files are written in (1 was the framing before the container).
pub const FORMAT_VERSION: u32 = 2;
/// Every format version this build reads.
pub const SUPPORTED_VERSIONS: [u32; 2] = [LEGACY_VERSION, FORMAT_VERSION];
/// The magic bytes and format version of the model files written before the container.
pub const LEGACY_MAGIC: &[u8; 8] = b"MZMODEL\0";
pub const LEGACY_VERSION: u32 = 1;

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

/// The `extra` key naming the margin weight its run searched with (`search.margin_utility`;
/// see `mancala_mcts::utility`), so that a `net:FILE` agent plays the model as it learned.
pub const MARGIN_UTILITY_KEY: &str = "margin_utility";

impl ModelMeta {
    /// The margin weight the model was trained to search with: 0 for a model that names none
    /// (every model made before the key). A file naming a bad one is refused when read.
    pub fn margin_utility(&self) -> f32 {
        self.extra.get(MARGIN_UTILITY_KEY).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    }

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
    let mut out = Builder::with_capacity(Kind::MODEL, FORMAT_VERSION, 4 + header.len() + weights.len());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&weights);
    Ok(out.finish())
}

/// Writes a model file atomically.
///
/// # Errors
/// [`NnError::File`] (a write error naming the file) or a serialisation error.
pub fn save_model(path: &Path, meta: &ModelMeta, net: &Net) -> Result<(), NnError> {
    let bytes = model_bytes(meta, net)?;
    Ok(mancala_container::write_bytes(path, &bytes)?)
}

/// Reads and checks the metadata and the raw weights of a model file.
///
/// # Errors
/// Every way a file can be wrong: missing, not a model, truncated, corrupt, another format
/// or encoding version.
pub fn read_model_file(path: &Path) -> Result<(ModelMeta, Vec<u8>), NnError> {
    let bytes = mancala_container::read_all(path)?;
    parse_model_bytes(path, &bytes)
}

/// The metadata and weights of a model file's bytes, in either format version.
fn parse_model_bytes(path: &Path, bytes: &[u8]) -> Result<(ModelMeta, Vec<u8>), NnError> {
    let p = || path.to_path_buf();
    let (meta, weights) =
        if bytes.starts_with(LEGACY_MAGIC) { split_legacy(path, bytes)? } else { split_payload(path, bytes)? };
    let bad = |e: serde_json::Error| NnError::Metadata { path: p(), reason: e.to_string() };
    let mut json: serde_json::Value = serde_json::from_slice(meta).map_err(bad)?;
    // Files from before the distributional margin head name no `margin_bins`: theirs is the
    // tanh head (0). burn's config derive wants every field, so the default is filled in here.
    if let Some(net) = json.get_mut("net").and_then(serde_json::Value::as_object_mut) {
        net.entry("margin_bins").or_insert(serde_json::Value::from(0));
    }
    let meta: ModelMeta = serde_json::from_value(json).map_err(bad)?;
    // A model of an older version plays with its own version's layout (`layout_for`).
    if let Some(value) = meta.extra.get(MARGIN_UTILITY_KEY)
        && !value.parse::<f32>().is_ok_and(mancala_mcts::valid_margin_utility)
    {
        return Err(NnError::Metadata {
            path: p(),
            reason: format!("{MARGIN_UTILITY_KEY} = '{value}' is not a number from 0 to 0.5"),
        });
    }
    if !ENCODING_VERSIONS.contains(&meta.encoding_version) {
        return Err(NnError::EncodingVersion { path: p(), found: meta.encoding_version });
    }
    Ok((meta, weights.to_vec()))
}

/// The metadata and weights of a container (format version 2).
fn split_payload<'a>(path: &Path, bytes: &'a [u8]) -> Result<(&'a [u8], &'a [u8]), NnError> {
    let payload = mancala_container::decode(path, bytes, Kind::MODEL, &SUPPORTED_VERSIONS)?.payload;
    // The checksum passed, so a length that does not fit was written that way: corrupt metadata.
    let bad = |reason: String| NnError::Metadata { path: path.to_path_buf(), reason };
    let len = payload.get(..4).ok_or_else(|| bad("the payload is too short for the metadata length".into()))?;
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
    let rest = &payload[4..];
    if len > rest.len() {
        return Err(bad(format!("the metadata length {len} is more than the {} bytes left", rest.len())));
    }
    Ok(rest.split_at(len))
}

/// The metadata and weights of a file of format version 1, from before the container
/// (magic, version, metadata length, metadata, weights length, weights, FNV-1a-64); its
/// errors are the container's, so a caller sees one set.
fn split_legacy<'a>(path: &Path, bytes: &'a [u8]) -> Result<(&'a [u8], &'a [u8]), NnError> {
    const FORMAT: LegacyFormat = LegacyFormat {
        kind: "model",
        supported: &SUPPORTED_VERSIONS,
        lead: 16,
        header: "the metadata",
        body: "the weights",
    };
    let parts = mancala_container::split_legacy(path, bytes, &FORMAT)?;
    Ok((parts.header, parts.body))
}

/// Refuses a network whose declared shape no file of `weights_len` bytes can hold, before
/// anything is allocated for it: every size within the bounds a run's config allows, and the
/// residual blocks' `blocks x width x width` weights (a lower bound of any architecture's)
/// no more than the bytes there are.
fn check_declared(path: &Path, meta: &ModelMeta, weights_len: usize) -> Result<(), NnError> {
    let n = &meta.net;
    let bad = |reason: String| NnError::Metadata { path: path.to_path_buf(), reason };
    for (name, value, min, max) in [
        ("pits", n.pits, 1, 64),
        ("pit_channels", n.pit_channels, 1, 64),
        ("globals", n.globals, 0, 64),
        ("actions", n.actions, 1, mancala_rules::MAX_ACTIONS),
        ("width", n.width, 1, 4096),
        ("blocks", n.blocks, 0, 64),
        ("margin_bins", n.margin_bins, 0, 1025),
    ] {
        if !(min..=max).contains(&value) {
            return Err(bad(format!("the network declares {name} = {value}; {min} to {max} is read")));
        }
    }
    if n.margin_bins == 1 {
        return Err(bad("the network declares margin_bins = 1; 0 (one number) or 2 to 1025 is read".to_string()));
    }
    let least = n.blocks.saturating_mul(n.width).saturating_mul(n.width);
    if least > weights_len {
        return Err(bad(format!(
            "the network declares {} blocks of width {}, at least {least} weights, but the file holds {weights_len} bytes of them",
            n.blocks, n.width
        )));
    }
    Ok(())
}

/// Builds the network of `meta` on `device` and loads `weights` into it.
///
/// # Errors
/// [`NnError::Burn`] when the weights do not fit the architecture.
pub fn net_from_weights(path: &Path, meta: &ModelMeta, weights: Vec<u8>, device: &Device) -> Result<Net, NnError> {
    check_declared(path, meta, weights.len())?;
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights))
        .map_err(|e| NnError::Metadata { path: path.to_path_buf(), reason: format!("weights: {e}") })?;
    // A corrupt record may hold a parameter as integers: cast to the network's float dtype on
    // load, where burn would otherwise panic building the tensor.
    meta.net.init_lazy(device).try_load_record(record.cast_to_module_dtype()).map_err(|e| NnError::Metadata {
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
            found: meta.net.shape(),
            expected: e.shape(),
        });
    }
    let net = net_from_weights(path, &meta, weights, device)?;
    Ok((meta, net))
}
