//! An inference service: one thread owns an evaluator (the network on its device) and answers
//! the leaves that many search threads queue, in batches as large as the device likes. It
//! knows only the [`Evaluator`] seam, so it lives beside the search, and self-play uses it
//! without building a network library.
//!
//! Why: on a GPU one network call costs about the same for 32 positions as for 1024, so the
//! leaves of all of a worker's search threads should share calls; on the CPU each thread
//! running its own copy (the direct path) is as fast or faster, and stays the default there.
//!
//! A client ([`ServiceClient`], one per search thread) is an [`Evaluator`], so the search
//! never knows; it can also hand a batch over and collect the answer later
//! ([`SubmitEvaluator`]), so a thread searches one group of games while another group's batch
//! is evaluated. A request is positions and a reply channel of its own. The service takes
//! requests first come first served into batches of at most `max_batch` positions (a larger
//! request is split across calls) and runs a batch when it is full, when `flush` has passed
//! since its oldest request arrived, or at once when every client is waiting (nothing more can
//! come). A client whose thread panicked just drops its receiver, and the answer is thrown
//! away; the service ends when the handle and every client are gone, answering everything
//! queued first. If the evaluator panics, the service's thread ends, every waiting client
//! gets [`ServiceError::Stopped`] instead of hanging, and [`InferenceService::join`] says why.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mancala_rules::Game;
use thiserror::Error;

use crate::Evaluator;
use crate::evaluator::EvalCache;

/// What can go wrong with the service.
#[derive(Debug, Error)]
pub enum ServiceError {
    #[error("inference service: max_batch must be at least 1")]
    ZeroBatch,
    #[error("cannot start the inference service's thread: {0}")]
    Spawn(std::io::Error),
    #[error("the inference service has stopped (its evaluator panicked); no answer will come")]
    Stopped,
    #[error("the inference service's evaluator panicked: {0}")]
    Panicked(String),
}

/// How the service forms batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceConfig {
    /// Most positions in one evaluator call.
    pub max_batch: usize,
    /// How long a batch that is not full waits for more after its oldest request arrived
    /// (unless every client is already waiting).
    pub flush: Duration,
}

/// What the service has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServiceStats {
    /// Evaluator calls.
    pub batches: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Requests received.
    pub requests: u64,
    /// The most positions in one evaluator call.
    pub largest_batch: usize,
}

/// State the handle, the clients and the service thread share.
#[derive(Default)]
struct Shared {
    /// Clients alive: when this many are waiting, nothing more can arrive.
    clients: AtomicUsize,
    next_id: AtomicU64,
    batches: AtomicU64,
    positions: AtomicU64,
    requests: AtomicU64,
    largest_batch: AtomicUsize,
}

impl Shared {
    fn stats(&self) -> ServiceStats {
        ServiceStats {
            batches: self.batches.load(Ordering::Relaxed),
            positions: self.positions.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            largest_batch: self.largest_batch.load(Ordering::Relaxed),
        }
    }
}

/// The buffers of one request, going to the service and coming back filled (and then reused
/// by the client for its next request).
struct Buffers<P> {
    positions: Vec<P>,
    policies: Vec<f32>,
    values: Vec<f32>,
}

impl<P> Default for Buffers<P> {
    fn default() -> Self {
        Buffers { positions: Vec::new(), policies: Vec::new(), values: Vec::new() }
    }
}

enum Msg<P> {
    Request {
        id: u64,
        buffers: Buffers<P>,
        reply: Sender<Buffers<P>>,
    },
    /// The client that sent request `id` is now blocked on it.
    Awaiting(u64),
    /// A client is gone (maybe everyone else is waiting now).
    Left,
}

/// A request in the service's queue.
struct Job<P> {
    id: u64,
    buffers: Buffers<P>,
    reply: Sender<Buffers<P>>,
    /// Positions already evaluated (a request can span several batches).
    done: usize,
    /// Its client is blocked on it.
    awaited: bool,
    arrived: Instant,
}

/// The handle of a running service: makes clients, reads the counters, waits for the end.
/// Dropping it without [`Self::join`] leaves the thread to end by itself once every client
/// is gone.
pub struct InferenceService<G: Game> {
    tx: Sender<Msg<G::Position>>,
    shared: Arc<Shared>,
    thread: JoinHandle<()>,
}

