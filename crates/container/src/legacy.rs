//! Version 1 of the model and shard files, from before the container: each had its own
//! magic, then `u32` version 1, the format's own fixed fields ending with a `u32` header
//! length, the header, a `u64` body length, the body and an FNV-1a-64 of everything before
//! it. Both formats still read it (shipped models and resumed replay windows); the checks
//! and their errors, the container's own, are shared here.

use std::path::Path;

use crate::error::{ContainerError, Versions};
use crate::fnv::fnv1a64;

/// The parts of a version-1 file.
pub struct LegacyParts<'a> {
    /// The first `lead` bytes: magic, version and the format's fixed fields.
    pub lead: &'a [u8],
    pub header: &'a [u8],
    pub body: &'a [u8],
}

/// What a version-1 file is to its errors: the kind named in a version refusal, the
/// versions its reader supports, and the names of its header and body in a truncation.
pub struct LegacyFormat {
    pub kind: &'static str,
    pub supported: &'static [u32],
    /// Bytes before the header; the last four are the header's length.
    pub lead: usize,
    pub header: &'static str,
    pub body: &'static str,
}

/// Splits a version-1 file (its magic already checked by the caller).
///
/// # Errors
/// [`ContainerError`]: truncated, another version, trailing bytes, checksum.
pub fn split_legacy<'a>(
    path: &Path,
    bytes: &'a [u8],
    format: &LegacyFormat,
) -> Result<LegacyParts<'a>, ContainerError> {
    let p = || path.to_path_buf();
    let actual = bytes.len() as u64;
    let truncated =
        |what, expected: usize| ContainerError::Truncated { path: p(), what, expected: expected as u64, actual };
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let lead = format.lead;
    if bytes.len() < lead {
        return Err(truncated("the header", lead));
    }
    let version = u32_at(8);
    if version != 1 {
        let supported = Versions(format.supported.to_vec());
        return Err(ContainerError::UnsupportedVersion { path: p(), kind: format.kind, found: version, supported });
    }
    let header_end = lead.saturating_add(u32_at(lead - 4) as usize);
    let body_start = header_end.saturating_add(8);
    if bytes.len() < body_start {
        return Err(truncated(format.header, body_start));
    }
    // Saturating: a damaged length near u64::MAX is "truncated", not an overflow.
    let end = usize::try_from(u64_at(header_end)).unwrap_or(usize::MAX).saturating_add(body_start);
    let total = end.saturating_add(8);
    if bytes.len() < total {
        return Err(truncated(format.body, total));
    }
    if bytes.len() > total {
        return Err(ContainerError::TrailingBytes { path: p(), expected: total as u64, actual });
    }
    let (stored, computed) = (u64_at(end), fnv1a64(&bytes[..end]));
    if stored != computed {
        return Err(ContainerError::Checksum { path: p(), part: "file", stored, computed });
    }
    Ok(LegacyParts { lead: &bytes[..lead], header: &bytes[lead..header_end], body: &bytes[body_start..end] })
}
