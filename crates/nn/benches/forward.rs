//! Network speed on the flex CPU backend: the default network's forward pass (input tensor,
//! forward, outputs read back) at batch 1, 32 and 256 on Oware positions, the plain-Rust CPU
//! kernel's forward pass at the same batches, one training step at batch 256, and the
//! encoder itself on positions of random games (versions 2 and 3, to price the sowing
//! channels against the forward pass they feed), and the int8 tower's products alone on each
//! int8 path this CPU has (128 inputs by 128 outputs, the default blocks' layers, at 1, 6 and
//! 32 rows: one tile of AVX2's rows, and a batch). Runs in a
//! one-thread rayon pool (burn-flex sizes its parallel work by the calling thread's pool), so
//! the figures are per core.

use std::hint::black_box;
use std::time::Duration;

use burn::prelude::*;
use criterion::{Criterion, Throughput, criterion_group};
use mancala_encoding::{Batch, encode, layout, layout_for};
use mancala_nn::cpu::CpuMlp;
use mancala_nn::int8::{Int8Path, PackedWeights, activation_levels, gemm};
use mancala_nn::{Learner, NetConfig, OptimConfig};
use mancala_rules::{AnyGame, Game, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Positions along random games of `game`, `n` of them.
fn random_positions(game: &AnyGame, n: usize) -> Vec<<AnyGame as Game>::Position> {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut out = Vec::with_capacity(n);
    let mut pos = game.start();
    while out.len() < n {
        if game.status(&pos).is_over() {
            pos = game.start();
            continue;
        }
        out.push(pos);
        let moves: Vec<u8> = game.legal_moves(&pos).iter().collect();
        game.play_unchecked(&mut pos, moves[rng.random_range(0..moves.len())]);
    }
    out
}

fn encoder(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    for rules in ["oware", "kalah", "owela"] {
        let game = parse_rules(rules).expect("a preset");
        let positions = random_positions(&game, 256);
        group.throughput(Throughput::Elements(positions.len() as u64));
        for version in [2, 3] {
            let lay = layout_for(&game, version).expect("a version this build reads");
            let mut row = vec![0.0; lay.inputs()];
            group.bench_function(format!("{rules}_v{version}"), |b| {
                b.iter(|| {
                    for pos in &positions {
                        encode(&game, &lay, pos, &mut row);
                    }
                    black_box(row[0])
                })
            });
        }
    }
    group.finish();
}

fn network(c: &mut Criterion) {
    let game = parse_rules("oware").expect("a preset");
    let lay = layout(&game);
    let actions = game.action_space();
    let net_config = NetConfig::for_layout(&lay, actions);
    let mut learner = Learner::new(net_config, OptimConfig::default(), Device::flex().autodiff(), 1);
    let device = Device::flex();
    let model = learner.inference_model(&device);

    // Rows from a short game, repeated: the forward pass costs the same whatever the seeds.
    let mut rows = Vec::new();
    let mut pos = game.start();
    let mut row = vec![0.0; lay.inputs()];
    for _ in 0..256 {
        encode(&game, &lay, &pos, &mut row);
        rows.push(row.clone());
        let legal = game.legal_moves(&pos);
        game.play_unchecked(&mut pos, legal.nth(0).expect("ongoing"));
        if game.status(&pos).is_over() {
            pos = game.start();
        }
    }

    let mut group = c.benchmark_group("forward");
    for n in [1usize, 32, 256] {
        let input: Vec<f32> = rows[..n].concat();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("batch_{n}"), |b| {
            b.iter(|| {
                let x = Tensor::<2>::from_data(TensorData::new(input.clone(), [n, lay.inputs()]), &device);
                let out = model.forward(x);
                black_box((out.policy.into_data(), out.wdl.into_data()))
            })
        });
    }
    group.finish();

    // The same network through the plain-Rust kernel that the evaluator runs on the CPU.
    let heads = model.heads().fused();
    let mut cpu = CpuMlp::new(&model, &heads).expect("the default network is an MLP");
    let mut group = c.benchmark_group(format!("cpu_kernel_{}", cpu.instruction_set()));
    for n in [1usize, 32, 256] {
        let input: Vec<f32> = rows[..n].concat();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("batch_{n}"), |b| b.iter(|| black_box(cpu.forward(&input, n)[0])));
    }
    group.finish();

    let n = 256;
    let batch = Batch {
        n,
        inputs: rows.concat(),
        legal: vec![1.0; n * actions],
        policy: vec![1.0 / actions as f32; n * actions],
        wdl: (0..n)
            .flat_map(|i| [(i % 3 == 0) as u8 as f32, (i % 3 == 1) as u8 as f32, (i % 3 == 2) as u8 as f32])
            .collect(),
        margin: vec![0.0; n],
    };
    c.bench_function("train_step/batch_256", |b| b.iter(|| black_box(learner.train_step(&batch))));
}

/// The int8 products (`mancala_nn::int8::gemm`) of one 128 by 128 layer, as multiply-adds a
/// second, on every path this CPU has: where the int8 tower spends most of its time.
fn int8_products(c: &mut Criterion) {
    let (k, cols) = (128usize, 128usize);
    let mut rng = SmallRng::seed_from_u64(5);
    let w: Vec<i16> = (0..k * cols).map(|_| rng.random_range(-2047..=2047i16)).collect();
    let packed = PackedWeights::new(&w, k, cols);
    let top = activation_levels(k);
    let mut group = c.benchmark_group("int8_products_128x128");
    for path in Int8Path::available() {
        for rows in [1usize, 6, 32] {
            let q: Vec<u32> =
                (0..rows * k / 2).map(|_| rng.random_range(0..=top) | (rng.random_range(0..=top) << 16)).collect();
            let mut acc = vec![0i32; rows * cols];
            group.throughput(Throughput::Elements((rows * k * cols) as u64));
            group.bench_function(format!("{path}/rows_{rows}"), |b| {
                b.iter(|| {
                    gemm(path, black_box(&q), rows, &packed, &mut acc);
                    black_box(acc[0])
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = network, encoder, int8_products
}
/// `criterion_main!` with the benchmarks run inside a one-thread pool: burn-flex sizes its
/// parallel work by the pool of the calling thread, and inside the pool every operation runs
/// inline on it.
fn main() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    pool.install(|| {
        benches();
        Criterion::default().configure_from_args().final_summary();
    });
}