impl<G: Game> InferenceService<G> {
    /// Starts the service's thread, which owns `evaluator` from now on.
    ///
    /// # Errors
    /// [`ServiceError::ZeroBatch`], or [`ServiceError::Spawn`] when no thread can be started.
    pub fn start<E: Evaluator<G> + 'static>(
        game: &G,
        evaluator: E,
        config: ServiceConfig,
    ) -> Result<Self, ServiceError> {
        if config.max_batch == 0 {
            return Err(ServiceError::ZeroBatch);
        }
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let server = Server {
            game: game.clone(),
            evaluator,
            config,
            rx,
            shared: Arc::clone(&shared),
            queue: VecDeque::new(),
            queued: 0,
            awaited: 0,
            open: true,
            batch: Vec::new(),
            parts: Vec::new(),
            policies: Vec::new(),
            values: Vec::new(),
        };
        let thread = std::thread::Builder::new()
            .name("inference".into())
            .spawn(move || server.run())
            .map_err(ServiceError::Spawn)?;
        Ok(InferenceService { tx, shared, thread })
    }

    /// A new client, for one search thread.
    pub fn client(&self) -> ServiceClient<G> {
        self.shared.clients.fetch_add(1, Ordering::AcqRel);
        ServiceClient { tx: self.tx.clone(), shared: Arc::clone(&self.shared), spare: Vec::new(), cache: None }
    }

    /// The counters so far.
    pub fn stats(&self) -> ServiceStats {
        self.shared.stats()
    }

    /// Waits until every client is gone and everything queued is answered, then returns the
    /// final counters.
    ///
    /// # Errors
    /// [`ServiceError::Panicked`] when the evaluator panicked.
    pub fn join(self) -> Result<ServiceStats, ServiceError> {
        let InferenceService { tx, shared, thread } = self;
        drop(tx);
        thread.join().map_err(|payload| ServiceError::Panicked(panic_message(payload.as_ref())))?;
        Ok(shared.stats())
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic without a message".into(),
    }
}

/// The service's thread.
struct Server<G: Game, E> {
    game: G,
    evaluator: E,
    config: ServiceConfig,
    rx: Receiver<Msg<G::Position>>,
    shared: Arc<Shared>,
    queue: VecDeque<Job<G::Position>>,
    /// Positions in `queue` not yet evaluated.
    queued: usize,
    /// Jobs in `queue` whose client is blocked on them.
    awaited: usize,
    /// Some client (or the handle) may still send.
    open: bool,
    batch: Vec<G::Position>,
    /// The batch's pieces: (index in `queue`, positions taken from that job).
    parts: Vec<(usize, usize)>,
    policies: Vec<f32>,
    values: Vec<f32>,
}

impl<G: Game, E: Evaluator<G>> Server<G, E> {
    fn run(mut self) {
        loop {
            while self.open {
                match self.rx.try_recv() {
                    Ok(msg) => self.take(msg),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => self.open = false,
                }
            }
            if self.queue.is_empty() {
                if !self.open {
                    return;
                }
                match self.rx.recv() {
                    Ok(msg) => self.take(msg),
                    Err(_) => self.open = false,
                }
                continue;
            }
            if !self.ready() {
                let deadline = self.queue[0].arrived + self.config.flush;
                if let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
                    match self.rx.recv_timeout(left) {
                        Ok(msg) => {
                            self.take(msg);
                            continue;
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => self.open = false,
                    }
                }
            }
            self.evaluate_batch();
        }
    }

    /// A batch can go without waiting out the flush time: it is full, nothing more can come
    /// (every sender gone, or every client blocked on an answer).
    fn ready(&self) -> bool {
        self.queued >= self.config.max_batch
            || !self.open
            || self.awaited >= self.shared.clients.load(Ordering::Acquire)
    }

    fn take(&mut self, msg: Msg<G::Position>) {
        match msg {
            Msg::Request { id, mut buffers, reply } => {
                self.shared.requests.fetch_add(1, Ordering::Relaxed);
                let n = buffers.positions.len();
                if n == 0 {
                    let _ = reply.send(buffers);
                    return;
                }
                buffers.policies.resize(n * self.game.action_space(), 0.0);
                buffers.values.resize(n, 0.0);
                self.queued += n;
                self.queue.push_back(Job { id, buffers, reply, done: 0, awaited: false, arrived: Instant::now() });
            }
            Msg::Awaiting(id) => {
                // Already answered when not found: the client will find its reply waiting.
                if let Some(job) = self.queue.iter_mut().find(|j| j.id == id && !j.awaited) {
                    job.awaited = true;
                    self.awaited += 1;
                }
            }
            Msg::Left => {}
        }
    }

