//! Monte Carlo tree search as a few small named steps: `descend` (select down to a leaf),
//! `expand` (children from the evaluator's policy) and `backup`.
//!
//! Batching: [`Search::gather`] hands out up to `leaves_per_gather` leaves (kept apart by
//! virtual loss), the caller evaluates them together with other searches' leaves, and
//! [`Search::apply`] expands and backs them up. [`Search::run`] does the loop for one search,
//! [`Search::run_until`] stops it at a deadline too, and [`Search::run_threads`] evaluates
//! each batch on several threads (`run.rs`).
//!
//! The strategies live in their own modules, as in mctx: `select.rs` (PUCT), `gumbel.rs` (the
//! Gumbel root and sequential halving), `qtransform.rs` (q, sigma and v_mix), `noise.rs`
//! (Dirichlet root noise), `policy.rs` (move and target from visit counts) and `reuse.rs`
//! (keeping the subtree of the move played: [`Search::advance`]) and `solver.rs` (proven
//! bounds backed up from finished games, with [`SearchConfig::solver`]).

mod gumbel;
mod noise;
mod policy;
mod qtransform;
mod reuse;
mod run;
mod select;
mod solver;

use mancala_rules::{Action, Game, Line, Player};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::config::{FinalPick, RootKind, SearchConfig, outcome_utility};
use crate::tree::{NodeId, NodeState, Tree};
use gumbel::GumbelRoot;

