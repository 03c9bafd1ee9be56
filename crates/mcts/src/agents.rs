//! Reference agents chosen by a spec string: `random`, `greedy`, `alphabeta:depth=D`,
//! `alphabeta:ms=T`, `mcts:sims=N`. Other crates add their own agents (a network, a
//! tablebase) behind the same [`Agent`] trait.

use std::time::Duration;

use mancala_rules::{Action, Game, Line};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use thiserror::Error;

use crate::alphabeta::{AlphaBeta, Limit};
use crate::config::SearchConfig;
use crate::evaluator::{Evaluator, RolloutEvaluator};
use crate::search::Search;

/// Something that picks moves in real games.
pub trait Agent<G: Game>: Send {
    /// A short name for tables (the spec string it was made from).
    fn name(&self) -> String;
    /// Picks a legal move for the side to move of an ongoing game.
    fn choose(&mut self, line: &Line<G>) -> Action;
    /// Called before each game with a fresh seed, so results do not depend on game order.
    fn new_game(&mut self, seed: u64) {
        let _ = seed;
    }
}

/// A spec that names no agent or has a bad parameter.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AgentError {
    #[error("unknown agent '{name}': expected one of {allowed}")]
    Unknown { name: String, allowed: String },
    #[error("agent '{spec}': {reason}")]
    BadParameter { spec: String, reason: String },
}

/// A parsed spec: `name` or `name:key=value,key=value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    pub text: String,
    pub name: String,
    pub params: Vec<(String, String)>,
}

impl AgentSpec {
    /// Splits a spec string.
    ///
    /// # Errors
    /// [`AgentError::BadParameter`] for a parameter without `=`.
    pub fn parse(text: &str) -> Result<AgentSpec, AgentError> {
        let text = text.trim();
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut params = Vec::new();
        for p in rest.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = p.split_once('=').ok_or_else(|| AgentError::BadParameter {
                spec: text.to_string(),
                reason: format!("'{p}' is not key=value"),
            })?;
            params.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(AgentSpec { text: text.to_string(), name: name.to_ascii_lowercase(), params })
    }

    /// The value of parameter `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Parameter `key` as a number, or `default`.
    ///
    /// # Errors
    /// [`AgentError::BadParameter`] when it is not a number.
    pub fn number<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, AgentError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| AgentError::BadParameter {
                spec: self.text.clone(),
                reason: format!("{key}={v} is not a number"),
            }),
        }
    }

    /// Refuses parameters other than `allowed`.
    ///
    /// # Errors
    /// [`AgentError::BadParameter`] naming the unknown key.
    pub fn only(&self, allowed: &[&str]) -> Result<(), AgentError> {
        for (k, _) in &self.params {
            if !allowed.contains(&k.as_str()) {
                return Err(AgentError::BadParameter {
                    spec: self.text.clone(),
                    reason: format!("unknown parameter '{k}', allowed: {}", allowed.join(", ")),
                });
            }
        }
        Ok(())
    }
}

/// The reference agents this crate knows, for error messages.
pub const REFERENCE_AGENTS: &str = "random, greedy, alphabeta:depth=D, alphabeta:ms=T, mcts:sims=N";

/// Builds a reference agent from its spec.
///
/// # Errors
/// [`AgentError`] for an unknown name or a bad parameter.
pub fn parse_agent<G: Game>(game: &G, text: &str, seed: u64) -> Result<Box<dyn Agent<G>>, AgentError> {
    let spec = AgentSpec::parse(text)?;
    match spec.name.as_str() {
        "random" => {
            spec.only(&[])?;
            Ok(Box::new(RandomAgent::new(seed)))
        }
        "greedy" => {
            spec.only(&[])?;
            Ok(Box::new(GreedyAgent::new(game.clone(), seed)))
        }
        "alphabeta" | "ab" => {
            spec.only(&["depth", "ms"])?;
            let limit = match (spec.get("depth"), spec.get("ms")) {
                (Some(_), Some(_)) => {
                    return Err(AgentError::BadParameter {
                        spec: spec.text.clone(),
                        reason: "give depth or ms, not both".into(),
                    });
                }
                (_, Some(_)) => Limit::Time(Duration::from_millis(spec.number("ms", 100u64)?)),
                _ => Limit::Depth(spec.number("depth", 4u32)?.clamp(1, 64)),
            };
            Ok(Box::new(AlphaBetaAgent::new(game.clone(), limit, spec.text.clone())))
        }
        "mcts" => {
            spec.only(&["sims", "cpuct"])?;
            let sims: u32 = spec.number("sims", 1000)?;
            if sims == 0 {
                return Err(AgentError::BadParameter {
                    spec: spec.text.clone(),
                    reason: "sims must be at least 1".into(),
                });
            }
            let config =
                SearchConfig { simulations: sims, c_puct: spec.number("cpuct", 1.5f32)?, ..SearchConfig::default() };
            Ok(Box::new(MctsAgent::new(game.clone(), config, seed, spec.text.clone())))
        }
        _ => Err(AgentError::Unknown { name: spec.name.clone(), allowed: REFERENCE_AGENTS.into() }),
    }
}

