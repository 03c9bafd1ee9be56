//! Exploration noise on the root priors, for self-play.

use mancala_rules::{Game, MAX_ACTIONS};
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Gamma};

use crate::config::SearchConfig;
use crate::tree::{NodeId, Tree};

/// Mixes Dirichlet noise into the root priors, P = (1 - f) P + f eta with eta ~ Dir(alpha),
/// alpha = `dirichlet_alpha_total` / number of moves (Silver et al. 2018, AlphaZero).
pub(crate) fn add_dirichlet_noise<G: Game>(tree: &mut Tree<G>, config: &SearchConfig, rng: &mut SmallRng) {
    let kids = tree.children(NodeId::ROOT);
    if kids.len() < 2 {
        return;
    }
    let alpha = config.dirichlet_alpha_total / kids.len() as f32;
    let gamma = Gamma::new(alpha.max(1e-3), 1.0).expect("alpha and scale are positive");
    let mut noise = [0.0f32; MAX_ACTIONS];
    let mut sum = 0.0;
    for (k, _) in kids.clone().enumerate() {
        noise[k] = gamma.sample(rng);
        sum += noise[k];
    }
    if sum <= 0.0 {
        return;
    }
    let f = config.dirichlet_fraction;
    for (k, c) in kids.enumerate() {
        tree.set_prior(c, (1.0 - f) * tree.prior(c) + f * noise[k] / sum);
    }
}
