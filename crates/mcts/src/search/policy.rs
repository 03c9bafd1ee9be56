//! What a PUCT search hands back from its root visit counts: the move to play and the policy
//! target (Silver et al. 2018, AlphaZero: pi proportional to N^(1/t)).

use mancala_rules::Game;
use rand::RngExt;
use rand::rngs::SmallRng;

use super::qtransform::child_q;
use crate::tree::{NodeId, Tree};

/// The policy target over the action space: each root action's share of the visits, or the
/// priors while no root action has been visited (Silver et al. 2018).
pub(crate) fn visit_shares<G: Game>(tree: &Tree<G>, out: &mut [f32]) {
    let kids = tree.children(NodeId::ROOT);
    let total: u32 = kids.clone().map(|c| tree.visits(c)).sum();
    for c in kids {
        let share = if total > 0 { tree.visits(c) as f32 / total as f32 } else { tree.prior(c) };
        out[usize::from(tree.action(c))] = share;
    }
}

/// The most visited root child, the larger prior (then the later child) breaking ties: the
/// move at temperature 0 (Silver et al. 2018). None when the root has no children.
pub(crate) fn most_visited<G: Game>(tree: &Tree<G>) -> Option<NodeId> {
    tree.children(NodeId::ROOT)
        .max_by(|&a, &b| tree.visits(a).cmp(&tree.visits(b)).then(tree.prior(a).total_cmp(&tree.prior(b))))
}

/// The root child of the best mean value (for the root's mover) among those with at least
/// `min_share` of the top visit count, visits and then the prior breaking ties; the move of
/// [`crate::FinalPick::Value`]. None when the root has no children.
pub(crate) fn best_valued<G: Game>(tree: &Tree<G>, min_share: f32) -> Option<NodeId> {
    let top = tree.children(NodeId::ROOT).map(|c| tree.visits(c)).max()?;
    if top == 0 {
        return most_visited(tree);
    }
    // At least one visit, so every candidate has a mean value.
    let floor = ((top as f32 * min_share).ceil() as u32).max(1);
    tree.children(NodeId::ROOT)
        .filter(|&c| tree.visits(c) >= floor)
        .map(|c| (c, child_q(tree, c).unwrap_or(f32::NEG_INFINITY)))
        .max_by(|(a, qa), (b, qb)| {
            qa.total_cmp(qb).then(tree.visits(*a).cmp(&tree.visits(*b))).then(tree.prior(*a).total_cmp(&tree.prior(*b)))
        })
        .map(|(c, _)| c)
}

/// A root child drawn with probability proportional to N^(1/t) (Silver et al. 2018); visits
/// are scaled by the largest count first, so N^(1/t) cannot overflow. None when the root has
/// no children.
pub(crate) fn sample_by_visits<G: Game>(tree: &Tree<G>, temperature: f32, rng: &mut SmallRng) -> Option<NodeId> {
    let mut kids = tree.children(NodeId::ROOT);
    let first = kids.clone().next()?;
    let inv_t = 1.0 / temperature as f64;
    let max_n = kids.clone().map(|c| tree.visits(c)).max().unwrap_or(0).max(1) as f64;
    let weights: Vec<f64> = kids.clone().map(|c| (tree.visits(c) as f64 / max_n).powf(inv_t)).collect();
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return Some(first);
    }
    let mut r = rng.random::<f64>() * total;
    for (w, c) in weights.iter().zip(kids.clone()) {
        r -= w;
        if r <= 0.0 {
            return Some(c);
        }
    }
    kids.next_back()
}
