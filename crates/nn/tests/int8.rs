//! The int8 evaluator against the FP32 one on the shipped models: thousands of positions
//! from random play of every preset, the same best move in at least 99% of them and values
//! within 0.02 on average; and every int8 path this CPU has gives the same answers.
//!
//! With 12-bit weights and 13-bit activations (12 for Ouril's ring tower; see
//! `mancala_nn::int8`) the models shipped on 2026-12-07 agree on the best move in 99.57%
//! (Owela) to 100% (Kalah) of positions, mean value errors 0.0002 to 0.0008; with 8-bit
//! activations 98.93% (Owela, under the line) to 99.83%. 8-bit weights reached only 94.6%
//! (Owela) to 98.8% (Awale).

use std::path::PathBuf;

use burn::prelude::Device;
use mancala_encoding::layout_for;
use mancala_mcts::Evaluator;
use mancala_nn::int8::Int8Path;
use mancala_nn::{Architecture, NetConfig, NeuralEvaluator, Precision, load_model};
use mancala_rules::{AnyGame, AnyPosition, Game, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

const PRESETS: [&str; 7] = ["oware", "kalah", "awale", "oware-capture-all", "ouril", "ba-awa", "owela"];
/// Positions a preset.
const POSITIONS: usize = 3000;
/// Least share of positions where int8 and FP32 pick the same best move.
const AGREEMENT: f64 = 0.99;
/// Positions a network call, as self-play asks for them.
const BATCH: usize = 48;

fn shipped(preset: &str) -> (AnyGame, NeuralEvaluator<AnyGame>) {
    let game = parse_rules(preset).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../checkpoints/shipped/{preset}.mzm"));
    let (meta, net) = load_model(&path, Some(&game.rules_string()), None, &Device::flex()).unwrap();
    let layout = layout_for(&game, meta.encoding_version).unwrap();
    let ev = NeuralEvaluator::try_with_layout(&game, layout, net, Device::flex()).unwrap();
    (game, ev)
}

/// Ongoing positions from random games, 0 to 79 plies in.
fn random_positions(game: &AnyGame, count: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = game.start();
        for _ in 0..rng.random_range(0..80) {
            let legal = game.legal_moves(&pos);
            let mut next = pos;
            game.play_unchecked(&mut next, legal.nth(rng.random_range(0..legal.len())).unwrap());
            if game.legal_moves(&next).is_empty() {
                break;
            }
            pos = next;
        }
        out.push(pos);
    }
    out
}

fn evaluate(game: &AnyGame, ev: &mut NeuralEvaluator<AnyGame>, positions: &[AnyPosition]) -> (Vec<f32>, Vec<f32>) {
    let a = game.action_space();
    let (mut policy, mut value) = (vec![0.0; positions.len() * a], vec![0.0; positions.len()]);
    for (i, chunk) in positions.chunks(BATCH).enumerate() {
        let at = i * BATCH;
        ev.evaluate(game, chunk, &mut policy[at * a..(at + chunk.len()) * a], &mut value[at..at + chunk.len()]);
    }
    (policy, value)
}

/// The legal move with the highest prior (illegal moves have prior zero).
fn best(game: &AnyGame, pos: &AnyPosition, policy: &[f32]) -> usize {
    game.legal_moves(pos).iter().map(usize::from).max_by(|&x, &y| policy[x].total_cmp(&policy[y])).unwrap()
}

#[test]
fn int8_agrees_with_fp32_on_every_shipped_model() {
    for (seed, preset) in PRESETS.iter().enumerate() {
        let (game, mut fp32) = shipped(preset);
        let (_, int8) = shipped(preset);
        let mut int8 = int8.with_precision(Precision::Int8);
        assert_eq!((fp32.precision(), int8.precision()), (Precision::Fp32, Precision::Int8));
        // The named path or the first the CPU has, except that with AMX a trial picks AMX
        // or AVX-512 VNNI, whichever runs this network faster.
        let path = int8.int8_path().expect("an int8 network has a path");
        if Int8Path::from_env().is_some() || !Int8Path::available().contains(&Int8Path::Amx) {
            assert_eq!(path, Int8Path::best(), "{preset}");
        } else {
            assert!([Int8Path::Vnni, Int8Path::Amx].contains(&path), "{preset}: {path}");
        }
        let positions = random_positions(&game, POSITIONS, seed as u64);
        let (p32, v32) = evaluate(&game, &mut fp32, &positions);
        let (p8, v8) = evaluate(&game, &mut int8, &positions);
        let a = game.action_space();
        let agree = positions
            .iter()
            .enumerate()
            .filter(|&(i, pos)| best(&game, pos, &p32[i * a..][..a]) == best(&game, pos, &p8[i * a..][..a]))
            .count();
        let share = agree as f64 / positions.len() as f64;
        let error = v32.iter().zip(&v8).map(|(x, y)| f64::from((x - y).abs())).sum::<f64>() / positions.len() as f64;
        eprintln!("{preset}: best move agrees {:.2}%, mean value error {error:.4}", share * 100.0);
        assert!(share >= AGREEMENT, "{preset}: int8 picks FP32's best move in only {:.2}% of positions", share * 100.0);
        assert!(error <= 0.02, "{preset}: int8's value is {error:.4} from FP32's on average");
        // The priors are still a distribution over the legal moves.
        for (i, pos) in positions.iter().enumerate().step_by(97) {
            let p = &p8[i * a..][..a];
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{preset}: {p:?}");
            assert!((0..a).all(|m| p[m] == 0.0 || game.legal_moves(pos).contains(m as u8)));
        }
    }
}

