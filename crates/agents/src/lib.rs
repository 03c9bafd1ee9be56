//! Every agent a spec string can name, in one place, for every program that plays games
//! between agents: the arena and the engine of the binary, and the training run's evaluator.
//!
//! | spec | agent |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | the largest immediate capture |
//! | `alphabeta:depth=D` or `alphabeta:ms=M` (`ab`) | alpha-beta, default depth 4 |
//! | `mcts:sims=N[,ms=T][,threads=N][,cpuct=C][,solver=B]` | MCTS with random rollouts, default 1000 simulations; `ms` and `threads` as for `net`; `solver=true` backs up proven values from finished games in the tree |
//! | `net:FILE[,sims=N][,ms=T][,threads=N][,tb=DB][,margin=W][,cpuct=C][,gather=G][,pick=P][,reuse=B][,minimax=W][,solver=B][,precision=P]` | a trained model with MCTS, default 200 simulations; `ms=T` searches T milliseconds a move instead (with `sims` too, whichever ends first; never above the cap `MAX_SIMULATIONS`, one million); `threads=N` evaluates each batch of leaves on N threads; `tb` answers positions inside an endgame database exactly; `margin` weighs the seed margin in the search's value (0 to 0.5); `cpuct` is the exploration constant (1.0 by default; `mcts` 1.5), `gather` the leaves a network call takes; `pick` is `value` (default) or `value:S`, the move of the best mean value among those with at least S (one half) of the top visits, or `visits`, the most visited; `reuse=false` searches every move afresh instead of keeping the tree of the moves played since its last search; `minimax` (0.25 by default, 0 to 1) weighs the minimax of the search's evaluations beside their mean; `solver` backs up proven values from finished games in the tree; `precision` is the network's arithmetic on the CPU, `fp32` (default), `int8` (quantized at load, close to FP32 and faster where the CPU has AVX-512 VNNI or AVX2) or `auto` (int8 where the CPU has those) |
//! | `perfect:db=FILE[,depth=D\|ms=M]` | the database's best moves inside it, alpha-beta (depth 8) outside it |
//!
//! Every search that plays, whether a spec names it or a front-end (the engine, `play`, the
//! web page, `tablebase accuracy`) asks for it, is built by [`build_player`] from a [`Guide`]
//! (a model or rollouts) and [`PlayerSettings`], so the same model plays the same way in each.
//!
//! A spec is parsed once into an [`AgentSpec`] (syntax and numbers, no files), checked
//! against a game ([`AgentSpec::check`]: the files exist and are for that game), and built
//! as often as needed ([`AgentSpec::build`]). Model and database files are read once a
//! process and shared. The reference agents themselves live in `mancala-mcts`, the network
//! agent in `mancala-nn`, the database agent in `mancala-tablebase`; this crate only names
//! and assembles them.
//!
//! ```no_run
//! use mancala_agents::AgentSpec;
//! let game = mancala_rules::parse_rules("kalah").unwrap();
//! let spec = AgentSpec::parse("net:kalah.mzm,sims=100").unwrap();
//! let agent = spec.build(&game, 7).unwrap();
//! ```

mod error;
mod files;
mod player;
mod shipped;
mod spec;

use mancala_mcts::Agent;
use mancala_mcts::agents::{AlphaBetaAgent, GreedyAgent, RandomAgent};
use mancala_rules::Game;
use mancala_tablebase::PerfectAgent;

pub use error::{FileError, PlayerError, SpecError};
pub use files::{cached_model, cached_tablebase, model_evaluator};
pub use mancala_mcts::MAX_SIMULATIONS;
pub use player::{Guide, MAX_THREADS, Player, PlayerSettings, build_player};
pub use shipped::{shipped_model, shipped_presets};
pub use spec::{
    ALPHABETA_DEPTH, AgentKind, AgentSpec, MAX_NET_GATHER, MCTS_C_PUCT, MCTS_SIMULATIONS, NET_C_PUCT, NET_GATHER,
    NET_MINIMAX, NET_PICK, NET_REUSE, NET_SIMULATIONS, NET_SOLVER, PERFECT_DEPTH,
};

