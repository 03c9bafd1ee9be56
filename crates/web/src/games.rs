//! The games in progress, one per browser tab, by id. Memory stays bounded: a game idle for
//! longer than the limit is dropped, and when the table is full the game idle the longest
//! makes room for a new one. A game holds only its line of positions; search trees live for
//! one request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mancala_rules::{AnyGame, Line, Player};

use crate::engine::{Opponent, Strength};
use crate::error::WebError;

/// One game and how the engine takes part in it.
#[derive(Clone, Debug)]
pub struct Session {
    pub line: Line<AnyGame>,
    /// The side the engine plays, or `None` when a person moves for both (analysis board).
    pub engine_side: Option<Player>,
    pub strength: Strength,
    pub opponent: Opponent,
    /// Seeds every search of this game, so a game can be replayed move for move.
    pub seed: u64,
    /// Counts changes, so that an engine move computed while a person undid or moved is not
    /// applied to a position it was not searched for.
    pub version: u64,
}

struct Entry {
    session: Arc<Mutex<Session>>,
    last_used: Instant,
}

/// The table of games.
pub struct GameStore {
    games: Mutex<HashMap<String, Entry>>,
    max_games: usize,
    idle: Duration,
}

impl GameStore {
    pub fn new(max_games: usize, idle: Duration) -> GameStore {
        GameStore { games: Mutex::new(HashMap::new()), max_games: max_games.max(1), idle }
    }

    pub fn idle_limit(&self) -> Duration {
        self.idle
    }

    /// Adds a game and returns its id.
    pub fn insert(&self, session: Session) -> String {
        let id = format!("{:032x}", rand::random::<u128>());
        let mut games = self.games.lock().expect("game table lock");
        let now = Instant::now();
        games.retain(|_, e| !self.expired(e, now));
        while games.len() >= self.max_games {
            let oldest = games.iter().min_by_key(|(_, e)| e.last_used).map(|(k, _)| k.clone());
            match oldest {
                Some(k) => games.remove(&k),
                None => break,
            };
        }
        games.insert(id.clone(), Entry { session: Arc::new(Mutex::new(session)), last_used: now });
        id
    }

    /// The game `id`, marked as used now.
    ///
    /// # Errors
    /// [`WebError::NoGame`] when there is no such game or it expired.
    pub fn get(&self, id: &str) -> Result<Arc<Mutex<Session>>, WebError> {
        let mut games = self.games.lock().expect("game table lock");
        let now = Instant::now();
        let missing = || WebError::NoGame { id: id.to_string(), idle_minutes: self.idle.as_secs() / 60 };
        let entry = games.get_mut(id).ok_or_else(missing)?;
        if self.expired(entry, now) {
            games.remove(id);
            return Err(missing());
        }
        entry.last_used = now;
        Ok(entry.session.clone())
    }

    /// Ends a game; true if it existed.
    pub fn remove(&self, id: &str) -> bool {
        self.games.lock().expect("game table lock").remove(id).is_some()
    }

    /// Drops every expired game; returns how many are left.
    pub fn sweep(&self) -> usize {
        let mut games = self.games.lock().expect("game table lock");
        let now = Instant::now();
        games.retain(|_, e| !self.expired(e, now));
        games.len()
    }

    pub fn len(&self) -> usize {
        self.games.lock().expect("game table lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        // `>=`, so that an idle limit of zero expires every game at once (tests use it).
        now.duration_since(entry.last_used) >= self.idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::parse_rules;

    fn session() -> Session {
        Session {
            line: Line::new(parse_rules("kalah").unwrap()),
            engine_side: Some(Player::North),
            strength: Strength::default(),
            opponent: Opponent::Default,
            seed: 1,
            version: 0,
        }
    }

    #[test]
    fn a_full_table_drops_the_game_idle_longest() {
        let store = GameStore::new(2, Duration::from_secs(3600));
        let a = store.insert(session());
        let b = store.insert(session());
        store.get(&a).unwrap();
        let c = store.insert(session());
        assert_eq!(store.len(), 2);
        assert!(store.get(&b).is_err());
        assert!(store.get(&a).is_ok() && store.get(&c).is_ok());
    }

    #[test]
    fn idle_games_expire() {
        let store = GameStore::new(10, Duration::ZERO);
        let a = store.insert(session());
        let message = store.get(&a).unwrap_err().to_string();
        assert!(message.contains(&a) && message.contains("expired"), "{message}");
        store.insert(session());
        assert_eq!(store.sweep(), 0);
    }
}
