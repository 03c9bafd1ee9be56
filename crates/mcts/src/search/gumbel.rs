//! The Gumbel root (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"):
//! Gumbel-top-k sampling of root actions, sequential halving over them, and the move and
//! improved policy they give; mctx's `gumbel_muzero_root_action_selection` and `seq_halving`.

use mancala_rules::{Game, MAX_ACTIONS};
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Gumbel};

use super::qtransform::{child_q, mixed_value, sigma};
use crate::config::SearchConfig;
use crate::tree::{NodeId, Tree};

/// The schedule of one move's search at a Gumbel root.
#[derive(Clone, Debug, Default)]
pub(crate) struct GumbelRoot {
    active: bool,
    /// Gumbel noise and log-prior of every root child, by child offset.
    gumbel: Vec<f32>,
    logit: Vec<f32>,
    /// Child offsets still considered.
    considered: Vec<u8>,
    /// Visits each root child had when this move's search began: with tree reuse the new
    /// root's children keep the visits of the last move's search, and the halving schedule
    /// counts only this move's, so that every phase still spends its share on each
    /// considered action instead of passing over the ones that already have visits.
    before: Vec<u32>,
    /// This move's visits each considered child should have by the end of the current phase.
    target: u32,
    phases: u32,
    /// Simulations the schedule shares out: the move's budget less what was spent before the
    /// root had children (its own evaluation), as in the paper where n counts root-action visits.
    budget: u32,
}

/// Root child number `k`.
fn root_child<G: Game>(tree: &Tree<G>, k: u8) -> NodeId {
    tree.children(NodeId::ROOT).get(usize::from(k)).expect("a considered action is a root child")
}

impl GumbelRoot {
    /// Whether the schedule runs (a Gumbel root whose children exist).
    pub(crate) fn is_active(&self) -> bool {
        self.active
    }

    /// Gumbel-top-k (Danihelka et al. 2022): draws g for every root action, keeps
    /// the m best by g + logit and sets the first halving phase over `simulations - spent`.
    pub(crate) fn start<G: Game>(&mut self, tree: &Tree<G>, config: &SearchConfig, spent: u32, rng: &mut SmallRng) {
        let kids = tree.children(NodeId::ROOT);
        let n = kids.len();
        if n == 0 {
            return;
        }
        self.gumbel.clear();
        self.logit.clear();
        self.before.clear();
        self.before.extend(kids.clone().map(|c| tree.visits(c)));
        let dist = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
        for c in kids {
            self.gumbel.push(dist.sample(rng));
            self.logit.push(tree.prior(c).max(1e-8).ln());
        }
        let m = config.gumbel_actions.clamp(1, n);
        let mut order: Vec<u8> = (0..n as u8).collect();
        order.sort_by(|&x, &y| {
            let sx = self.gumbel[x as usize] + self.logit[x as usize];
            let sy = self.gumbel[y as usize] + self.logit[y as usize];
            sy.total_cmp(&sx)
        });
        order.truncate(m);
        self.considered = order;
        self.phases = (m as f32).log2().ceil().max(1.0) as u32;
        self.budget = config.simulations.saturating_sub(spent);
        self.active = true;
        self.target = self.phase_budget(m);
    }

    /// Visits each of `remaining` actions gets in one phase of sequential halving (Karnin et
    /// al. 2013, as Danihelka et al. 2022 use it): budget / (phases * remaining), at least 1.
    fn phase_budget(&self, remaining: usize) -> u32 {
        let n = self.budget.max(1);
        (n / (self.phases.max(1) * remaining as u32)).max(1)
    }

    /// The root child the sequential-halving schedule visits next (Danihelka et al. 2022): the
    /// least visited considered action short of the phase's target; when none is, the better
    /// half by g + logit + sigma(q) goes on to the next phase.
    pub(crate) fn next_child<G: Game>(&mut self, tree: &Tree<G>, config: &SearchConfig) -> NodeId {
        loop {
            let target = self.target;
            let next = self
                .considered
                .iter()
                .map(|&k| (k, self.visits_now(tree, k)))
                .filter(|&(_, n)| n < target)
                .min_by_key(|&(_, n)| n);
            if let Some((k, _)) = next {
                return root_child(tree, k);
            }
            // Phase over: keep the better half, or keep visiting the last one.
            if self.considered.len() > 1 {
                let mut scored: Vec<(u8, f32)> =
                    self.considered.iter().map(|&k| (k, self.score(tree, config, k))).collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1));
                let keep = scored.len().div_ceil(2);
                self.considered = scored[..keep].iter().map(|&(k, _)| k).collect();
            }
            let add = self.phase_budget(self.considered.len());
            self.target += add;
        }
    }

    /// This move's visits of root child `k`, counting those on their way.
    fn visits_now<G: Game>(&self, tree: &Tree<G>, k: u8) -> u32 {
        let c = root_child(tree, k);
        tree.visits(c) + tree.in_flight(c) - self.before[usize::from(k)]
    }

    /// g + logit + sigma(q) of root child `k` (Danihelka et al. 2022); an unvisited
    /// child ranks on g + logit.
    fn score<G: Game>(&self, tree: &Tree<G>, config: &SearchConfig, k: u8) -> f32 {
        let base = self.gumbel[usize::from(k)] + self.logit[usize::from(k)];
        match child_q(tree, root_child(tree, k), config) {
            Some(q) => base + sigma(tree, config, q),
            None => base,
        }
    }

    /// The move: the considered action with the best g + logit + sigma(q) (Danihelka et al.
    /// 2022). None when the root has no children.
    pub(crate) fn best<G: Game>(&self, tree: &Tree<G>, config: &SearchConfig) -> Option<NodeId> {
        let best = self
            .considered
            .iter()
            .max_by(|&&a, &&b| self.score(tree, config, a).total_cmp(&self.score(tree, config, b)))?;
        Some(root_child(tree, *best))
    }

    /// The improved policy softmax(logit + sigma(completed q)) over the action space, where an
    /// unvisited action's q is completed with v_mix (Danihelka et al. 2022, app. D).
    pub(crate) fn improved_policy<G: Game>(&self, tree: &Tree<G>, config: &SearchConfig, out: &mut [f32]) {
        let kids = tree.children(NodeId::ROOT);
        let completed = mixed_value(tree, config);
        let mut max = f32::NEG_INFINITY;
        let mut scores = [0.0f32; MAX_ACTIONS];
        for (k, c) in kids.clone().enumerate() {
            let q = child_q(tree, c, config).unwrap_or(completed);
            scores[k] = self.logit[k] + sigma(tree, config, q);
            max = max.max(scores[k]);
        }
        let mut sum = 0.0;
        for (k, c) in kids.enumerate() {
            let e = (scores[k] - max).exp();
            out[usize::from(tree.action(c))] = e;
            sum += e;
        }
        out.iter_mut().for_each(|p| *p /= sum);
    }
}