/// Uniformly random legal moves.
pub struct RandomAgent {
    rng: SmallRng,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        let legal = line.legal_moves();
        legal.nth(self.rng.random_range(0..legal.len())).expect("an ongoing game has a legal move")
    }
    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
}

/// The move with the largest immediate capture for the mover; ties at random.
pub struct GreedyAgent<G: Game> {
    game: G,
    rng: SmallRng,
}

impl<G: Game> GreedyAgent<G> {
    pub fn new(game: G, seed: u64) -> Self {
        GreedyAgent { game, rng: SmallRng::seed_from_u64(seed) }
    }
}

impl<G: Game> Agent<G> for GreedyAgent<G> {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        let pos = line.position();
        let side = self.game.side_to_move(pos);
        let before = i32::from(self.game.scores(pos)[side]);
        let mut best = Vec::with_capacity(8);
        let mut best_gain = i32::MIN;
        for a in self.game.legal_moves(pos) {
            let mut next = *pos;
            self.game.play_unchecked(&mut next, a);
            let gain = i32::from(self.game.scores(&next)[side]) - before;
            if gain > best_gain {
                best_gain = gain;
                best.clear();
            }
            if gain == best_gain {
                best.push(a);
            }
        }
        best[self.rng.random_range(0..best.len())]
    }
    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
}

/// Alpha-beta to a fixed depth or for a fixed time a move.
pub struct AlphaBetaAgent<G: Game> {
    searcher: AlphaBeta<G>,
    limit: Limit,
    name: String,
}

impl<G: Game> AlphaBetaAgent<G> {
    pub fn new(game: G, limit: Limit, name: String) -> Self {
        AlphaBetaAgent { searcher: AlphaBeta::new(game, 20), limit, name }
    }
}

impl<G: Game> Agent<G> for AlphaBetaAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        let r = self.searcher.search(line.position(), self.limit);
        r.best.expect("an ongoing game has a legal move")
    }
}

/// A search over any evaluator, playing the most visited move (no noise): the one body of
/// rollout MCTS, network-guided MCTS and network-plus-database agents.
pub struct SearchAgent<G: Game, E: Evaluator<G>> {
    search: Search<G>,
    evaluator: E,
    name: String,
}

impl<G: Game, E: Evaluator<G>> SearchAgent<G, E> {
    pub fn new(game: G, config: SearchConfig, evaluator: E, seed: u64, name: String) -> Self {
        SearchAgent { search: Search::new(game, config, seed), evaluator, name }
    }

    /// The search after the last `choose` or `analyse`.
    pub fn search(&self) -> &Search<G> {
        &self.search
    }

    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.evaluator
    }

    /// Searches the current position of `line` without choosing.
    pub fn analyse(&mut self, line: &Line<G>) -> &Search<G> {
        self.search.set_root_line(line);
        self.search.run(&mut self.evaluator);
        &self.search
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for SearchAgent<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        self.analyse(line);
        self.search.select_action(0.0).expect("an ongoing game has a legal move")
    }
    fn new_game(&mut self, seed: u64) {
        self.search.reseed(seed);
    }
}

/// MCTS with random rollouts; each game also reseeds the rollouts.
pub struct MctsAgent<G: Game>(SearchAgent<G, RolloutEvaluator>);

impl<G: Game> MctsAgent<G> {
    pub fn new(game: G, config: SearchConfig, seed: u64, name: String) -> Self {
        MctsAgent(SearchAgent::new(game, config, RolloutEvaluator::new(seed ^ 0x5eed), seed, name))
    }
}

impl<G: Game> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        self.0.choose(line)
    }
    fn new_game(&mut self, seed: u64) {
        self.0.new_game(seed);
        *self.0.evaluator_mut() = RolloutEvaluator::new(seed ^ 0x5eed);
    }
}
