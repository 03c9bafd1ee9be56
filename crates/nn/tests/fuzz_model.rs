//! Fuzzing the model file reader: arbitrary bytes, a real model file with bytes changed, cut
//! or added, its payload changed and framed again (so the checksum passes), and its
//! metadata's fields set to other values. Reading never panics; a model that reads runs a
//! forward pass of the shape it declares.

use std::path::Path;
use std::sync::OnceLock;

use burn::prelude::Device;
use burn::tensor::{Tensor, TensorData};
use mancala_container::Kind;
use mancala_encoding::layout;
use mancala_nn::file::FORMAT_VERSION;
use mancala_nn::{ModelMeta, Net, NetConfig, NnError, model_bytes, model_from_bytes};
use mancala_rules::{Game, parse_rules};
use proptest::prelude::*;

const RULES: &str = "kalah:3,2";

/// A small real model of each architecture: (metadata, file bytes).
fn models() -> &'static [(ModelMeta, Vec<u8>)] {
    static MODELS: OnceLock<Vec<(ModelMeta, Vec<u8>)>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let game = parse_rules(RULES).unwrap();
        let mlp = NetConfig::for_layout(&layout(&game), game.action_space()).with_width(8).with_blocks(1);
        let conv = mlp.clone().with_architecture(mancala_nn::Architecture::Conv).with_margin_bins(5);
        [mlp, conv]
            .into_iter()
            .map(|config| {
                let mut meta = ModelMeta::new(game.rules_string(), config.clone(), 3);
                meta.extra.insert(mancala_nn::file::MARGIN_UTILITY_KEY.into(), "0.25".into());
                let bytes = model_bytes(&meta, &config.init(&Device::flex())).unwrap();
                (meta, bytes)
            })
            .collect()
    })
}

// The byte mutations every fuzz test of a file format shares.
#[path = "../../rules/tests/support/byte_edit.rs"]
mod byte_edit;
use byte_edit::{apply, edit};

fn read(bytes: &[u8]) -> Result<(ModelMeta, Net), NnError> {
    model_from_bytes(Path::new("fuzz.mzm"), bytes, None, &Device::flex())
}

/// A model that reads runs a forward pass of its declared shape.
fn use_it(meta: &ModelMeta, net: &Net) {
    let inputs = meta.net.inputs();
    let x = Tensor::<2>::from_data(TensorData::new(vec![0.5f32; 2 * inputs], [2, inputs]), &Device::flex());
    let out = net.forward(x);
    assert_eq!(out.policy.dims(), [2, meta.net.actions]);
}

/// The payload of a model file, split into its metadata (JSON) and weights.
fn parts(bytes: &[u8]) -> (&[u8], &[u8]) {
    let payload = &bytes[mancala_container::HEADER_LEN..];
    let len = u32::from_le_bytes(payload[..4].try_into().unwrap()) as usize;
    payload[4..].split_at(len)
}

fn framed(meta: &[u8], weights: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    p.extend_from_slice(meta);
    p.extend_from_slice(weights);
    mancala_container::encode(Kind::MODEL, FORMAT_VERSION, &p)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_bytes_are_refused_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert!(read(&bytes).is_err());
    }

    #[test]
    fn a_changed_file_is_refused_or_runs(which in 0..2usize, edits in proptest::collection::vec(edit(), 1..4)) {
        match read(&apply(&models()[which].1, &edits)) {
            Ok((meta, net)) => use_it(&meta, &net),
            Err(e) => prop_assert!(e.to_string().contains("fuzz.mzm"), "{e}"),
        }
    }

    /// The payload is changed and framed again, so the checksum passes.
    #[test]
    fn a_changed_payload_is_refused_or_runs(which in 0..2usize, edits in proptest::collection::vec(edit(), 1..4)) {
        let payload = &models()[which].1[mancala_container::HEADER_LEN..];
        let bytes = mancala_container::encode(Kind::MODEL, FORMAT_VERSION, &apply(payload, &edits));
        if let Ok((meta, net)) = read(&bytes) {
            use_it(&meta, &net);
        }
    }

    /// The weights are changed, the metadata kept: burn's record reader is reached.
    #[test]
    fn changed_weights_are_refused_or_run(which in 0..2usize, edits in proptest::collection::vec(edit(), 1..4)) {
        let (meta, weights) = parts(&models()[which].1);
        if let Ok((meta, net)) = read(&framed(meta, &apply(weights, &edits))) {
            use_it(&meta, &net);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A field of the metadata set to another value, the weights kept: a network that does
    /// not fit its weights, an unknown encoding, a bad margin weight.
    #[test]
    fn a_changed_metadata_field_is_refused_or_runs(
        which in 0..2usize,
        field in prop_oneof![
            Just("pits"), Just("pit_channels"), Just("globals"), Just("actions"), Just("width"), Just("blocks"),
            Just("margin_bins"), Just("architecture"), Just("encoding_version"), Just("rules"), Just("step"), Just("margin_utility"),
        ],
        value in prop_oneof![
            (0..=70u64).prop_map(serde_json::Value::from),
            Just(serde_json::Value::from(-1)),
            Just(serde_json::Value::from(u64::MAX)),
            Just(serde_json::Value::from("Conv")),
            Just(serde_json::Value::from("0.7")),
            Just(serde_json::Value::from("oware")),
            Just(serde_json::Value::Null),
        ],
    ) {
        let (meta, weights) = parts(&models()[which].1);
        let mut json: serde_json::Value = serde_json::from_slice(meta).unwrap();
        match field {
            "rules" | "step" | "encoding_version" => json[field] = value,
            "margin_utility" => json["extra"][mancala_nn::file::MARGIN_UTILITY_KEY] = value,
            _ => json["net"][field] = value,
        }
        if let Ok((meta, net)) = read(&framed(&serde_json::to_vec(&json).unwrap(), weights)) {
            use_it(&meta, &net);
        }
    }
}

#[test]
fn the_unchanged_models_read_and_run() {
    for (meta, bytes) in models() {
        let (read_meta, net) = read(bytes).unwrap();
        assert_eq!(&read_meta, meta);
        use_it(&read_meta, &net);
    }
}

#[test]
fn a_file_declaring_another_network_than_its_weights_is_refused_by_name() {
    let (meta, weights) = parts(&models()[0].1);
    let mut json: serde_json::Value = serde_json::from_slice(meta).unwrap();
    json["net"]["width"] = 9.into();
    let err = read(&framed(&serde_json::to_vec(&json).unwrap(), weights)).expect_err("refused");
    assert!(err.to_string().contains("fuzz.mzm"), "{err}");
}
