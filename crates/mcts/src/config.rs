//! Search settings, with defaults that suit the small action spaces of sowing games.

/// How the root picks actions to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RootKind {
    /// PUCT (AlphaZero, Silver et al. 2018) at the root as everywhere.
    #[default]
    Puct,
    /// Gumbel-top-k sampling with sequential halving (Danihelka et al. 2022), for small
    /// simulation budgets.
    Gumbel,
}

impl RootKind {
    pub fn parse(text: &str) -> Option<RootKind> {
        match text {
            "puct" => Some(RootKind::Puct),
            "gumbel" => Some(RootKind::Gumbel),
            _ => None,
        }
    }
}

/// Everything that shapes one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// New simulations a move (leaf evaluations plus terminal visits).
    pub simulations: u32,
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child counts as the parent's value minus this.
    pub fpu_reduction: f32,
    pub root: RootKind,
    /// Dirichlet noise at a PUCT root (self-play only); a Gumbel root explores by its Gumbel
    /// draws and takes none, since it reads the priors as the logits of its policy target.
    pub dirichlet_noise: bool,
    /// Dirichlet alpha = `dirichlet_alpha_total / number of legal moves`.
    pub dirichlet_alpha_total: f32,
    /// Share of the root prior replaced by noise.
    pub dirichlet_fraction: f32,
    /// Gumbel: how many root actions are sampled (m).
    pub gumbel_actions: usize,
    /// Gumbel sigma: `(c_visit + max visits) * c_scale * q`.
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    /// Most leaves one search hands out per gather (virtual loss keeps them apart).
    pub leaves_per_gather: usize,
    /// Virtual loss a pending leaf charges to its path.
    pub virtual_loss: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 200,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            root: RootKind::Puct,
            dirichlet_noise: false,
            dirichlet_alpha_total: 6.0,
            dirichlet_fraction: 0.25,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            leaves_per_gather: 1,
            virtual_loss: 1.0,
        }
    }
}