#[test]
fn every_int8_path_gives_the_scalar_reference_answers() {
    for preset in ["oware", "owela"] {
        let (game, ev) = shipped(preset);
        let mut ev = ev.with_precision(Precision::Int8);
        // Batches 1 to 9 cover every tile remainder; 64 whole tiles; 75 to 200 AMX's
        // chunks of 128 rows, whole and not, with rows left to VNNI (130) or padded (75).
        let positions = random_positions(&game, 200, 11);
        same_answers_on_every_path(&game, &mut ev, &positions, &[1, 2, 3, 5, 9, 64, 75, 130, 200], preset);
    }
}

/// Checks that every int8 path this CPU has answers `positions[..n]`, for each `n` of
/// `batches`, with the scalar reference's bits; returns those answers.
fn same_answers_on_every_path(
    game: &AnyGame,
    ev: &mut NeuralEvaluator<AnyGame>,
    positions: &[AnyPosition],
    batches: &[usize],
    label: &str,
) -> Vec<(Vec<f32>, Vec<f32>)> {
    let answers = |ev: &mut NeuralEvaluator<AnyGame>| {
        batches.iter().map(|&n| evaluate(game, ev, &positions[..n])).collect::<Vec<_>>()
    };
    assert!(ev.use_int8_path(Int8Path::Scalar));
    let want = answers(ev);
    for path in Int8Path::available().into_iter().filter(|&p| p != Int8Path::Scalar) {
        assert!(ev.use_int8_path(path), "{path}");
        assert_eq!(answers(ev), want, "{label}: the {path} path");
    }
    want
}

#[test]
fn a_convolution_tower_runs_in_int8_on_every_path() {
    let dev = Device::flex();
    for preset in ["oware", "kalah"] {
        let game = parse_rules(preset).unwrap();
        let layout = layout_for(&game, mancala_encoding::ENCODING_VERSION).unwrap();
        let net = NetConfig::for_layout(&layout, game.action_space())
            .with_architecture(Architecture::Conv)
            .with_width(16)
            .init_seeded(&dev, 3);
        let positions = random_positions(&game, 130, 5);
        let mut ev = NeuralEvaluator::try_with_layout(&game, layout, net, dev.clone()).unwrap();
        let (p32, v32) = evaluate(&game, &mut ev, &positions);
        let mut ev = ev.with_precision(Precision::Int8);
        assert_eq!(ev.precision(), Precision::Int8);
        let want = same_answers_on_every_path(&game, &mut ev, &positions, &[1, 9, 64, 130], preset);
        let (p8, v8) = &want[3];
        let value_error = v8.iter().zip(&v32).map(|(a, b)| (a - b).abs()).sum::<f32>() / v32.len() as f32;
        let prior_error = p8.iter().zip(&p32).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(value_error < 0.02 && prior_error < 0.05, "{preset}: value {value_error}, prior {prior_error}");
    }
}

#[test]
fn fp32_stays_the_default_and_auto_follows_the_cpu() {
    let (_, ev) = shipped("kalah");
    assert_eq!(ev.precision(), Precision::Fp32);
    assert_eq!(ev.int8_path(), None);
    let ev = ev.with_precision(Precision::Auto);
    assert_eq!(ev.precision(), Precision::Auto.resolve());
    let ev = ev.with_precision(Precision::Fp32);
    assert_eq!(ev.precision(), Precision::Fp32);
}
