//! The network crate's behaviour: learning, files, encoding, and play through the search.

use std::path::PathBuf;

use burn::prelude::*;
use mancala_container::ContainerError;
use mancala_encoding::{Batch, ENCODING_VERSION, encode, encode_batch, layout, layout_for};
use mancala_mcts::{Evaluator, Search, SearchConfig};
use mancala_nn::cpu::CpuMlp;
use mancala_nn::file::{FORMAT_VERSION, model_bytes};
use mancala_nn::{
    Architecture, Learner, LrSchedule, ModelMeta, NetConfig, NeuralEvaluator, NnError, OptimConfig, load_model,
    margin_from_head, margin_support, margin_target, save_model,
};
use mancala_rules::{AnyGame, Game, Line, Setup, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn tiny_config(game: &AnyGame, arch: Architecture) -> NetConfig {
    NetConfig::for_layout(&layout(game), game.action_space()).with_architecture(arch).with_width(32).with_blocks(2)
}

/// A game of up to `max_plies - 1` random moves from the start (fewer if it ends).
fn random_line(game: &AnyGame, rng: &mut SmallRng, max_plies: usize) -> Line<AnyGame> {
    let mut line = Line::new(game.clone());
    for _ in 0..rng.random_range(0..max_plies) {
        let legal = line.legal_moves();
        if legal.is_empty() {
            break;
        }
        line.play(legal.nth(rng.random_range(0..legal.len())).unwrap()).unwrap();
    }
    line
}

/// A fixed synthetic dataset: random positions of Kalah with arbitrary but fixed targets.
fn synthetic_batch(game: &AnyGame, n: usize, seed: u64) -> Batch {
    let lay = layout(game);
    let a = game.action_space();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut b = Batch { n, ..Batch::default() };
    let mut feats = vec![0.0; lay.inputs()];
    for _ in 0..n {
        let pos = *random_line(game, &mut rng, 12).position();
        encode(game, &lay, &pos, &mut feats);
        b.inputs.extend_from_slice(&feats);
        let legal = game.legal_moves(&pos);
        let target = legal.nth(rng.random_range(0..legal.len().max(1))).unwrap_or(0);
        for k in 0..a as u8 {
            b.legal.push(if legal.contains(k) || legal.is_empty() { 1.0 } else { 0.0 });
            b.policy.push(if k == target { 1.0 } else { 0.0 });
        }
        let class = rng.random_range(0..3usize);
        for k in 0..3 {
            b.wdl.push(if k == class { 1.0 } else { 0.0 });
        }
        b.margin.push(rng.random_range(-0.5f32..0.5));
    }
    b
}

#[test]
fn training_overfits_a_small_fixed_dataset() {
    let game = parse_rules("kalah").unwrap();
    for arch in [Architecture::Mlp, Architecture::Conv] {
        let batch = synthetic_batch(&game, 64, 3);
        let optim = OptimConfig { learning_rate: 3e-3, warmup_steps: 10, ..OptimConfig::default() };
        let mut learner = Learner::new(tiny_config(&game, arch), optim, Device::flex().autodiff(), 11);
        let first = learner.train_step(&batch);
        let mut last = first;
        for _ in 0..300 {
            last = learner.train_step(&batch);
        }
        assert!(last.total.is_finite());
        assert!(
            last.total < 0.35 * first.total,
            "{arch:?}: loss went from {} to {}, expected a large drop",
            first.total,
            last.total
        );
        assert!(last.policy < 0.3 * first.policy, "{arch:?}: policy loss {} -> {}", first.policy, last.policy);
        assert!(last.value_accuracy > 0.9, "{arch:?}: value accuracy {}", last.value_accuracy);
        assert_eq!(learner.step(), 301);
    }
}

#[test]
fn the_published_model_is_the_moving_average_of_the_weights() {
    use mancala_nn::flat_weights;
    let game = parse_rules("kalah").unwrap();
    let batch = synthetic_batch(&game, 32, 5);
    let mut learner =
        Learner::new(tiny_config(&game, Architecture::Mlp), OptimConfig::default(), Device::flex().autodiff(), 3);
    let plain = Device::flex();
    // No average kept: the published model is the weights.
    learner.train_step(&batch);
    assert_eq!(flat_weights(&learner.published_model(&plain)), flat_weights(learner.model()));
    // The average by hand, beside the learner's: start at the weights, then after each step
    // move by the step's decay ((1 + step) / (10 + step) over the first steps, 1 - 1/steps after).
    learner.keep_average(5, None);
    let mut expected = flat_weights(learner.model());
    let mut decays = Vec::new();
    for _ in 0..40 {
        learner.train_step(&batch);
        let d = learner.average().unwrap().decay(learner.step());
        decays.push(d);
        for (e, w) in expected.iter_mut().zip(flat_weights(learner.model())) {
            *e = d * *e + (1.0 - d) * w;
        }
    }
    assert!((decays[0] - 3.0 / 12.0).abs() < 1e-6, "step 2 follows the weights closely: {}", decays[0]);
    assert!((decays[39] - 0.8).abs() < 1e-6, "from step 35 on, 1 - 1/5: {}", decays[39]);
    let published = flat_weights(&learner.published_model(&plain));
    let own = flat_weights(learner.model());
    assert_eq!(published.len(), expected.len());
    let off = published.iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(off < 1e-5, "the published weights are the average, off by {off}");
    let apart = published.iter().zip(&own).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(apart > 1e-3, "and not the weights themselves ({apart})");
    // It is a network that plays: the average of the weights gives finite outputs.
    let out = learner
        .published_model(&plain)
        .forward(burn::tensor::Tensor::<2>::zeros([1, learner.net_config.inputs()], &plain));
    assert!(out.wdl.into_data().as_slice::<f32>().unwrap().iter().all(|x| x.is_finite()));
    // Over one step the average is the weights.
    learner.keep_average(1, None);
    learner.train_step(&batch);
    assert_eq!(flat_weights(&learner.published_model(&plain)), flat_weights(learner.model()));
}

/// A seed alone decides a network's weights and a learner's first step, while other threads
/// draw networks from burn's one random generator at the same time (tests side by side once
/// gave a learner other weights, and a learning test failed on one machine).
#[test]
fn a_seeded_network_is_the_same_while_other_threads_draw() {
    use mancala_nn::flat_weights;
    use std::sync::atomic::{AtomicBool, Ordering};
    let game = parse_rules("kalah").unwrap();
    let device = Device::flex();
    let config = tiny_config(&game, Architecture::Mlp);
    let alone = flat_weights(&config.init_seeded(&device, 9));
    let batch = synthetic_batch(&game, 16, 4);
    let first_step = || {
        let optim = OptimConfig { warmup_steps: 1, ..OptimConfig::default() };
        Learner::new(config.clone(), optim, device.clone().autodiff(), 9).train_step(&batch).total
    };
    let step_alone = first_step();
    let stop = AtomicBool::new(false);
    let rounds = std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    flat_weights(&tiny_config(&game, Architecture::Conv).init(&device));
                }
            });
        }
        let rounds: Vec<_> = (0..20).map(|_| (flat_weights(&config.init_seeded(&device, 9)), first_step())).collect();
        // The drawing threads end before any assertion can unwind past them.
        stop.store(true, Ordering::Relaxed);
        rounds
    });
    for (round, (weights, step)) in rounds.into_iter().enumerate() {
        assert!(weights == alone, "round {round}: other weights");
        assert_eq!(step, step_alone, "round {round}: another first step");
    }
}

