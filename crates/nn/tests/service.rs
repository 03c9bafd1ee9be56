//! The inference service on the CPU: the same answers as the direct path, batches within
//! their bound, and no lost request or hang when clients finish, panic or drop everything
//! mid-batch, or when the evaluator itself panics. Waits are bounded (a hang fails the test
//! after a minute); nothing asserts a speed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use burn::prelude::*;
use mancala_encoding::layout;
use mancala_mcts::service::{InferenceService, ServiceConfig, ServiceError};
use mancala_mcts::{Evaluator, uniform_policy};
use mancala_nn::{Net, NetConfig, NeuralEvaluator};
use mancala_rules::{AnyGame, Game, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Longer than any of these tests takes by far: only a hang reaches it.
const HANG: Duration = Duration::from_secs(60);

fn oware() -> AnyGame {
    parse_rules("oware").unwrap()
}

/// `n` non-terminal positions from random games.
fn positions(game: &AnyGame, n: usize, seed: u64) -> Vec<<AnyGame as Game>::Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut p = game.start();
    while out.len() < n {
        let legal = game.legal_moves(&p);
        if legal.is_empty() {
            p = game.start();
            continue;
        }
        out.push(p);
        game.play_unchecked(&mut p, legal.nth(rng.random_range(0..legal.len())).unwrap());
    }
    out
}

/// A fresh network with random weights (shared by clone where answers are compared).
fn net(game: &AnyGame) -> Net {
    NetConfig::for_layout(&layout(game), game.action_space()).with_width(32).with_blocks(2).init(&Device::flex())
}

fn network(game: &AnyGame, net: &Net) -> NeuralEvaluator<AnyGame> {
    NeuralEvaluator::new(game, net.clone(), Device::flex())
}

/// Runs `f` on a thread of its own and fails the test if it has not returned within
/// [`HANG`].
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(HANG).unwrap_or_else(|_| panic!("{what} hung (or panicked)"))
}

/// Deterministic answers from the position's hash alone: any batching gives the same.
#[derive(Clone, Default)]
struct Hashed;

impl Evaluator<AnyGame> for Hashed {
    fn evaluate(
        &mut self,
        game: &AnyGame,
        positions: &[<AnyGame as Game>::Position],
        policies: &mut [f32],
        values: &mut [f32],
    ) {
        let a = game.action_space();
        for (i, p) in positions.iter().enumerate() {
            uniform_policy(game, p, &mut policies[i * a..(i + 1) * a]);
            values[i] = (game.hash(p) % 2001) as f32 / 1000.0 - 1.0;
        }
    }
}

/// Counts calls and remembers the largest batch the service hands its evaluator.
struct Probe<E> {
    inner: E,
    calls: Arc<AtomicU64>,
    largest: Arc<AtomicUsize>,
}

impl<E: Evaluator<AnyGame>> Evaluator<AnyGame> for Probe<E> {
    fn evaluate(
        &mut self,
        game: &AnyGame,
        positions: &[<AnyGame as Game>::Position],
        policies: &mut [f32],
        values: &mut [f32],
    ) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.largest.fetch_max(positions.len(), Ordering::Relaxed);
        self.inner.evaluate(game, positions, policies, values);
    }
}

fn config(max_batch: usize, flush_us: u64) -> ServiceConfig {
    ServiceConfig { max_batch, flush: Duration::from_micros(flush_us) }
}

