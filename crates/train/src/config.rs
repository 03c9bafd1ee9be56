//! A run is fully described by one TOML file: game, network, search, self-play, training,
//! gating, evaluation and logging. A bad config is refused before any work starts, with the
//! key and the allowed values named.
//!
//! The shipped configs are `configs/base.toml` (everything the games share) with one small
//! file a game over it (only what differs), merged table by table when loaded; the merged
//! text is what a run stores, so a run's `config.toml` stands alone.

use mancala_mcts::{RootKind, SearchConfig};
use mancala_nn::{Architecture, LrSchedule, NetConfig, OptimConfig};
use mancala_rules::{AnyGame, Game, parse_rules};
use mancala_selfplay::SelfPlayConfig;
use serde::{Deserialize, Serialize};

use crate::error::TrainError;

/// What every shipped config shares; a game's file is merged over it.
pub const BASE_CONFIG: &str = include_str!("../../../configs/base.toml");

/// The shipped config `mancala-zero train` uses without arguments.
pub const DEFAULT_SHIPPED: &str = "oware";

/// Every shipped config by name with its game file (only what differs from
/// [`BASE_CONFIG`]), embedded so the binary works anywhere. [`RunConfig::shipped`] merges.
pub const SHIPPED: &[(&str, &str)] = &[
    ("oware", include_str!("../../../configs/oware.toml")),
    ("ouril", include_str!("../../../configs/ouril.toml")),
    ("awale", include_str!("../../../configs/awale.toml")),
    ("oware-capture-all", include_str!("../../../configs/oware-capture-all.toml")),
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
    /// `[logging]`: TensorBoard output.
    #[serde(default)]
    pub logging: LoggingSection,
    /// `[endgame]`: an endgame database used inside self-play.
    #[serde(default)]
    pub endgame: EndgameSection,
}

/// An endgame database in the loop (Oware and its `awale` / `oware-capture-all` variants,
/// Kalah): every process of the run that plays self-play or trains builds it at its start
/// from the rules (seconds at the sizes allowed; docs/design.md), so no file has to travel
/// to remote workers. Self-play searches answer leaves inside it with exact values; with
/// `adjudicate`, a game that reaches a position inside it ends there with its exact result,
/// that position recorded with exact targets; with `feed`, the trainer fills a share of every
/// batch with positions drawn from it, with exact targets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EndgameSection {
    /// The most seeds on the board of a position in the database; 0: no database.
    pub seeds: usize,
    /// Self-play games end where they enter the database (shorter games, but the network
    /// then never plays an endgame out; measured in docs/experiments.md). Default false: the
    /// games play on, their searches exact inside the database.
    pub adjudicate: bool,
    /// Share of every training batch drawn from the database (0 to 0.5; 0: none; needs
    /// `seeds`): ongoing positions, a seed count then a board uniform among those, with the
    /// result and margin of perfect play as value and margin targets and its best moves as
    /// policy.
    pub feed: f64,
    /// How the feed chooses a position's seed count: `uniform` (every count alike, as the
    /// endgame metric samples) or `by-seeds` (a count in proportion to itself, so boards of
    /// many seeds, where a network misses most, fill more of the feed).
    pub feed_draw: FeedDraw,
    /// Training steps the trainer takes on the database alone before its first candidate
    /// (0: none; needs `feed`, which keeps what they taught): whole batches drawn as the
    /// feed draws them, published as candidate 1. A network reads the endgame better the
    /// more of it it has seen, and a run's feed gives it few rows (docs/experiments.md).
    pub pretrain_steps: u64,
    /// Which end the exact values play to: `played-out` (the database's: every game played to
    /// its end, every seed counted) or `own` (the game's own end: a game that stops at a
    /// majority, as Oware, stops there and leaves the board's seeds uncounted; see
    /// [`mancala_tablebase::ScoredTablebase`]). The two agree on who wins, not always on the
    /// margin or the best move. `own` builds a scored database beside the database (Oware to
    /// 15 seeds: about 80 s and 0.9 GB on two cores) and takes the self-play leaves' values
    /// and the feed's targets from it; only for games that stop at a majority, and not with
    /// `adjudicate`.
    pub ends: Ends,
}

