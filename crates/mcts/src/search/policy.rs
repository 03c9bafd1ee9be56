//! What a PUCT search hands back from its root visit counts: the move to play and the policy
//! target (Silver et al. 2018, AlphaZero: pi proportional to N^(1/t)). Each takes `keep`, the
//! root children it may choose among: all of them, or with the solver those not proven worse
//! than another move.

use mancala_rules::Game;
use rand::RngExt;
use rand::rngs::SmallRng;

use super::qtransform::child_q;
use crate::config::SearchConfig;
use crate::tree::{NodeId, Tree};

/// The policy target over the action space: each kept root action's share of the kept
/// visits, or the priors while no kept root action has been visited (Silver et al. 2018).
pub(crate) fn visit_shares<G: Game>(tree: &Tree<G>, out: &mut [f32], keep: impl Fn(NodeId) -> bool) {
    let kids = tree.children(NodeId::ROOT);
    let total: u32 = kids.clone().filter(|&c| keep(c)).map(|c| tree.visits(c)).sum();
    for c in kids.filter(|&c| keep(c)) {
        let share = if total > 0 { tree.visits(c) as f32 / total as f32 } else { tree.prior(c) };
        out[usize::from(tree.action(c))] = share;
    }
}

/// The policy target of a solved root: the moves whose proven value is the root's, in equal
/// shares (a solved root's best moves are solved children of its value).
pub(crate) fn proven_best<G: Game>(tree: &Tree<G>, out: &mut [f32]) {
    let best = tree.bounds_for_side(NodeId::ROOT).0;
    let is_best = |c: NodeId| tree.bounds(c).0 >= best;
    let n = tree.children(NodeId::ROOT).filter(|&c| is_best(c)).count().max(1);
    for c in tree.children(NodeId::ROOT).filter(|&c| is_best(c)) {
        out[usize::from(tree.action(c))] = 1.0 / n as f32;
    }
}

/// The most visited kept root child, the larger prior (then the later child) breaking ties:
/// the move at temperature 0 (Silver et al. 2018). None when no root child is kept.
pub(crate) fn most_visited<G: Game>(tree: &Tree<G>, keep: impl Fn(NodeId) -> bool) -> Option<NodeId> {
    tree.children(NodeId::ROOT)
        .filter(|&c| keep(c))
        .max_by(|&a, &b| tree.visits(a).cmp(&tree.visits(b)).then(tree.prior(a).total_cmp(&tree.prior(b))))
}

/// The kept root child of the best value (for the root's mover, as `child_q` reads it) among
/// those with at least `min_share` of the top visit count,
/// visits and then the prior breaking ties; the move of [`crate::FinalPick::Value`]. None
/// when no root child is kept.
pub(crate) fn best_valued<G: Game>(
    tree: &Tree<G>,
    min_share: f32,
    config: &SearchConfig,
    keep: impl Fn(NodeId) -> bool + Copy,
) -> Option<NodeId> {
    let top = tree.children(NodeId::ROOT).filter(|&c| keep(c)).map(|c| tree.visits(c)).max()?;
    if top == 0 {
        return most_visited(tree, keep);
    }
    // At least one visit, so every candidate has a mean value.
    let floor = ((top as f32 * min_share).ceil() as u32).max(1);
    tree.children(NodeId::ROOT)
        .filter(|&c| keep(c) && tree.visits(c) >= floor)
        .map(|c| (c, child_q(tree, c, config).unwrap_or(f32::NEG_INFINITY)))
        .max_by(|(a, qa), (b, qb)| {
            qa.total_cmp(qb).then(tree.visits(*a).cmp(&tree.visits(*b))).then(tree.prior(*a).total_cmp(&tree.prior(*b)))
        })
        .map(|(c, _)| c)
}

/// A kept root child drawn with probability proportional to N^(1/t) (Silver et al. 2018);
/// visits are scaled by the largest count first, so N^(1/t) cannot overflow. None when no
/// root child is kept.
pub(crate) fn sample_by_visits<G: Game>(
    tree: &Tree<G>,
    temperature: f32,
    rng: &mut SmallRng,
    keep: impl Fn(NodeId) -> bool,
) -> Option<NodeId> {
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).filter(|&c| keep(c)).collect();
    let first = *kids.first()?;
    let inv_t = 1.0 / temperature as f64;
    let max_n = kids.iter().map(|&c| tree.visits(c)).max().unwrap_or(0).max(1) as f64;
    let weights: Vec<f64> = kids.iter().map(|&c| (tree.visits(c) as f64 / max_n).powf(inv_t)).collect();
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return Some(first);
    }
    let mut r = rng.random::<f64>() * total;
    for (w, &c) in weights.iter().zip(&kids) {
        r -= w;
        if r <= 0.0 {
            return Some(c);
        }
    }
    kids.last().copied()
}
