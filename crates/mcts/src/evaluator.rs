//! The one seam between search and anything that judges positions.
//!
//! Search hands an [`Evaluator`] a batch of positions and gets back, for each, a policy over
//! the game's action space (zero on illegal actions, summing to one) and a value in [-1, 1]
//! for the player to move. Whether a network, a rollout or a cache answers is hidden here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mancala_rules::{Action, Game};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Judges batches of non-terminal positions.
pub trait Evaluator<G: Game>: Send {
    /// For `positions[i]`, writes the policy into `policies[i*A..(i+1)*A]` (A =
    /// `game.action_space()`) and the value for the player to move into `values[i]`.
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]);
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        (**self).evaluate(game, positions, policies, values);
    }
}

/// Writes a uniform policy over the legal moves of `pos` into `out`.
pub fn uniform_policy<G: Game>(game: &G, pos: &G::Position, out: &mut [f32]) {
    out.fill(0.0);
    let legal = game.legal_moves(pos);
    let p = 1.0 / legal.len().max(1) as f32;
    for a in legal {
        out[usize::from(a)] = p;
    }
}

/// Plays uniformly random legal moves from `pos` to the end; returns the outcome's value for
/// the player to move at `pos`. Uses the position's own guards (`max_plies`) to end.
pub fn random_playout<G: Game>(game: &G, pos: &G::Position, rng: &mut SmallRng) -> f32 {
    let side = game.side_to_move(pos);
    let mut p = *pos;
    loop {
        // No legal move means the game is over (the `Game` contract): one call a ply, not two.
        let legal = game.legal_moves(&p);
        if legal.is_empty() {
            let outcome = game.status(&p).outcome().expect("a game without legal moves is over");
            return outcome.value_for(side);
        }
        let a: Action = legal.nth(pick(rng, legal.len())).expect("the index is below the number of moves");
        game.play_unchecked(&mut p, a);
    }
}

/// A uniform index in `0..n` by one multiply (Lemire) without the rejection step: the bias,
/// at most n / 2^32, is far below anything a playout could show, and the rejection loop of
/// `random_range` cost a tenth of a playout.
#[inline]
fn pick(rng: &mut SmallRng, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// The classic MCTS baseline: uniform priors, and one random playout as the value.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rng: SmallRng,
}

impl RolloutEvaluator {
    pub fn new(seed: u64) -> Self {
        RolloutEvaluator { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        for (i, pos) in positions.iter().enumerate() {
            uniform_policy(game, pos, &mut policies[i * a..(i + 1) * a]);
            values[i] = random_playout(game, pos, &mut self.rng);
        }
    }
}

/// Uniform priors and a value of zero: search guided by nothing but exact terminal values.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        for (i, pos) in positions.iter().enumerate() {
            uniform_policy(game, pos, &mut policies[i * a..(i + 1) * a]);
            values[i] = 0.0;
        }
    }
}

/// Slots of one lock of an [`EvalCache`]: each slot `3 + a` words in one flat array, the
/// key's two halves, the value's bits and the `a` priors' bits, so a slot costs `12 + 4a`
/// bytes (60 for 12 houses) rather than room for the largest action space, and a lookup
/// reads one or two cache lines rather than one in each of three arrays.
#[derive(Default)]
struct Shard {
    /// The action space the slots were made for (0 until first used).
    actions: usize,
    words: Vec<u32>,
}

/// A slot's words: the key's low and high halves, the value, then from `SLOT_HEAD` the priors.
const KEY_LOW: usize = 0;
const KEY_HIGH: usize = 1;
const VALUE: usize = 2;
const SLOT_HEAD: usize = 3;

/// The value bits of an empty slot: a NaN (an evaluator's value is never NaN; if one were,
/// it would just not be kept).
const EMPTY: u32 = f32::NAN.to_bits();

impl Shard {
    /// Makes the slots for `actions` (again, emptied, if they were made for another game).
    fn ready(&mut self, slots: usize, actions: usize) {
        if self.actions != actions {
            let stride = SLOT_HEAD + actions;
            let mut words = vec![0; slots * stride];
            words.chunks_exact_mut(stride).for_each(|slot| slot[VALUE] = EMPTY);
            *self = Shard { actions, words };
        }
    }