#[test]
fn the_mean_of_networks_is_each_weights_mean() {
    use mancala_nn::{flat_weights, mean_weights};
    let game = parse_rules("ouril").unwrap();
    let device = Device::flex();
    for arch in [Architecture::Mlp, Architecture::Conv] {
        let config = tiny_config(&game, arch);
        let nets: Vec<_> = (0..3).map(|seed| config.init_seeded(&device, seed)).collect();
        let flat: Vec<Vec<f32>> = nets.iter().map(flat_weights).collect();
        assert_ne!(flat[0], flat[1], "{arch:?}: the seeds give different weights");
        let mean = flat_weights(&mean_weights(&nets).unwrap());
        assert_eq!(mean.len(), flat[0].len());
        for (i, m) in mean.iter().enumerate() {
            let want = (flat[0][i] + flat[1][i] + flat[2][i]) / 3.0;
            assert!((m - want).abs() < 1e-6, "{arch:?}: weight {i} is {m}, the mean {want}");
        }
        // One network is its own mean.
        assert_eq!(flat_weights(&mean_weights(&nets[..1]).unwrap()), flat[0]);
    }
    let err = mean_weights(&[]).unwrap_err().to_string();
    assert!(err.contains("no networks"), "{err}");
    let small = tiny_config(&game, Architecture::Mlp).init(&device);
    let wide = tiny_config(&game, Architecture::Mlp).with_width(48).init(&device);
    let err = mean_weights(&[small, wide]).unwrap_err().to_string();
    assert!(err.contains("network 2 has"), "{err}");
}

