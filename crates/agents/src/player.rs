//! The one way a search that plays is assembled: what guides it (a trained model, or random
//! rollouts), an optional endgame database at its leaves, and its settings. The `net` and
//! `mcts` specs, the engine, `play`, the web page and `tablebase accuracy` all build their
//! player here, so the model's margin weight, the minimax weight, the final pick, tree reuse,
//! the time a move and the threads are the same wherever the same model plays.

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use burn::prelude::Device;
use mancala_encoding::layout_for;
use mancala_mcts::evaluator::EvalCache;
use mancala_mcts::{
    Agent, CachedEvaluator, Evaluator, FinalPick, MAX_SIMULATIONS, RolloutEvaluator, SearchAgent, SearchConfig,
};
use mancala_nn::{ModelMeta, Net, NeuralEvaluator, Precision};
use mancala_rules::{Action, Game, Line};
use mancala_tablebase::{Tablebase, TablebaseEvaluator};

use crate::error::{FileError, PlayerError};
use crate::files::cached_model;
use crate::spec::{
    MCTS_C_PUCT, MCTS_FPU, MCTS_SIMULATIONS, NET_C_PUCT, NET_FPU, NET_GATHER, NET_MINIMAX, NET_PICK, NET_REUSE,
    NET_SIMULATIONS, NET_SOLVER,
};

/// The most threads one search may use.
pub const MAX_THREADS: usize = 256;

/// Positions each network evaluator keeps the answers of (2^14).
const CACHE_BITS: u32 = 14;

/// Kept apart from the search's own seed, so that the playouts and the search's random
/// choices do not draw the same numbers.
const ROLLOUT_SALT: u64 = 0x5eed;

/// What judges the leaves of a player's search.
#[derive(Clone)]
pub enum Guide {
    /// Uniform priors and one random playout a leaf: plain MCTS, for any game.
    Rollouts,
    /// A trained model (boxed: its module tree is large beside `Rollouts`); `name` says
    /// which in messages (a file, "shipped oware network").
    Network { meta: Box<ModelMeta>, net: Box<Net>, name: String },
}

impl Guide {
    /// The model in `path` for `game`, read once a process.
    ///
    /// # Errors
    /// As [`cached_model`].
    pub fn model_file<G: Game>(game: &G, path: &Path) -> Result<Guide, FileError> {
        let (meta, net) = cached_model(game, path)?;
        Ok(Guide::Network { meta: Box::new(meta), net: Box::new(net), name: format!("the network {}", path.display()) })
    }

    /// A model already loaded (a shipped one, a run's checkpoint).
    pub fn network(meta: ModelMeta, net: Net, name: impl Into<String>) -> Guide {
        Guide::Network { meta: Box::new(meta), net: Box::new(net), name: name.into() }
    }

    pub fn is_network(&self) -> bool {
        matches!(self, Guide::Network { .. })
    }

    /// In words, for start-up lines and the web page.
    pub fn describe(&self) -> String {
        match self {
            Guide::Rollouts => "MCTS with random rollouts".to_string(),
            Guide::Network { name, .. } => format!("MCTS guided by {name}"),
        }
    }
}

/// How a player searches. [`PlayerSettings::network`] and [`PlayerSettings::rollouts`] are the
/// defaults of the `net` and `mcts` specs.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSettings {
    /// New simulations a move; with `time`, the most a move (whichever ends first).
    pub simulations: u32,
    /// Thinking time a move, if any.
    pub time: Option<Duration>,
    /// Threads that evaluate each batch of leaves ([`mancala_mcts::Search::run_threads`]).
    pub threads: usize,
    pub c_puct: f32,
    /// First-play urgency: an unvisited move counts as its parent's value less this.
    pub fpu: f32,
    /// Leaves gathered under virtual loss for one evaluator call, per thread.
    pub gather: usize,
    pub pick: FinalPick,
    /// Whether a search keeps the subtree of the moves played since the last one.
    pub reuse: bool,
    /// Back up proven values from finished games in the tree.
    pub solver: bool,
    /// Weight of the minimax of the search's evaluations beside their mean.
    pub minimax: f32,
    /// Weight of the seed margin in the value searched; `None`: the model's own (0 for
    /// rollouts).
    pub margin: Option<f32>,
    /// The arithmetic a network runs in on the CPU (rollouts ignore it).
    pub precision: Precision,
}

