//! Search over any [`mancala_rules::Game`]: MCTS with PUCT or Gumbel roots behind one
//! [`Evaluator`] seam, batched leaf evaluation (gather / evaluate / apply), and reference
//! agents (random, greedy, alpha-beta, rollout MCTS). It never depends on a network library.
//!
//! ```
//! use mancala_mcts::{RolloutEvaluator, Search, SearchConfig};
//! use mancala_rules::{parse_rules, Game};
//!
//! let game = parse_rules("kalah").unwrap();
//! let config = SearchConfig { simulations: 100, ..SearchConfig::default() };
//! let mut search = Search::new(game.clone(), config, 7);
//! search.run(&mut RolloutEvaluator::new(7));
//! let action = search.select_action(0.0).unwrap();
//! assert!(game.legal_moves(&game.start()).contains(action));
//! ```

pub mod agents;
pub mod alphabeta;
pub mod config;
pub mod evaluator;
pub mod search;
pub mod service;
pub mod tree;

pub use agents::{Agent, SearchAgent};
pub use config::{
    FinalPick, MAX_MARGIN_UTILITY, MAX_SIMULATIONS, RootKind, SearchConfig, outcome_utility, utility,
    valid_margin_utility,
};
pub use evaluator::{CachedEvaluator, Evaluator, RolloutEvaluator, UniformEvaluator, random_playout, uniform_policy};
pub use search::{ChildStats, Search};
pub use service::{
    Blocking, InferenceService, ServiceClient, ServiceConfig, ServiceError, ServiceStats, SubmitEvaluator,
};
pub use tree::{Children, NodeId, NodeState, Tree};