#[test]
fn learning_rate_schedule_warms_up_then_decays() {
    use mancala_nn::LrSchedule;
    let c = OptimConfig {
        learning_rate: 1.0,
        warmup_steps: 10,
        schedule: LrSchedule::Cosine { total_steps: 110, min_factor: 0.1 },
        ..OptimConfig::default()
    };
    assert!((c.learning_rate_at(0, 0.0) - 0.1).abs() < 1e-9);
    assert!((c.learning_rate_at(9, 0.0) - 1.0).abs() < 1e-9);
    assert!((c.learning_rate_at(10, 0.0) - 1.0).abs() < 1e-9);
    assert!((c.learning_rate_at(60, 0.0) - 0.55).abs() < 1e-6);
    assert!((c.learning_rate_at(110, 0.0) - 0.1).abs() < 1e-9);
    let s =
        OptimConfig { learning_rate: 1.0, warmup_steps: 0, schedule: LrSchedule::Step { every: 5, gamma: 0.5 }, ..c };
    assert_eq!(s.learning_rate_at(4, 0.0), 1.0);
    assert_eq!(s.learning_rate_at(5, 0.0), 0.5);
    assert_eq!(s.learning_rate_at(12, 0.0), 0.25);
    // Step schedules do not read the run's progress.
    assert_eq!(s.learning_rate_at(12, 0.9), 0.25);
}

#[test]
fn run_schedule_follows_the_runs_progress_not_its_steps() {
    use mancala_nn::LrSchedule;
    let c = OptimConfig {
        learning_rate: 1.0,
        warmup_steps: 10,
        schedule: LrSchedule::CosineOverRun { min_factor: 0.1 },
        ..OptimConfig::default()
    };
    // The warm-up is by steps, whatever the progress.
    assert!((c.learning_rate_at(4, 0.5) - 0.5).abs() < 1e-9);
    for step in [10, 1000, 100_000] {
        assert!((c.learning_rate_at(step, 0.0) - 1.0).abs() < 1e-9);
        assert!((c.learning_rate_at(step, 0.5) - 0.55).abs() < 1e-9);
        assert!((c.learning_rate_at(step, 1.0) - 0.1).abs() < 1e-9);
    }
    // Past the limit (a run that overshoots by one candidate) and nonsense stay in range.
    assert!((c.learning_rate_at(50, 1.7) - 0.1).abs() < 1e-9);
    assert!((c.learning_rate_at(50, f64::NAN) - 1.0).abs() < 1e-9);
    let mut last = f64::INFINITY;
    for i in 0..=20 {
        let lr = c.learning_rate_at(50, f64::from(i) / 20.0);
        assert!(lr <= last, "the rate rises at progress {i}/20");
        last = lr;
    }
}