#[test]
fn the_service_answers_each_position_as_the_direct_path() {
    let game = oware();
    // Each position's outputs depend on that row alone with the SIMD kernel (every row is
    // summed in the same order whatever the batch); burn's matrix products, used above two
    // rows when the CPU has no SIMD, may round differently at another batch size.
    let net = net(&game);
    let exact = network(&game, &net).cpu_kernel().is_some_and(|set| set != "scalar");
    let service = InferenceService::start(&game, network(&game, &net), config(16, 300)).unwrap();
    let mut threads = Vec::new();
    for t in 0..4u64 {
        let (game, net, mut client) = (game.clone(), net.clone(), service.client());
        if t % 2 == 1 {
            client = client.cached(8);
        }
        threads.push(std::thread::spawn(move || {
            let a = game.action_space();
            let mut direct = network(&game, &net);
            let mut rng = SmallRng::seed_from_u64(t);
            let all = positions(&game, 600, 100 + t);
            let mut checked = 0;
            // Sizes from 1 to 40 (above max_batch too), some twice to hit the cache, and
            // every other pair in flight together as a pipelined thread has them.
            let mut at = 0;
            while at < all.len() {
                let n = rng.random_range(1..=40).min(all.len() - at);
                let (first, second) = (&all[at..at + n], &all[at / 2..at / 2 + n]);
                let (mut p1, mut v1) = (vec![0.0; n * a], vec![0.0; n]);
                let (mut p2, mut v2) = (vec![0.0; n * a], vec![0.0; n]);
                if rng.random_bool(0.5) {
                    let t1 = client.submit(&game, first).unwrap();
                    let t2 = client.submit(&game, second).unwrap();
                    client.wait(&game, t1, &mut p1, &mut v1).unwrap();
                    client.wait(&game, t2, &mut p2, &mut v2).unwrap();
                } else {
                    client.evaluate(&game, first, &mut p1, &mut v1);
                    client.evaluate(&game, second, &mut p2, &mut v2);
                }
                for (batch, p, v) in [(first, &p1, &v1), (second, &p2, &v2)] {
                    let (mut dp, mut dv) = (vec![0.0; n * a], vec![0.0; n]);
                    direct.evaluate(&game, batch, &mut dp, &mut dv);
                    if exact {
                        assert_eq!((p, v), (&dp, &dv), "thread {t}, positions {at}..");
                    } else {
                        let close = |x: &[f32], y: &[f32]| x.iter().zip(y).all(|(x, y)| (x - y).abs() < 1e-5);
                        assert!(close(p, &dp) && close(v, &dv), "thread {t}, positions {at}..");
                    }
                    checked += n;
                }
                at += n;
            }
            checked
        }));
    }
    let checked: usize = bounded("four clients", move || threads.into_iter().map(|t| t.join().unwrap()).sum());
    assert_eq!(checked, 4 * 2 * 600);
    let stats = bounded("join", move || service.join().unwrap());
    assert!(stats.largest_batch <= 16, "{stats:?}");
    // The uncached clients sent every position, the cached ones at most as many.
    assert!(stats.positions >= 2 * 2 * 600 && stats.positions <= 4 * 2 * 600, "{stats:?}");
}

#[test]
fn batches_never_exceed_the_configured_size() {
    let game = oware();
    for max_batch in [1, 7, 64] {
        let (calls, largest) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicUsize::new(0)));
        let probe = Probe { inner: Hashed, calls: Arc::clone(&calls), largest: Arc::clone(&largest) };
        let service = InferenceService::start(&game, probe, config(max_batch, 1000)).unwrap();
        let threads: Vec<_> = (0..3u64)
            .map(|t| {
                let (game, mut client) = (game.clone(), service.client());
                std::thread::spawn(move || {
                    let a = game.action_space();
                    let all = positions(&game, 300, t);
                    // Requests of 50 positions, two in flight at a time.
                    for pair in all.chunks(100) {
                        let (first, second) = pair.split_at(50);
                        let t1 = client.submit(&game, first).unwrap();
                        let t2 = client.submit(&game, second).unwrap();
                        let (mut p, mut v) = (vec![0.0; 50 * a], vec![0.0; 50]);
                        let (mut hp, mut hv) = (vec![0.0; 50 * a], vec![0.0; 50]);
                        for (ticket, batch) in [(t1, first), (t2, second)] {
                            client.wait(&game, ticket, &mut p, &mut v).unwrap();
                            Hashed.evaluate(&game, batch, &mut hp, &mut hv);
                            assert_eq!((&p, &v), (&hp, &hv));
                        }
                    }
                })
            })
            .collect();
        bounded("three clients", move || threads.into_iter().for_each(|t| t.join().unwrap()));
        let stats = bounded("join", move || service.join().unwrap());
        assert!(largest.load(Ordering::Relaxed) <= max_batch, "max_batch {max_batch}: {stats:?}");
        assert_eq!(stats.largest_batch, largest.load(Ordering::Relaxed));
        assert_eq!(stats.batches, calls.load(Ordering::Relaxed));
        assert_eq!((stats.positions, stats.requests), (900, 18), "max_batch {max_batch}");
        assert!(stats.batches >= 900u64.div_ceil(max_batch as u64), "max_batch {max_batch}: {stats:?}");
    }
}