impl Default for EndgameSection {
    fn default() -> Self {
        EndgameSection {
            seeds: 0,
            adjudicate: false,
            feed: 0.0,
            feed_draw: FeedDraw::Uniform,
            pretrain_steps: 0,
            ends: Ends::PlayedOut,
        }
    }
}

/// `endgame.ends`: which end the run's exact values play to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ends {
    /// Every game played to its end, every seed counted (the database's values).
    #[default]
    PlayedOut,
    /// The game's own end (a scored database's values).
    Own,
}

/// The most steps `endgame.pretrain_steps` takes (about an hour on one core).
pub const MAX_PRETRAIN_STEPS: u64 = 1_000_000;

/// `endgame.feed_draw` (see [`mancala_tablebase::SeedDraw`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FeedDraw {
    #[default]
    Uniform,
    BySeeds,
}

impl From<FeedDraw> for mancala_tablebase::SeedDraw {
    fn from(draw: FeedDraw) -> Self {
        match draw {
            FeedDraw::Uniform => mancala_tablebase::SeedDraw::Uniform,
            FeedDraw::BySeeds => mancala_tablebase::SeedDraw::BySeeds,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// The one seed that fixes every random choice (for one thread count).
    pub seed: u64,
    /// Most iterations (at least 1); the run also stops after `max_minutes`.
    pub iterations: u64,
    /// Wall-clock budget in minutes (0: none); checked between iterations.
    pub max_minutes: f64,
    /// A model file the run starts from instead of random weights (empty: random). It must
    /// play the run's game with the config's network; it is read once, when the run is
    /// created, and becomes generation 0, so a resume or a remote worker never needs it.
    /// The replay window and the optimiser start empty, as in any new run.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub init_model: String,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection { seed: 1, iterations: 10_000, max_minutes: 60.0, init_model: String::new() }
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
    pub architecture: ArchitectureName,
    /// Hidden units of the MLP's residual blocks, or channels of the conv tower (1 to 4096).
    pub width: usize,
    /// Residual blocks (1 to 64).
    pub blocks: usize,
    /// The margin head: 0 (the default) for one number through tanh, trained by squared
    /// error; N (2 to 1025) for a distribution over N margins evenly spaced from losing every
    /// seed to winning every seed, trained by cross-entropy and read as its mean. `2 * seeds
    /// + 1` gives one bin a seed (97 for Oware and Kalah), so the head tells a margin one seed
    /// better apart as a class rather than by a squared error of `(1 / 48)^2`.
    pub margin_bins: usize,
    /// `flex` (CPU), `cuda` or `wgpu`.
    pub device: DeviceName,
    /// The network arithmetic of the run's searches on the CPU (self-play, gating and
    /// evaluation): `fp32`, `int8` (residual blocks quantized when a model is loaded; the
    /// model stays FP32), or `auto` (int8 where the CPU has AVX2 or AVX-512 VNNI). Training is
    /// always FP32. `auto` by default: the int8 searches play as strongly as FP32 (51.6% in
    /// 400 games, docs/results.md) and make self-play about 1.5 times as fast.
    pub inference_precision: mancala_nn::Precision,
}

impl Default for NetworkSection {
    fn default() -> Self {
        NetworkSection {
            architecture: ArchitectureName::Mlp,
            width: 128,
            blocks: 4,
            margin_bins: 0,
            device: DeviceName::Flex,
            inference_precision: mancala_nn::Precision::Auto,
        }
    }
}

/// `network.architecture`: the config's spelling of [`Architecture`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchitectureName {
    #[default]
    Mlp,
    Conv,
}

impl From<ArchitectureName> for Architecture {
    fn from(name: ArchitectureName) -> Architecture {
        match name {
            ArchitectureName::Mlp => Architecture::Mlp,
            ArchitectureName::Conv => Architecture::Conv,
        }
    }
}

/// `network.device`: which compute device the roles use (GPU backends need their cargo
/// feature; a build without it refuses the config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceName {
    /// The CPU.
    #[default]
    Flex,
    Cuda,
    Wgpu,
}

