//! The one seam between search and anything that judges positions.
//!
//! Search hands an [`Evaluator`] a batch of positions and gets back, for each, a policy over
//! the game's action space (zero on illegal actions, summing to one) and a value in [-1, 1]
//! for the player to move. Whether a network, a rollout or a cache answers is hidden here.

use mancala_rules::{Action, Game, MAX_ACTIONS};
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

#[derive(Clone, Copy)]
struct CacheEntry {
    hash: u64,
    value: f32,
    policy: [f32; MAX_ACTIONS],
}

/// A direct-mapped evaluation cache keyed by position hash, in front of another evaluator.
/// Fixed size, no allocation after creation; a newer entry replaces an older one in its slot.
pub struct CachedEvaluator<G: Game, E> {
    inner: E,
    batch: Vec<G::Position>,
    slots: Vec<Option<CacheEntry>>,
    mask: u64,
    misses: Vec<usize>,
    miss_policies: Vec<f32>,
    miss_values: Vec<f32>,
    /// Lookups answered from the cache, and all lookups.
    pub hits: u64,
    pub lookups: u64,
}

impl<G: Game, E> CachedEvaluator<G, E> {
    /// A cache of `2^log2_slots` entries in front of `inner`.
    pub fn new(inner: E, log2_slots: u32) -> Self {
        let n = 1usize << log2_slots;
        CachedEvaluator {
            inner,
            batch: Vec::new(),
            slots: vec![None; n],
            mask: (n - 1) as u64,
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

    /// Forgets every entry (for example after the network changed).
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for CachedEvaluator<G, E> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        self.misses.clear();
        let mut batch = std::mem::take(&mut self.batch);
        batch.clear();
        for (i, pos) in positions.iter().enumerate() {
            self.lookups += 1;
            let h = game.hash(pos);
            match &self.slots[(h & self.mask) as usize] {
                Some(e) if e.hash == h => {
                    self.hits += 1;
                    policies[i * a..(i + 1) * a].copy_from_slice(&e.policy[..a]);
                    values[i] = e.value;
                }
                _ => {
                    self.misses.push(i);
                    batch.push(*pos);
                }
            }
        }
        if batch.is_empty() {
            self.batch = batch;
            return;
        }
        self.miss_policies.resize(batch.len() * a, 0.0);
        self.miss_values.resize(batch.len(), 0.0);
        self.inner.evaluate(game, &batch, &mut self.miss_policies, &mut self.miss_values);
        for (j, &i) in self.misses.iter().enumerate() {
            let p = &self.miss_policies[j * a..(j + 1) * a];
            policies[i * a..(i + 1) * a].copy_from_slice(p);
            values[i] = self.miss_values[j];
            let h = game.hash(&positions[i]);
            let mut entry = CacheEntry { hash: h, value: values[i], policy: [0.0; MAX_ACTIONS] };
            entry.policy[..a].copy_from_slice(p);
            self.slots[(h & self.mask) as usize] = Some(entry);
        }
        self.batch = batch;
    }
}