/// Simulations whose nodes a new search reserves room for; a larger budget grows the tree as
/// it goes.
const PREALLOCATED_SIMULATIONS: u32 = 4096;

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
    copy_queue: Vec<(NodeId, NodeId)>,
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
        // A hint, not a limit: the tree grows past it. A budget near the simulation cap (a
        // search that stops on time) must not reserve gigabytes before its first simulation.
        let cap = (config.simulations.min(PREALLOCATED_SIMULATIONS) as usize + 1) * 8;
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
        let root = self.tree.push_root(side);
        let terminal = self.terminal_value(&pos, side);
        self.tree.set_position(root, pos, self.game.hash(&pos), side, false, terminal);
        self.new_move();
    }

    /// Starts afresh from the current position of a game in progress.
    pub fn set_root_line(&mut self, line: &Line<G>) {
        self.set_root(*line.position(), line.repetition_window());
    }

    /// Resets the per-move budget and root extras after the root changed.
    fn new_move(&mut self) {
        self.sims_done = 0;
        self.pending.clear();
        self.paths.clear();
        self.gumbel = GumbelRoot::default();
        if self.tree.state(NodeId::ROOT) == NodeState::Expanded {
            self.prepare_root();
        }
    }

    /// Root noise and the Gumbel schedule, once the root has children.
    ///
    /// A Gumbel root takes no Dirichlet noise: its Gumbel draws are its exploration, and it
    /// reads the priors as the logits of its improved policy, the training target, which
    /// would then learn the noise (Danihelka et al. 2022 and mctx add none).
    fn prepare_root(&mut self) {
        if self.config.root == RootKind::Gumbel {
            self.gumbel.start(&self.tree, &self.config, self.sims_done, &mut self.rng);
        } else if self.config.dirichlet_noise {
            noise::add_dirichlet_noise(&mut self.tree, &self.config, &mut self.rng);
        }
    }

    pub fn root_position(&self) -> &G::Position {
        self.tree.position(NodeId::ROOT)
    }

    /// Simulations done since the root was set or advanced.
    pub fn simulations_done(&self) -> u32 {
        self.sims_done
    }

    /// True when this move's budget is spent, the root is terminal, or (with the solver) the
    /// root is solved, so that more simulations could not change what it knows.
    pub fn is_done(&self) -> bool {
        self.tree.state(NodeId::ROOT) == NodeState::Terminal
            || ((self.sims_done >= self.config.simulations || self.root_solved()) && self.pending.is_empty())
    }

    /// Whether the solver has proven the root's value.
    fn root_solved(&self) -> bool {
        self.config.solver && self.tree.is_solved(NodeId::ROOT)
    }

    /// Appends up to `leaves_per_gather` leaf positions to `out` for evaluation and returns
    /// how many. Terminal nodes met on the way are backed up at once.
    pub fn gather(&mut self, out: &mut Vec<G::Position>) -> usize {
        let mut handed = 0;
        if self.tree.state(NodeId::ROOT) == NodeState::Terminal || self.root_solved() {
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
                        self.tree.add_in_flight(n);
                    }
                    self.paths.extend_from_slice(&self.path);
                    self.pending.push(PendingLeaf { leaf, path_start: start, path_end: self.paths.len() as u32 });
                    self.tree.set_state(leaf, NodeState::Pending);
                    out.push(*self.tree.position(leaf));
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
            self.expand(p.leaf, &policies[k * a..(k + 1) * a], values[k]);
            for i in p.path_start..p.path_end {
                let n = self.paths[i as usize];
                self.tree.remove_in_flight(n);
            }
            let side = self.tree.side(p.leaf);
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
            match self.tree.state(node) {
                NodeState::Fresh => self.materialize(node),
                NodeState::Unevaluated => return Descent::Leaf(node),
                NodeState::Pending => return Descent::Collision,
                NodeState::Terminal => {
                    let v = self.tree.terminal_value(node);
                    let side = self.tree.side(node);
                    self.backup(PathRef::Current, v, side);
                    if self.config.solver {
                        solver::propagate(&mut self.tree, &self.path);
                    }
                    return Descent::Terminal;
                }
                NodeState::Expanded if self.config.solver && solver::stops_descent(&self.tree, node) => {
                    // Solved: every visit is worth its exact value, as at a finished game.
                    let v = self.tree.bounds_for_side(node).0;
                    let side = self.tree.side(node);
                    self.backup(PathRef::Current, v, side);
                    return Descent::Terminal;
                }
                NodeState::Expanded => {
                    node = if node == NodeId::ROOT && self.gumbel.is_active() {
                        self.gumbel.next_child(&self.tree, &self.config)
                    } else {
                        select::puct_child(&self.tree, node, &self.config)
                            .expect("an expanded node has children: no legal move means the game is over")
                    };
                    self.path.push(node);
                }
            }
        }
    }

    /// Computes the position of a fresh node from its parent (the path's second last node).
    fn materialize(&mut self, node: NodeId) {
        let parent = self.path[self.path.len() - 2];
        let mut pos = *self.tree.position(parent);
        let sowing = self.game.play_unchecked(&mut pos, self.tree.action(node));
        let mut hash = self.game.hash(&pos);
        if !self.game.status(&pos).is_over()
            && !sowing.irreversible
            && self.game.repetition_ends_game()
            && self.repeats(hash, &pos)
        {
            self.game.settle_cycle(&mut pos);
            hash = self.game.hash(&pos);
        }
        let side = self.game.side_to_move(&pos);
        let terminal = self.terminal_value(&pos, side);
        self.tree.set_position(node, pos, hash, side, sowing.irreversible, terminal);
    }

    /// The utility of `pos` for `side` when the game is over there (see [`outcome_utility`]).
    fn terminal_value(&self, pos: &G::Position, side: Player) -> Option<f32> {
        let weight = self.config.margin_utility;
        self.game.status(pos).outcome().map(|o| outcome_utility(&self.game, o, side, weight))
    }

    /// Whether a new position on the current path repeats one of its repetition window.
    fn repeats(&self, hash: u64, pos: &G::Position) -> bool {
        for k in (0..self.path.len() - 1).rev() {
            let n = self.path[k];
            if self.tree.hash(n) == hash && self.tree.position(n) == pos {
                return true;
            }
            if k > 0 && self.tree.irreversible(n) {
                return false;
            }
        }
        self.history.contains(&hash)
    }

    /// Creates the children of an evaluated leaf with priors from `policy` (renormalised
    /// over the legal moves; uniform if they sum to nothing or to no number) and keeps the
    /// evaluator's `value` for the player to move there.
    fn expand(&mut self, leaf: NodeId, policy: &[f32], value: f32) {
        let legal = self.game.legal_moves(self.tree.position(leaf));
        let sum: f32 = legal.iter().map(|a| policy[usize::from(a)].max(0.0)).sum();
        let uniform = 1.0 / legal.len().max(1) as f32;
        let prior =
            |a: Action| if sum > 0.0 && sum.is_finite() { policy[usize::from(a)].max(0.0) / sum } else { uniform };
        self.tree.expand(leaf, value, legal.iter().map(|a| (a, prior(a))));
    }

    /// Adds `value` (for `leaf_side`) to every node of the path, signed for each node's
    /// mover: the sign flips only where the player changes, so extra turns keep it.
    fn backup(&mut self, path: PathRef, value: f32, leaf_side: Player) {
        let nodes = match path {
            PathRef::Current => &self.path[..],
            PathRef::Pending(r) => &self.paths[r],
        };
        for &n in nodes {
            let v = if self.tree.mover(n) == leaf_side { value } else { -value };
            self.tree.add_visit(n, v);
        }
        if self.config.minimax_weight > 0.0 {
            // The leaf's own minimax is set (its evaluation or its exact result); above it,
            // each node's changes only while its child's did.
            for &n in nodes.iter().rev().skip(1) {
                if !self.tree.update_minimax(n) {
                    break;
                }
            }
        }
    }

    /// Root value for the side to move, from the search.
    pub fn root_value(&self) -> f32 {
        if self.tree.state(NodeId::ROOT) == NodeState::Terminal {
            return self.tree.terminal_value(NodeId::ROOT);
        }
        let value = self.tree.value_for_side(NodeId::ROOT).unwrap_or(0.0);
        if self.config.solver {
            let (lo, hi) = self.tree.bounds_for_side(NodeId::ROOT);
            return value.clamp(lo, hi);
        }
        value
    }

    /// Visits, prior and value of every root action.
    pub fn root_children(&self) -> Vec<ChildStats> {
        self.tree
            .children(NodeId::ROOT)
            .map(|c| ChildStats {
                action: self.tree.action(c),
                visits: self.tree.visits(c),
                prior: self.tree.prior(c),
                q: qtransform::child_q(&self.tree, c, &self.config),
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
        if self.root_solved() {
            // Solved: the moves that keep the proven value are the whole target.
            policy::proven_best(&self.tree, out);
        } else if self.gumbel.is_active() {
            self.gumbel.improved_policy(&self.tree, &self.config, out);
        } else if self.config.solver {
            policy::visit_shares(&self.tree, out, |c| !solver::proven_worse(&self.tree, c));
        } else {
            policy::visit_shares(&self.tree, out, |_| true);
        }
    }

    /// The move to play: Gumbel root: the best survivor of sequential halving; PUCT: by visit
    /// counts, at temperature 0 the most visited (or by `final_pick`), else sampled with
    /// N^(1/t). With the solver, moves proven worse than another are never played, and a
    /// proven value better than the pick's mean value overrules it ([`solver`]).
    pub fn select_action(&mut self, temperature: f32) -> Option<Action> {
        let kids = self.tree.children(NodeId::ROOT);
        if kids.is_empty() {
            return None;
        }
        let solver = self.config.solver;
        let tree = &self.tree;
        let keep = |c: NodeId| !solver || !solver::proven_worse(tree, c);
        let child = if self.gumbel.is_active() {
            self.gumbel.best(tree, &self.config)
        } else if temperature <= 1e-3 {
            match self.config.final_pick {
                FinalPick::Visits => policy::most_visited(tree, keep),
                FinalPick::Value { min_share } => policy::best_valued(tree, min_share, &self.config, keep),
            }
        } else {
            policy::sample_by_visits(tree, temperature, &mut self.rng, keep)
        };
        let child = if solver && temperature <= 1e-3 { child.map(|c| solver::overrule(tree, c)) } else { child };
        child.map(|c| self.tree.action(c))
    }
}