impl DeviceName {
    /// The name `mancala_nn::inference_device` and `training_device` take.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceName::Flex => "flex",
            DeviceName::Cuda => "cuda",
            DeviceName::Wgpu => "wgpu",
        }
    }
}

/// `search.root`: the config's spelling of [`RootKind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootName {
    #[default]
    Puct,
    Gumbel,
}

impl From<RootName> for RootKind {
    fn from(name: RootName) -> RootKind {
        match name {
            RootName::Puct => RootKind::Puct,
            RootName::Gumbel => RootKind::Gumbel,
        }
    }
}

/// `training.schedule`: how the learning rate moves after the warm-up; its parameters are
/// `training.schedule_steps` and `training.schedule_factor`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScheduleName {
    Constant,
    Cosine,
    Step,
    /// Cosine over the run rather than over steps: from `learning_rate` at the start to
    /// `learning_rate * schedule_factor` when the run reaches its limit (`run.max_minutes` or
    /// `run.iterations`, whichever it is nearer to). A resume that extends the run
    /// (`--minutes`) moves the limit, so the rate rises again and decays to the new end.
    #[default]
    #[serde(rename = "cosine-run")]
    CosineRun,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSection {
    /// Exploration constant of PUCT (above 0).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child counts as its parent's value minus this (finite).
    pub fpu_reduction: f32,
    /// `puct` or `gumbel`.
    pub root: RootName,
    /// Root Dirichlet noise of self-play's full searches: alpha = this / legal moves (above 0).
    pub dirichlet_alpha_total: f32,
    /// Share of the root prior replaced by that noise (0 to 1).
    pub dirichlet_fraction: f32,
    /// Gumbel root: how many root actions are sampled (m, at least 1).
    pub gumbel_actions: usize,
    /// Weight of the final seed margin in the value every search of the run maximises
    /// (0 to 0.5; see `mancala_mcts::utility`): 0 counts wins alone, so in a won (or lost)
    /// position every winning move looks alike; a small weight prefers the one that keeps
    /// the most seeds. The value and margin targets are unchanged.
    pub margin_utility: f32,
    /// Whether every search of the run backs up proven values from finished games in its
    /// tree (`mancala_mcts::SearchConfig::solver`): a move proven worse than another is not
    /// searched further, played or learned, and a solved root ends its search early. A
    /// config that leaves the key out (every run stored before it) searches without.
    pub solver: bool,
    /// Weight of the minimax of a search's evaluations beside its mean values, in selection
    /// and the final pick (0 to 1; `mancala_mcts::SearchConfig::minimax_weight`, implicit
    /// minimax backups). A config that leaves the key out searches with the mean alone.
    pub minimax_weight: f32,
}

impl Default for SearchSection {
    fn default() -> Self {
        let d = SearchConfig::default();
        SearchSection {
            c_puct: d.c_puct,
            fpu_reduction: d.fpu_reduction,
            root: RootName::Puct,
            dirichlet_alpha_total: d.dirichlet_alpha_total,
            dirichlet_fraction: d.dirichlet_fraction,
            gumbel_actions: d.gumbel_actions,
            margin_utility: DEFAULT_MARGIN_UTILITY,
            solver: false,
            minimax_weight: 0.0,
        }
    }
}

/// The margin weight of a run's searches unless its config says otherwise: small enough that
/// it only breaks ties between moves of about the same expected result (chosen by an Oware
/// A/B with the endgame feed; docs/experiments.md, "The endgame database in the loop").
pub const DEFAULT_MARGIN_UTILITY: f32 = 0.1;

/// Most steps `training.average_steps` may average over (a longer average would trail the
/// learner by most of any run this framework can make).
pub const MAX_AVERAGE_STEPS: u64 = 1_000_000;

