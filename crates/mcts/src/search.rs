//! Monte Carlo tree search as a few small named steps: `descend` (select down to a leaf),
//! `expand` (children from the evaluator's policy) and `backup`.
//!
//! Batching: [`Search::gather`] hands out up to `leaves_per_gather` leaves (kept apart by
//! virtual loss), the caller evaluates them together with other searches' leaves, and
//! [`Search::apply`] expands and backs them up. [`Search::run`] does the loop for one search.

use mancala_rules::{Action, Game, Line, Player, MAX_ACTIONS};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Gamma, Gumbel};

use crate::config::{RootKind, SearchConfig};
use crate::evaluator::Evaluator;
use crate::tree::{NodeId, NodeState, Tree};

/// What one descent found.
enum Descent {
    /// A leaf to evaluate (its path is in `self.path`).
    Leaf(NodeId),
    /// A terminal node, already backed up.
    Terminal,
    /// A leaf already waiting for its evaluation: stop gathering for now.
    Collision,
}

/// Which stored path a backup walks.
enum PathRef {
    /// The path of the descent just made.
    Current,
    /// A pending leaf's path inside `paths`.
    Pending(std::ops::Range<usize>),
}

#[derive(Clone, Copy, Debug)]
struct PendingLeaf {
    leaf: NodeId,
    path_start: u32,
    path_end: u32,
}

/// Sequential halving over Gumbel-perturbed root actions (Danihelka et al. 2022, "Policy
/// improvement by planning with Gumbel").
#[derive(Clone, Debug, Default)]
struct GumbelRoot {
    active: bool,
    /// Gumbel noise and log-prior of every root child, by child offset.
    gumbel: Vec<f32>,
    logit: Vec<f32>,
    /// Child offsets still considered.
    considered: Vec<u8>,
    /// Visits each considered child should have by the end of the current phase.
    target: u32,
    phases: u32,
    /// Simulations the schedule shares out: the move's budget less what was spent before the
    /// root had children (its own evaluation), as in the paper where n counts root-action visits.
    budget: u32,
}

/// One search tree over a game, reusable from move to move.
#[derive(Clone, Debug)]
pub struct Search<G: Game> {
    game: G,
    config: SearchConfig,
    tree: Tree<G>,
    /// The tree that tree reuse copies the kept subtree into, then swaps with `tree`: both
    /// keep their capacity, so moving the root allocates nothing once they have grown.
    spare: Tree<G>,
    /// Scratch queue of that copy: (node in `tree`, node in `spare`).
    copy_queue: Vec<(usize, usize)>,
    /// Hashes of the positions before the root that a repetition is looked for in.
    history: Vec<u64>,
    rng: SmallRng,
    sims_done: u32,
    pending: Vec<PendingLeaf>,
    paths: Vec<NodeId>,
    path: Vec<NodeId>,
    gumbel: GumbelRoot,
}

/// Per-action figures at the root, for `analyze` and for tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildStats {
    pub action: Action,
    pub visits: u32,
    pub prior: f32,
    /// Mean value from the root player's view (None if unvisited).
    pub q: Option<f32>,
}