    /// One evaluator call on up to `max_batch` positions from the front of the queue; the
    /// requests it completes are answered.
    fn evaluate_batch(&mut self) {
        let a = self.game.action_space();
        self.batch.clear();
        self.parts.clear();
        let mut room = self.config.max_batch;
        for (i, job) in self.queue.iter().enumerate() {
            if room == 0 {
                break;
            }
            let take = (job.buffers.positions.len() - job.done).min(room);
            self.batch.extend_from_slice(&job.buffers.positions[job.done..job.done + take]);
            self.parts.push((i, take));
            room -= take;
        }
        let n = self.batch.len();
        self.policies.resize(n * a, 0.0);
        self.values.resize(n, 0.0);
        self.evaluator.evaluate(&self.game, &self.batch, &mut self.policies, &mut self.values);
        self.shared.batches.fetch_add(1, Ordering::Relaxed);
        self.shared.positions.fetch_add(n as u64, Ordering::Relaxed);
        self.shared.largest_batch.fetch_max(n, Ordering::Relaxed);
        let mut at = 0;
        for &(i, take) in &self.parts {
            let job = &mut self.queue[i];
            let (from, to) = (job.done, job.done + take);
            job.buffers.policies[from * a..to * a].copy_from_slice(&self.policies[at * a..(at + take) * a]);
            job.buffers.values[from..to].copy_from_slice(&self.values[at..at + take]);
            job.done = to;
            at += take;
        }
        self.queued -= n;
        // Requests complete in queue order: only the last piece can be partial.
        while self.queue.front().is_some_and(|j| j.done == j.buffers.positions.len()) {
            let job = self.queue.pop_front().expect("the front was just seen");
            if job.awaited {
                self.awaited -= 1;
            }
            // A client that is gone (its thread panicked or stopped) dropped its receiver.
            let _ = job.reply.send(job.buffers);
        }
    }
}

/// Evaluation in two halves: hand a batch over now, collect the answer later, so a self-play
/// thread can search one group of games while another group's batch is evaluated.
pub trait SubmitEvaluator<G: Game>: Send {
    /// An answer still to collect; dropping it throws the answer away.
    type Ticket: Send;

    fn submit(&mut self, game: &G, positions: &[G::Position]) -> Self::Ticket;

    /// Writes the answer of `ticket`'s positions as [`Evaluator::evaluate`] would.
    fn collect(&mut self, game: &G, ticket: Self::Ticket, policies: &mut [f32], values: &mut [f32]);
}

/// Any evaluator as a [`SubmitEvaluator`] that evaluates when the answer is collected: the
/// blocking fallback, nothing overlaps.
pub struct Blocking<E>(pub E);

impl<G: Game, E: Evaluator<G>> SubmitEvaluator<G> for Blocking<E> {
    type Ticket = Vec<G::Position>;

    fn submit(&mut self, _game: &G, positions: &[G::Position]) -> Self::Ticket {
        positions.to_vec()
    }

    fn collect(&mut self, game: &G, ticket: Self::Ticket, policies: &mut [f32], values: &mut [f32]) {
        self.0.evaluate(game, &ticket, policies, values);
    }
}

/// A search thread's end of the service: an [`Evaluator`] and a [`SubmitEvaluator`].
pub struct ServiceClient<G: Game> {
    tx: Sender<Msg<G::Position>>,
    shared: Arc<Shared>,
    /// Buffers of answered requests, for the next ones.
    spare: Vec<Buffers<G::Position>>,
    /// An evaluation cache on the client's side, as [`crate::CachedEvaluator`] is for the
    /// direct path: a hit never reaches the service.
    cache: Option<Arc<EvalCache>>,
}

/// A request handed to the service whose answer is still to collect.
pub struct Ticket<P> {
    /// The service's request and its answer (`None`: every position was in the cache).
    sent: Option<(u64, Receiver<Buffers<P>>)>,
    positions: usize,
    /// With a cache: each position's answer, the hits filled at submit time...
    policies: Vec<f32>,
    values: Vec<f32>,
    /// ...and the misses, sent to the service: (index, hash).
    misses: Vec<(usize, u64)>,
}

impl<G: Game> ServiceClient<G> {
    /// The same client behind an evaluation cache of `2^log2_slots` entries.
    pub fn cached(self, log2_slots: u32) -> Self {
        self.cached_in(Arc::new(EvalCache::new(log2_slots)))
    }

