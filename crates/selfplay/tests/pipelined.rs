//! Self-play through the inference service and in two pipelined groups a thread: the same
//! games as the direct path, and a stop or the last game's end never leaves a thread or the
//! service waiting. Waits are bounded (a hang fails after a minute); no speed is asserted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use mancala_mcts::{Blocking, CachedEvaluator, Evaluator, SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, Game, parse_rules};
use mancala_selfplay::{
    Inference, SelfPlayConfig, SelfPlayOutput, play_games, play_games_pipelined, play_games_served,
};

fn config(threads: usize, parallel_games: usize) -> SelfPlayConfig {
    SelfPlayConfig {
        threads,
        parallel_games,
        simulations: 24,
        fast_simulations: 6,
        full_search_share: 0.5,
        temperature_plies: 6,
        leaves_per_gather: 3,
        inference: Inference::Service,
        service_batch: 16,
        service_flush_us: 200,
        ..SelfPlayConfig::default()
    }
}

/// Policy and value from a hash of the position (its pits and the side to move): as uneven as
/// a network's, and the same whatever batch the position comes in.
#[derive(Clone, Copy, Debug)]
struct Hashed;

impl<G: Game> Evaluator<G> for Hashed {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        // splitmix64's finaliser: every input bit moves every output bit.
        let mix = |mut z: u64| {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let unit = |h: u64| (h >> 40) as f32 / (1u64 << 24) as f32;
        for (i, pos) in positions.iter().enumerate() {
            let side = game.side_to_move(pos) as u64;
            let mut h = game.pits(pos).iter().fold(mix(side), |h, &p| mix(h ^ u64::from(p)));
            let policy = &mut policies[i * a..(i + 1) * a];
            policy.fill(0.0);
            let legal = game.legal_moves(pos);
            for m in legal {
                h = mix(h);
                policy[usize::from(m)] = 0.1 + unit(h);
            }
            let sum: f32 = policy.iter().sum();
            policy.iter_mut().for_each(|p| *p /= sum.max(f32::MIN_POSITIVE));
            values[i] = 2.0 * unit(mix(h)) - 1.0;
        }
    }
}

fn search() -> SearchConfig {
    SearchConfig { dirichlet_noise: true, ..SearchConfig::default() }
}

/// Runs `f` on a thread of its own and fails the test if it has not returned within a
/// minute (far longer than it takes).
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{what} hung (or panicked)"))
}

fn same_games(a: &SelfPlayOutput, b: &SelfPlayOutput, what: &str) {
    assert_eq!(a.games.len(), b.games.len(), "{what}");
    for (i, (x, y)) in a.games.iter().zip(&b.games).enumerate() {
        assert_eq!(x, y, "{what}: game {i}");
    }
    assert_eq!((a.moves, a.simulations), (b.moves, b.simulations), "{what}");
}

#[test]
fn two_groups_a_thread_play_the_games_of_the_direct_path() {
    let never = AtomicBool::new(false);
    for rules in ["kalah:3,2", "oware"] {
        let game = parse_rules(rules).unwrap();
        for (threads, parallel) in [(1, 1), (1, 4), (2, 3)] {
            let c = config(threads, parallel);
            let direct = play_games(&game, &c, &search(), None, 7, 3, |_| UniformEvaluator, &|_| {}, &never);
            let piped =
                play_games_pipelined(&game, &c, &search(), None, 7, 3, |_| Blocking(UniformEvaluator), &|_| {}, &never);
            same_games(&direct, &piped, &format!("{rules}, {threads} thread(s), {parallel} at once"));
            assert_eq!(direct.games.len(), 7);
        }
    }
}

#[test]
fn the_service_plays_the_games_of_the_direct_path() {
    let game = parse_rules("kalah:4,3").unwrap();
    // A stand-in for a network: uneven answers, each from its position alone, so batching
    // cannot change a bit of them (and self-play builds without a network library).
    let evaluator = || Hashed;
    let cached = || CachedEvaluator::new(Hashed, 10);
    let never = AtomicBool::new(false);
    for threads in [1, 2] {
        let c = config(threads, 5);
        let direct = play_games(&game, &c, &search(), None, 9, 11, |_| cached(), &|_| {}, &never);
        let (served, stats) =
            play_games_served(&game, &c, &search(), None, 9, 11, evaluator(), 10, &|_| {}, &never).unwrap();
        same_games(&direct, &served, &format!("{threads} thread(s)"));
        assert!(stats.largest_batch <= 16 && stats.batches > 0, "{stats:?}");
    }
}

#[test]
fn a_stop_mid_run_ends_the_threads_and_the_service() {
    let game: AnyGame = parse_rules("oware").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let out = bounded("a stopped run", {
        let stop = Arc::clone(&stop);
        move || {
            let c = config(2, 6);
            // Stops when the first game ends: the other games are mid-search, some of their
            // leaves queued or being evaluated.
            let progress = |_: usize| stop.store(true, Ordering::Relaxed);
            play_games_served(&game, &c, &search(), None, 24, 5, UniformEvaluator, 8, &progress, &stop).unwrap()
        }
    });
    let (out, stats) = out;
    assert!(!out.games.is_empty() && out.games.len() < 24, "{} games", out.games.len());
    assert!(stats.positions > 0);
}

#[test]
fn a_run_ends_when_its_games_end_however_they_fall_on_threads() {
    // More threads than games, and games not a multiple of the threads or the groups.
    for (threads, parallel, games) in [(3, 2, 2), (2, 5, 3), (2, 1, 5)] {
        let (out, _) = bounded("a short run", move || {
            let game: AnyGame = parse_rules("kalah:3,2").unwrap();
            let never = AtomicBool::new(false);
            play_games_served(
                &game,
                &config(threads, parallel),
                &search(),
                None,
                games,
                1,
                UniformEvaluator,
                8,
                &|_| {},
                &never,
            )
            .unwrap()
        });
        assert_eq!(out.games.len(), games);
    }
}
