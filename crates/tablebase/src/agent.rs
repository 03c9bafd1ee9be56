//! The arena agent `perfect`: optimal moves inside the database, alpha-beta outside it.

use std::sync::Arc;
use std::time::Duration;

use mancala_mcts::agents::AlphaBetaAgent;
use mancala_mcts::alphabeta::Limit;
use mancala_mcts::{Agent, AgentError, AgentSpec};
use mancala_rules::{Action, Game, Line};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::Tablebase;

/// Plays a best move of the database (ties broken at random, seeded by `new_game`) whenever
/// the position is inside it; elsewhere asks its fallback agent (alpha-beta by default),
/// because a database of N seeds says nothing about positions with more.
pub struct PerfectAgent<G: Game> {
    game: G,
    tablebase: Arc<Tablebase>,
    fallback: Box<dyn Agent<G>>,
    rng: SmallRng,
    name: String,
    /// Moves answered by the database, and all moves.
    pub probed: u64,
    pub moves: u64,
}

impl<G: Game> PerfectAgent<G> {
    /// The agent for `game` over `tablebase`, with `fallback` outside it.
    ///
    /// # Errors
    /// [`crate::TablebaseError::WrongGame`] when the database is for other rules.
    pub fn new(
        game: G,
        tablebase: Arc<Tablebase>,
        fallback: Box<dyn Agent<G>>,
        seed: u64,
    ) -> Result<Self, crate::TablebaseError> {
        tablebase.check_game(&game)?;
        Ok(PerfectAgent {
            game,
            tablebase,
            fallback,
            rng: SmallRng::seed_from_u64(seed),
            name: "perfect".into(),
            probed: 0,
            moves: 0,
        })
    }

    /// Builds the agent from a spec `perfect:db=FILE[,depth=D|ms=T]`: the database file, and
    /// the alpha-beta fallback's depth (default 8) or time a move.
    ///
    /// # Errors
    /// [`AgentError::BadParameter`] for a missing `db`, a file that cannot be used, or a bad
    /// fallback parameter.
    pub fn from_spec(game: &G, spec: &AgentSpec, seed: u64) -> Result<Self, AgentError> {
        spec.only(&["db", "depth", "ms"])?;
        let bad = |reason: String| AgentError::BadParameter { spec: spec.text.clone(), reason };
        let path = spec.get("db").ok_or_else(|| bad("db=FILE is required".into()))?;
        let tablebase = Tablebase::read(std::path::Path::new(path)).map_err(|e| bad(error_chain(&e)))?;
        let limit = match (spec.get("depth"), spec.get("ms")) {
            (Some(_), Some(_)) => return Err(bad("give depth or ms, not both".into())),
            (_, Some(_)) => Limit::Time(Duration::from_millis(spec.number("ms", 100u64)?)),
            _ => Limit::Depth(spec.number("depth", 8u32)?.clamp(1, 64)),
        };
        let fallback = Box::new(AlphaBetaAgent::new(game.clone(), limit, "alphabeta".into()));
        let mut agent =
            PerfectAgent::new(game.clone(), Arc::new(tablebase), fallback, seed).map_err(|e| bad(e.to_string()))?;
        agent.name = spec.text.clone();
        Ok(agent)
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl<G: Game> Agent<G> for PerfectAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, line: &Line<G>) -> Action {
        self.moves += 1;
        if let Some(probe) = self.tablebase.probe(&self.game, line.position())
            && !probe.best.is_empty()
        {
            self.probed += 1;
            let k = self.rng.random_range(0..probe.best.len());
            return probe.best.nth(k).expect("k is below the number of best moves");
        }
        self.fallback.choose(line)
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.fallback.new_game(seed);
    }
}
