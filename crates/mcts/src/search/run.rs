//! Running a search: to its simulation budget, to a deadline, and with each batch of leaves
//! evaluated on several threads. Every front-end that plays (agents, engine, web page,
//! terminal game) stops its search here, so "think for T milliseconds" means one thing.
//!
//! Threads are leaf parallelism: the tree stays on the calling thread, which gathers a batch
//! of leaves kept apart by virtual loss and hands one slice of it to each evaluator, each on
//! its own thread. Evaluation (a network call, a random playout) is nearly all of a
//! simulation's cost, and the tree needs no locks. Leaf `k` of a batch always goes to the same
//! evaluator, so the result does not depend on how the threads are scheduled.
//!
//! The threads hand batches over by spinning on the channel for a moment before they block:
//! a batch takes some tens of microseconds to judge, and waking a blocked thread costs as
//! much or more (on a virtual machine the host must wake the idle CPU), which made two
//! threads that blocked at every batch slower than one.

use std::sync::mpsc::{self, TryRecvError};
use std::time::{Duration, Instant};

use mancala_rules::Game;

use super::Search;
use crate::evaluator::Evaluator;

/// Positions to evaluate and room for their answers, handed to a thread and back so that
/// no batch allocates once the buffers have grown.
struct Slice<P> {
    positions: Vec<P>,
    policies: Vec<f32>,
    values: Vec<f32>,
}

impl<P> Slice<P> {
    fn new() -> Self {
        Slice { positions: Vec::new(), policies: Vec::new(), values: Vec::new() }
    }

    /// Evaluates the positions held, sizing the answers first.
    fn evaluate<G: Game<Position = P>, E: Evaluator<G> + ?Sized>(&mut self, game: &G, evaluator: &mut E) {
        let n = self.positions.len();
        self.policies.resize(n * game.action_space(), 0.0);
        self.values.resize(n, 0.0);
        if n > 0 {
            evaluator.evaluate(game, &self.positions, &mut self.policies, &mut self.values);
        }
    }
}

/// How long a thread spins on an empty channel before it blocks: well above the time a batch
/// takes, so that within a search nobody sleeps, and short enough that a thread whose search
/// has ended gives its core back at once.
const SPIN: Duration = Duration::from_micros(200);

/// The next message of `channel`, spinning for up to [`SPIN`] before blocking; `None` once
/// the sender is gone.
fn receive<T>(channel: &mpsc::Receiver<T>) -> Option<T> {
    let start = Instant::now();
    for spins in 1u32.. {
        match channel.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {}
        }
        if spins.is_multiple_of(64) && start.elapsed() > SPIN {
            break;
        }
        std::hint::spin_loop();
    }
    channel.recv().ok()
}

impl<G: Game> Search<G> {
    /// Runs the whole simulation budget with one evaluator.
    pub fn run<E: Evaluator<G> + ?Sized>(&mut self, evaluator: &mut E) {
        self.run_until(evaluator, None);
    }

    /// Runs until the simulation budget is spent or `deadline` passes, whichever comes first.
    /// At least one simulation is always run, even past the deadline, so a searched root
    /// always has a move to play.
    pub fn run_until<E: Evaluator<G> + ?Sized>(&mut self, evaluator: &mut E, deadline: Option<Instant>) {
        let mut slice = Slice::new();
        while self.keeps_going(deadline) {
            slice.positions.clear();
            if self.gather(&mut slice.positions) > 0 {
                slice.evaluate(&self.game, evaluator);
                self.apply(&slice.policies, &slice.values);
            }
        }
    }

    /// As [`Search::run_until`], on one thread for each of `evaluators`: every gather hands
    /// out `leaves_per_gather` leaves for each evaluator and splits them among the threads.
    /// With one evaluator this is [`Search::run_until`]; with none the search does nothing.
    pub fn run_threads<E: Evaluator<G>>(&mut self, evaluators: &mut [E], deadline: Option<Instant>) {
        let Some((own, helpers)) = evaluators.split_first_mut() else {
            return;
        };
        if helpers.is_empty() {
            self.run_until(own, deadline);
            return;
        }
        let threads = helpers.len() + 1;
        let per_thread = self.config.leaves_per_gather.max(1);
        self.config.leaves_per_gather = per_thread * threads;
        std::thread::scope(|scope| {
            let mut workers = Vec::with_capacity(helpers.len());
            for evaluator in helpers.iter_mut() {
                let (to_worker, jobs) = mpsc::channel::<Slice<G::Position>>();
                let (to_search, answers) = mpsc::channel::<Slice<G::Position>>();
                let game = self.game.clone();
                scope.spawn(move || {
                    while let Some(mut slice) = receive(&jobs) {
                        slice.evaluate(&game, evaluator);
                        if to_search.send(slice).is_err() {
                            return;
                        }
                    }
                });
                workers.push((to_worker, answers, Some(Slice::new())));
            }
            let a = self.game.action_space();
            let (mut batch, mut mine) = (Vec::new(), Slice::new());
            let (mut policies, mut values) = (Vec::new(), Vec::new());
            while self.keeps_going(deadline) {
                batch.clear();
                let n = self.gather(&mut batch);
                if n == 0 {
                    continue;
                }
                // Contiguous shares, the first (this thread's) the largest.
                let share = n.div_ceil(threads);
                let mut chunks = batch.chunks(share);
                mine.positions.clear();
                mine.positions.extend_from_slice(chunks.next().unwrap_or_default());
                let mut sent = 0;
                for ((to_worker, _, spare), chunk) in workers.iter_mut().zip(chunks) {
                    let mut slice = spare.take().unwrap_or_else(Slice::new);
                    slice.positions.clear();
                    slice.positions.extend_from_slice(chunk);
                    to_worker.send(slice).expect("an evaluator thread ended while the search runs");
                    sent += 1;
                }
                mine.evaluate(&self.game, own);
                policies.clear();
                values.clear();
                policies.extend_from_slice(&mine.policies);
                values.extend_from_slice(&mine.values);
                for (_, answers, spare) in workers.iter_mut().take(sent) {
                    let slice = receive(answers).expect("an evaluator thread ended while the search runs");
                    policies.extend_from_slice(&slice.policies);
                    values.extend_from_slice(&slice.values);
                    *spare = Some(slice);
                }
                debug_assert_eq!(values.len(), n);
                self.apply(&policies[..n * a], &values[..n]);
            }
            // Dropping the senders ends the workers' loops; the scope joins them.
            drop(workers);
        });
        self.config.leaves_per_gather = per_thread;
    }