#[test]
fn a_lone_waiting_client_is_answered_without_the_flush_time() {
    // An hour's flush: only the rule "every client is waiting" can answer in time.
    let game = oware();
    let service =
        InferenceService::start(&game, Hashed, ServiceConfig { max_batch: 1024, flush: Duration::from_secs(3600) })
            .unwrap();
    let client = service.client();
    let answered = bounded("a blocked client", move || {
        let mut client = client;
        let all = positions(&game, 30, 1);
        let a = game.action_space();
        let (mut p, mut v) = (vec![0.0; 30 * a], vec![0.0; 30]);
        for _ in 0..5 {
            client.evaluate(&game, &all, &mut p, &mut v);
        }
        v
    });
    assert_eq!(answered.len(), 30);
    let stats = bounded("join", move || service.join().unwrap());
    assert_eq!((stats.requests, stats.positions), (5, 150));
}

#[test]
fn a_client_thread_that_panics_costs_the_others_nothing() {
    let game = oware();
    let service = InferenceService::start(&game, Hashed, config(32, 500)).unwrap();
    let mut threads = Vec::new();
    for t in 0..3u64 {
        let (game, mut client) = (game.clone(), service.client());
        threads.push(std::thread::spawn(move || {
            let a = game.action_space();
            let all = positions(&game, 200, t);
            for (i, batch) in all.chunks(20).enumerate() {
                let ticket = client.submit(&game, batch).unwrap();
                // Thread 0 dies with a request queued and its answer never collected.
                assert!(!(t == 0 && i == 3), "client thread {t} panics on purpose");
                let (mut p, mut v) = (vec![0.0; batch.len() * a], vec![0.0; batch.len()]);
                client.wait(&game, ticket, &mut p, &mut v).unwrap();
                let (mut hp, mut hv) = (vec![0.0; batch.len() * a], vec![0.0; batch.len()]);
                Hashed.evaluate(&game, batch, &mut hp, &mut hv);
                assert_eq!((p, v), (hp, hv));
            }
        }));
    }
    let joined: Vec<bool> = bounded("clients", move || threads.into_iter().map(|t| t.join().is_ok()).collect());
    assert_eq!(joined, [false, true, true]);
    let stats = bounded("join", move || service.join().unwrap());
    // Everything sent was answered, the dead thread's last request too.
    assert_eq!((stats.requests, stats.positions), (4 + 10 + 10, 80 + 200 + 200));
}

/// Blocks its first call until released, telling the test when it has started.
struct Gate {
    started: Option<mpsc::Sender<()>>,
    release: Option<mpsc::Receiver<()>>,
}

impl Evaluator<AnyGame> for Gate {
    fn evaluate(
        &mut self,
        game: &AnyGame,
        positions: &[<AnyGame as Game>::Position],
        policies: &mut [f32],
        values: &mut [f32],
    ) {
        if let (Some(started), Some(release)) = (self.started.take(), self.release.take()) {
            started.send(()).unwrap();
            release.recv().unwrap();
        }
        Hashed.evaluate(game, positions, policies, values);
    }
}

