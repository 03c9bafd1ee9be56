//! Self-play output, shard files and the replay window.

use std::path::Path;

use mancala_container::{ContainerError, Kind};
use mancala_mcts::{SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, Game, Line, parse_rules};
use mancala_selfplay::{
    ReplayWindow, Row, SelfPlayConfig, ShardError, ShardHeader, play_games, read_shard, shard_bytes, write_shard,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn config(threads: usize) -> SelfPlayConfig {
    SelfPlayConfig {
        games_per_iteration: 6,
        games_per_shard: 6,
        threads,
        parallel_games: 3,
        simulations: 16,
        fast_simulations: 4,
        full_search_share: 0.5,
        temperature_plies: 6,
        temperature: 1.0,
        leaves_per_gather: 2,
        ..SelfPlayConfig::default()
    }
}

fn play(game: &AnyGame, threads: usize, seed: u64) -> mancala_selfplay::SelfPlayOutput {
    let search = SearchConfig { dirichlet_noise: true, ..SearchConfig::default() };
    play_games(
        game,
        &config(threads),
        &search,
        None,
        6,
        seed,
        |_| UniformEvaluator,
        &|_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
}

#[test]
fn games_are_legal_and_rows_carry_their_targets() {
    for rules in ["kalah", "oware", "ba-awa", "owela"] {
        let game = parse_rules(rules).unwrap();
        let out = play(&game, 2, 5);
        assert_eq!(out.games.len(), 6, "{rules}");
        let total = f32::from(game.total_seeds());
        for g in &out.games {
            // Replaying the labels gives a finished game with the recorded result.
            let mut line = Line::new(game.clone());
            for m in &g.moves {
                line.play_label(m).unwrap_or_else(|e| panic!("{rules}: {e}"));
            }
            assert_eq!(line.status().to_string(), g.result, "{rules}");
            let outcome = line.status().outcome().unwrap();
            for r in &g.rows {
                let s: f32 = r.policy.iter().sum();
                assert!((s - 1.0).abs() < 1e-4, "{rules}: policy sums to {s}");
                for (a, p) in r.policy.iter().enumerate() {
                    assert!(*p == 0.0 || r.legal & (1 << a) != 0, "{rules}: mass on an illegal move");
                }
                assert!([-1.0, 0.0, 1.0].contains(&r.outcome));
                assert!(r.margin.abs() <= 1.0);
                // a win has a positive margin and a loss a negative one
                assert!(r.outcome == 0.0 || r.outcome.signum() == r.margin.signum(), "{rules}");
                assert!(outcome.margin as f32 / total >= r.margin.abs() - 1e-6);
            }
        }
        assert!(out.rows() > 0, "{rules}: no recorded rows");
        assert!(out.rows() < out.moves, "{rules}: playout cap randomization records only some moves");
    }
}

#[test]
fn same_seed_same_games_for_a_thread_count() {
    let game = parse_rules("kalah").unwrap();
    let a = play(&game, 2, 9);
    let b = play(&game, 2, 9);
    assert_eq!(a.games, b.games);
    let c = play(&game, 2, 10);
    assert_ne!(a.games, c.games);
}

fn header(rows: usize) -> ShardHeader {
    ShardHeader {
        rules: "kalah houses=6 seeds=4 empty_capture=false end=either-row-empty".into(),
        inputs: 3,
        actions: 2,
        rows,
        games: 1,
        iteration: 4,
    }
}

fn rows() -> Vec<Row> {
    (0..5)
        .map(|i| Row {
            inputs: vec![i as f32, 0.5, -1.0],
            legal: 0b11,
            policy: vec![0.25, 0.75],
            search_value: 0.1 * i as f32,
            outcome: [1.0, 0.0, -1.0][i % 3],
            margin: 0.01 * i as f32,
        })
        .collect()
}

#[test]
fn shards_round_trip_and_every_bad_shard_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("iter-0004.shard");
    write_shard(&path, &header(5), &rows()).unwrap();
    let (h, r) = read_shard(&path, Some(&header(5).rules)).unwrap();
    assert_eq!(h, header(5));
    assert_eq!(r, rows());

    let good = shard_bytes(&header(5), &rows());
    let check = |name: &str, bytes: &[u8], rules: Option<&str>| -> ShardError {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let e = read_shard(&p, rules).unwrap_err();
        assert!(e.to_string().contains(name), "error '{e}' does not name {name}");
        e
    };
    let truncated = |e| matches!(e, ShardError::File(ContainerError::Truncated { .. }));
    assert!(truncated(check("cut.shard", &good[..good.len() - 20], None)));
    assert!(truncated(check("head.shard", &good[..12], None)));
    let mut flipped = good.clone();
    let k = flipped.len() - 12;
    flipped[k] ^= 1;
    assert!(matches!(check("flip.shard", &flipped, None), ShardError::File(ContainerError::Checksum { .. })));
    assert!(matches!(
        check("text.shard", b"not a shard", None),
        ShardError::File(ContainerError::NotAContainer { .. })
    ));
    let version = mancala_container::encode(Kind::SHARD, 99, &good[mancala_container::HEADER_LEN..]);
    let e = check("version.shard", &version, None);
    assert!(matches!(e, ShardError::File(ContainerError::UnsupportedVersion { found: 99, .. })), "{e}");
    assert!(matches!(check("game.shard", &good, Some("oware")), ShardError::WrongGame { .. }));
    let e = read_shard(Path::new("/nonexistent/x.shard"), None);
    assert!(matches!(e, Err(ShardError::File(ContainerError::Read { .. }))));
}

#[test]
fn the_window_keeps_the_newest_rows_and_samples_batches() {
    let mut w = ReplayWindow::new(3);
    w.extend(rows());
    assert_eq!(w.len(), 3);
    let mut batch = mancala_encoding::Batch::default();
    let mut rng = SmallRng::seed_from_u64(1);
    w.sample(16, 0.0, &mut rng, &mut batch);
    assert_eq!(batch.n, 16);
    assert_eq!(batch.inputs.len(), 16 * 3);
    assert_eq!(batch.legal.len(), 16 * 2);
    assert_eq!(batch.wdl.len(), 16 * 3);
    // only rows 2, 3 and 4 remain
    assert!(batch.inputs.chunks(3).all(|x| x[0] >= 2.0));
    w.set_capacity(1);
    assert_eq!(w.len(), 1);
}

#[test]
fn value_targets_mix_the_search_value_into_the_result_by_the_share() {
    let row = |outcome: f32, search_value: f32| Row {
        inputs: vec![0.0],
        legal: 1,
        policy: vec![1.0],
        search_value,
        outcome,
        margin: 0.0,
    };
    let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    // Share 0 is the result alone, whatever the search said.
    assert_eq!(row(1.0, -0.8).value_target(0.0), [1.0, 0.0, 0.0]);
    assert_eq!(row(0.0, 0.9).value_target(0.0), [0.0, 1.0, 0.0]);
    // Share 1 is the search value alone: its sign decides win or loss, the rest is draw.
    assert!(close(row(1.0, -0.5).value_target(1.0), [0.0, 0.5, 0.5]));
    assert!(close(row(-1.0, 0.25).value_target(1.0), [0.25, 0.75, 0.0]));
    // In between, a mix whose expectation (win - loss) mixes result and search value alike.
    for (outcome, q, share) in [(1.0, -0.5, 0.5), (-1.0, 0.3, 0.25), (0.0, 0.8, 0.75), (1.0, 1.7, 0.5)] {
        let t = row(outcome, q).value_target(share);
        assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6 && t.iter().all(|&p| p >= 0.0), "{t:?}");
        let want = (1.0 - share) * outcome + share * q.clamp(-1.0, 1.0);
        assert!((t[0] - t[2] - want).abs() < 1e-6, "{outcome} {q} {share}: {t:?}");
    }
    // The window's batches carry the mixed targets.
    let mut w = ReplayWindow::new(4);
    w.extend([row(1.0, -0.5)]);
    let mut batch = mancala_encoding::Batch::default();
    w.sample(3, 0.5, &mut SmallRng::seed_from_u64(2), &mut batch);
    for t in batch.wdl.chunks(3) {
        assert!(close([t[0], t[1], t[2]], [0.5, 0.25, 0.25]), "{t:?}");
    }
}