impl<G: Game> Search<G> {
    pub fn new(game: G, config: SearchConfig, seed: u64) -> Self {
        let cap = (config.simulations as usize + 1) * 8;
        let mut s = Search {
            game,
            config,
            tree: Tree::with_capacity(cap),
            spare: Tree::with_capacity(cap),
            copy_queue: Vec::new(),
            history: Vec::new(),
            rng: SmallRng::seed_from_u64(seed),
            sims_done: 0,
            pending: Vec::new(),
            paths: Vec::new(),
            path: Vec::new(),
            gumbel: GumbelRoot::default(),
        };
        let start = s.game.start();
        s.set_root(start, std::iter::empty());
        s
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    pub fn config_mut(&mut self) -> &mut SearchConfig {
        &mut self.config
    }

    pub fn tree(&self) -> &Tree<G> {
        &self.tree
    }

    pub fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    /// Starts afresh from `pos`; `history` holds the hashes of the earlier positions of its
    /// repetition window (see [`Line::repetition_window`]).
    pub fn set_root(&mut self, pos: G::Position, history: impl IntoIterator<Item = u64>) {
        self.tree.clear();
        self.history.clear();
        self.history.extend(history);
        let side = self.game.side_to_move(&pos);
        let root = self.tree.push(pos, NodeState::Unevaluated, side, side, 0, 1.0);
        self.tree.hash[root.idx()] = self.game.hash(&pos);
        if let Some(outcome) = self.game.status(&pos).outcome() {
            self.tree.state[root.idx()] = NodeState::Terminal;
            self.tree.terminal_value[root.idx()] = outcome.value_for(side);
        }
        self.new_move();
    }

    /// Starts afresh from the current position of a game in progress.
    pub fn set_root_line(&mut self, line: &Line<G>) {
        self.set_root(*line.position(), line.repetition_window());
    }

    /// Moves the root to the child reached by `action`, keeping its subtree (tree reuse).
    pub fn advance(&mut self, action: Action) {
        let root = NodeId::ROOT;
        let child = self.tree.children(root).find(|&c| self.tree.action[c] == action);
        let mut history = std::mem::take(&mut self.history);
        match child {
            Some(c) if matches!(self.tree.state[c], NodeState::Expanded | NodeState::Terminal) => {
                if self.tree.irreversible[c] {
                    history.clear();
                } else {
                    history.push(self.tree.hash[root.idx()]);
                }
                self.reroot(c);
                self.history = history;
                self.new_move();
            }
            _ => {
                // Not searched yet: play the move here, with the cycle rule as `Line` and
                // `materialize` apply it (the window now ends with the old root).
                let mut pos = self.tree.pos[root.idx()];
                let sowing = self.game.play_unchecked(&mut pos, action);
                if sowing.irreversible {
                    history.clear();
                } else {
                    history.push(self.tree.hash[root.idx()]);
                    if self.game.repetition_ends_game()
                        && !self.game.status(&pos).is_over()
                        && history.contains(&self.game.hash(&pos))
                    {
                        self.game.settle_cycle(&mut pos);
                    }
                }
                self.set_root(pos, history);
            }
        }
    }

    /// Makes the subtree under `top` the whole tree, with `top` as root: copied breadth
    /// first into `spare`, which then becomes `tree`.
    fn reroot(&mut self, top: usize) {
        let Search { tree: old, spare: new, copy_queue: queue, .. } = self;
        new.clear();
        queue.clear();
        new.push_copy(old, top);
        queue.push((top, 0));
        let mut head = 0;
        while head < queue.len() {
            let (o, n) = queue[head];
            head += 1;
            if new.state[n] == NodeState::Pending {
                new.state[n] = NodeState::Unevaluated;
            }
            let kids = old.children(NodeId(o as u32));
            if kids.is_empty() {
                continue;
            }
            let first = new.len();
            for oc in kids {
                let id = new.push_copy(old, oc);
                queue.push((oc, id.idx()));
            }
            new.first_child[n] = first as u32;
            new.num_children[n] = old.num_children[o];
        }
        std::mem::swap(old, new);
    }

    /// Resets the per-move budget and root extras after the root changed.
    fn new_move(&mut self) {
        self.sims_done = 0;
        self.pending.clear();
        self.paths.clear();
        self.gumbel = GumbelRoot::default();
        if self.tree.state[0] == NodeState::Expanded {
            self.prepare_root();
        }
    }

    /// Root noise and the Gumbel schedule, once the root has children.
    fn prepare_root(&mut self) {
        if self.config.dirichlet_noise {
            self.add_dirichlet_noise();
        }
        if self.config.root == RootKind::Gumbel {
            self.init_gumbel();
        }
    }

    pub fn root_position(&self) -> &G::Position {
        &self.tree.pos[0]
    }

    /// Simulations done since the root was set or advanced.
    pub fn simulations_done(&self) -> u32 {
        self.sims_done
    }

    /// True when this move's budget is spent or the root is terminal.
    pub fn is_done(&self) -> bool {
        self.tree.state[0] == NodeState::Terminal
            || (self.sims_done >= self.config.simulations && self.pending.is_empty())
    }

    /// Runs the whole budget with one evaluator (no cross-search batching).
    pub fn run<E: Evaluator<G> + ?Sized>(&mut self, evaluator: &mut E) {
        let a = self.game.action_space();
        let mut leaves: Vec<G::Position> = Vec::with_capacity(self.config.leaves_per_gather);
        let mut policies = vec![0.0f32; self.config.leaves_per_gather.max(1) * a];
        let mut values = vec![0.0f32; self.config.leaves_per_gather.max(1)];
        while !self.is_done() {
            leaves.clear();
            let n = self.gather(&mut leaves);
            if n > 0 {
                evaluator.evaluate(&self.game, &leaves, &mut policies[..n * a], &mut values[..n]);
                self.apply(&policies[..n * a], &values[..n]);
            }
        }
    }

    /// Appends up to `leaves_per_gather` leaf positions to `out` for evaluation and returns
    /// how many. Terminal nodes met on the way are backed up at once.
    pub fn gather(&mut self, out: &mut Vec<G::Position>) -> usize {
        let mut handed = 0;
        if self.tree.state[0] == NodeState::Terminal {
            return 0;
        }
        for _ in 0..self.config.leaves_per_gather.max(1) {
            let in_use = self.sims_done + self.pending.len() as u32;
            if in_use >= self.config.simulations {
                break;
            }
            match self.descend() {
                Descent::Leaf(leaf) => {
                    let start = self.paths.len() as u32;
                    for &n in &self.path {
                        self.tree.in_flight[n.idx()] += 1;
                    }
                    self.paths.extend_from_slice(&self.path);
                    self.pending.push(PendingLeaf { leaf, path_start: start, path_end: self.paths.len() as u32 });
                    self.tree.state[leaf.idx()] = NodeState::Pending;
                    out.push(self.tree.pos[leaf.idx()]);
                    handed += 1;
                }
                Descent::Terminal => self.sims_done += 1,
                Descent::Collision => break,
            }
        }
        handed
    }

    /// Applies the evaluations of the leaves handed out by the last [`Search::gather`], in
    /// the same order: `policies` holds `action_space` values a leaf.
    pub fn apply(&mut self, policies: &[f32], values: &[f32]) {
        let a = self.game.action_space();
        let pending = std::mem::take(&mut self.pending);
        for (k, p) in pending.iter().enumerate() {
            self.expand(p.leaf, &policies[k * a..(k + 1) * a]);
            self.tree.raw_value[p.leaf.idx()] = values[k];
            for i in p.path_start..p.path_end {
                let n = self.paths[i as usize];
                self.tree.in_flight[n.idx()] -= 1;
            }
            let side = self.tree.side[p.leaf.idx()];
            self.backup(PathRef::Pending(p.path_start as usize..p.path_end as usize), values[k], side);
            self.sims_done += 1;
            if p.leaf == NodeId::ROOT {
                // After counting the root's own simulation, so the Gumbel schedule shares out
                // only what is left.
                self.prepare_root();
            }
        }
        self.pending = pending;
        self.pending.clear();
        self.paths.clear();
    }

    /// Selects from the root down to a node that is not expanded.
    fn descend(&mut self) -> Descent {
        self.path.clear();
        let mut node = NodeId::ROOT;
        self.path.push(node);
        loop {
            match self.tree.state[node.idx()] {
                NodeState::Fresh => self.materialize(node),
                NodeState::Unevaluated => return Descent::Leaf(node),
                NodeState::Pending => return Descent::Collision,
                NodeState::Terminal => {
                    let v = self.tree.terminal_value[node.idx()];
                    let side = self.tree.side[node.idx()];
                    self.backup(PathRef::Current, v, side);
                    return Descent::Terminal;
                }
                NodeState::Expanded => {
                    node = if node == NodeId::ROOT && self.gumbel.active {
                        self.gumbel_child()
                    } else {
                        self.puct_child(node)
                    };
                    self.path.push(node);
                }
            }
        }
    }

    /// Computes the position of a fresh node from its parent (the path's second last node).
    fn materialize(&mut self, node: NodeId) {
        let parent = self.path[self.path.len() - 2];
        let i = node.idx();
        let mut pos = self.tree.pos[parent.idx()];
        let sowing = self.game.play_unchecked(&mut pos, self.tree.action[i]);
        let mut hash = self.game.hash(&pos);
        let mut state = NodeState::Unevaluated;
        if !self.game.status(&pos).is_over() && !sowing.irreversible && self.game.repetition_ends_game() && self.repeats(hash, &pos) {
            self.game.settle_cycle(&mut pos);
            hash = self.game.hash(&pos);
        }
        let side = self.game.side_to_move(&pos);
        if let Some(outcome) = self.game.status(&pos).outcome() {
            state = NodeState::Terminal;
            self.tree.terminal_value[i] = outcome.value_for(side);
        }
        self.tree.pos[i] = pos;
        self.tree.hash[i] = hash;
        self.tree.side[i] = side;
        self.tree.irreversible[i] = sowing.irreversible;
        self.tree.state[i] = state;
    }

    /// Whether a new position on the current path repeats one of its repetition window.
    fn repeats(&self, hash: u64, pos: &G::Position) -> bool {
        for k in (0..self.path.len() - 1).rev() {
            let n = self.path[k].idx();
            if self.tree.hash[n] == hash && self.tree.pos[n] == *pos {
                return true;
            }
            if k > 0 && self.tree.irreversible[n] {
                return false;
            }
        }
        self.history.contains(&hash)
    }

    /// PUCT (Silver et al. 2018) with first-play urgency and virtual loss.
    fn puct_child(&self, node: NodeId) -> NodeId {
        let t = &self.tree;
        let i = node.idx();
        let parent_n = (t.visits[i] + t.in_flight[i]).max(1) as f32;
        let sqrt_n = parent_n.sqrt();
        let fpu = t.value_for_side(node).unwrap_or(0.0) - self.config.fpu_reduction;
        let vl = self.config.virtual_loss;
        let mut best = usize::MAX;
        let mut best_score = f32::NEG_INFINITY;
        for c in t.children(node) {
            let n = t.visits[c] + t.in_flight[c];
            let q = if n == 0 { fpu } else { (t.value_sum[c] - vl * t.in_flight[c] as f32) / n as f32 };
            let u = self.config.c_puct * t.prior[c] * sqrt_n / (1.0 + n as f32);
            let score = q + u;
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        NodeId(best as u32)
    }

    /// Creates the children of an evaluated leaf with priors from `policy` (renormalised
    /// over the legal moves).
    fn expand(&mut self, leaf: NodeId, policy: &[f32]) {
        let i = leaf.idx();
        let pos = self.tree.pos[i];
        let side = self.tree.side[i];
        let legal = self.game.legal_moves(&pos);
        let sum: f32 = legal.iter().map(|a| policy[usize::from(a)].max(0.0)).sum();
        let uniform = 1.0 / legal.len().max(1) as f32;
        let first = self.tree.len() as u32;
        for a in legal {
            let p = if sum > 0.0 && sum.is_finite() { policy[usize::from(a)].max(0.0) / sum } else { uniform };
            self.tree.push(pos, NodeState::Fresh, side, side, a, p);
        }
        self.tree.first_child[i] = first;
        self.tree.num_children[i] = legal.len() as u8;
        self.tree.state[i] = NodeState::Expanded;
    }

    /// Adds `value` (for `leaf_side`) to every node of the path, signed for each node's
    /// mover: the sign flips only where the player changes, so extra turns keep it.
    fn backup(&mut self, path: PathRef, value: f32, leaf_side: Player) {
        let nodes = match path {
            PathRef::Current => &self.path[..],
            PathRef::Pending(r) => &self.paths[r],
        };
        for n in nodes {
            let n = n.idx();
            let v = if self.tree.mover[n] == leaf_side { value } else { -value };
            self.tree.visits[n] += 1;
            self.tree.value_sum[n] += v;
        }
    }

    /// Dirichlet noise on the root priors (AlphaZero), alpha scaled to the number of moves.
    fn add_dirichlet_noise(&mut self) {
        let kids = self.tree.children(NodeId::ROOT);
        if kids.len() < 2 {
            return;
        }
        let alpha = self.config.dirichlet_alpha_total / kids.len() as f32;
        let gamma = Gamma::new(alpha.max(1e-3), 1.0).expect("alpha and scale are positive");
        let mut noise = [0.0f32; MAX_ACTIONS];
        let mut sum = 0.0;
        for (k, _) in kids.clone().enumerate() {
            noise[k] = gamma.sample(&mut self.rng);
            sum += noise[k];
        }
        if sum <= 0.0 {
            return;
        }
        let f = self.config.dirichlet_fraction;
        for (k, c) in kids.enumerate() {
            self.tree.prior[c] = (1.0 - f) * self.tree.prior[c] + f * noise[k] / sum;
        }
    }

    /// Samples Gumbel noise, keeps the top m actions and sets the first halving phase.
    fn init_gumbel(&mut self) {
        let kids = self.tree.children(NodeId::ROOT);
        let n = kids.len();
        if n == 0 {
            return;
        }
        let g = &mut self.gumbel;
        g.gumbel.clear();
        g.logit.clear();
        let dist = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
        for c in kids {
            g.gumbel.push(dist.sample(&mut self.rng));
            g.logit.push(self.tree.prior[c].max(1e-8).ln());
        }
        let m = self.config.gumbel_actions.clamp(1, n);
        let mut order: Vec<u8> = (0..n as u8).collect();
        order.sort_by(|&x, &y| {
            let sx = g.gumbel[x as usize] + g.logit[x as usize];
            let sy = g.gumbel[y as usize] + g.logit[y as usize];
            sy.total_cmp(&sx)
        });
        order.truncate(m);
        g.considered = order;
        g.phases = (m as f32).log2().ceil().max(1.0) as u32;
        g.budget = self.config.simulations.saturating_sub(self.sims_done);
        g.active = true;
        self.gumbel.target = self.phase_budget(m);
    }

    /// Visits each of `remaining` actions gets in one phase of sequential halving.
    fn phase_budget(&self, remaining: usize) -> u32 {
        let n = self.gumbel.budget.max(1);
        (n / (self.gumbel.phases.max(1) * remaining as u32)).max(1)
    }

    /// sigma(q) of the paper: a monotone transform of q scaled by the visit counts.
    fn sigma(&self, q: f32) -> f32 {
        let max_n = self.tree.children(NodeId::ROOT).map(|c| self.tree.visits[c]).max().unwrap_or(0);
        (self.config.gumbel_c_visit + max_n as f32) * self.config.gumbel_c_scale * (q + 1.0) * 0.5
    }

    /// The root child the sequential-halving schedule visits next.
    fn gumbel_child(&mut self) -> NodeId {
        let first = self.tree.first_child[0] as usize;
        loop {
            let t = &self.tree;
            let g = &self.gumbel;
            let next = g
                .considered
                .iter()
                .map(|&k| first + k as usize)
                .filter(|&c| t.visits[c] + t.in_flight[c] < g.target)
                .min_by_key(|&c| t.visits[c] + t.in_flight[c]);
            if let Some(c) = next {
                return NodeId(c as u32);
            }
            // Phase over: keep the better half, or keep visiting the last one.
            if self.gumbel.considered.len() > 1 {
                let mut scored: Vec<(u8, f32)> =
                    self.gumbel.considered.iter().map(|&k| (k, self.gumbel_score(k as usize))).collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1));
                let keep = scored.len().div_ceil(2);
                self.gumbel.considered = scored[..keep].iter().map(|&(k, _)| k).collect();
            }
            let add = self.phase_budget(self.gumbel.considered.len());
            self.gumbel.target += add;
        }
    }