/// Bins a distributional margin head may have (`network.margin_bins`, 0 aside for the tanh
/// head): two at least for a distribution, and 1025 (one a seed for 512 seeds) well past any
/// game here.
pub const MARGIN_BINS: std::ops::RangeInclusive<usize> = 2..=1025;

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
    /// `constant`, `cosine`, `step` or `cosine-run` (see [`ScheduleName`]).
    pub schedule: ScheduleName,
    /// Cosine: steps to decay over; step: steps between decays; cosine-run: not read.
    pub schedule_steps: u64,
    /// Cosine and cosine-run: final share of the rate; step: factor at each decay.
    pub schedule_factor: f64,
    /// Largest gradient norm; 0 turns clipping off.
    pub grad_clip: f32,
    /// Weight of the seed-margin loss beside the policy and value losses.
    pub margin_weight: f32,
    /// Share of each value target taken from the search's root value instead of the game's
    /// result, 0 to 1 (0: the result alone, as AlphaZero; see `Row::value_target`).
    pub value_from_search: f32,
    /// Publish the moving average of the weights over about this many steps instead of the
    /// last step's weights (0: the weights themselves; at most 1,000,000); the learner goes
    /// on from its own weights.
    pub average_steps: u64,
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
            schedule: ScheduleName::CosineRun,
            schedule_steps: 20_000,
            schedule_factor: 0.1,
            grad_clip: o.grad_clip,
            margin_weight: o.margin_weight,
            value_from_search: 0.0,
            average_steps: 1000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatingSection {
    /// Games of candidate against best (even); 0 promotes every candidate without a match
    /// (AlphaZero's continuous update: self-play always uses the newest network).
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
        GatingSection { games: 40, simulations: 64, threshold: 0.55, sprt: String::new(), opening_plies: 4, threads: 2 }
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
    /// evaluation (`endgame/value_sign`, `endgame/best_move`, `endgame/result_kept`,
    /// `endgame/seeds_given`; with `endgame.ends = "own"` also `endgame/best_move_own`, judged
    /// by the game's own end).
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
            references: vec!["random".into(), "greedy".into(), "alphabeta:depth=4".into(), "mcts:sims=1000".into()],
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
}

impl Default for LoggingSection {
    fn default() -> Self {
        LoggingSection { tensorboard: true }
    }
}

/// Keys a config may no longer name, with why: `(table, key, reason)`. A config of today
/// naming one is refused, so nobody keeps setting a key that does nothing; the config a run
/// stored before the key went still opens ([`RunConfig::parse_stored`]).
const REMOVED_KEYS: &[(&str, &str, &str)] = &[(
    "logging",
    "progress",
    "it was never read (a command shows progress where its output is a terminal); delete the line",
)];

/// The first removed key `table` names, as an error.
fn refuse_removed_keys(table: &toml::Table) -> Result<(), TrainError> {
    for (section, key, reason) in REMOVED_KEYS {
        if table.get(*section).and_then(|t| t.get(*key)).is_some() {
            return Err(TrainError::Config(format!("{section}.{key}: no longer a key: {reason}")));
        }
    }
    Ok(())
}

/// `table` without the removed keys; whether it had any.
fn drop_removed_keys(table: &mut toml::Table) -> bool {
    let mut dropped = false;
    for (section, key, _) in REMOVED_KEYS {
        if let Some(toml::Value::Table(t)) = table.get_mut(*section) {
            dropped |= t.remove(*key).is_some();
        }
    }
    dropped
}

fn bad(key: &str, value: impl std::fmt::Display, allowed: &str) -> TrainError {
    TrainError::Config(format!("{key} = {value}: expected {allowed}"))
}

/// A count where 0 means nothing sensible (no games, no threads, no simulations).
fn at_least_one(key: &str, value: impl Into<u64>) -> Result<(), TrainError> {
    let value = value.into();
    if value == 0 {
        return Err(bad(key, value, "at least 1"));
    }
    Ok(())
}

/// A float that must be finite and above 0 (NaN fails every comparison, so it is refused).
fn positive(key: &str, value: impl Into<f64>) -> Result<(), TrainError> {
    let value = value.into();
    if !(value.is_finite() && value > 0.0) {
        return Err(bad(key, value, "a finite number above 0"));
    }
    Ok(())
}

/// A float that must be finite and at least 0.
fn non_negative(key: &str, value: impl Into<f64>) -> Result<(), TrainError> {
    let value = value.into();
    if !(value.is_finite() && value >= 0.0) {
        return Err(bad(key, value, "a finite number of at least 0"));
    }
    Ok(())
}

