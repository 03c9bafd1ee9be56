//! The one place a compute device is chosen, from a name in the config: `flex` (CPU, the
//! default), `cuda` or `wgpu` (GPU backends behind the cargo features of the same names).

use burn::prelude::Device;

use crate::error::NnError;

/// Names a config may use.
pub const DEVICES: &[&str] = &["flex", "cuda", "wgpu"];

/// The inference device for `name`.
///
/// # Errors
/// [`NnError::UnknownDevice`], or [`NnError::DeviceNotBuilt`] for a GPU backend whose
/// feature is off.
pub fn inference_device(name: &str) -> Result<Device, NnError> {
    match name {
        "flex" | "cpu" => Ok(Device::flex()),
        "cuda" => cuda(),
        "wgpu" => wgpu(),
        _ => Err(NnError::UnknownDevice { name: name.to_string() }),
    }
}

/// The training (autodiff) device for `name`.
///
/// # Errors
/// As [`inference_device`].
pub fn training_device(name: &str) -> Result<Device, NnError> {
    inference_device(name).map(Device::autodiff)
}

#[cfg(feature = "cuda")]
fn cuda() -> Result<Device, NnError> {
    Ok(Device::cuda(0))
}

#[cfg(not(feature = "cuda"))]
fn cuda() -> Result<Device, NnError> {
    Err(NnError::DeviceNotBuilt { name: "cuda".into() })
}

#[cfg(feature = "wgpu")]
fn wgpu() -> Result<Device, NnError> {
    Ok(Device::wgpu(burn::tensor::DeviceKind::DiscreteGpu(0)))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu() -> Result<Device, NnError> {
    Err(NnError::DeviceNotBuilt { name: "wgpu".into() })
}