#[test]
fn every_client_dropped_mid_batch_ends_the_service_after_answering_the_queue() {
    let game = oware();
    let (started_tx, started) = mpsc::channel();
    let (release, release_rx) = mpsc::channel();
    let gate = Gate { started: Some(started_tx), release: Some(release_rx) };
    let service = InferenceService::start(&game, gate, config(8, 0)).unwrap();
    let all = positions(&game, 40, 9);
    let mut a = service.client();
    let mut b = service.client().cached(6);
    let first = a.submit(&game, &all[..5]).unwrap();
    started.recv_timeout(HANG).expect("the first batch starts");
    // The service is mid-batch: queue more (one request split over batches), then drop every
    // ticket and client without waiting.
    let queued = [b.submit(&game, &all[5..25]).unwrap(), b.submit(&game, &all[25..40]).unwrap()];
    drop((first, queued, a, b));
    release.send(()).unwrap();
    let stats = bounded("join", move || service.join().unwrap());
    assert_eq!((stats.requests, stats.positions), (3, 40));
    assert!(stats.largest_batch <= 8, "{stats:?}");
}

/// Panics on its second call.
struct Faulty {
    calls: usize,
}

impl Evaluator<AnyGame> for Faulty {
    fn evaluate(
        &mut self,
        game: &AnyGame,
        positions: &[<AnyGame as Game>::Position],
        policies: &mut [f32],
        values: &mut [f32],
    ) {
        self.calls += 1;
        assert!(self.calls < 2, "the evaluator breaks");
        Hashed.evaluate(game, positions, policies, values);
    }
}

#[test]
fn an_evaluator_panic_stops_the_clients_instead_of_hanging_them() {
    let game = oware();
    let service = InferenceService::start(&game, Faulty { calls: 0 }, config(64, 0)).unwrap();
    let clients = Arc::new(Mutex::new(vec![service.client(), service.client()]));
    let errors = bounded("clients of a broken service", {
        let clients = Arc::clone(&clients);
        move || {
            let game = oware();
            let a = game.action_space();
            let all = positions(&game, 10, 3);
            let mut clients = clients.lock().unwrap();
            let (mut p, mut v) = (vec![0.0; 10 * a], vec![0.0; 10]);
            // The first batch is answered; the second kills the service.
            let ok = clients[0].submit(&game, &all).unwrap();
            clients[0].wait(&game, ok, &mut p, &mut v).unwrap();
            let doomed = clients[0].submit(&game, &all).unwrap();
            let first = clients[0].wait(&game, doomed, &mut p, &mut v).unwrap_err();
            // Once the thread is gone, a new request fails at once.
            let later =
                clients[1].submit(&game, &all).and_then(|t| clients[1].wait(&game, t, &mut p, &mut v)).unwrap_err();
            [first, later]
        }
    });
    assert!(errors.iter().all(|e| matches!(e, ServiceError::Stopped)), "{errors:?}");
    // Through the `Evaluator` seam the search thread panics, naming the cause.
    let panicked = std::thread::spawn({
        let clients = Arc::clone(&clients);
        move || {
            let game = oware();
            let all = positions(&game, 4, 4);
            let mut c = clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (mut p, mut v) = (vec![0.0; 4 * game.action_space()], vec![0.0; 4]);
            c[1].evaluate(&game, &all, &mut p, &mut v);
        }
    })
    .join()
    .unwrap_err();
    let message = panicked.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("inference service has stopped"), "{message}");
    drop(clients);
    let err = bounded("join", move || service.join().unwrap_err());
    assert!(matches!(&err, ServiceError::Panicked(m) if m.contains("the evaluator breaks")), "{err}");
    assert!(
        InferenceService::start(&oware(), Hashed, config(0, 0)).is_err_and(|e| matches!(e, ServiceError::ZeroBatch))
    );
}
