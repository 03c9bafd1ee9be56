//! Varied openings: a few random legal plies from the start, a different position for every
//! pair of games, so that no two pairs of a match replay the same game.

use std::collections::HashMap;

use mancala_rules::{Action, Game, Line};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::error::ArenaError;

/// Random draws at one opening length before the length grows by a ply.
const DRAWS_PER_LENGTH: u32 = 64;

/// How many plies past the asked length an opening may grow before giving up.
const MAX_EXTRA_PLIES: usize = 16;

/// The moves both games of a pair start with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub actions: Vec<Action>,
    /// The same moves as pit labels.
    pub labels: Vec<String>,
}

impl Opening {
    /// The game after the opening.
    ///
    /// # Panics
    /// If an action is illegal: openings come from [`openings`] for the same game.
    pub fn line<G: Game>(&self, game: &G) -> Line<G> {
        let mut line = Line::new(game.clone());
        for &a in &self.actions {
            line.play(a).expect("an opening is legal in its game");
        }
        line
    }
}

/// `count` openings of `plies` random legal plies (seeded), each ending in a different
/// position where the game goes on.
///
/// A draw that reaches a position already used is thrown away and drawn again; when
/// [`DRAWS_PER_LENGTH`] draws in a row find nothing new (few positions at that depth, or
/// `plies` = 0 for more than one pair), the openings grow one ply longer. So every opening is
/// at least `plies` long and the count asked for is always met in practice.
///
/// # Errors
/// [`ArenaError::Openings`] when even `plies + 16` random plies give no new position.
pub fn openings<G: Game>(game: &G, plies: usize, count: usize, seed: u64) -> Result<Vec<Opening>, ArenaError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    // Positions reached, by hash; the positions themselves settle hash collisions.
    let mut seen: HashMap<u64, Vec<G::Position>> = HashMap::new();
    let mut out = Vec::with_capacity(count);
    let mut length = plies;
    let mut misses = 0;
    while out.len() < count {
        if misses == DRAWS_PER_LENGTH {
            misses = 0;
            length += 1;
            if length > plies + MAX_EXTRA_PLIES {
                return Err(ArenaError::Openings { wanted: count, found: out.len(), plies });
            }
        }
        let Some(line) = Line::random(game.clone(), length, |n| rng.random_range(0..n)) else {
            misses += 1;
            continue;
        };
        let pos = *line.position();
        let same_hash = seen.entry(game.hash(&pos)).or_default();
        if same_hash.contains(&pos) {
            misses += 1;
            continue;
        }
        same_hash.push(pos);
        misses = 0;
        out.push(Opening { actions: line.moves().collect(), labels: line.move_labels() });
    }
    Ok(out)
}
