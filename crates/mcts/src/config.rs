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

/// How a finished PUCT search picks the move it plays at temperature 0.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum FinalPick {
    /// The most visited child (Silver et al. 2018).
    #[default]
    Visits,
    /// The child of the best mean value among those with at least `min_share` of the top
    /// visit count (visits, then the prior, break ties). Where the moves differ by a seed or
    /// two of margin, visits follow the priors and the values see the difference; the share
    /// keeps a barely searched child with a lucky mean out (KataGo picks by a lower
    /// confidence bound for the same reason).
    Value { min_share: f32 },
}

impl FinalPick {
    /// The share of the top visits [`FinalPick::Value`] takes when none is named.
    pub const VALUE_SHARE: f32 = 0.5;

    /// The pick of a network-guided search in play (the `net` agent, the engine, the web
    /// page, `play`, `tablebase accuracy`): the value pick, which found the databases' best
    /// move more often than the most visited move and played better against rollout MCTS
    /// (docs/experiments.md, "The move a search plays"). Self-play and rollout MCTS keep
    /// [`FinalPick::Visits`]: the reference yardsticks stay as they were measured.
    pub const IN_PLAY: FinalPick = FinalPick::Value { min_share: Self::VALUE_SHARE };

    /// The forms [`FinalPick::parse`] takes, for error messages.
    pub const FORMS: &'static str = "visits, value or value:S with S above 0 and at most 1";

    /// `visits`, `value` (share [`FinalPick::VALUE_SHARE`]) or `value:S` with S above 0 and
    /// at most 1.
    pub fn parse(text: &str) -> Option<FinalPick> {
        match text.trim() {
            "visits" => Some(FinalPick::Visits),
            "value" => Some(FinalPick::Value { min_share: Self::VALUE_SHARE }),
            other => {
                let share: f32 = other.strip_prefix("value:")?.trim().parse().ok()?;
                (share > 0.0 && share <= 1.0).then_some(FinalPick::Value { min_share: share })
            }
        }
    }
}

impl std::fmt::Display for FinalPick {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FinalPick::Visits => f.write_str("visits"),
            FinalPick::Value { min_share } => write!(f, "value:{min_share}"),
        }
    }
}

/// The most simulations one search may be asked for, by an agent spec, the engine or the web
/// page: the tree grows with them (up to one node a legal move per simulation), and a million
/// keeps it within a few gigabytes for every game. A search that stops on time runs at most
/// this many.
pub const MAX_SIMULATIONS: u32 = 1_000_000;

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
    /// Weight of the final seed margin in the value the search maximises at finished games
    /// (see [`utility`]); leaves take theirs from the evaluator, which must use the same
    /// weight. 0: the result alone.
    pub margin_utility: f32,
    /// The move a PUCT search plays at temperature 0 (a Gumbel root plays its best survivor).
    pub final_pick: FinalPick,
    /// Back up proven bounds from finished games in the tree (score-bounded MCTS; see
    /// `search/solver.rs`): moves proven worse are not searched, played or learned, and a
    /// solved root ends the search early. Off, the search is the plain one.
    pub solver: bool,
    /// Implicit minimax backups (Lanctot et al. 2014, "Monte Carlo Tree Search with Heuristic
    /// Evaluations using Implicit Minimax Backups"): a child's value in selection and in the
    /// final pick is `(1 - w) * mean + w * minimax`, where minimax is the minimax of the
    /// evaluator's values in its subtree. 0: the mean alone (AlphaZero).
    pub minimax_weight: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 200,
            c_puct: 1.5,
            fpu_reduction: SearchConfig::FPU_REDUCTION,
            root: RootKind::Puct,
            dirichlet_noise: false,
            dirichlet_alpha_total: 6.0,
            dirichlet_fraction: 0.25,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            leaves_per_gather: 1,
            virtual_loss: 1.0,
            margin_utility: 0.0,
            final_pick: FinalPick::Visits,
            solver: false,
            minimax_weight: 0.0,
        }
    }
}

impl SearchConfig {
    /// First-play urgency's reduction in self-play and by default: an unvisited child counts
    /// as its parent's value less this (Leela Zero's constant form).
    pub const FPU_REDUCTION: f32 = 0.2;

    /// The minimax weight of a network-guided search in play (`mancala_agents`'
    /// `PlayerSettings::network`, which every front-end plays from):
    /// the shipped models beat themselves searching by the mean alone with it, most in
    /// Oware (docs/experiments.md, "The minimax beside the mean, and proven values").
    /// Self-play keeps its run's `search.minimax_weight` (0 by default): trained with it,
    /// the loop did no better.
    pub const IN_PLAY_MINIMAX_WEIGHT: f32 = 0.25;

    /// The exploration constant of a network-guided search in play (the same
    /// `PlayerSettings::network`): with 1.0 rather than self-play's 1.5, the shipped Oware,
    /// Awale and Oware-capture-all models beat themselves by 8 to 10 points in 1600 games at
    /// 200 simulations (+38 Elo at 800 in Oware), Ouril by 3, and no game's model lost
    /// (docs/experiments.md, "The exploration constant in play"). A trained prior is sharp
    /// enough to follow more closely than self-play, which explores to learn, does.
    pub const IN_PLAY_C_PUCT: f32 = 1.0;
}

/// The largest margin weight a search takes: above one half a large enough margin would
/// outweigh the result itself.
pub const MAX_MARGIN_UTILITY: f32 = 0.5;

/// Whether `weight` is a margin weight a search takes (0 to [`MAX_MARGIN_UTILITY`]; not NaN).
pub fn valid_margin_utility(weight: f32) -> bool {
    (0.0..=MAX_MARGIN_UTILITY).contains(&weight)
}

/// The value the search maximises, for the mover: the result (+1 win, 0 draw, -1 loss, or a
/// network's expectation of it) blended with the final seed margin as a share of all the
/// game's seeds, `(1 - weight) * result + weight * margin_share`. With weight 0 every
/// winning move is as good as another, so a search picks among them by its priors alone;
/// a small weight breaks those ties towards the move that keeps the most seeds (KataGo's
/// score utility plays the same part), while any win still outranks any loss for weights
/// up to one half.
pub fn utility(result: f32, margin_share: f32, weight: f32) -> f32 {
    (1.0 - weight) * result + weight * margin_share.clamp(-1.0, 1.0)
}

/// [`utility`] of a finished game for `player`.
pub fn outcome_utility<G: mancala_rules::Game>(
    game: &G,
    outcome: mancala_rules::Outcome,
    player: mancala_rules::Player,
    weight: f32,
) -> f32 {
    utility(outcome.value_for(player), game.margin_share(outcome.margin_for(player)), weight)
}