    /// Slot `i`'s words.
    fn slot(&mut self, i: usize) -> &mut [u32] {
        let stride = SLOT_HEAD + self.actions;
        &mut self.words[i * stride..(i + 1) * stride]
    }
}

/// Lookups and hits of an [`EvalCache`] so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub lookups: u64,
    pub hits: u64,
}

impl CacheStats {
    /// Hits over lookups (0 before the first lookup).
    pub fn hit_rate(&self) -> f64 {
        if self.lookups == 0 { 0.0 } else { self.hits as f64 / self.lookups as f64 }
    }
}

/// Network answers kept by position hash (KataGo's NN cache): direct-mapped, a newer answer
/// replaces an older one in its slot, so its memory is fixed ([`EvalCache::bytes`]) however
/// long it is used. It is `Sync`: behind an `Arc`, one cache serves all the threads of a
/// worker ([`CachedEvaluator::sharing`], `ServiceClient::cached_in`), so a position one
/// thread's games evaluated is a hit for another's. The slots are split between locks by
/// their index, so threads rarely wait on each other.
pub struct EvalCache {
    shards: Box<[Mutex<Shard>]>,
    /// `slots - 1`; slot `h & mask` lives in shard `(h & mask) % shards` at `(h & mask) / shards`.
    mask: u64,
    hits: AtomicU64,
    lookups: AtomicU64,
}

/// Most locks a cache is split between.
const SHARDS: usize = 64;

impl EvalCache {
    /// A cache of `2^log2_slots` answers; the memory is taken at first use, when the action
    /// space is known.
    ///
    /// # Panics
    /// If `log2_slots` is above 40 (a typo, not a cache).
    pub fn new(log2_slots: u32) -> Self {
        assert!(log2_slots <= 40, "an evaluation cache of 2^{log2_slots} slots");
        let slots = 1usize << log2_slots;
        let shards = slots.min(SHARDS);
        EvalCache {
            shards: (0..shards).map(|_| Mutex::new(Shard::default())).collect(),
            mask: (slots - 1) as u64,
            hits: AtomicU64::new(0),
            lookups: AtomicU64::new(0),
        }
    }

    /// Its number of slots.
    pub fn slots(&self) -> usize {
        self.mask as usize + 1
    }

    /// The memory it takes for an action space of `actions`, in bytes.
    pub fn bytes(&self, actions: usize) -> usize {
        self.slots() * (std::mem::size_of::<u64>() + std::mem::size_of::<f32>() * (1 + actions))
    }

    /// Lookups and hits so far, over every evaluator that shares it.
    pub fn stats(&self) -> CacheStats {
        CacheStats { lookups: self.lookups.load(Ordering::Relaxed), hits: self.hits.load(Ordering::Relaxed) }
    }

    /// Adds a batch's lookups and hits to [`EvalCache::stats`] (once a batch, so threads do
    /// not fight over the counters once a position).
    pub fn count(&self, lookups: u64, hits: u64) {
        self.lookups.fetch_add(lookups, Ordering::Relaxed);
        self.hits.fetch_add(hits, Ordering::Relaxed);
    }

    fn shard(&self, hash: u64) -> (std::sync::MutexGuard<'_, Shard>, usize) {
        let slot = (hash & self.mask) as usize;
        let n = self.shards.len();
        // A thread that panicked while holding the lock left whole slots behind (each write
        // is of plain numbers), so the cache stays usable.
        let guard = self.shards[slot % n].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (guard, slot / n)
    }

    /// Writes the answer kept for `hash` into `policy` (`a` priors) and returns its value,
    /// or `None` if it is not kept. Does not count (see [`EvalCache::count`]).
    pub fn get(&self, hash: u64, policy: &mut [f32]) -> Option<f32> {
        let a = policy.len();
        let slots = self.slots() / self.shards.len();
        let (mut shard, i) = self.shard(hash);
        shard.ready(slots, a);
        let slot = shard.slot(i);
        let value = f32::from_bits(slot[VALUE]);
        if value.is_nan() || slot[KEY_LOW] != hash as u32 || slot[KEY_HIGH] != (hash >> 32) as u32 {
            return None;
        }
        policy.iter_mut().zip(&slot[SLOT_HEAD..]).for_each(|(p, &w)| *p = f32::from_bits(w));
        Some(value)
    }

