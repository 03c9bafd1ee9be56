//! ONNX export of a network (cargo feature `onnx`), through burn-onnx's exporter, so a
//! trained model can run in any ONNX runtime.
//!
//! The graph has one input and three outputs, with a symbolic batch axis (a fixed batch of
//! one for the conv tower, see [`onnx_bytes`]):
//! - input `[batch, inputs]`: the features of [`crate::encoding`] (the version is in the
//!   sidecar metadata the export command writes);
//! - outputs, in this order: policy logits `[batch, actions]` (mask illegal moves, then
//!   softmax), win/draw/loss logits `[batch, 3]` for the player to move, and the predicted
//!   final seed margin `[batch, 1]` as a share of the total seeds, in [-1, 1].
//!
//! A network with a distributional margin head (`NetConfig::margin_bins`) is refused.
//!
//! The exporter names graph values itself; read them from the model (onnxruntime's
//! `get_inputs()` / `get_outputs()`), in the order above.

use burn::prelude::*;
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};

use crate::error::NnError;
use crate::model::Net;

/// The ONNX model of `net`, whose input has `inputs` features a position, and the batch size
/// it is fixed to, if any.
///
/// The batch axis is kept free where the exporter can (the MLP). The conv tower slices its
/// input and pads the ring with slices, and burn-onnx 0.22 refuses any slice of a tensor whose
/// batch axis is free, so that graph is exported for one position a call (`Some(1)`).
///
/// # Errors
/// [`NnError::Export`] when burn-onnx cannot lower an operation of the network.
pub fn onnx_bytes(net: &Net, inputs: usize) -> Result<(Vec<u8>, Option<usize>), NnError> {
    // The distributional margin head's mean (a softmax times a constant support) has not been
    // checked through the exporter, so such a model is refused rather than exported untested.
    let bins = net.heads().margin_columns();
    if bins > 1 {
        return Err(NnError::Export(format!(
            "the network's margin head is a distribution over {bins} bins (network.margin_bins); ONNX export \
             takes the tanh margin head only"
        )));
    }
    let device = Device::flex();
    let forward = |net: &Net, x: Tensor<2>| {
        let out = net.forward(x);
        (out.policy, out.wdl, out.margin)
    };
    // Two traces with different batch sizes let the exporter tell the batch axis apart from
    // the fixed feature axis.
    let sample = Tensor::<2>::ones([2, inputs], &device);
    let validation = Tensor::<2>::ones([3, inputs], &device);
    let specs = [InputSpec::new([AxisSpec::dynamic("batch"), AxisSpec::Static])];
    match OnnxExporter::new().export_dynamic(net, sample, validation, &specs, forward) {
        Ok(model) => Ok((model.into_bytes(), None)),
        Err(dynamic) => {
            let one = Tensor::<2>::ones([1, inputs], &device);
            let model = OnnxExporter::new()
                .export(net, one, forward)
                .map_err(|e| NnError::Export(format!("{e} (with a free batch axis: {dynamic})")))?;
            Ok((model.into_bytes(), Some(1)))
        }
    }
}