impl PlayerSettings {
    /// A network's play-time search: the value pick, implicit minimax, tree reuse, batches of
    /// leaves (the `net` spec's defaults).
    pub fn network() -> PlayerSettings {
        PlayerSettings {
            simulations: NET_SIMULATIONS,
            time: None,
            threads: 1,
            c_puct: NET_C_PUCT,
            fpu: NET_FPU,
            gather: NET_GATHER,
            pick: NET_PICK,
            reuse: NET_REUSE,
            solver: NET_SOLVER,
            minimax: NET_MINIMAX,
            margin: None,
            precision: Precision::Fp32,
        }
    }

    /// The search these settings ask for, with the seed margin weighed by `margin` (the
    /// settings' own, or the guide's when they name none, as [`build_player`] resolves it).
    /// Tree reuse and the time limit are the agent's, not the search's.
    pub fn search_config(&self, margin: f32) -> SearchConfig {
        SearchConfig {
            simulations: self.simulations,
            c_puct: self.c_puct,
            fpu_reduction: self.fpu,
            leaves_per_gather: self.gather.max(1),
            margin_utility: margin,
            final_pick: self.pick,
            solver: self.solver,
            minimax_weight: self.minimax,
            ..SearchConfig::default()
        }
    }

    /// Rollout MCTS as the yardstick was measured: the most visited move, the mean alone, one
    /// leaf at a time, a fresh tree each move (the `mcts` spec's defaults).
    pub fn rollouts() -> PlayerSettings {
        PlayerSettings {
            simulations: MCTS_SIMULATIONS,
            time: None,
            threads: 1,
            c_puct: MCTS_C_PUCT,
            fpu: MCTS_FPU,
            gather: 1,
            pick: FinalPick::Visits,
            reuse: false,
            solver: false,
            minimax: 0.0,
            margin: None,
            precision: Precision::Fp32,
        }
    }

    /// The defaults for what `guide` is.
    pub fn for_guide(guide: &Guide) -> PlayerSettings {
        if guide.is_network() { Self::network() } else { Self::rollouts() }
    }

    /// Checks the numbers a front-end may take from its user.
    ///
    /// # Errors
    /// [`PlayerError`] naming the setting, the value and its allowed range.
    pub fn check(&self) -> Result<(), PlayerError> {
        if !(1..=MAX_SIMULATIONS).contains(&self.simulations) {
            return Err(PlayerError::Simulations { asked: u64::from(self.simulations) });
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(PlayerError::Threads { asked: self.threads });
        }
        if self.time == Some(Duration::ZERO) {
            return Err(PlayerError::ZeroTime);
        }
        Ok(())
    }
}

/// A search that plays: an [`Agent`] whose search can be read after each move (analysis,
/// principal variation) and whose settings can change between moves.
pub struct Player<G: Game> {
    agent: SearchAgent<G, Box<dyn Evaluator<G>>>,
    /// Rollout evaluators are reseeded with every game, so results do not depend on game order.
    rollouts: bool,
}

impl<G: Game> Player<G> {
    /// Picks the move at `temperature` from the last search (0: the final pick).
    pub fn pick(&mut self, temperature: f32) -> Option<Action> {
        self.agent.search_mut().select_action(temperature)
    }
}

impl<G: Game> Deref for Player<G> {
    type Target = SearchAgent<G, Box<dyn Evaluator<G>>>;
    fn deref(&self) -> &Self::Target {
        &self.agent
    }
}

impl<G: Game> DerefMut for Player<G> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.agent
    }
}

