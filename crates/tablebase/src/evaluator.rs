//! Exact values at search leaves: an [`Evaluator`] that answers positions inside the
//! database itself and hands the rest to another evaluator.

use std::sync::Arc;

use mancala_mcts::{Evaluator, utility};
use mancala_rules::Game;

use crate::{Probe, ScoredTablebase, Tablebase};

/// The exact values a search or a training feed reads: the database's, played out, or when
/// `scored` is set those of the game's own end at the same positions (a game that stops at
/// a majority; see [`ScoredTablebase`]).
#[derive(Clone, Debug)]
pub struct Exact {
    pub tablebase: Arc<Tablebase>,
    pub scored: Option<Arc<ScoredTablebase>>,
}

impl Exact {
    /// What the exact values say about `pos`: the scored database's answer when there is
    /// one, else the database's. `None` outside the database. `game` must be its game.
    pub fn probe<G: Game>(&self, game: &G, pos: &G::Position) -> Option<Probe> {
        match &self.scored {
            Some(scored) => scored.probe(game, pos),
            None => self.tablebase.probe(game, pos),
        }
    }
}

/// Answers a position inside the database with the game's result under perfect play (+1
/// win, 0 draw, -1 loss for the mover, from the score difference plus the database value)
/// and a policy uniform over the best moves; delegates every other position to `inner`,
/// in one batch. Buffers are reused: no allocation once they have grown.
pub struct TablebaseEvaluator<G: Game, E> {
    /// `None`: every position goes to `inner` (a self-play run without a database).
    exact: Option<Exact>,
    inner: E,
    misses: Vec<usize>,
    batch: Vec<G::Position>,
    miss_policies: Vec<f32>,
    miss_values: Vec<f32>,
    /// Weight of the exact margin in the value (see [`mancala_mcts::utility`]).
    margin_utility: f32,
    /// Positions answered by the database, and all positions asked.
    pub hits: u64,
    pub lookups: u64,
}

impl<G: Game, E> TablebaseEvaluator<G, E> {
    /// Puts `tablebase` in front of `inner` for `game`.
    ///
    /// # Errors
    /// [`crate::TablebaseError::WrongGame`] when the database is for other rules.
    pub fn new(game: &G, tablebase: Arc<Tablebase>, inner: E) -> Result<Self, crate::TablebaseError> {
        Self::optional(game, Some(tablebase), inner)
    }

    /// Like [`TablebaseEvaluator::new`], or `inner` alone when there is no database, so a
    /// caller whose database is optional has one evaluator type either way.
    ///
    /// # Errors
    /// [`crate::TablebaseError::WrongGame`] when the database is for other rules.
    pub fn optional(game: &G, tablebase: Option<Arc<Tablebase>>, inner: E) -> Result<Self, crate::TablebaseError> {
        if let Some(tb) = &tablebase {
            tb.check_game(game)?;
        }
        Ok(TablebaseEvaluator {
            exact: tablebase.map(|tablebase| Exact { tablebase, scored: None }),
            inner,
            misses: Vec::new(),
            batch: Vec::new(),
            miss_policies: Vec::new(),
            miss_values: Vec::new(),
            margin_utility: 0.0,
            hits: 0,
            lookups: 0,
        })
    }

    /// The same evaluator giving [`mancala_mcts::utility`] with this margin weight as the
    /// value of a position inside the database (the exact final margin), for a search whose
    /// `margin_utility` is the same; `inner` must use it too.
    pub fn with_margin_utility(mut self, weight: f32) -> Self {
        self.margin_utility = weight;
        self
    }

    /// The same evaluator answering by the game's own end: `scored`'s values instead of the
    /// database's, at the same positions (no effect without a database).
    ///
    /// # Errors
    /// [`crate::TablebaseError::WrongGame`] when `scored` is for other rules, or reaches
    /// fewer seeds than the database.
    pub fn with_scored(mut self, game: &G, scored: Arc<ScoredTablebase>) -> Result<Self, crate::TablebaseError> {
        if scored.rules() != game.rules_string() {
            return Err(crate::TablebaseError::WrongGame {
                database: scored.rules().to_string(),
                game: game.rules_string(),
            });
        }
        if let Some(exact) = &mut self.exact {
            if scored.max_seeds() < exact.tablebase.max_seeds() {
                return Err(crate::TablebaseError::WrongGame {
                    database: format!("{} to {} seeds", scored.rules(), scored.max_seeds()),
                    game: format!("{} to {} seeds", game.rules_string(), exact.tablebase.max_seeds()),
                });
            }
            exact.scored = Some(scored);
        }
        Ok(self)
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut E {
        &mut self.inner
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for TablebaseEvaluator<G, E> {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        let Some(exact) = &self.exact else {
            return self.inner.evaluate(game, positions, policies, values);
        };
        let a = game.action_space();
        self.misses.clear();
        self.batch.clear();
        for (i, pos) in positions.iter().enumerate() {
            self.lookups += 1;
            match exact.probe(game, pos) {
                Some(probe) if !probe.best.is_empty() => {
                    self.hits += 1;
                    probe.best_policy(&mut policies[i * a..(i + 1) * a]);
                    values[i] = utility(probe.result(), game.margin_share(probe.final_margin), self.margin_utility);
                }
                _ => {
                    self.misses.push(i);
                    self.batch.push(*pos);
                }
            }
        }
        if self.batch.is_empty() {
            return;
        }
        self.miss_policies.resize(self.batch.len() * a, 0.0);
        self.miss_values.resize(self.batch.len(), 0.0);
        self.inner.evaluate(game, &self.batch, &mut self.miss_policies, &mut self.miss_values);
        for (j, &i) in self.misses.iter().enumerate() {
            policies[i * a..(i + 1) * a].copy_from_slice(&self.miss_policies[j * a..(j + 1) * a]);
            values[i] = self.miss_values[j];
        }
    }
}
