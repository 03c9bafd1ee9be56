//! The Oware and Kalah models shipped before input encoding version 2 (kept as test data in
//! `tests/data/*-v1.mzm` since newer models replaced them in `checkpoints/shipped/`) still
//! load, are encoded with version 1's layout, and evaluate every position exactly as before
//! version 2 existed (the values below were recorded with the version-1-only build).

use std::path::PathBuf;

use burn::prelude::Device;
use mancala_encoding::{ENCODING_VERSION, layout_for};
use mancala_mcts::Evaluator;
use mancala_nn::{NeuralEvaluator, NnError, load_model};
use mancala_rules::{AnyGame, Game, Setup, parse_rules};

/// (preset, position line, value, policy) recorded with the shipped models before encoding
/// version 2: positions of seeded random games.
const RECORDED: &[(&str, &str, f32, [f32; 6])] = &[
    (
        "oware",
        "north | 0 0 | 5 1 0 6 6 6 5 5 5 4 0 5 | ongoing",
        -0.09069185,
        [0.09935913, 0.20931526, 0.2289467, 0.3474754, 0.0, 0.11490343],
    ),
    (
        "oware",
        "north | 23 5 | 2 0 2 0 1 2 1 1 6 1 4 0 | ongoing",
        -0.9896761,
        [0.20121373, 0.1968751, 0.19332932, 0.19995764, 0.20862426, 0.0],
    ),
    (
        "oware",
        "south | 0 0 | 6 0 6 5 5 1 0 6 6 6 1 6 | ongoing",
        0.13281976,
        [0.061832372, 0.0, 0.1697842, 0.30538243, 0.112643935, 0.3503571],
    ),
    (
        "oware",
        "north | 0 3 | 9 1 5 1 3 0 1 10 10 3 1 1 | ongoing",
        -0.0038027423,
        [0.24036393, 0.123888165, 0.14290854, 0.19942687, 0.13835782, 0.15505464],
    ),
    (
        "oware",
        "south | 2 3 | 3 13 2 6 1 6 7 0 2 2 1 0 | ongoing",
        -0.05081388,
        [0.13030998, 0.17616303, 0.16277727, 0.19188245, 0.2682323, 0.070634924],
    ),
    (
        "oware",
        "north | 5 11 | 1 4 3 6 1 0 3 2 1 7 1 3 | ongoing",
        0.7329295,
        [0.2403433, 0.23513456, 0.13446882, 0.11311324, 0.14617239, 0.13076764],
    ),
    (
        "oware",
        "south | 5 3 | 1 2 2 0 2 15 2 0 2 2 12 0 | ongoing",
        0.12790656,
        [0.46265444, 0.18626745, 0.15730983, 0.0, 0.08663745, 0.10713082],
    ),
    (
        "oware",
        "north | 0 0 | 0 2 11 1 1 10 2 3 2 1 11 4 | ongoing",
        0.034349244,
        [0.15083885, 0.14216585, 0.22224084, 0.30185673, 0.071365595, 0.11153215],
    ),
    (
        "kalah",
        "north | 1 1 | 5 1 0 6 6 6 5 4 4 4 0 5 | ongoing",
        0.25511718,
        [0.10017326, 0.13119934, 0.54191774, 0.10575176, 0.0, 0.12095789],
    ),
    (
        "kalah",
        "south | 0 2 | 0 2 7 6 6 6 4 0 1 6 6 2 | ongoing",
        -0.43440714,
        [0.0, 0.058402773, 0.51531976, 0.20585516, 0.17849542, 0.041926913],
    ),
    (
        "kalah",
        "north | 13 17 | 1 0 0 0 5 2 0 1 0 8 0 1 | ongoing",
        0.8685481,
        [0.0, 0.049376294, 0.0, 0.092207216, 0.0, 0.8584165],
    ),
    (
        "kalah",
        "south | 9 30 | 1 1 1 2 1 0 1 0 0 1 1 0 | ongoing",
        -0.9999999,
        [0.17597927, 0.20695944, 0.22173227, 0.18558545, 0.20974362, 0.0],
    ),
    (
        "kalah",
        "south | 8 14 | 1 3 4 4 0 7 0 0 4 3 0 0 | ongoing",
        -0.22877927,
        [0.12203213, 0.09625965, 0.1347185, 0.43466732, 0.0, 0.2123224],
    ),
    (
        "kalah",
        "south | 10 7 | 1 0 0 9 0 3 0 0 5 0 4 9 | ongoing",
        -0.46452808,
        [0.17237477, 0.0, 0.0, 0.4469794, 0.0, 0.38064584],
    ),
    (
        "kalah",
        "north | 11 17 | 2 0 3 0 1 1 0 2 4 0 1 6 | ongoing",
        0.93409115,
        [0.0, 0.17850292, 0.32568997, 0.0, 0.07562094, 0.4201862],
    ),
    (
        "kalah",
        "south | 1 3 | 6 2 6 0 6 6 5 0 5 0 6 2 | ongoing",
        0.5418942,
        [0.7319539, 0.035452172, 0.13094738, 0.0, 0.044184934, 0.057461638],
    ),
];

fn shipped(preset: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{preset}-v1.mzm"))
}