    /// g + logit + sigma(q) of a root child (by offset); unvisited children rank on g + logit.
    fn gumbel_score(&self, k: usize) -> f32 {
        let c = self.tree.first_child[0] as usize + k;
        let base = self.gumbel.gumbel[k] + self.gumbel.logit[k];
        match self.q_of(c) {
            Some(q) => base + self.sigma(q),
            None => base,
        }
    }

    /// Mean value of child `c` from the view of the root's player to move.
    fn q_of(&self, c: usize) -> Option<f32> {
        let t = &self.tree;
        if t.visits[c] == 0 {
            return None;
        }
        let q = t.value_sum[c] / t.visits[c] as f32;
        // value_sum is from the child's mover, who is the root's side to move.
        Some(if t.mover[c] == t.side[0] { q } else { -q })
    }

    /// Root value for the side to move, from the search.
    pub fn root_value(&self) -> f32 {
        if self.tree.state[0] == NodeState::Terminal {
            return self.tree.terminal_value[0];
        }
        self.tree.value_for_side(NodeId::ROOT).unwrap_or(0.0)
    }

    /// Visits, prior and value of every root action.
    pub fn root_children(&self) -> Vec<ChildStats> {
        self.tree
            .children(NodeId::ROOT)
            .map(|c| ChildStats {
                action: self.tree.action[c],
                visits: self.tree.visits[c],
                prior: self.tree.prior[c],
                q: self.q_of(c),
            })
            .collect()
    }

