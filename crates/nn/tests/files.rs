//! Model files across format versions: the models shipped before the container (Oware and
//! Kalah, kept in `tests/data/*-v1.mzm`) are files of format version 1 and must keep loading;
//! everything new is written as a container.

use std::path::{Path, PathBuf};

use burn::prelude::Device;
use mancala_container::{ContainerError, Kind};
use mancala_encoding::layout_for;
use mancala_mcts::Evaluator;
use mancala_nn::file::{FORMAT_VERSION, LEGACY_MAGIC};
use mancala_nn::{ModelMeta, Net, NeuralEvaluator, NnError, load_model, model_bytes, model_from_bytes, save_model};
use mancala_rules::{AnyGame, Game, Line, parse_rules};

/// Models of format version 1, as the binary embedded them (crates/cli/src/shipped.rs).
const SHIPPED: &[(&str, &[u8])] =
    &[("oware", include_bytes!("data/oware-v1.mzm")), ("kalah", include_bytes!("data/kalah-v1.mzm"))];

fn shipped_path(preset: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{preset}-v1.mzm"))
}

/// Policy and value of a few positions, to compare two loads of one network (encoded with
/// the model's own input encoding version).
fn outputs(game: &AnyGame, meta: &ModelMeta, net: &Net) -> (Vec<f32>, Vec<f32>) {
    let layout = layout_for(game, meta.encoding_version).unwrap();
    let mut ev = NeuralEvaluator::with_layout(game, layout, net.clone(), Device::flex());
    let mut line = Line::new(game.clone());
    let mut positions = vec![*line.position()];
    for label in ["C", "c", "A", "f"] {
        if line.play_label(label).is_ok() {
            positions.push(*line.position());
        }
    }
    let mut p = vec![0.0; positions.len() * game.action_space()];
    let mut v = vec![0.0; positions.len()];
    ev.evaluate(game, &positions, &mut p, &mut v);
    (p, v)
}

#[test]
fn the_shipped_models_are_version_1_files_and_still_load() {
    for (preset, bytes) in SHIPPED {
        assert!(bytes.starts_with(LEGACY_MAGIC), "{preset}: the shipped file is expected in format version 1");
        let game = parse_rules(preset).unwrap();
        let rules = game.rules_string();
        let (meta, net) = model_from_bytes(Path::new(preset), bytes, Some(&rules), &Device::flex()).unwrap();
        assert_eq!(meta.rules, rules);
        // From the file on disk too, with its architecture checked.
        let (from_disk, net2) =
            load_model(&shipped_path(preset), Some(&rules), Some(&meta.net), &Device::flex()).unwrap();
        assert_eq!(from_disk, meta);
        assert_eq!(outputs(&game, &meta, &net), outputs(&game, &meta, &net2), "{preset}");
    }
}

#[test]
fn a_shipped_model_saved_again_is_a_container_with_the_same_network() {
    let dir = tempfile::tempdir().unwrap();
    for (preset, bytes) in SHIPPED {
        let game = parse_rules(preset).unwrap();
        let (meta, net) = model_from_bytes(Path::new(preset), bytes, None, &Device::flex()).unwrap();
        let path = dir.path().join(format!("{preset}.mzm"));
        save_model(&path, &meta, &net).unwrap();
        let written = std::fs::read(&path).unwrap();
        assert!(mancala_container::is_container(&written), "{preset}");
        let framed = mancala_container::decode(&path, &written, Kind::MODEL, &[FORMAT_VERSION]).unwrap();
        assert_eq!(framed.version, 2);
        assert_eq!(written, model_bytes(&meta, &net).unwrap());
        let (meta2, net2) = load_model(&path, Some(&game.rules_string()), Some(&meta.net), &Device::flex()).unwrap();
        assert_eq!(meta2, meta);
        assert_eq!(outputs(&game, &meta, &net), outputs(&game, &meta, &net2), "{preset}");
    }
}

/// A version-1 file damaged anywhere is refused with the container's errors, never a panic
/// and never a network built from bad bytes.
#[test]
fn a_damaged_version_1_file_is_an_error() {
    let (_, bytes) = SHIPPED[1];
    let name = Path::new("checkpoints/shipped/kalah.mzm");
    let load = |b: &[u8]| model_from_bytes(name, b, None, &Device::flex()).map(|_| ());
    let n = bytes.len();
    // Every cut in the header and metadata, then a spread over the weights and the checksum.
    let cuts = (0..600).chain((600..n).step_by(n / 97)).chain(n - 8..n);
    for len in cuts {
        let e = load(&bytes[..len]).unwrap_err();
        assert!(e.to_string().contains("kalah.mzm"), "{len}: {e}");
        let expected =
            matches!(e, NnError::File(ContainerError::Truncated { .. } | ContainerError::NotAContainer { .. }));
        assert!(expected, "cut at {len}: {e}");
    }
    let flips = (0..600).chain((600..n).step_by(n / 97)).chain(n - 8..n);
    for at in flips {
        let mut bad = bytes.to_vec();
        bad[at] ^= 0x24;
        let e = load(&bad).unwrap_err();
        assert!(e.to_string().contains("kalah.mzm"), "{at}: {e}");
    }
    let mut version = bytes.to_vec();
    version[8] = 7;
    let e = load(&version).unwrap_err();
    assert_eq!(
        e.to_string(),
        "checkpoints/shipped/kalah.mzm is a model file of format version 7; this build reads version 1 or 2"
    );
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(matches!(load(&longer), Err(NnError::File(ContainerError::TrailingBytes { .. }))));
}

#[test]
fn a_file_of_another_kind_is_named_as_such() {
    let shard = mancala_container::encode(Kind::SHARD, 2, b"rows");
    let e = model_from_bytes(Path::new("x.mzm"), &shard, None, &Device::flex()).unwrap_err();
    assert_eq!(e.to_string(), "x.mzm is not a model file: it is a self-play shard");
    let meta_only: ModelMeta = model_from_bytes(Path::new("k"), SHIPPED[1].1, None, &Device::flex()).unwrap().0;
    // A container whose metadata length overruns its payload is refused before any JSON is read.
    let mut payload = u32::MAX.to_le_bytes().to_vec();
    payload.extend_from_slice(&serde_json::to_vec(&meta_only).unwrap());
    let bad = mancala_container::encode(Kind::MODEL, FORMAT_VERSION, &payload);
    let e = model_from_bytes(Path::new("y.mzm"), &bad, None, &Device::flex()).unwrap_err();
    assert!(matches!(e, NnError::Metadata { .. }) && e.to_string().contains("y.mzm"), "{e}");
}

#[test]
fn a_model_names_the_margin_weight_it_was_trained_with() {
    let (preset, bytes) = SHIPPED[0];
    let (mut meta, net) = model_from_bytes(Path::new(preset), bytes, None, &Device::flex()).unwrap();
    assert_eq!(meta.margin_utility(), 0.0, "a file that names none: results alone");
    let mut with = |value: &str| {
        meta.extra.insert(mancala_nn::file::MARGIN_UTILITY_KEY.into(), value.into());
        model_from_bytes(Path::new("m.mzm"), &model_bytes(&meta, &net).unwrap(), None, &Device::flex())
    };
    assert_eq!(with("0.1").unwrap().0.margin_utility(), 0.1);
    for bad in ["0.7", "-0.1", "lots", "NaN"] {
        let err = with(bad).err().unwrap_or_else(|| panic!("{bad} accepted")).to_string();
        assert!(err.contains("m.mzm") && err.contains(&format!("margin_utility = '{bad}'")), "{bad}: {err}");
    }
}