    /// Whether another gather is due: the budget is not spent, and either no simulation has
    /// run yet or the deadline has not passed.
    fn keeps_going(&self, deadline: Option<Instant>) -> bool {
        !self.is_done() && (self.sims_done == 0 || deadline.is_none_or(|d| Instant::now() < d))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::thread::ThreadId;
    use std::time::Duration;

    use mancala_rules::{AnyGame, parse_rules};

    use crate::{RolloutEvaluator, Search, SearchConfig};

    use super::*;

    fn kalah() -> AnyGame {
        parse_rules("kalah").unwrap()
    }

    /// Rollouts that note the threads they ran on and the positions they judged.
    struct Noting {
        inner: RolloutEvaluator,
        threads: HashSet<ThreadId>,
        judged: usize,
    }

    impl Noting {
        fn new(seed: u64) -> Self {
            Noting { inner: RolloutEvaluator::new(seed), threads: HashSet::new(), judged: 0 }
        }
    }

    impl Evaluator<AnyGame> for Noting {
        fn evaluate(
            &mut self,
            game: &AnyGame,
            positions: &[<AnyGame as Game>::Position],
            p: &mut [f32],
            v: &mut [f32],
        ) {
            self.threads.insert(std::thread::current().id());
            self.judged += positions.len();
            self.inner.evaluate(game, positions, p, v);
        }
    }

    #[test]
    fn a_deadline_already_passed_still_gives_a_move() {
        let game = kalah();
        let config = SearchConfig { simulations: 1000, ..SearchConfig::default() };
        let mut search = Search::new(game.clone(), config, 3);
        search.run_until(&mut RolloutEvaluator::new(3), Some(Instant::now() - Duration::from_secs(1)));
        assert!(search.simulations_done() >= 1);
        let action = search.select_action(0.0).expect("a searched root has a move");
        assert!(game.legal_moves(&game.start()).contains(action));
    }

    #[test]
    fn a_far_deadline_stops_on_the_simulation_budget() {
        let config = SearchConfig { simulations: 150, leaves_per_gather: 4, ..SearchConfig::default() };
        let mut search = Search::new(kalah(), config, 3);
        search.run_until(&mut RolloutEvaluator::new(3), Some(Instant::now() + Duration::from_secs(3600)));
        assert_eq!(search.simulations_done(), 150);
    }

    #[test]
    fn threads_share_the_batches_and_keep_the_budget() {
        let config = SearchConfig { simulations: 300, leaves_per_gather: 4, ..SearchConfig::default() };
        let mut search = Search::new(kalah(), config.clone(), 3);
        let mut evaluators = vec![Noting::new(1), Noting::new(2), Noting::new(3)];
        search.run_threads(&mut evaluators, None);
        assert_eq!(search.simulations_done(), 300);
        assert_eq!(search.config(), &config, "the gather size is restored");
        let threads: HashSet<ThreadId> = evaluators.iter().flat_map(|e| e.threads.iter().copied()).collect();
        assert_eq!(threads.len(), 3, "each evaluator ran on a thread of its own");
        assert!(evaluators.iter().all(|e| e.judged > 0));
        // Every simulation is one judged leaf or one visit to a finished game.
        assert!(evaluators.iter().map(|e| e.judged).sum::<usize>() <= 300);
    }

    #[test]
    fn threads_do_not_make_the_result_depend_on_timing() {
        let run = || {
            let config = SearchConfig { simulations: 400, leaves_per_gather: 2, ..SearchConfig::default() };
            let mut search = Search::new(kalah(), config, 9);
            let mut evaluators: Vec<RolloutEvaluator> = (0..2).map(RolloutEvaluator::new).collect();
            search.run_threads(&mut evaluators, None);
            search.root_children()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn a_handoff_waits_past_its_spin_and_ends_with_the_sender() {
        let (send, channel) = mpsc::channel::<u32>();
        let late = std::thread::spawn(move || {
            // Past the spin, so the receiver has gone on to block.
            std::thread::sleep(SPIN * 20);
            send.send(7).unwrap();
        });
        assert_eq!(receive(&channel), Some(7));
        late.join().unwrap();
        assert_eq!(receive(&channel), None, "the sender is gone");
        let (send, channel) = mpsc::channel::<u32>();
        send.send(1).unwrap();
        assert_eq!(receive(&channel), Some(1), "a message already there");
    }
}