    /// Keeps `policy` and `value` as the answer for `hash`, in place of its slot's last one.
    pub fn put(&self, hash: u64, policy: &[f32], value: f32) {
        let a = policy.len();
        let slots = self.slots() / self.shards.len();
        let (mut shard, i) = self.shard(hash);
        shard.ready(slots, a);
        let slot = shard.slot(i);
        slot[KEY_LOW] = hash as u32;
        slot[KEY_HIGH] = (hash >> 32) as u32;
        slot[VALUE] = value.to_bits();
        slot[SLOT_HEAD..].iter_mut().zip(policy).for_each(|(w, p)| *w = p.to_bits());
    }

    /// Forgets every answer (for example after the network changed); the counts stay.
    pub fn clear(&self) {
        for shard in self.shards.iter() {
            let mut shard = shard.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let stride = SLOT_HEAD + shard.actions;
            shard.words.chunks_exact_mut(stride).for_each(|slot| slot[VALUE] = EMPTY);
        }
    }
}

/// An evaluation cache ([`EvalCache`]) in front of another evaluator: its own, or one shared
/// with the other threads of a worker.
pub struct CachedEvaluator<G: Game, E> {
    inner: E,
    cache: Arc<EvalCache>,
    batch: Vec<G::Position>,
    /// The index and hash of each position of a batch that missed.
    misses: Vec<(usize, u64)>,
    miss_policies: Vec<f32>,
    miss_values: Vec<f32>,
    /// Lookups answered from the cache, and all lookups, by this evaluator (the cache's
    /// [`EvalCache::stats`] count those of every evaluator sharing it).
    pub hits: u64,
    pub lookups: u64,
}

impl<G: Game, E> CachedEvaluator<G, E> {
    /// A cache of its own, of `2^log2_slots` entries, in front of `inner`.
    pub fn new(inner: E, log2_slots: u32) -> Self {
        Self::sharing(inner, Arc::new(EvalCache::new(log2_slots)))
    }

    /// `cache` in front of `inner`; other evaluators may use the same cache (they must answer
    /// the same way: the same network and settings).
    pub fn sharing(inner: E, cache: Arc<EvalCache>) -> Self {
        CachedEvaluator {
            inner,
            cache,
            batch: Vec::new(),
            misses: Vec::new(),
            miss_policies: Vec::new(),
            miss_values: Vec::new(),
            hits: 0,
            lookups: 0,
        }
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut E {
        &mut self.inner
    }

    /// The cache, to share or to read its statistics.
    pub fn cache(&self) -> &Arc<EvalCache> {
        &self.cache
    }

    /// Forgets every entry (for example after the network changed).
    pub fn clear(&mut self) {
        self.cache.clear();
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for CachedEvaluator<G, E> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        self.misses.clear();
        let mut batch = std::mem::take(&mut self.batch);
        batch.clear();
        for (i, pos) in positions.iter().enumerate() {
            let h = game.hash(pos);
            match self.cache.get(h, &mut policies[i * a..(i + 1) * a]) {
                Some(v) => values[i] = v,
                None => {
                    self.misses.push((i, h));
                    batch.push(*pos);
                }
            }
        }
        let (lookups, hits) = (positions.len() as u64, (positions.len() - batch.len()) as u64);
        self.lookups += lookups;
        self.hits += hits;
        self.cache.count(lookups, hits);
        if batch.is_empty() {
            self.batch = batch;
            return;
        }
        self.miss_policies.resize(batch.len() * a, 0.0);
        self.miss_values.resize(batch.len(), 0.0);
        self.inner.evaluate(game, &batch, &mut self.miss_policies, &mut self.miss_values);
        for (j, &(i, h)) in self.misses.iter().enumerate() {
            let p = &self.miss_policies[j * a..(j + 1) * a];
            policies[i * a..(i + 1) * a].copy_from_slice(p);
            values[i] = self.miss_values[j];
            self.cache.put(h, p, values[i]);
        }
        self.batch = batch;
    }
}