/// A share or probability: 0 to 1, both included.
fn unit(key: &str, value: impl Into<f64>) -> Result<(), TrainError> {
    let value = value.into();
    if !(0.0..=1.0).contains(&value) {
        return Err(bad(key, value, "a number from 0 to 1"));
    }
    Ok(())
}

/// Games of a match: played in pairs with the colours swapped, so even and at least 2.
fn pairs(key: &str, games: u32) -> Result<(), TrainError> {
    if games == 0 || games % 2 == 1 {
        return Err(bad(key, games, "an even number of at least 2"));
    }
    Ok(())
}

/// Overlays `over` on `base`: a table present in both is merged key by key, any other value
/// (numbers, strings, arrays) in `over` replaces the one in `base`.
/// A serde error with the dotted key it is about (`network.architecture: unknown variant
/// ...`): toml's own message shows the line but only the bare key, which is ambiguous
/// (`threads`, `games` and `simulations` are in several tables).
fn de_error(text: &str, e: &toml::de::Error) -> TrainError {
    // A span that is empty or the whole document (a missing table) names no key.
    let whole = |span: &std::ops::Range<usize>| span.start == 0 && (span.end == 0 || span.end >= text.trim_end().len());
    let span = e.span().filter(|span| !whole(span));
    match span.and_then(|span| key_at(text, span.start)) {
        Some((key, line)) => {
            // Values plain, as the checks of `validate` write them ("expected puct or
            // gumbel"), not in serde's backticks.
            let message = e.message().trim().replace('`', "");
            TrainError::Config(format!("{key}: {message} (line {line})"))
        }
        None => TrainError::Config(e.to_string()),
    }
}

