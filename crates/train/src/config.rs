//! A run is fully described by one TOML file: game, network, search, self-play, training,
//! gating, evaluation and logging. A bad config is refused before any work starts, with the
//! key and the allowed values named.

use mancala_mcts::{RootKind, SearchConfig};
use mancala_nn::{Architecture, LrSchedule, NetConfig, OptimConfig};
use mancala_rules::{AnyGame, Game, parse_rules};
use mancala_selfplay::SelfPlayConfig;
use serde::{Deserialize, Serialize};

use crate::error::TrainError;

/// The config `mancala-zero train` uses without arguments: Oware.
pub const DEFAULT_CONFIG: &str = include_str!("../../../configs/oware.toml");

/// Every shipped config by name, embedded so the binary works anywhere.
pub const SHIPPED: &[(&str, &str)] = &[
    ("oware", include_str!("../../../configs/oware.toml")),
    ("ouril", include_str!("../../../configs/ouril.toml")),
    ("awale", include_str!("../../../configs/awale.toml")),
    ("kalah", include_str!("../../../configs/kalah.toml")),
    ("ba-awa", include_str!("../../../configs/ba-awa.toml")),
    ("owela", include_str!("../../../configs/owela.toml")),
    ("tiny", include_str!("../../../configs/tiny.toml")),
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// `[run]`: seed and limits of the run.
    #[serde(default)]
    pub run: RunSection,
    /// `[game]`: the rules the run plays (the only required table).
    pub game: GameSection,
    /// `[network]`: the network's shape and device.
    #[serde(default)]
    pub network: NetworkSection,
    /// `[search]`: search settings shared by self-play, gating and evaluation.
    #[serde(default)]
    pub search: SearchSection,
    /// `[selfplay]`: how self-play games are played and recorded (`mancala_selfplay`).
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// `[training]`: the trainer's batch, replay window and optimiser.
    #[serde(default)]
    pub training: TrainingSection,
    /// `[gating]`: how a candidate is played against the best.
    #[serde(default)]
    pub gating: GatingSection,
    /// `[evaluation]`: how each new best is measured against fixed references.
    #[serde(default)]
    pub evaluation: EvaluationSection,
    /// `[logging]`: TensorBoard and progress output.
    #[serde(default)]
    pub logging: LoggingSection,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// The one seed that fixes every random choice (for one thread count).
    pub seed: u64,
    /// Most iterations; the run also stops after `max_minutes`.
    pub iterations: u64,
    /// Wall-clock budget in minutes (0: none); checked between iterations.
    pub max_minutes: f64,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            seed: 1,
            iterations: 1000,
            max_minutes: 60.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSection {
    /// A rules string: `oware`, `kalah`, `oware grand_slam=capture-all`, ...
    pub rules: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkSection {
    /// `mlp` or `conv`.
    pub architecture: String,
    /// Hidden units of the MLP's residual blocks, or channels of the conv tower (1 to 4096).
    pub width: usize,
    /// Residual blocks (1 to 64).
    pub blocks: usize,
    /// `flex` (CPU), `cuda` or `wgpu`.
    pub device: String,
}

impl Default for NetworkSection {
    fn default() -> Self {
        NetworkSection {
            architecture: "mlp".into(),
            width: 128,
            blocks: 4,
            device: "flex".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSection {
    /// Exploration constant of PUCT (above 0).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child counts as its parent's value minus this.
    pub fpu_reduction: f32,
    /// `puct` or `gumbel`.
    pub root: String,
    /// Root Dirichlet noise of self-play's full searches: alpha = this / legal moves (above 0).
    pub dirichlet_alpha_total: f32,
    /// Share of the root prior replaced by that noise (0 to 1).
    pub dirichlet_fraction: f32,
    /// Gumbel root: how many root actions are sampled (m).
    pub gumbel_actions: usize,
}

impl Default for SearchSection {
    fn default() -> Self {
        let d = SearchConfig::default();
        SearchSection {
            c_puct: d.c_puct,
            fpu_reduction: d.fpu_reduction,
            root: "puct".into(),
            dirichlet_alpha_total: d.dirichlet_alpha_total,
            dirichlet_fraction: d.dirichlet_fraction,
            gumbel_actions: d.gumbel_actions,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingSection {
    /// Rows a training step (at least 1).
    pub batch_size: usize,
    /// Each new row is sampled about this many times: steps = new rows * this / batch size.
    pub samples_per_row: f64,
    /// Fewest training steps before a candidate is published.
    pub min_steps: u64,
    /// Most training steps before a candidate is published (at least `min_steps`).
    pub max_steps: u64,
    /// Replay window: starts at `window_min` rows and grows by `window_growth` an iteration
    /// up to `window_max`.
    pub window_min: usize,
    /// Most rows the replay window holds.
    pub window_max: usize,
    /// Rows the replay window grows by each iteration.
    pub window_growth: usize,
    /// AdamW learning rate after the warm-up, before the schedule (in (0, 1)).
    pub learning_rate: f64,
    /// AdamW weight decay.
    pub weight_decay: f32,
    /// Steps over which the learning rate rises linearly to `learning_rate`.
    pub warmup_steps: u64,
    /// `constant`, `cosine` or `step`.
    pub schedule: String,
    /// Cosine: steps to decay over; step: steps between decays.
    pub schedule_steps: u64,
    /// Cosine: final share of the rate; step: factor at each decay.
    pub schedule_factor: f64,
    /// Largest gradient norm; 0 turns clipping off.
    pub grad_clip: f32,
    /// Weight of the seed-margin loss beside the policy and value losses.
    pub margin_weight: f32,
}

impl Default for TrainingSection {
    fn default() -> Self {
        let o = OptimConfig::default();
        TrainingSection {
            batch_size: 256,
            samples_per_row: 6.0,
            min_steps: 20,
            max_steps: 2000,
            window_min: 20_000,
            window_max: 250_000,
            window_growth: 5_000,
            learning_rate: o.learning_rate,
            weight_decay: o.weight_decay,
            warmup_steps: o.warmup_steps,
            schedule: "constant".into(),
            schedule_steps: 20_000,
            schedule_factor: 0.1,
            grad_clip: o.grad_clip,
            margin_weight: o.margin_weight,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatingSection {
    /// Games of candidate against best (even).
    pub games: u32,
    /// Simulations a move for both sides.
    pub simulations: u32,
    /// Promote when the candidate scores at least this (draws half).
    pub threshold: f64,
    /// Instead of the threshold, an SPRT `elo0,elo1[,alpha,beta]` (empty: off).
    pub sprt: String,
    /// Random plies from the start that both games of a pair begin with.
    pub opening_plies: usize,
    /// Threads that play the games (at least 1).
    pub threads: usize,
}

impl Default for GatingSection {
    fn default() -> Self {
        GatingSection {
            games: 40,
            simulations: 64,
            threshold: 0.55,
            sprt: String::new(),
            opening_plies: 4,
            threads: 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluationSection {
    /// Measure Elo against the references every this many iterations (0: never).
    pub every: u64,
    /// Games against each reference (even).
    pub games: u32,
    /// Simulations a move of the network's search.
    pub simulations: u32,
    /// Agent specs: `random`, `greedy`, `alphabeta:depth=D`, `mcts:sims=N`.
    pub references: Vec<String>,
    /// Random plies from the start that both games of a pair begin with.
    pub opening_plies: usize,
    /// Threads that play the games.
    pub threads: usize,
    /// An endgame database (`mancala-zero tablebase build`); empty: none. On a fixed sample of
    /// its positions the network's value sign and the search's move are checked every
    /// evaluation (`endgame/value_sign`, `endgame/best_move`).
    pub tablebase: String,
    /// Positions of the database in that fixed sample.
    pub tablebase_positions: usize,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            every: 3,
            games: 20,
            simulations: 200,
            references: vec![
                "random".into(),
                "greedy".into(),
                "alphabeta:depth=4".into(),
                "mcts:sims=1000".into(),
            ],
            opening_plies: 4,
            threads: 2,
            tablebase: String::new(),
            tablebase_positions: 400,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoggingSection {
    /// Write TensorBoard scalars to `tb/` beside a directory store (`train --tensorboard DIR`
    /// chooses another folder).
    pub tensorboard: bool,
    /// Show a progress bar (also needs a terminal).
    pub progress: bool,
}

impl Default for LoggingSection {
    fn default() -> Self {
        LoggingSection {
            tensorboard: true,
            progress: true,
        }
    }
}

fn bad(key: &str, value: impl std::fmt::Display, allowed: &str) -> TrainError {
    TrainError::Config(format!("{key} = {value}: expected {allowed}"))
}

impl RunConfig {
    /// Parses and validates a config; the error names the key.
    ///
    /// # Errors
    /// [`TrainError::Config`].
    pub fn parse(text: &str) -> Result<RunConfig, TrainError> {
        let config: RunConfig =
            toml::from_str(text).map_err(|e| TrainError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// A shipped config by name (`oware`, `kalah`, ..., `tiny`).
    pub fn shipped(name: &str) -> Option<&'static str> {
        SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    /// Checks every value that serde cannot.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the key and the allowed values.
    pub fn validate(&self) -> Result<(), TrainError> {
        self.game()?;
        let n = &self.network;
        if !["mlp", "conv"].contains(&n.architecture.as_str()) {
            return Err(bad("network.architecture", &n.architecture, "mlp or conv"));
        }
        if !(1..=4096).contains(&n.width) {
            return Err(bad("network.width", n.width, "1 to 4096"));
        }
        if !(1..=64).contains(&n.blocks) {
            return Err(bad("network.blocks", n.blocks, "1 to 64"));
        }
        if !mancala_nn::DEVICES.contains(&n.device.as_str()) {
            return Err(bad(
                "network.device",
                &n.device,
                &mancala_nn::DEVICES.join(", "),
            ));
        }
        mancala_nn::inference_device(&n.device)
            .map_err(|e| TrainError::Config(format!("network.device: {e}")))?;
        if RootKind::parse(&self.search.root).is_none() {
            return Err(bad("search.root", &self.search.root, "puct or gumbel"));
        }
        if !(self.search.c_puct > 0.0) {
            return Err(bad("search.c_puct", self.search.c_puct, "a number above 0"));
        }
        if !(0.0..=1.0).contains(&self.search.dirichlet_fraction) {
            return Err(bad(
                "search.dirichlet_fraction",
                self.search.dirichlet_fraction,
                "0 to 1",
            ));
        }
        if !(self.search.dirichlet_alpha_total > 0.0) {
            return Err(bad(
                "search.dirichlet_alpha_total",
                self.search.dirichlet_alpha_total,
                "a number above 0",
            ));
        }
        self.selfplay.validate().map_err(TrainError::Config)?;
        let t = &self.training;
        if t.batch_size == 0 {
            return Err(bad("training.batch_size", t.batch_size, "at least 1"));
        }
        if t.min_steps > t.max_steps {
            return Err(bad(
                "training.min_steps",
                t.min_steps,
                "at most training.max_steps",
            ));
        }
        if t.window_min == 0 || t.window_min > t.window_max {
            return Err(bad(
                "training.window_min",
                t.window_min,
                "1 to training.window_max",
            ));
        }
        if !(t.learning_rate > 0.0 && t.learning_rate < 1.0) {
            return Err(bad(
                "training.learning_rate",
                t.learning_rate,
                "a number in (0, 1)",
            ));
        }
        if !["constant", "cosine", "step"].contains(&t.schedule.as_str()) {
            return Err(bad(
                "training.schedule",
                &t.schedule,
                "constant, cosine or step",
            ));
        }
        if !(t.samples_per_row > 0.0) {
            return Err(bad(
                "training.samples_per_row",
                t.samples_per_row,
                "a number above 0",
            ));
        }
        let g = &self.gating;
        if g.games == 0 || g.games % 2 == 1 {
            return Err(bad("gating.games", g.games, "an even number of at least 2"));
        }
        if !(0.0..=1.0).contains(&g.threshold) {
            return Err(bad("gating.threshold", g.threshold, "a score from 0 to 1"));
        }
        if !g.sprt.is_empty() {
            mancala_arena::Sprt::parse(&g.sprt)
                .map_err(|e| TrainError::Config(format!("gating.sprt: {e}")))?;
        }
        if g.simulations == 0 || g.threads == 0 {
            return Err(bad(
                "gating.simulations/threads",
                g.simulations.min(g.threads as u32),
                "at least 1",
            ));
        }
        let e = &self.evaluation;
        if e.every > 0 {
            if e.games == 0 || e.games % 2 == 1 {
                return Err(bad(
                    "evaluation.games",
                    e.games,
                    "an even number of at least 2",
                ));
            }
            // The spec syntax only: the files a `net:` or `perfect:` reference names are
            // checked by the evaluator that plays them, since every role (a remote worker
            // too) validates this config and only the evaluator's machine needs the files.
            for r in &e.references {
                mancala_agents::AgentSpec::parse(r)
                    .map_err(|err| TrainError::Config(format!("evaluation.references: {err}")))?;
            }
        }
        if self.run.max_minutes < 0.0 {
            return Err(bad(
                "run.max_minutes",
                self.run.max_minutes,
                "0 (no limit) or more",
            ));
        }
        Ok(())
    }

    /// The game the run plays.
    ///
    /// # Errors
    /// [`TrainError::Config`] for a bad `game.rules`.
    pub fn game(&self) -> Result<AnyGame, TrainError> {
        parse_rules(&self.game.rules).map_err(|e| TrainError::Config(format!("game.rules: {e}")))
    }

    /// The network shape for the run's game.
    pub fn net_config(&self, game: &AnyGame) -> NetConfig {
        let arch = if self.network.architecture == "conv" {
            Architecture::Conv
        } else {
            Architecture::Mlp
        };
        NetConfig::for_layout(&mancala_nn::layout(game), game.action_space())
            .with_architecture(arch)
            .with_width(self.network.width)
            .with_blocks(self.network.blocks)
    }

    /// Search settings shared by self-play, gating and evaluation (budgets set per use).
    pub fn search_config(&self, simulations: u32) -> SearchConfig {
        let s = &self.search;
        SearchConfig {
            simulations,
            c_puct: s.c_puct,
            fpu_reduction: s.fpu_reduction,
            root: RootKind::parse(&s.root).unwrap_or_default(),
            dirichlet_noise: false,
            dirichlet_alpha_total: s.dirichlet_alpha_total,
            dirichlet_fraction: s.dirichlet_fraction,
            gumbel_actions: s.gumbel_actions,
            leaves_per_gather: 8,
            ..SearchConfig::default()
        }
    }

    pub fn optim_config(&self) -> OptimConfig {
        let t = &self.training;
        let schedule = match t.schedule.as_str() {
            "cosine" => LrSchedule::Cosine {
                total_steps: t.schedule_steps,
                min_factor: t.schedule_factor,
            },
            "step" => LrSchedule::Step {
                every: t.schedule_steps,
                gamma: t.schedule_factor,
            },
            _ => LrSchedule::Constant,
        };
        OptimConfig {
            learning_rate: t.learning_rate,
            weight_decay: t.weight_decay,
            warmup_steps: t.warmup_steps,
            schedule,
            grad_clip: t.grad_clip,
            margin_weight: t.margin_weight,
        }
    }

    /// Rows the replay window holds after `iteration` iterations.
    pub fn window_size(&self, iteration: u64) -> usize {
        let t = &self.training;
        (t.window_min + t.window_growth.saturating_mul(iteration as usize)).min(t.window_max)
    }
}
