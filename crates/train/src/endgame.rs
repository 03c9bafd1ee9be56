//! The run's endgame database (`[endgame] seeds`), and its scored database when the run plays
//! to the game's own end (`[endgame] ends = "own"`), built once per process from the rules and
//! shared by every role in it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mancala_rules::{AnyGame, Game};
use mancala_tablebase::{DEFAULT_MEMORY_LIMIT, ScoredTablebase, Tablebase, TablebaseEvaluator};

use crate::config::{Ends, RunConfig};
use crate::error::TrainError;

/// A run's exact values: the database, and the scored one when the run plays to the game's
/// own end.
pub use mancala_tablebase::Exact;

/// The databases this process has built, by rules, seed limit and end.
type Databases = HashMap<(String, usize, Ends), Exact>;

/// A run's endgame database, with the seconds its build took here (0 when another role of
/// this process had already built it).
pub struct Built {
    pub tablebase: Arc<Tablebase>,
    /// The values of the game's own end (`endgame.ends = "own"`).
    pub scored: Option<Arc<ScoredTablebase>>,
    pub seconds: f64,
}

impl Built {
    pub fn exact(&self) -> Exact {
        Exact { tablebase: self.tablebase.clone(), scored: self.scored.clone() }
    }
}

/// The database the run's config asks for; `None` when `endgame.seeds` is 0.
///
/// Built rather than read from the store, so that a remote worker needs nothing but the
/// config: a 12-seed database takes seconds, less than fetching its 5 MB would on a slow
/// link, and it cannot be corrupt in transit.
///
/// # Errors
/// [`TrainError::Config`] when the rules or the limit are refused (validation catches these
/// first).
pub fn database(config: &RunConfig, game: &AnyGame) -> Result<Option<Built>, TrainError> {
    static BUILT: Mutex<Option<Databases>> = Mutex::new(None);
    let seeds = config.endgame.seeds;
    if seeds == 0 {
        return Ok(None);
    }
    // Held through the build, so that the roles of one process build it once between them.
    let mut built = BUILT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let ends = config.endgame.ends;
    let key = (game.rules_string(), seeds, ends);
    if let Some(exact) = built.get_or_insert_with(HashMap::new).get(&key) {
        return Ok(Some(Built { tablebase: exact.tablebase.clone(), scored: exact.scored.clone(), seconds: 0.0 }));
    }
    let started = Instant::now();
    // The played-out database of another end of the same rules serves this one too.
    let tablebase = match built.get_or_insert_with(HashMap::new).iter().find(|(k, _)| k.0 == key.0 && k.1 == seeds) {
        Some((_, exact)) => exact.tablebase.clone(),
        None => Arc::new(
            Tablebase::build(game, seeds, &|_| {})
                .map_err(|e| TrainError::Config(format!("endgame.seeds = {seeds}: {e}")))?
                .0,
        ),
    };
    let scored = match ends {
        Ends::PlayedOut => None,
        Ends::Own => Some(Arc::new(
            ScoredTablebase::build_within(game, seeds, DEFAULT_MEMORY_LIMIT, &|_| {})
                .map_err(|e| TrainError::Config(format!("endgame.ends = \"own\" at endgame.seeds = {seeds}: {e}")))?
                .0,
        )),
    };
    built.get_or_insert_with(HashMap::new).insert(key, Exact { tablebase: tablebase.clone(), scored: scored.clone() });
    Ok(Some(Built { tablebase, scored, seconds: started.elapsed().as_secs_f64() }))
}

/// A self-play evaluator: `inner` (the network, giving the utility of `margin_utility`),
/// behind the run's exact values when it has them, so the search sees them at leaves inside
/// the database, weighed the same way.
pub fn leaves<G: Game, E>(
    game: &G,
    endgame: Option<&Exact>,
    margin_utility: f32,
    inner: E,
) -> TablebaseEvaluator<G, E> {
    let evaluator = TablebaseEvaluator::optional(game, endgame.map(|e| e.tablebase.clone()), inner)
        .expect("the database was built for the run's game");
    let evaluator = match endgame.and_then(|e| e.scored.clone()) {
        Some(scored) => evaluator.with_scored(game, scored).expect("the scored database was built for the run's game"),
        None => evaluator,
    };
    evaluator.with_margin_utility(margin_utility)
}