/// The dotted key of the line holding byte `at`, and its line number (from 1): the table
/// header above it joined with the key before its `=`, or the header itself. `None` when the
/// line is neither (a span over the whole document, for a missing table).
fn key_at(text: &str, at: usize) -> Option<(String, usize)> {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let number = text[..start].matches('\n').count() + 1;
    let line = text[start..].lines().next().unwrap_or("").trim();
    let header = |l: &str| {
        let l = l.trim();
        (l.starts_with('[') && l.contains(']'))
            .then(|| l.trim_start_matches('[').split(']').next().unwrap_or("").trim().to_string())
    };
    if let Some(table) = header(line) {
        return Some((table, number));
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    match text[..start].lines().rev().find_map(header) {
        Some(table) => Some((format!("{table}.{key}"), number)),
        None => Some((key.to_string(), number)),
    }
}

/// The complete text of shipped config `name` whose game file is `over`.
fn merge_shipped(name: &str, over: &str) -> Result<String, TrainError> {
    let merged = merge(BASE_CONFIG, over).map_err(|e| TrainError::Config(format!("shipped config '{name}': {e}")))?;
    let text = format!("# Shipped config '{name}': configs/base.toml with configs/{name}.toml over it.\n{merged}");
    RunConfig::parse(&text).map_err(|e| TrainError::Config(format!("shipped config '{name}': {e}")))?;
    Ok(text)
}

fn merge_tables(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

impl RunConfig {
    /// Parses and validates a config; the error names the key.
    ///
    /// # Errors
    /// [`TrainError::Config`].
    pub fn parse(text: &str) -> Result<RunConfig, TrainError> {
        // A text that is not TOML at all gets serde's error below, with its line.
        if let Ok(table) = toml::from_str::<toml::Table>(text) {
            refuse_removed_keys(&table)?;
        }
        let config: RunConfig = toml::from_str(text).map_err(|e| de_error(text, &e))?;
        config.validate()?;
        Ok(config)
    }

    /// Parses and validates the config a run stored, which an older build may have written:
    /// keys removed since (a run's config is copied complete, so every run of a shipped
    /// config names them) are dropped instead of refused, so the run still resumes.
    ///
    /// # Errors
    /// [`TrainError::Config`], as [`RunConfig::parse`].
    pub fn parse_stored(text: &str) -> Result<RunConfig, TrainError> {
        let Ok(mut table) = toml::from_str::<toml::Table>(text) else { return Self::parse(text) };
        if !drop_removed_keys(&mut table) {
            return Self::parse(text);
        }
        let text = toml::to_string(&table).map_err(|e| TrainError::Config(format!("stored config: {e}")))?;
        Self::parse(&text)
    }

    /// The complete text of a shipped config (`oware`, `kalah`, ..., `tiny`): its game file
    /// merged over [`BASE_CONFIG`], checked with [`RunConfig::parse`]. Merged once, on first
    /// use, and kept for the life of the process, so it can be lent out like the embedded text.
    ///
    /// # Errors
    /// [`TrainError::Config`] for a name that is not shipped (the names are listed), or for a
    /// shipped file that does not merge or parse (a build mistake the tests catch).
    pub fn shipped(name: &str) -> Result<&'static str, TrainError> {
        static MERGED: std::sync::OnceLock<Vec<Result<String, String>>> = std::sync::OnceLock::new();
        let merged = MERGED.get_or_init(|| {
            SHIPPED.iter().map(|(name, over)| merge_shipped(name, over).map_err(|e| e.to_string())).collect()
        });
        let Some(i) = SHIPPED.iter().position(|(n, _)| *n == name) else {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            return Err(TrainError::Config(format!(
                "no shipped config '{name}': expected one of {}",
                names.join(", ")
            )));
        };
        merged[i].as_deref().map_err(|e| TrainError::Config(e.clone()))
    }

    /// Checks every value that serde cannot, a section at a time in the order of the file.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the key and the allowed values.
    pub fn validate(&self) -> Result<(), TrainError> {
        let game = self.game()?;
        check_run(&self.run)?;
        check_network(&self.network)?;
        check_search(&self.search)?;
        self.selfplay.validate().map_err(TrainError::Config)?;
        check_training(&self.training)?;
        check_gating(&self.gating)?;
        check_evaluation(&self.evaluation)?;
        check_endgame(&self.endgame, &game)?;
        check_references(&self.evaluation)
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
        NetConfig::for_layout(&mancala_encoding::layout(game), game.action_space())
            .with_architecture(self.network.architecture.into())
            .with_width(self.network.width)
            .with_blocks(self.network.blocks)
            .with_margin_bins(self.network.margin_bins)
    }

    /// Search settings shared by self-play, gating and evaluation (budgets set per use).
    pub fn search_config(&self, simulations: u32) -> SearchConfig {
        let s = &self.search;
        SearchConfig {
            simulations,
            c_puct: s.c_puct,
            fpu_reduction: s.fpu_reduction,
            root: s.root.into(),
            dirichlet_noise: false,
            dirichlet_alpha_total: s.dirichlet_alpha_total,
            dirichlet_fraction: s.dirichlet_fraction,
            gumbel_actions: s.gumbel_actions,
            margin_utility: s.margin_utility,
            solver: s.solver,
            minimax_weight: s.minimax_weight,
            leaves_per_gather: 8,
            ..SearchConfig::default()
        }
    }

    pub fn optim_config(&self) -> OptimConfig {
        let t = &self.training;
        let schedule = match t.schedule {
            ScheduleName::Constant => LrSchedule::Constant,
            ScheduleName::Cosine => LrSchedule::Cosine { total_steps: t.schedule_steps, min_factor: t.schedule_factor },
            ScheduleName::Step => LrSchedule::Step { every: t.schedule_steps, gamma: t.schedule_factor },
            ScheduleName::CosineRun => LrSchedule::CosineOverRun { min_factor: t.schedule_factor },
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

fn check_run(r: &RunSection) -> Result<(), TrainError> {
    at_least_one("run.iterations", r.iterations)?;
    non_negative("run.max_minutes", r.max_minutes)
}

fn check_network(n: &NetworkSection) -> Result<(), TrainError> {
    if !(1..=4096).contains(&n.width) {
        return Err(bad("network.width", n.width, "1 to 4096"));
    }
    if !(1..=64).contains(&n.blocks) {
        return Err(bad("network.blocks", n.blocks, "1 to 64"));
    }
    if n.margin_bins != 0 && !MARGIN_BINS.contains(&n.margin_bins) {
        let allowed = format!("0 (the tanh head) or {} to {}", MARGIN_BINS.start(), MARGIN_BINS.end());
        return Err(bad("network.margin_bins", n.margin_bins, &allowed));
    }
    // A GPU device named in the config but not built in is refused here, not mid-run.
    mancala_nn::inference_device(n.device.as_str()).map_err(|e| TrainError::Config(format!("network.device: {e}")))?;
    if n.inference_precision == mancala_nn::Precision::Int8 && n.device != DeviceName::Flex {
        return Err(bad("network.inference_precision", "int8", "fp32 or auto with a GPU device (int8 runs on flex)"));
    }
    Ok(())
}

fn check_search(s: &SearchSection) -> Result<(), TrainError> {
    positive("search.c_puct", s.c_puct)?;
    if !s.fpu_reduction.is_finite() {
        return Err(bad("search.fpu_reduction", s.fpu_reduction, "a finite number"));
    }
    positive("search.dirichlet_alpha_total", s.dirichlet_alpha_total)?;
    unit("search.dirichlet_fraction", s.dirichlet_fraction)?;
    at_least_one("search.gumbel_actions", s.gumbel_actions as u64)?;
    unit("search.minimax_weight", s.minimax_weight)?;
    if !mancala_mcts::valid_margin_utility(s.margin_utility) {
        return Err(bad("search.margin_utility", s.margin_utility, "0 to 0.5"));
    }
    Ok(())
}

fn check_training(t: &TrainingSection) -> Result<(), TrainError> {
    at_least_one("training.batch_size", t.batch_size as u64)?;
    positive("training.samples_per_row", t.samples_per_row)?;
    at_least_one("training.max_steps", t.max_steps)?;
    if t.min_steps > t.max_steps {
        return Err(bad("training.min_steps", t.min_steps, "at most training.max_steps"));
    }
    if t.window_min == 0 || t.window_min > t.window_max {
        return Err(bad("training.window_min", t.window_min, "1 to training.window_max"));
    }
    if !(t.learning_rate > 0.0 && t.learning_rate < 1.0) {
        return Err(bad("training.learning_rate", t.learning_rate, "a number in (0, 1)"));
    }
    non_negative("training.weight_decay", t.weight_decay)?;
    // Checked whatever the schedule, so switching it on later cannot meet a bad value.
    at_least_one("training.schedule_steps", t.schedule_steps)?;
    unit("training.schedule_factor", t.schedule_factor)?;
    // A step decay by 0 would stop learning at the first decay.
    if t.schedule == ScheduleName::Step && t.schedule_factor == 0.0 {
        return Err(bad(
            "training.schedule_factor",
            t.schedule_factor,
            "a number in (0, 1] with training.schedule = \"step\"",
        ));
    }
    non_negative("training.grad_clip", t.grad_clip)?;
    non_negative("training.margin_weight", t.margin_weight)?;
    unit("training.value_from_search", t.value_from_search)?;
    if t.average_steps > MAX_AVERAGE_STEPS {
        return Err(bad("training.average_steps", t.average_steps, "0 to 1000000"));
    }
    Ok(())
}

fn check_gating(g: &GatingSection) -> Result<(), TrainError> {
    if g.games > 0 {
        pairs("gating.games", g.games)?;
    } else if !g.sprt.is_empty() {
        return Err(bad("gating.games", 0, "an even number of at least 2 when gating.sprt is set"));
    }
    at_least_one("gating.simulations", g.simulations)?;
    unit("gating.threshold", g.threshold)?;
    if !g.sprt.is_empty() {
        mancala_arena::Sprt::parse(&g.sprt).map_err(|e| TrainError::Config(format!("gating.sprt: {e}")))?;
    }
    at_least_one("gating.threads", g.threads as u64)
}

/// The evaluator's budgets; its references are checked last ([`check_references`]).
fn check_evaluation(e: &EvaluationSection) -> Result<(), TrainError> {
    // Checked even with `every = 0`, so turning evaluation on cannot meet a bad value.
    pairs("evaluation.games", e.games)?;
    at_least_one("evaluation.simulations", e.simulations)?;
    at_least_one("evaluation.threads", e.threads as u64)?;
    if !e.tablebase.is_empty() {
        at_least_one("evaluation.tablebase_positions", e.tablebase_positions as u64)?;
    }
    Ok(())
}

fn check_endgame(end: &EndgameSection, game: &AnyGame) -> Result<(), TrainError> {
    if end.seeds > 0 {
        // The game and the limit are checked by the same code that builds the database,
        // without building it: a run that cannot have its database stops here.
        mancala_tablebase::check_supported(game).map_err(|err| TrainError::Config(format!("endgame.seeds: {err}")))?;
        let most = usize::from(game.total_seeds()).min(18);
        if end.seeds > most {
            return Err(bad(
                "endgame.seeds",
                end.seeds,
                &format!("0 (none) to {most} (larger databases take minutes and gigabytes to build)"),
            ));
        }
    }
    let feed = end.feed;
    if !(0.0..=0.5).contains(&feed) {
        return Err(bad("endgame.feed", feed, "0 to 0.5 (a share of each training batch)"));
    }
    if feed > 0.0 && end.seeds == 0 {
        return Err(bad("endgame.feed", feed, "0 while endgame.seeds is 0: the feed draws from the database"));
    }
    if end.ends == Ends::Own {
        if end.seeds == 0 {
            return Err(bad("endgame.ends", "own", "played-out while endgame.seeds is 0: there is no database"));
        }
        if !game.stops_at_majority() {
            return Err(bad(
                "endgame.ends",
                "own",
                &format!(
                    "played-out for {}: it does not stop at a majority, so the database already plays its own end",
                    game.name()
                ),
            ));
        }
        if end.adjudicate {
            return Err(bad(
                "endgame.ends",
                "own",
                "played-out while endgame.adjudicate is true: adjudication ends games by the database's values",
            ));
        }
        let (_, needed) = mancala_tablebase::scored::scored_size(game, end.seeds);
        if needed > mancala_tablebase::DEFAULT_MEMORY_LIMIT as f64 {
            return Err(bad(
                "endgame.ends",
                "own",
                &format!(
                    "played-out at endgame.seeds = {}: the scored database would take {:.1} GiB to build",
                    end.seeds,
                    needed / f64::from(1u32 << 30)
                ),
            ));
        }
    }
    let pretrain = end.pretrain_steps;
    if pretrain > MAX_PRETRAIN_STEPS {
        return Err(bad("endgame.pretrain_steps", pretrain, "at most 1000000"));
    }
    if pretrain > 0 && feed == 0.0 {
        return Err(bad(
            "endgame.pretrain_steps",
            pretrain,
            "0 while endgame.feed is 0: the feed keeps what the pretraining taught",
        ));
    }
    Ok(())
}

/// The evaluator's reference agents, when it plays: the spec syntax only. The files a
/// `net:` or `perfect:` reference names are checked by the evaluator that plays them, since
/// every role (a remote worker too) validates this config and only the evaluator's machine
/// needs the files.
fn check_references(e: &EvaluationSection) -> Result<(), TrainError> {
    if e.every == 0 {
        return Ok(());
    }
    if e.references.is_empty() {
        return Err(bad("evaluation.references", "[]", "at least one agent when evaluation.every is above 0"));
    }
    for r in &e.references {
        mancala_agents::AgentSpec::parse(r)
            .map_err(|err| TrainError::Config(format!("evaluation.references: {err}")))?;
    }
    Ok(())
}

/// `over` merged over `base` (both TOML texts), as TOML text: tables merge key by key, every
/// other value in `over` replaces the one in `base`. Comments do not survive.
///
/// # Errors
/// [`TrainError::Config`] naming which text does not parse.
pub fn merge(base: &str, over: &str) -> Result<String, TrainError> {
    let mut merged: toml::Table = toml::from_str(base).map_err(|e| TrainError::Config(format!("base config: {e}")))?;
    let over: toml::Table = toml::from_str(over).map_err(|e| TrainError::Config(format!("override: {e}")))?;
    merge_tables(&mut merged, over);
    toml::to_string(&merged).map_err(|e| TrainError::Config(format!("merged config: {e}")))
}
