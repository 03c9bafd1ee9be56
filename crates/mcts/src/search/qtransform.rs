//! Q values of the root's children and the transforms the Gumbel root puts on them
//! (Danihelka et al. 2022, "Policy improvement by planning with Gumbel", appendix D), as
//! mctx's `qtransform_completed_by_mix_value`.

use mancala_rules::Game;

use crate::config::SearchConfig;
use crate::tree::{NodeId, Tree};

/// Mean value of root child `c` from the view of the root's player to move (None if
/// unvisited): the q of Silver et al. 2018 for one root action, as [`node_value`] sees it.
pub(crate) fn child_q<G: Game>(tree: &Tree<G>, c: NodeId, config: &SearchConfig) -> Option<f32> {
    let n = tree.visits(c);
    if n == 0 {
        return None;
    }
    let q = node_value(tree, c, config);
    // value_sum is from the child's mover, who is the root's side to move.
    Some(if tree.mover(c) == tree.side(NodeId::ROOT) { q } else { -q })
}

/// The value of visited `node` from its mover's view: its mean, blended with the minimax of
/// its subtree's evaluations by [`SearchConfig::minimax_weight`], and with the solver held
/// inside its proven bounds.
#[inline]
pub(crate) fn node_value<G: Game>(tree: &Tree<G>, node: NodeId, config: &SearchConfig) -> f32 {
    let mean = tree.value_sum(node) / tree.visits(node) as f32;
    let w = config.minimax_weight;
    let blended = match tree.minimax(node) {
        Some(m) if w > 0.0 => (1.0 - w) * mean + w * m,
        _ => mean,
    };
    if config.solver { super::solver::bounded(tree, node, blended) } else { blended }
}

/// sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q first mapped from [-1, 1] to [0, 1]
/// (Danihelka et al. 2022): monotone in q, sharper as the root's visits grow.
pub(crate) fn sigma<G: Game>(tree: &Tree<G>, config: &SearchConfig, q: f32) -> f32 {
    let max_n = tree.children(NodeId::ROOT).map(|c| tree.visits(c)).max().unwrap_or(0);
    (config.gumbel_c_visit + max_n as f32) * config.gumbel_c_scale * (q + 1.0) * 0.5
}

/// v_mix, the value that completes q for unvisited root actions (Danihelka et al. 2022,
/// eq. 33): the root's own evaluation mixed with the prior-weighted q of the visited ones.
pub(crate) fn mixed_value<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> f32 {
    let mut total_n = 0.0;
    let mut visited_prior = 0.0;
    let mut weighted_q = 0.0;
    for c in tree.children(NodeId::ROOT) {
        total_n += tree.visits(c) as f32;
        if let Some(q) = child_q(tree, c, config) {
            visited_prior += tree.prior(c);
            weighted_q += tree.prior(c) * q;
        }
    }
    let raw = tree.raw_value(NodeId::ROOT);
    if visited_prior <= 0.0 {
        return raw;
    }
    (raw + total_n / visited_prior * weighted_q) / (1.0 + total_n)
}