    /// The search's policy target over the action space: visit shares for PUCT; for Gumbel
    /// the improved policy softmax(logit + sigma(completed q)).
    pub fn policy_target(&self, out: &mut [f32]) {
        out.fill(0.0);
        let kids = self.tree.children(NodeId::ROOT);
        if kids.is_empty() {
            return;
        }
        if self.gumbel.active {
            let completed = self.mixed_value();
            let mut max = f32::NEG_INFINITY;
            let mut scores = [0.0f32; MAX_ACTIONS];
            for (k, c) in kids.clone().enumerate() {
                let q = self.q_of(c).unwrap_or(completed);
                scores[k] = self.gumbel.logit[k] + self.sigma(q);
                max = max.max(scores[k]);
            }
            let mut sum = 0.0;
            for (k, c) in kids.clone().enumerate() {
                let e = (scores[k] - max).exp();
                out[usize::from(self.tree.action[c])] = e;
                sum += e;
            }
            out.iter_mut().for_each(|p| *p /= sum);
        } else {
            let total: u32 = kids.clone().map(|c| self.tree.visits[c]).sum();
            for c in kids.clone() {
                let share = if total > 0 { self.tree.visits[c] as f32 / total as f32 } else { self.tree.prior[c] };
                out[usize::from(self.tree.action[c])] = share;
            }
        }
    }

