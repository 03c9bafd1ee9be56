//! The reference agents (random, greedy, alpha-beta, rollout MCTS) and the search agent over
//! any evaluator. Other crates add their own agents (a network, a tablebase) behind the same
//! [`Agent`] trait; spec strings that name them all are parsed in one place, mancala-agents.

use std::time::{Duration, Instant};

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

/// A search over any evaluator, playing the search's final pick at temperature 0 (no
/// noise): the one body of rollout MCTS, network-guided MCTS and network-plus-database agents.
/// It searches to its simulation budget, or for a time a move when it has one
/// ([`SearchAgent::with_time`]), on one thread for each of its evaluators
/// ([`SearchAgent::with_evaluators`], [`Search::run_threads`]).
pub struct SearchAgent<G: Game, E: Evaluator<G>> {
    search: Search<G>,
    /// One for each thread that evaluates leaves; never empty.
    evaluators: Vec<E>,
    name: String,
    /// Whether a search keeps the subtree of the moves played since the last one.
    reuse: bool,
    /// Thinking time a move, besides the simulation budget (whichever ends first).
    time: Option<Duration>,
    /// The line (start and moves) the tree's root stands at after the last search.
    searched: Option<(G::Position, Vec<Action>)>,
}

impl<G: Game, E: Evaluator<G>> SearchAgent<G, E> {
    /// A search agent on one thread that searches every position afresh.
    pub fn new(game: G, config: SearchConfig, evaluator: E, seed: u64, name: String) -> Self {
        Self::with_evaluators(game, config, vec![evaluator], seed, name)
    }

    /// A search agent that evaluates each batch of leaves on one thread for each of
    /// `evaluators` (an empty list is taken as none given: the agent cannot search then, and
    /// [`Agent::choose`] panics, so callers pass at least one).
    pub fn with_evaluators(game: G, config: SearchConfig, evaluators: Vec<E>, seed: u64, name: String) -> Self {
        SearchAgent {
            search: Search::new(game, config, seed),
            evaluators,
            name,
            reuse: false,
            time: None,
            searched: None,
        }
    }

    /// With `reuse`, a search of a line that continues the last one searched moves the root
    /// down the moves played since, keeping their subtree (tree reuse, as self-play does), and
    /// adds its simulations to the visits kept there.
    pub fn with_reuse(mut self, reuse: bool) -> Self {
        self.reuse = reuse;
        self
    }

    /// With a time, every search also stops when that much time has passed since it began
    /// (after at least one simulation).
    pub fn with_time(mut self, time: Option<Duration>) -> Self {
        self.time = time;
        self
    }

    /// The time a move, if any.
    pub fn time(&self) -> Option<Duration> {
        self.time
    }

    pub fn set_time(&mut self, time: Option<Duration>) {
        self.time = time;
    }

    /// The search after the last `choose` or `analyse`.
    pub fn search(&self) -> &Search<G> {
        &self.search
    }

    /// The search, to change its settings (simulations, seed) between moves.
    pub fn search_mut(&mut self) -> &mut Search<G> {
        &mut self.search
    }

    /// How many threads evaluate leaves (one an evaluator).
    pub fn threads(&self) -> usize {
        self.evaluators.len()
    }

    /// The evaluators, one a thread.
    pub fn evaluators_mut(&mut self) -> &mut [E] {
        &mut self.evaluators
    }

    /// Forgets the tree kept for reuse: the next search starts afresh.
    pub fn forget(&mut self) {
        self.searched = None;
    }

    /// Searches the current position of `line` without choosing, within the agent's
    /// simulations and time a move.
    pub fn analyse(&mut self, line: &Line<G>) -> &Search<G> {
        let deadline = self.time.map(|t| Instant::now() + t);
        self.analyse_until(line, deadline)
    }

    /// Searches the current position of `line` until the simulation budget is spent or
    /// `deadline` passes (a clock's share of the time left), whichever comes first.
    pub fn analyse_until(&mut self, line: &Line<G>, deadline: Option<Instant>) -> &Search<G> {
        // Only a reusing agent needs the line's moves (to find the ones played since).
        let moves: Option<Vec<Action>> = self.reuse.then(|| line.moves().collect());
        if !moves.as_deref().is_some_and(|moves| self.advanced_to(line, moves)) {
            self.search.set_root_line(line);
        }
        self.search.run_threads(&mut self.evaluators, deadline);
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
        self.0.evaluators_mut()[0] = RolloutEvaluator::new(seed ^ 0x5eed);
    }
}
