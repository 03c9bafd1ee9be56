//! The reference agents (random, greedy, alpha-beta, rollout MCTS) and the search agent over
//! any evaluator. Other crates add their own agents (a network, a tablebase) behind the same
//! [`Agent`] trait; spec strings that name them all are parsed in one place, mancala-agents.

use mancala_rules::{Action, Game, Line};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

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
    /// Whether a search keeps the subtree of the moves played since the last one.
    reuse: bool,
    /// The line (start and moves) the tree's root stands at after the last search.
    searched: Option<(G::Position, Vec<Action>)>,
}

impl<G: Game, E: Evaluator<G>> SearchAgent<G, E> {
    /// A search agent that searches every position afresh.
    pub fn new(game: G, config: SearchConfig, evaluator: E, seed: u64, name: String) -> Self {
        SearchAgent { search: Search::new(game, config, seed), evaluator, name, reuse: false, searched: None }
    }

    /// With `reuse`, a search of a line that continues the last one searched moves the root
    /// down the moves played since, keeping their subtree (tree reuse, as self-play does), and
    /// adds its simulations to the visits kept there.
    pub fn with_reuse(mut self, reuse: bool) -> Self {
        self.reuse = reuse;
        self
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
        // Only a reusing agent needs the line's moves (to find the ones played since).
        let moves: Option<Vec<Action>> = self.reuse.then(|| line.moves().collect());
        if !moves.as_deref().is_some_and(|moves| self.advanced_to(line, moves)) {
            self.search.set_root_line(line);
        }
        self.search.run(&mut self.evaluator);
        self.searched = moves.map(|moves| (*line.start(), moves));
        &self.search
    }

    /// Moves the root down the moves `line` played after the last line searched, when it
    /// continues that line; false (the tree untouched or to be reset) otherwise.
    fn advanced_to(&mut self, line: &Line<G>, moves: &[Action]) -> bool {
        let Some((start, before)) = self.searched.take() else {
            return false;
        };
        if start != *line.start() || moves.len() <= before.len() || !moves.starts_with(&before) {
            return false;
        }
        for &action in &moves[before.len()..] {
            self.search.advance(action);
        }
        // The tree replays the rules as the line did; a root elsewhere would be a bug, and a
        // fresh search is always right.
        self.search.root_position() == line.position()
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
        self.searched = None;
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
