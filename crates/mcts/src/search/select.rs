//! PUCT action selection below the root (and at a PUCT root), as mctx's
//! `muzero_action_selection`: prior-weighted exploration over the children's mean values.

use mancala_rules::Game;

use super::qtransform::node_value;
use super::solver;
use crate::config::SearchConfig;
use crate::tree::{NodeId, Tree};

/// The child of `node` with the best PUCT score (Silver et al. 2018, AlphaZero): q + c * P *
/// sqrt(N) / (1 + n), where an unvisited child's q is the parent's value less
/// `fpu_reduction` (first-play urgency, as in Leela Zero) and each pending leaf below a child
/// counts as a visit worth `-virtual_loss` (Chaslot et al. 2008, "Parallel Monte-Carlo Tree
/// Search"). With the solver, a child proven unable to beat what the parent is sure of is
/// passed over and means are held inside their proven bounds ([`super::solver`]). When no
/// score is a number above -inf (a NaN or infinite value from the evaluator), the pick falls
/// back to [`by_prior`]. None only if `node` has no children.
#[inline]
pub(crate) fn puct_child<G: Game>(tree: &Tree<G>, node: NodeId, config: &SearchConfig) -> Option<NodeId> {
    let parent_n = (tree.visits(node) + tree.in_flight(node)).max(1) as f32;
    let sqrt_n = parent_n.sqrt();
    let parent_q = tree.value_for_side(node).unwrap_or(0.0);
    let parent_q = if config.solver {
        parent_q.clamp(tree.bounds_for_side(node).0, tree.bounds_for_side(node).1)
    } else {
        parent_q
    };
    let fpu = parent_q - config.fpu_reduction;
    let vl = config.virtual_loss;
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for c in tree.children(node) {
        if config.solver && solver::cut_off(tree, node, c) {
            continue;
        }
        let n = tree.visits(c) + tree.in_flight(c);
        let q = if n == 0 {
            fpu
        } else if (config.solver || config.minimax_weight > 0.0) && tree.visits(c) > 0 {
            let value = node_value(tree, c, config);
            (value * tree.visits(c) as f32 - vl * tree.in_flight(c) as f32) / n as f32
        } else {
            (tree.value_sum(c) - vl * tree.in_flight(c) as f32) / n as f32
        };
        let u = config.c_puct * tree.prior(c) * sqrt_n / (1.0 + n as f32);
        let score = q + u;
        if score > best_score {
            best_score = score;
            best = Some(c);
        }
    }
    best.or_else(|| by_prior(tree, node))
}

/// The child with the largest prior, the first of equals: a deterministic pick that needs no
/// value, for when every PUCT score is NaN or -inf. None only if `node` has no children.
pub(crate) fn by_prior<G: Game>(tree: &Tree<G>, node: NodeId) -> Option<NodeId> {
    let mut kids = tree.children(node);
    let first = kids.next()?;
    Some(kids.fold(first, |best, c| if tree.prior(c) > tree.prior(best) { c } else { best }))
}