fn outputs(game: &AnyGame, net: &mancala_nn::Net, device: &Device) -> (Vec<f32>, Vec<f32>) {
    let mut ev = NeuralEvaluator::new(game, net.clone(), device.clone());
    let mut line = Line::new(game.clone());
    let mut positions = vec![*line.position()];
    for label in ["C", "c", "A"] {
        if line.play_label(label).is_ok() {
            positions.push(*line.position());
        }
    }
    let a = game.action_space();
    let mut p = vec![0.0; positions.len() * a];
    let mut v = vec![0.0; positions.len()];
    ev.evaluate(game, &positions, &mut p, &mut v);
    (p, v)
}

fn temp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn save_and_load_give_bit_identical_outputs() {
    let game = parse_rules("kalah").unwrap();
    let dev = Device::flex();
    let dir = tempfile::tempdir().unwrap();
    for (arch, bins) in [(Architecture::Mlp, 0), (Architecture::Conv, 0), (Architecture::Mlp, 97)] {
        let config = tiny_config(&game, arch).with_margin_bins(bins);
        let net = config.init_seeded(&dev, 5);
        let meta = ModelMeta::new(game.rules_string(), config.clone(), 42);
        let path = temp_path(&dir, "net.mzm");
        save_model(&path, &meta, &net).unwrap();
        let (meta2, net2) = load_model(&path, Some(&game.rules_string()), Some(&config), &dev).unwrap();
        assert_eq!(meta2, meta);
        let (p1, v1) = outputs(&game, &net, &dev);
        let (p2, v2) = outputs(&game, &net2, &dev);
        assert_eq!(p1, p2);
        assert_eq!(v1, v2);
    }
}