    /// The value that completes q for unvisited root actions (Danihelka et al., v_mix).
    fn mixed_value(&self) -> f32 {
        let kids = self.tree.children(NodeId::ROOT);
        let mut total_n = 0.0;
        let mut visited_prior = 0.0;
        let mut weighted_q = 0.0;
        for c in kids {
            let n = self.tree.visits[c] as f32;
            total_n += n;
            if let Some(q) = self.q_of(c) {
                visited_prior += self.tree.prior[c];
                weighted_q += self.tree.prior[c] * q;
            }
        }
        let raw = self.tree.raw_value[0];
        if visited_prior <= 0.0 {
            return raw;
        }
        (raw + total_n / visited_prior * weighted_q) / (1.0 + total_n)
    }

    /// The move to play: Gumbel root: the best survivor of sequential halving; PUCT: by visit
    /// counts, the most visited at temperature 0, else sampled with N^(1/t).
    pub fn select_action(&mut self, temperature: f32) -> Option<Action> {
        let kids = self.tree.children(NodeId::ROOT);
        if kids.is_empty() {
            return None;
        }
        if self.gumbel.active {
            let first = self.tree.first_child[0] as usize;
            let best = self
                .gumbel
                .considered
                .iter()
                .max_by(|&&a, &&b| self.gumbel_score(a as usize).total_cmp(&self.gumbel_score(b as usize)))?;
            return Some(self.tree.action[first + *best as usize]);
        }
        if temperature <= 1e-3 {
            let best = kids.max_by(|&a, &b| {
                let t = &self.tree;
                t.visits[a].cmp(&t.visits[b]).then(t.prior[a].total_cmp(&t.prior[b]))
            })?;
            return Some(self.tree.action[best]);
        }
        let inv_t = 1.0 / temperature as f64;
        // Visits are scaled by the largest count first, so N^(1/t) cannot overflow.
        let max_n = kids.clone().map(|c| self.tree.visits[c]).max().unwrap_or(0).max(1) as f64;
        let weights: Vec<f64> = kids.clone().map(|c| (self.tree.visits[c] as f64 / max_n).powf(inv_t)).collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Some(self.tree.action[kids.start]);
        }
        let mut r = self.rng.random::<f64>() * total;
        for (k, w) in weights.iter().enumerate() {
            r -= w;
            if r <= 0.0 {
                return Some(self.tree.action[kids.start + k]);
            }
        }
        Some(self.tree.action[kids.end - 1])
    }
}