/// The version-1 model for `preset`, with an evaluator on its own version's layout.
fn evaluator(preset: &str) -> (AnyGame, NeuralEvaluator<AnyGame>) {
    let game = parse_rules(preset).unwrap();
    let (meta, net) = load_model(&shipped(preset), Some(&game.rules_string()), None, &Device::flex()).unwrap();
    assert_eq!(meta.encoding_version, 1, "{preset}: the old shipped model is of version 1");
    let layout = layout_for(&game, meta.encoding_version).unwrap();
    assert_eq!((layout.version, layout.globals), (1, 2));
    (game.clone(), NeuralEvaluator::with_layout(&game, layout, net, Device::flex()))
}

fn evaluate(game: &AnyGame, ev: &mut NeuralEvaluator<AnyGame>, lines: &[String]) -> (Vec<f32>, Vec<f32>) {
    let positions: Vec<_> = lines.iter().map(|l| game.from_setup(&l.parse::<Setup>().unwrap()).unwrap()).collect();
    let a = game.action_space();
    let (mut policy, mut value) = (vec![0.0; positions.len() * a], vec![0.0; positions.len()]);
    ev.evaluate(game, &positions, &mut policy, &mut value);
    (policy, value)
}

#[test]
fn shipped_models_evaluate_as_before_version_2() {
    assert_eq!(ENCODING_VERSION, 3, "new models are version 3; the old ones stay version 1");
    for preset in ["oware", "kalah"] {
        let (game, mut ev) = evaluator(preset);
        let cases: Vec<_> = RECORDED.iter().filter(|(p, ..)| *p == preset).collect();
        assert_eq!(cases.len(), 8);
        let lines: Vec<String> = cases.iter().map(|(_, l, ..)| l.to_string()).collect();
        let (policy, value) = evaluate(&game, &mut ev, &lines);
        for (i, (_, line, v, p)) in cases.iter().enumerate() {
            assert!((value[i] - v).abs() < 1e-5, "{preset} {line}: value {} (was {v})", value[i]);
            for (k, want) in p.iter().enumerate() {
                let got = policy[i * 6 + k];
                assert!((got - want).abs() < 1e-5, "{preset} {line}: policy[{k}] {got} (was {want})");
            }
        }
    }
}

#[test]
fn version_1_does_not_see_the_ply_count() {
    // The state a version-1 model was never shown leaves its answers alone, even near the end.
    let (game, mut ev) = evaluator("oware");
    let board = "north | 0 0 | 5 1 0 6 6 6 5 5 5 4 0 5 | ongoing";
    let lines = [board.to_string(), format!("{board} | plies=990")];
    let (policy, value) = evaluate(&game, &mut ev, &lines);
    assert_eq!(value[0], value[1]);
    assert_eq!(policy[..6], policy[6..]);
}

/// Pairs the model file's network with this build's layout, which it was not made for.
fn refusal(path: &std::path::Path) -> NnError {
    let game = parse_rules("oware").unwrap();
    let (_, net) = load_model(path, None, None, &Device::flex()).unwrap();
    match NeuralEvaluator::try_new(&game, net, Device::flex()) {
        Ok(_) => panic!("{}: an evaluator on the wrong layout", path.display()),
        Err(e) => e,
    }
}

#[test]
fn a_version_1_model_with_the_version_3_layout_is_refused() {
    let err = refusal(&shipped("oware"));
    assert!(matches!(err, NnError::InputsMismatch { network: 14, version: 3, encoding: 27, .. }), "{err:?}");
    assert!(err.to_string().contains("the network takes 14 inputs, input encoding version 3 has 27"), "{err}");
}

/// The Oware model shipped with input encoding version 2 (before the sowing channels).
fn version_2_model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oware-v2.mzm")
}

#[test]
fn a_version_2_model_still_plays_with_its_own_layout() {
    let game = parse_rules("oware").unwrap();
    let (meta, net) = load_model(&version_2_model(), Some(&game.rules_string()), None, &Device::flex()).unwrap();
    assert_eq!(meta.encoding_version, 2);
    let layout = layout_for(&game, 2).unwrap();
    assert_eq!((layout.pit_channels, layout.inputs()), (1, 15));
    let mut ev = NeuralEvaluator::with_layout(&game, layout, net, Device::flex());
    let lines = [OWARE_LINE.to_string(), format!("{OWARE_LINE} | plies=990")];
    let (policy, value) = evaluate(&game, &mut ev, &lines);
    for i in 0..2 {
        let p = &policy[i * 6..(i + 1) * 6];
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{p:?}");
        assert!(value[i].abs() <= 1.0);
    }
    // Version 2 sees the ply count, version 1 did not.
    assert_ne!(value[0], value[1]);
}

#[test]
fn a_version_2_model_with_the_version_3_layout_is_refused() {
    let err = refusal(&version_2_model());
    assert!(matches!(err, NnError::InputsMismatch { network: 15, version: 3, encoding: 27, .. }), "{err:?}");
    assert!(err.to_string().contains("the network takes 15 inputs, input encoding version 3 has 27"), "{err}");
}

const OWARE_LINE: &str = "north | 0 0 | 5 1 0 6 6 6 5 5 5 4 0 5 | ongoing";