#[test]
fn every_bad_model_file_has_its_error() {
    let game = parse_rules("kalah").unwrap();
    let dev = Device::flex();
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_config(&game, Architecture::Mlp);
    let net = config.init(&dev);
    let meta = ModelMeta::new(game.rules_string(), config.clone(), 1);
    let good = model_bytes(&meta, &net).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = temp_path(&dir, name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let load = |p: &PathBuf| load_model(p, Some(&game.rules_string()), Some(&config), &dev).map(|_| ());

    let missing = temp_path(&dir, "missing.mzm");
    assert!(matches!(load(&missing), Err(NnError::File(ContainerError::Read { .. }))));

    let not_model = write("text.mzm", b"hello, this is not a model at all");
    let e = load(&not_model).unwrap_err();
    assert!(matches!(e, NnError::File(ContainerError::NotAContainer { .. })), "{e}");
    assert!(e.to_string().contains("text.mzm"));

    let truncated = write("cut.mzm", &good[..good.len() / 2]);
    let e = load(&truncated).unwrap_err();
    assert!(matches!(e, NnError::File(ContainerError::Truncated { .. })), "{e}");

    let mut flipped = good.clone();
    let mid = flipped.len() - 100;
    flipped[mid] ^= 0x40;
    let e = load(&write("flip.mzm", &flipped)).unwrap_err();
    assert!(matches!(e, NnError::File(ContainerError::Checksum { .. })), "{e}");

    let version = mancala_container::encode(mancala_container::Kind::MODEL, FORMAT_VERSION + 1, &good[32..]);
    let e = load(&write("version.mzm", &version)).unwrap_err();
    assert!(matches!(e, NnError::File(ContainerError::UnsupportedVersion { .. })), "{e}");

    let mut old = meta.clone();
    old.encoding_version = ENCODING_VERSION + 1;
    let e = load(&write("encoding.mzm", &model_bytes(&old, &net).unwrap())).unwrap_err();
    assert!(matches!(e, NnError::EncodingVersion { found, .. } if found == ENCODING_VERSION + 1), "{e}");
    // The message names the file and the versions this build reads.
    assert!(e.to_string().contains("encoding.mzm") && e.to_string().contains("reads versions 1, 2, 3"), "{e}");

    let other = parse_rules("kalah:6,6").unwrap();
    let mut wrong_game = meta.clone();
    wrong_game.rules = other.rules_string();
    let e = load(&write("game.mzm", &model_bytes(&wrong_game, &net).unwrap())).unwrap_err();
    assert!(matches!(e, NnError::WrongGame { .. }), "{e}");
    assert!(e.to_string().contains("seeds=6"));

    let wide = config.clone().with_width(48);
    let e = load_model(&write("ok.mzm", &good), None, Some(&wide), &dev).unwrap_err();
    assert!(matches!(e, NnError::WrongArchitecture { .. }), "{e}");

    // metadata that claims another architecture than the weights hold
    let mut lying = meta.clone();
    lying.net = wide;
    let e = load_model(&write("lying.mzm", &model_bytes(&lying, &net).unwrap()), None, None, &dev).unwrap_err();
    assert!(matches!(e, NnError::Metadata { .. }), "{e}");

    assert!(load(&write("good.mzm", &good)).is_ok());
}

fn features(rules: &str, line: &str) -> Vec<f32> {
    let game = parse_rules(rules).unwrap();
    let setup: Setup = line.parse().unwrap();
    let pos = game.from_setup(&setup).unwrap();
    // Version 2: the seeds and the globals; version 3's sowing channels, which sit between
    // them, are tested from both sides in `encoding_sowing.rs`.
    let lay = layout_for(&game, 2).unwrap();
    let mut out = vec![-1.0; lay.inputs()];
    encode(&game, &lay, &pos, &mut out);
    out
}

#[test]
fn encoding_is_from_the_movers_side() {
    // Kalah(6,4): 48 seeds, 12 pits: a count is scaled by 12/48 = 0.25.
    let south = features("kalah", "south | 13 15 | 1 0 2 0 0 4 8 0 0 0 4 1 | ongoing");
    assert_eq!(south, vec![0.25, 0.0, 0.5, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.25, 13.0 / 48.0, 15.0 / 48.0]);
    // North to move: North's pits come first and North's store is "own".
    let north = features("kalah", "north | 13 15 | 1 0 2 0 0 4 8 0 0 0 4 1 | ongoing");
    assert_eq!(north, vec![2.0, 0.0, 0.0, 0.0, 1.0, 0.25, 0.25, 0.0, 0.5, 0.0, 0.0, 1.0, 15.0 / 48.0, 13.0 / 48.0]);
    // Ba-awa adds who controls each pit, from the mover's side.
    let ba = features("ba-awa", "north | 8 4 | 4 4 4 4 4 0 0 4 4 4 4 0 | ongoing | s s s s s n n n n n n s");
    assert_eq!(ba.len(), 12 * 2 + 4);
    assert_eq!(&ba[..12], &[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]);
    assert_eq!(&ba[12..24], &[1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    // Then (version 2) whether the mover began (South did) and the plies left (far: 1.0).
    assert_eq!(&ba[24..], &[4.0 / 48.0, 8.0 / 48.0, 0.0, 1.0]);
}

#[test]
fn the_network_plays_legal_moves_in_every_game() {
    let dev = Device::flex();
    for rules in ["oware", "ouril", "awale", "oware-capture-all", "kalah", "kalah:6,6", "ba-awa", "owela"] {
        let game = parse_rules(rules).unwrap();
        for arch in [Architecture::Mlp, Architecture::Conv] {
            let net = tiny_config(&game, arch).init_seeded(&dev, 1);
            let mut ev = NeuralEvaluator::new(&game, net, dev.clone()).cached(10);
            let config = SearchConfig { simulations: 24, leaves_per_gather: 4, ..SearchConfig::default() };
            let mut search = Search::new(game.clone(), config, 3);
            let mut line = Line::new(game.clone());
            for _ in 0..40 {
                if line.status().is_over() {
                    break;
                }
                search.set_root_line(&line);
                search.run(&mut ev);
                let a = search.select_action(0.0).unwrap();
                assert!(line.legal_moves().contains(a), "{rules} {arch:?}: illegal {a}");
                line.play(a).unwrap();
            }
            assert!(!line.is_empty(), "{rules}");
        }
    }
}

/// The plain-Rust CPU kernel against burn's forward pass on the same weights: every game,
/// an MLP width that needs column padding (40) and the default one, ring convolutions whose
/// flattened width does or does not need it (8 and 20 channels over 12, 14 or 16 pits), batch
/// sizes that leave every remainder of the kernel's row groups, and every instruction set
/// this CPU has.
#[test]
fn cpu_kernel_agrees_with_burn() {
    let dev = Device::flex();
    for rules in ["oware", "kalah", "ba-awa", "owela"] {
        let game = parse_rules(rules).unwrap();
        let lay = layout(&game);
        let a = game.action_space();
        let positions = random_positions(&game, 37, 5);
        let shapes =
            [(Architecture::Mlp, 40), (Architecture::Mlp, 128), (Architecture::Conv, 8), (Architecture::Conv, 20)];
        for (arch, width) in shapes {
            let net = NetConfig::for_layout(&lay, a)
                .with_architecture(arch)
                .with_width(width)
                .with_blocks(3)
                .init_seeded(&dev, 7);
            let heads = net.heads().fused();
            let mut cpu = CpuMlp::new(&net, &heads).expect("every architecture has a CPU kernel");
            assert_eq!(cpu.outputs(), a + 4);
            let sets = CpuMlp::instruction_sets();
            assert_eq!(sets.last(), Some(&"scalar"));
            // The widest set, unless the variable that picks one names a set this CPU has.
            let named = std::env::var(mancala_nn::cpu::KERNEL_VARIABLE).ok();
            let chosen = named.as_deref().and_then(|n| sets.iter().find(|&&s| s == n)).unwrap_or(&sets[0]);
            assert_eq!(cpu.instruction_set(), *chosen);
            assert!(!cpu.use_instruction_set("no-such-set"));
            for (set, n) in sets.iter().flat_map(|s| [1, 2, 3, 4, 5, 8, 9, 37].map(|n| (s, n))) {
                assert!(cpu.use_instruction_set(set));
                let mut inputs = Vec::new();
                encode_batch(&game, &lay, &positions[..n], &mut inputs);
                let out = net.forward(Tensor::<2>::from_data(TensorData::new(inputs.clone(), [n, lay.inputs()]), &dev));
                let policy = out.policy.into_data().try_to_vec::<f32>().unwrap();
                let wdl = out.wdl.into_data().try_to_vec::<f32>().unwrap();
                // The margin head ends in tanh; the fused layer gives it before.
                let margin: Vec<f32> =
                    out.margin.into_data().try_to_vec::<f32>().unwrap().iter().map(|m| m.atanh()).collect();
                let stride = cpu.row_stride();
                let got = cpu.forward(&inputs, n);
                for i in 0..n {
                    let row = &got[i * stride..i * stride + a + 4];
                    let want =
                        policy[i * a..(i + 1) * a].iter().chain(&wdl[i * 3..(i + 1) * 3]).chain(&margin[i..i + 1]);
                    for (j, (x, y)) in row.iter().zip(want).enumerate() {
                        assert!(
                            (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
                            "{rules} {arch:?} {set} width {width} batch {n} row {i} output {j}: {x} vs {y}"
                        );
                    }
                }
            }
        }
    }
}

/// A convolution tower runs as dense layers of channels times pits; past 4096 of them (342
/// channels over Oware's 12 pits) that form would be too large, and burn runs it.
#[test]
fn a_very_wide_convolution_tower_stays_in_burn() {
    let dev = Device::flex();
    let game = parse_rules("oware").unwrap();
    let config = NetConfig::for_layout(&layout(&game), game.action_space()).with_architecture(Architecture::Conv);
    for (channels, kernel) in [(341, true), (342, false)] {
        let net = config.clone().with_width(channels).with_blocks(1).init(&dev);
        assert_eq!(CpuMlp::new(&net, &net.heads().fused()).is_some(), kernel, "{channels} channels");
    }
    // Past 256 wide the dense form leaves small batches to burn, which is faster for them.
    for (channels, small_batches) in [(16, true), (32, false)] {
        let net = config.clone().with_width(channels).with_blocks(1).init(&dev);
        let cpu = CpuMlp::new(&net, &net.heads().fused()).unwrap();
        assert_eq!((cpu.takes(1), cpu.takes(7), cpu.takes(8)), (small_batches, small_batches, true), "{channels}");
    }
}

fn random_positions(game: &AnyGame, n: usize, seed: u64) -> Vec<<AnyGame as Game>::Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut positions = Vec::new();
    while positions.len() < n {
        let line = random_line(game, &mut rng, 30);
        if !line.legal_moves().is_empty() {
            positions.push(*line.position());
        }
    }
    positions
}

/// A batch through the evaluator gives each position what it gets alone: priors only on
/// legal moves summing to one, and the same value.
#[test]
fn evaluator_batch_agrees_with_single_positions() {
    let dev = Device::flex();
    for rules in ["oware", "kalah", "ba-awa", "owela"] {
        let game = parse_rules(rules).unwrap();
        let net = NetConfig::for_layout(&layout(&game), game.action_space()).init_seeded(&dev, 11);
        let positions = random_positions(&game, 40, 3);
        let a = game.action_space();
        let mut ev = NeuralEvaluator::new(&game, net, dev.clone());
        let (mut p_all, mut v_all) = (vec![0.0; positions.len() * a], vec![0.0; positions.len()]);
        ev.evaluate(&game, &positions, &mut p_all, &mut v_all);
        for (i, pos) in positions.iter().enumerate() {
            let (mut p, mut v) = (vec![0.0; a], [0.0]);
            ev.evaluate(&game, std::slice::from_ref(pos), &mut p, &mut v);
            assert!((v[0] - v_all[i]).abs() < 1e-4, "{rules}: value {} vs {}", v[0], v_all[i]);
            for (x, y) in p.iter().zip(&p_all[i * a..(i + 1) * a]) {
                assert!((x - y).abs() < 1e-4, "{rules}: prior {x} vs {y}");
            }
            let legal = game.legal_moves(pos);
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!(p.iter().enumerate().all(|(m, &q)| q == 0.0 || legal.contains(m as u8)));
        }
    }
}

#[test]
fn a_margin_utility_blends_the_margin_head_into_the_value() {
    let dev = Device::flex();
    let game = parse_rules("oware").unwrap();
    let lay = layout(&game);
    let a = game.action_space();
    let positions = random_positions(&game, 9, 3);
    // The tanh head, and a distribution of one bin a seed (Oware's 48 seeds).
    for bins in [0, 97] {
        let net =
            NetConfig::for_layout(&lay, a).with_width(40).with_blocks(2).with_margin_bins(bins).init_seeded(&dev, 11);
        let mut inputs = Vec::new();
        encode_batch(&game, &lay, &positions, &mut inputs);
        let out = net.forward(Tensor::<2>::from_data(TensorData::new(inputs, [9, lay.inputs()]), &dev));
        let wdl = out.wdl.into_data().try_to_vec::<f32>().unwrap();
        let margin = out.margin.into_data().try_to_vec::<f32>().unwrap();
        // Both paths: the plain-Rust kernel, and burn (the scalar kernel leaves 9 rows to burn).
        for kernel in [None, Some("scalar")] {
            for weight in [0.0f32, 0.1, 0.5] {
                let mut eval = NeuralEvaluator::new(&game, net.clone(), dev.clone()).with_margin_utility(weight);
                if let Some(set) = kernel {
                    assert!(eval.use_cpu_kernel(set));
                }
                let (mut policies, mut values) = (vec![0.0; 9 * a], vec![0.0; 9]);
                eval.evaluate(&game, &positions, &mut policies, &mut values);
                for i in 0..9 {
                    let w = &wdl[i * 3..i * 3 + 3];
                    let m = w[0].max(w[1]).max(w[2]);
                    let e: Vec<f32> = w.iter().map(|x| (x - m).exp()).collect();
                    let result = (e[0] - e[2]) / (e[0] + e[1] + e[2]);
                    let want = (1.0 - weight) * result + weight * margin[i];
                    assert!(
                        (values[i] - want).abs() < 1e-4,
                        "{kernel:?} weight {weight} row {i}: {} vs {want}",
                        values[i]
                    );
                }
            }
        }
    }
}

/// A distributional margin head's target puts the margin between its two neighbouring bins
/// with their mean at the margin (one bin where the margin is one), and the head read back
/// from logits of that target gives the margin again.
#[test]
fn a_margin_target_splits_between_neighbouring_bins() {
    for bins in [2usize, 9, 97] {
        let support = margin_support(bins);
        assert_eq!(support.len(), bins);
        assert_eq!((support[0], support[bins - 1]), (-1.0, 1.0));
        let mut target = vec![0.0; bins];
        for t in [-1.0f32, -0.73, -0.5, -1.0 / 48.0, 0.0, 0.01, 0.5, 0.999, 1.0, 3.0, -7.0] {
            margin_target(t, bins, &mut target);
            let clamped = t.clamp(-1.0, 1.0);
            assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{bins} bins, {t}");
            let mean: f32 = target.iter().zip(&support).map(|(p, m)| p * m).sum();
            assert!((mean - clamped).abs() < 1e-5, "{bins} bins, {t}: mean {mean}");
            let used: Vec<usize> = (0..bins).filter(|&k| target[k] > 0.0).collect();
            assert!(used.len() <= 2 && used.windows(2).all(|w| w[1] == w[0] + 1), "{bins} bins, {t}: {used:?}");
            // Where the margin falls on a bin, that bin alone.
            if let Some(k) = support.iter().position(|m| (m - clamped).abs() < 1e-6) {
                assert_eq!(target[k], 1.0, "{bins} bins, {t}");
            }
            let logits: Vec<f32> = target.iter().map(|p| (p + 1e-9).ln()).collect();
            assert!((margin_from_head(&logits) - clamped).abs() < 1e-4, "{bins} bins, {t}");
        }
    }
    // One seed of Oware's 48 is one bin of 97.
    let mut target = vec![0.0; 97];
    margin_target(5.0 / 48.0, 97, &mut target);
    assert_eq!(target[48 + 5], 1.0);
    // The tanh head's one column.
    assert!((margin_from_head(&[0.3]) - 0.3f32.tanh()).abs() < 1e-7);
}

/// A distributional margin head learns a fixed dataset's margins (by cross-entropy) as the
/// tanh head does (by squared error): its mean ends near every target.
#[test]
fn a_distributional_margin_head_learns_the_margins() {
    let game = parse_rules("kalah").unwrap();
    let batch = synthetic_batch(&game, 64, 3);
    // The rate decays to 2% over the steps taken, so the network settles where it ends.
    let steps = 800;
    for bins in [0usize, 21] {
        let optim = OptimConfig {
            learning_rate: 3e-3,
            warmup_steps: 10,
            schedule: LrSchedule::Cosine { total_steps: steps, min_factor: 0.02 },
            ..OptimConfig::default()
        };
        let config = tiny_config(&game, Architecture::Mlp).with_margin_bins(bins);
        let mut learner = Learner::new(config, optim, Device::flex().autodiff(), 11);
        let first = learner.train_step(&batch);
        for _ in 0..steps {
            learner.train_step(&batch);
        }
        let dev = Device::flex();
        let net = learner.inference_model(&dev);
        let out = net.forward(Tensor::<2>::from_data(
            TensorData::new(batch.inputs.clone(), [64, batch.inputs.len() / 64]),
            &dev,
        ));
        assert_eq!(out.margin_logits.is_some(), bins > 0);
        let margin = out.margin.into_data().try_to_vec::<f32>().unwrap();
        let error = margin.iter().zip(&batch.margin).map(|(m, t)| (m - t).abs()).sum::<f32>() / 64.0;
        assert!(error < 0.05, "{bins} bins: mean error {error} (first step's squared error {})", first.margin);
    }
}
