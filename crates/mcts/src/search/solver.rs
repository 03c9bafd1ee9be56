//! Proven bounds on a node's utility under best play, backed up from finished games in the
//! tree (score-bounded MCTS: Cazenave and Saffidine 2010, "Score Bounded Monte-Carlo Tree
//! Search", the scored form of Winands et al. 2008's MCTS-Solver; Lc0's certainty
//! propagation). A node's lower bound is the best its player to move is sure of, its upper
//! bound the best it could still reach; a child whose upper bound cannot beat its parent's
//! lower bound is never searched again, a node whose bounds meet is solved and backs up its
//! exact value, and a solved root ends the move's search.
//!
//! Bounds are kept from each node's mover's view, as its value sum; a child's mover is its
//! parent's player to move, so a parent reads its children's bounds as they are, and the
//! sign flips only where the player changes (Kalah's and Ouril's extra turns keep it).

use mancala_rules::Game;

use crate::tree::{NodeId, NodeState, Tree};

/// Recomputes the bounds of the path's nodes above its last one, bottom up, after the last
/// one's bounds changed (a finished game found, or a node solved); stops at the first node
/// whose bounds stay as they were, since nothing above it can change then.
pub(crate) fn propagate<G: Game>(tree: &mut Tree<G>, path: &[NodeId]) {
    for &node in path.iter().rev().skip(1) {
        let (lower, upper) = from_children(tree, node);
        if (lower, upper) == tree.bounds(node) {
            return;
        }
        tree.set_bounds(node, lower, upper);
    }
}

/// The bounds of expanded `node` from its children's, in its mover's view: its player to
/// move is sure of the best of the children's lower bounds and can reach at most the best
/// of their upper bounds (a child not yet searched may still be anything).
fn from_children<G: Game>(tree: &Tree<G>, node: NodeId) -> (f32, f32) {
    let mut lower = f32::NEG_INFINITY;
    let mut upper = f32::NEG_INFINITY;
    for c in tree.children(node) {
        let (lo, hi) = tree.bounds(c);
        lower = lower.max(lo);
        upper = upper.max(hi);
    }
    if tree.side(node) == tree.mover(node) { (lower, upper) } else { (-upper, -lower) }
}

/// Whether child `c` of `node` can no longer beat what `node`'s player to move is already
/// sure of: its upper bound is at most the parent's lower bound (a solved child always is,
/// so the search leaves it alone and the parent's value holds it).
#[inline]
pub(crate) fn cut_off<G: Game>(tree: &Tree<G>, node: NodeId, c: NodeId) -> bool {
    tree.bounds(c).1 <= tree.bounds_for_side(node).0
}

/// Whether root child `c` is proven no better than another root move that may yet be
/// better: some other child is sure of more than `c` can reach, or of as much while it might
/// still do better. Such a move is kept out of the move played and out of the policy target
/// (moves proven equal stay in: neither is worse).
pub(crate) fn proven_worse<G: Game>(tree: &Tree<G>, c: NodeId) -> bool {
    let reach = tree.bounds(c).1;
    tree.children(NodeId::ROOT).any(|d| {
        let (lo, hi) = tree.bounds(d);
        d != c && (lo > reach || (lo == reach && hi > lo))
    })
}

/// A mean value `q` of `node` (from its mover's view) held inside the node's proven bounds.
#[inline]
pub(crate) fn bounded<G: Game>(tree: &Tree<G>, node: NodeId, q: f32) -> f32 {
    let (lo, hi) = tree.bounds(node);
    q.clamp(lo, hi)
}

/// Whether a descent should stop at `node` and back up its exact value: a solved node below
/// the root whose game goes on (a finished game is backed up as such).
#[inline]
pub(crate) fn stops_descent<G: Game>(tree: &Tree<G>, node: NodeId) -> bool {
    node != NodeId::ROOT && tree.state(node) == NodeState::Expanded && tree.is_solved(node)
}

/// The root child the root's player is sure of most (the largest lower bound; visits, then
/// the prior, break ties). None when the root has no children.
pub(crate) fn surest<G: Game>(tree: &Tree<G>) -> Option<NodeId> {
    tree.children(NodeId::ROOT).max_by(|&a, &b| {
        (tree.bounds(a).0)
            .total_cmp(&tree.bounds(b).0)
            .then(tree.visits(a).cmp(&tree.visits(b)))
            .then(tree.prior(a).total_cmp(&tree.prior(b)))
    })
}

/// The move to play instead of `pick`: when the root is solved, or the root's player is
/// sure of more than `pick`'s bounded mean value promises, the surest child; else `pick`.
pub(crate) fn overrule<G: Game>(tree: &Tree<G>, pick: NodeId) -> NodeId {
    let sure = tree.bounds_for_side(NodeId::ROOT).0;
    let promised = match tree.visits(pick) {
        0 => tree.bounds(pick).0,
        n => bounded(tree, pick, tree.value_sum(pick) / n as f32),
    };
    if tree.is_solved(NodeId::ROOT) || sure > promised { surest(tree).unwrap_or(pick) } else { pick }
}