    /// The same client behind `cache`, which other clients of the service may share.
    pub fn cached_in(mut self, cache: Arc<EvalCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Its evaluation cache, if it has one.
    pub fn cache(&self) -> Option<&Arc<EvalCache>> {
        self.cache.as_ref()
    }

    /// Queues `positions` (those not in the cache) for the service.
    ///
    /// # Errors
    /// [`ServiceError::Stopped`] when the service's thread has ended.
    pub fn submit(&mut self, game: &G, positions: &[G::Position]) -> Result<Ticket<G::Position>, ServiceError> {
        let a = game.action_space();
        let mut ticket = Ticket {
            sent: None,
            positions: positions.len(),
            policies: Vec::new(),
            values: Vec::new(),
            misses: Vec::new(),
        };
        let mut buffers = self.spare.pop().unwrap_or_default();
        buffers.positions.clear();
        match &self.cache {
            None => buffers.positions.extend_from_slice(positions),
            Some(cache) => {
                ticket.policies.resize(positions.len() * a, 0.0);
                ticket.values.resize(positions.len(), 0.0);
                for (i, pos) in positions.iter().enumerate() {
                    let h = game.hash(pos);
                    match cache.get(h, &mut ticket.policies[i * a..(i + 1) * a]) {
                        Some(v) => ticket.values[i] = v,
                        None => {
                            ticket.misses.push((i, h));
                            buffers.positions.push(*pos);
                        }
                    }
                }
                let misses = ticket.misses.len();
                cache.count(positions.len() as u64, (positions.len() - misses) as u64);
            }
        }
        if buffers.positions.is_empty() {
            self.spare.push(buffers);
            return Ok(ticket);
        }
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = mpsc::channel();
        self.tx.send(Msg::Request { id, buffers, reply }).map_err(|_| ServiceError::Stopped)?;
        ticket.sent = Some((id, answer));
        Ok(ticket)
    }

    /// Waits for `ticket`'s answer and writes it as [`Evaluator::evaluate`] would.
    ///
    /// # Errors
    /// [`ServiceError::Stopped`] when the service's thread ended before answering.
    pub fn wait(
        &mut self,
        game: &G,
        ticket: Ticket<G::Position>,
        policies: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), ServiceError> {
        let a = game.action_space();
        let n = ticket.positions;
        let Some((id, answer)) = &ticket.sent else {
            policies[..n * a].copy_from_slice(&ticket.policies);
            values[..n].copy_from_slice(&ticket.values);
            return Ok(());
        };
        let buffers = match answer.try_recv() {
            Ok(b) => b,
            Err(TryRecvError::Disconnected) => return Err(ServiceError::Stopped),
            Err(TryRecvError::Empty) => {
                // Tell the service this thread can send nothing more until answered.
                let _ = self.tx.send(Msg::Awaiting(*id));
                answer.recv().map_err(|_| ServiceError::Stopped)?
            }
        };
        match &self.cache {
            None => {
                policies[..n * a].copy_from_slice(&buffers.policies);
                values[..n].copy_from_slice(&buffers.values);
            }
            Some(cache) => {
                let Ticket { policies: mut all_p, values: mut all_v, misses, .. } = ticket;
                for (j, &(i, h)) in misses.iter().enumerate() {
                    let p = &buffers.policies[j * a..(j + 1) * a];
                    all_p[i * a..(i + 1) * a].copy_from_slice(p);
                    all_v[i] = buffers.values[j];
                    cache.put(h, p, all_v[i]);
                }
                policies[..n * a].copy_from_slice(&all_p);
                values[..n].copy_from_slice(&all_v);
            }
        }
        // Two sets of buffers cover the two groups of a pipelined thread.
        if self.spare.len() < 2 {
            self.spare.push(buffers);
        }
        Ok(())
    }
}

impl<G: Game> Drop for ServiceClient<G> {
    fn drop(&mut self) {
        self.shared.clients.fetch_sub(1, Ordering::AcqRel);
        // Wakes the service: the clients left may all be waiting now.
        let _ = self.tx.send(Msg::Left);
    }
}

/// A search thread cannot go on without answers: a stopped service panics the thread, as
/// an evaluator that panicked in it would have.
impl<G: Game> Evaluator<G> for ServiceClient<G> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        if positions.is_empty() {
            return;
        }
        let ticket = self.submit(game, positions).unwrap_or_else(|e| panic!("{e}"));
        self.wait(game, ticket, policies, values).unwrap_or_else(|e| panic!("{e}"));
    }
}

impl<G: Game> SubmitEvaluator<G> for ServiceClient<G> {
    type Ticket = Ticket<G::Position>;

    fn submit(&mut self, game: &G, positions: &[G::Position]) -> Self::Ticket {
        ServiceClient::submit(self, game, positions).unwrap_or_else(|e| panic!("{e}"))
    }

    fn collect(&mut self, game: &G, ticket: Self::Ticket, policies: &mut [f32], values: &mut [f32]) {
        self.wait(game, ticket, policies, values).unwrap_or_else(|e| panic!("{e}"));
    }
}