#[test]
fn a_stop_returns_the_games_finished_so_far() {
    let game = mancala_rules::parse_rules("kalah:3,2").unwrap();
    let search = mancala_mcts::SearchConfig { simulations: 16, ..mancala_mcts::SearchConfig::default() };
    let stopped = std::sync::atomic::AtomicBool::new(true);
    let out = play_games(&game, &config(1), &search, None, 6, 1, |_| UniformEvaluator, &|_| {}, &stopped);
    assert!(out.games.is_empty(), "{} games after a stop before the first move", out.games.len());
    let running = std::sync::atomic::AtomicBool::new(false);
    let out = play_games(&game, &config(1), &search, None, 6, 1, |_| UniformEvaluator, &|_| {}, &running);
    assert_eq!(out.games.len(), 6);
}

#[test]
fn the_temperature_steps_or_decays_as_configured() {
    // The cut-off: `temperature` for the first plies, then the most visited move.
    let step = SelfPlayConfig { temperature_plies: 4, temperature: 1.0, ..SelfPlayConfig::default() };
    let temps: Vec<f32> = (0..6).map(|p| step.temperature_at(p)).collect();
    assert_eq!(temps, [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
    // A half-life of 2 plies from 1.0 towards 0.2: the gap halves every two plies, and past
    // `temperature_plies` the final temperature holds.
    let decay = SelfPlayConfig {
        temperature_plies: 100,
        temperature: 1.0,
        temperature_halflife: 2.0,
        temperature_final: 0.2,
        ..SelfPlayConfig::default()
    };
    for (ply, want) in [(0, 1.0), (2, 0.6), (4, 0.4), (6, 0.3), (100, 0.2), (500, 0.2)] {
        assert!((decay.temperature_at(ply) - want).abs() < 1e-6, "ply {ply}: {}", decay.temperature_at(ply));
    }
    assert!(decay.validate().is_ok());
    for bad in [
        SelfPlayConfig { temperature_final: -0.1, ..decay.clone() },
        SelfPlayConfig { temperature_final: f32::NAN, ..decay.clone() },
        SelfPlayConfig { temperature_halflife: -1.0, ..decay.clone() },
        SelfPlayConfig { temperature_halflife: f32::INFINITY, ..decay.clone() },
    ] {
        let err = bad.validate().unwrap_err();
        assert!(err.contains("selfplay.temperature_"), "{err}");
    }
}

#[test]
fn games_begin_with_their_random_opening_plies_unrecorded() {
    let game = parse_rules("oware").unwrap();
    let c = SelfPlayConfig { opening_plies: 4, full_search_share: 1.0, temperature_plies: 0, ..config(1) };
    let search = SearchConfig::default();
    let never = std::sync::atomic::AtomicBool::new(false);
    let out = play_games(&game, &c, &search, None, 6, 3, |_| UniformEvaluator, &|_| {}, &never);
    assert_eq!(out.games.len(), 6);
    for g in &out.games {
        // Every searched move is recorded (full share 1); the four random ones are not.
        assert_eq!(g.rows.len(), g.moves.len() - 4, "{:?}", g.moves);
        // The first row is the position after the opening.
        let mut line = Line::new(game.clone());
        for m in &g.moves[..4] {
            line.play_label(m).unwrap();
        }
        let mut inputs = vec![0.0; g.rows[0].inputs.len()];
        let lay = mancala_encoding::layout(&game);
        mancala_encoding::encode(&game, &lay, line.position(), &mut inputs);
        assert_eq!(g.rows[0].inputs, inputs);
    }
    // Without noise or temperature the searches are the same in every game: only the
    // openings tell the games apart.
    let openings: std::collections::HashSet<_> = out.games.iter().map(|g| g.moves[..4].to_vec()).collect();
    assert!(openings.len() > 1, "one opening for every game");
    let plain = play_games(
        &game,
        &SelfPlayConfig { opening_plies: 0, ..c.clone() },
        &search,
        None,
        6,
        3,
        |_| UniformEvaluator,
        &|_| {},
        &never,
    );
    assert!(plain.games.iter().all(|g| g.rows.len() == g.moves.len()));
}

#[test]
fn too_many_opening_plies_are_refused_by_name() {
    let c = SelfPlayConfig { opening_plies: 33, ..SelfPlayConfig::default() };
    let err = c.validate().unwrap_err();
    assert!(err.contains("selfplay.opening_plies") && err.contains("33"), "{err}");
    assert!(SelfPlayConfig { opening_plies: 32, ..SelfPlayConfig::default() }.validate().is_ok());
}