/// Every spec form, for error messages and help texts.
pub const ALL_AGENTS: &str = "random, greedy, alphabeta:depth=D, alphabeta:ms=M, mcts:sims=N[,ms=T][,threads=N][,cpuct=C][,solver=B], \
     net:FILE[,sims=N][,ms=T][,threads=N][,tb=DB][,margin=W][,cpuct=C][,gather=G][,pick=P][,reuse=B][,minimax=W][,solver=B][,precision=P], perfect:db=FILE[,depth=D|ms=M]";

impl AgentSpec {
    /// Checks that the files the spec names exist and are for `game`, reading them into the
    /// shared cache (so a later [`AgentSpec::build`] does not read them again).
    ///
    /// # Errors
    /// [`SpecError::File`] naming the spec, the file and the problem.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), SpecError> {
        let file = |source: FileError| SpecError::File { spec: self.text.clone(), source: Box::new(source) };
        match &self.kind {
            AgentKind::Net { model, tablebase, .. } => {
                cached_model(game, model).map_err(file)?;
                if let Some(db) = tablebase {
                    cached_tablebase(game, db).map_err(file)?;
                }
            }
            AgentKind::Perfect { db, .. } => {
                cached_tablebase(game, db).map_err(file)?;
            }
            AgentKind::Random | AgentKind::Greedy | AgentKind::AlphaBeta { .. } | AgentKind::Mcts { .. } => {}
        }
        Ok(())
    }

    /// Builds the agent for `game`; `seed` fixes its random choices until the next
    /// `new_game`.
    ///
    /// # Errors
    /// [`SpecError::File`] when a file the spec names cannot be used for `game`.
    pub fn build<G: Game>(&self, game: &G, seed: u64) -> Result<Box<dyn Agent<G>>, SpecError> {
        let file = |source: FileError| SpecError::File { spec: self.text.clone(), source: Box::new(source) };
        let player = |source: PlayerError| SpecError::Player { spec: self.text.clone(), source: Box::new(source) };
        let name = self.text.clone();
        Ok(match &self.kind {
            AgentKind::Random => Box::new(RandomAgent::new(seed)),
            AgentKind::Greedy => Box::new(GreedyAgent::new(game.clone(), seed)),
            AgentKind::AlphaBeta { limit } => Box::new(AlphaBetaAgent::new(game.clone(), *limit, name)),
            AgentKind::Mcts { search } => {
                let player = build_player(game, &Guide::Rollouts, None, search, seed, name).map_err(player)?;
                Box::new(player)
            }
            AgentKind::Net { model, tablebase, search } => {
                let guide = Guide::model_file(game, model).map_err(file)?;
                let tb = tablebase.as_ref().map(|db| cached_tablebase(game, db)).transpose().map_err(file)?;
                Box::new(build_player(game, &guide, tb.as_ref(), search, seed, name).map_err(player)?)
            }
            AgentKind::Perfect { db, fallback } => {
                let tb = cached_tablebase(game, db).map_err(file)?;
                let outside = Box::new(AlphaBetaAgent::new(game.clone(), *fallback, "alphabeta".into()));
                Box::new(
                    PerfectAgent::new(game.clone(), tb, outside, seed)
                        .map_err(|source| file(FileError::Database { path: db.clone(), source: Box::new(source) }))?,
                )
            }
        })
    }
}

/// Parses `spec` and builds its agent for `game`: the one factory the arena, the engine and
/// the evaluator share.
///
/// # Errors
/// Any [`SpecError`].
pub fn build<G: Game>(game: &G, spec: &str, seed: u64) -> Result<Box<dyn Agent<G>>, SpecError> {
    AgentSpec::parse(spec)?.build(game, seed)
}