impl<G: Game> Agent<G> for Player<G> {
    fn name(&self) -> String {
        self.agent.name()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        self.agent.choose(line)
    }
    fn new_game(&mut self, seed: u64) {
        self.agent.new_game(seed);
        if self.rollouts {
            for (k, e) in self.agent.evaluators_mut().iter_mut().enumerate() {
                *e = Box::new(rollouts(seed, k));
            }
        }
    }
}

/// The rollout evaluator of thread `k`.
fn rollouts(seed: u64, k: usize) -> RolloutEvaluator {
    RolloutEvaluator::new(seed ^ ROLLOUT_SALT ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Builds the player `guide` and `settings` describe for `game`, with exact values from
/// `tablebase` at the leaves inside it; `seed` fixes its random choices until the next
/// `new_game`; `name` is its name in tables.
///
/// # Errors
/// [`PlayerError`]: settings out of range, a model for another game or of an encoding the
/// game has no layout for, a database for another game.
pub fn build_player<G: Game>(
    game: &G,
    guide: &Guide,
    tablebase: Option<&Arc<Tablebase>>,
    settings: &PlayerSettings,
    seed: u64,
    name: String,
) -> Result<Player<G>, PlayerError> {
    settings.check()?;
    let margin = match guide {
        Guide::Rollouts => settings.margin.unwrap_or(0.0),
        Guide::Network { meta, .. } => settings.margin.unwrap_or(meta.margin_utility()),
    };
    if !mancala_mcts::valid_margin_utility(margin) {
        return Err(PlayerError::Margin { asked: margin });
    }
    // One evaluation cache for all the search's threads, made by the first network evaluator:
    // a position one thread's network judged is not judged again by another.
    let cache = OnceLock::new();
    let evaluators = (0..settings.threads)
        .map(|k| evaluator(game, guide, tablebase, margin, settings.precision, &cache, (seed, k)))
        .collect::<Result<Vec<_>, _>>()?;
    let agent = SearchAgent::with_evaluators(game.clone(), settings.search_config(margin), evaluators, seed, name)
        .with_reuse(settings.reuse)
        .with_time(settings.time);
    Ok(Player { agent, rollouts: !guide.is_network() && tablebase.is_none() })
}

/// The evaluator of thread `k`.
fn evaluator<G: Game>(
    game: &G,
    guide: &Guide,
    tablebase: Option<&Arc<Tablebase>>,
    margin: f32,
    precision: Precision,
    cache: &OnceLock<Arc<EvalCache>>,
    (seed, k): (u64, usize),
) -> Result<Box<dyn Evaluator<G>>, PlayerError> {
    let inner: Box<dyn Evaluator<G>> = match guide {
        Guide::Rollouts => Box::new(rollouts(seed, k)),
        Guide::Network { meta, net, name } => {
            if meta.rules != game.rules_string() {
                return Err(PlayerError::ModelForOtherGame {
                    model: name.clone(),
                    found: meta.rules.clone(),
                    expected: game.rules_string(),
                });
            }
            // The model's own input encoding version: a model of an older one plays as trained.
            let layout = layout_for(game, meta.encoding_version)
                .map_err(|e| PlayerError::Model { model: name.clone(), source: Box::new(e.into()) })?;
            let network = NeuralEvaluator::with_layout(game, layout, (**net).clone(), Device::flex())
                .with_precision(precision)
                .with_margin_utility(margin);
            let cache = cache.get_or_init(|| Arc::new(EvalCache::new(CACHE_BITS)));
            Box::new(CachedEvaluator::sharing(network, Arc::clone(cache)))
        }
    };
    Ok(match tablebase {
        None => inner,
        // Exact values at the leaves inside the database, the guide elsewhere.
        Some(tb) => Box::new(
            TablebaseEvaluator::new(game, tb.clone(), inner)
                .map_err(|source| PlayerError::Database { source: Box::new(source) })?
                .with_margin_utility(margin),
        ),
    })
}
