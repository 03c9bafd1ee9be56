//! The run's endgame database (`[endgame] seeds`), built once per process from the rules and
//! shared by every role in it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mancala_rules::{AnyGame, Game};
use mancala_tablebase::{Tablebase, TablebaseEvaluator};

use crate::config::RunConfig;
use crate::error::TrainError;

/// The databases this process has built, by rules and seed limit.
type Databases = HashMap<(String, usize), Arc<Tablebase>>;

/// A run's endgame database, with the seconds its build took here (0 when another role of
/// this process had already built it).
pub struct Built {
    pub tablebase: Arc<Tablebase>,
    pub seconds: f64,
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
    let key = (game.rules_string(), seeds);
    if let Some(tb) = built.get_or_insert_with(HashMap::new).get(&key) {
        return Ok(Some(Built { tablebase: tb.clone(), seconds: 0.0 }));
    }
    let started = Instant::now();
    let (tb, _) = Tablebase::build(game, seeds, &|_| {})
        .map_err(|e| TrainError::Config(format!("endgame.seeds = {seeds}: {e}")))?;
    let tb = Arc::new(tb);
    built.get_or_insert_with(HashMap::new).insert(key, tb.clone());
    Ok(Some(Built { tablebase: tb, seconds: started.elapsed().as_secs_f64() }))
}

/// A self-play evaluator: `inner` (the network, giving the utility of `margin_utility`),
/// behind the run's endgame database when it has one, so the search sees exact values at
/// leaves inside it, weighed the same way.
pub fn leaves<G: Game, E>(
    game: &G,
    endgame: Option<&Arc<Tablebase>>,
    margin_utility: f32,
    inner: E,
) -> TablebaseEvaluator<G, E> {
    TablebaseEvaluator::optional(game, endgame.cloned(), inner)
        .expect("the database was built for the run's game")
        .with_margin_utility(margin_utility)
}
