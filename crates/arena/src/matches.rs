//! A match between two agents: pairs of games from the same opening with colours swapped,
//! played in parallel, scored, optionally stopped early by an SPRT.
//!
//! Determinism: game `i` of a match gets its seeds from the match seed and `i` alone, every
//! game makes its own agents, the records are handed out in game order and an SPRT looks at
//! fixed batches of pairs, so the result is the same for any number of threads.

use std::collections::BTreeMap;
use std::error::Error as StdError;
use std::io;
use std::sync::Mutex;

use mancala_mcts::Agent;
use mancala_rules::{Game, Player};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::elo::{Sprt, SprtDecision, Wdl, elo_interval};
use crate::error::ArenaError;
use crate::opening::{Opening, openings};
use crate::play::play_game;
use crate::record::GameRecord;

/// How a match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Games to play (even); with an SPRT, the most games before it gives up.
    pub games: u32,
    /// Random plies from the start that both games of a pair begin with.
    pub opening_plies: usize,
    pub seed: u64,
    /// Worker threads; `None` uses rayon's current pool.
    pub threads: Option<usize>,
    /// Stop as soon as this test decides.
    pub sprt: Option<Sprt>,
    /// Pairs played between two SPRT looks: fixed, so where the test stops does not depend on
    /// the thread count.
    pub sprt_batch_pairs: u32,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig { games: 100, opening_plies: 4, seed: 1, threads: None, sprt: None, sprt_batch_pairs: 8 }
    }
}

impl MatchConfig {
    /// Checks the game count and the SPRT.
    ///
    /// # Errors
    /// [`ArenaError::OddGames`] for an odd or zero game count; [`ArenaError::Sprt`].
    pub fn validate(&self) -> Result<(), ArenaError> {
        if self.games == 0 || !self.games.is_multiple_of(2) {
            return Err(ArenaError::OddGames(self.games));
        }
        if let Some(sprt) = &self.sprt {
            sprt.validate()?;
        }
        Ok(())
    }
}

/// The SPRT's state when the match ended.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    pub sprt: Sprt,
    pub llr: f64,
    pub decision: SprtDecision,
}

/// The pairs of a match (the two games of one opening, colours swapped) by A's points over
/// the two, the five counts Fishtest calls pentanomial, with the pairs of one point told
/// apart. A pair where each colour won its game says the opening decided the side, not the
/// player: where most pairs are such, a match between strong players tends to 50% whatever
/// their strength, so the report shows it beside the score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairs {
    /// A won both games: 2 points.
    pub won_both: u32,
    /// A won one and drew one: 1.5.
    pub won_drew: u32,
    /// Each colour won its game: 1.
    pub split: u32,
    /// Both drawn: 1.
    pub drew_both: u32,
    /// A drew one and lost one: 0.5.
    pub drew_lost: u32,
    /// A lost both: 0.
    pub lost_both: u32,
}

impl Pairs {
    /// Counts one pair from A's result in each of its games (one game each).
    pub fn add(&mut self, first: Wdl, second: Wdl) {
        let mut both = first;
        both += second;
        let slot = match (both.wins, both.draws, both.losses) {
            (2, 0, 0) => &mut self.won_both,
            (1, 1, 0) => &mut self.won_drew,
            (1, 0, 1) => &mut self.split,
            (0, 2, 0) => &mut self.drew_both,
            (0, 1, 1) => &mut self.drew_lost,
            (0, 0, 2) => &mut self.lost_both,
            _ => panic!("a pair is two games, not {both:?}"),
        };
        *slot += 1;
    }

    pub fn count(&self) -> u32 {
        self.won_both + self.won_drew + self.split + self.drew_both + self.drew_lost + self.lost_both
    }
}

/// Everything a match produced; counts are from agent A's view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    pub total: Wdl,
    /// Games where A played South, then North.
    pub a_south: Wdl,
    pub a_north: Wdl,
    /// The pairs by A's points over their two games.
    pub pairs: Pairs,
    /// The games in order (A is South in the even ones).
    pub records: Vec<GameRecord>,
    pub sprt: Option<SprtReport>,
}

impl MatchResult {
    pub fn games(&self) -> u32 {
        self.total.games()
    }

    /// A's score, draws half.
    pub fn score(&self) -> f64 {
        self.total.score()
    }

    /// A's Elo advantage over B with its 95% interval `(elo, lo, hi)`.
    pub fn elo(&self) -> (f64, f64, f64) {
        elo_interval(self.total)
    }
}

/// Makes an agent from its spec and a seed; the arena calls it once per agent and game.
pub trait AgentFactory<G: Game>: Sync {
    /// # Errors
    /// Whatever the factory refuses, boxed.
    fn make(&self, spec: &str, seed: u64) -> Result<Box<dyn Agent<G>>, Box<dyn StdError + Send + Sync>>;
}

impl<G, F, E> AgentFactory<G> for F
where
    G: Game,
    F: Fn(&str, u64) -> Result<Box<dyn Agent<G>>, E> + Sync,
    E: Into<Box<dyn StdError + Send + Sync>>,
{
    fn make(&self, spec: &str, seed: u64) -> Result<Box<dyn Agent<G>>, Box<dyn StdError + Send + Sync>> {
        self(spec, seed).map_err(Into::into)
    }
}

/// Called with each game's record, in game order, as the games finish; an error stops the
/// match.
pub type OnGame<'a> = dyn FnMut(&GameRecord) -> io::Result<()> + Send + 'a;

/// Plays a match of `config.games` games between agents `a` and `b`.
///
/// Game `2k` has A as South, game `2k+1` has B as South, both from opening `k`; every opening
/// ends in a different position. `on_game` sees every record in game order.
///
/// # Errors
/// [`ArenaError`] for a bad config, a spec the factory refuses (checked before any game), an
/// illegal move, or an error from `on_game`.
pub fn play_match<G: Game>(
    game: &G,
    a: &str,
    b: &str,
    factory: &dyn AgentFactory<G>,
    config: &MatchConfig,
    on_game: &mut OnGame<'_>,
) -> Result<MatchResult, ArenaError> {
    config.validate()?;
    for spec in [a, b] {
        check_spec(factory, spec)?;
    }
    in_pool(config.threads, || run_match(game, a, b, factory, config, on_game))
}

/// Builds an agent once so that a bad spec is reported before any game is played.
pub(crate) fn check_spec<G: Game>(factory: &dyn AgentFactory<G>, spec: &str) -> Result<(), ArenaError> {
    factory.make(spec, 0).map(drop).map_err(|source| ArenaError::Agent { spec: spec.to_string(), source })
}

/// Runs `work` on a pool of `threads` threads, or on the current pool.
pub(crate) fn in_pool<T: Send>(
    threads: Option<usize>,
    work: impl FnOnce() -> Result<T, ArenaError> + Send,
) -> Result<T, ArenaError> {
    match threads {
        None => work(),
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| ArenaError::Threads { threads, reason: e.to_string() })?
            .install(work),
    }
}

/// One finished game, with what the score needs.
struct Played {
    record: GameRecord,
    a_side: Player,
    winner: Option<Player>,
}

/// Hands records to `on_game` in game order although games finish in any order.
struct InOrder<'a, 'b> {
    next: usize,
    waiting: BTreeMap<usize, GameRecord>,
    on_game: &'a mut OnGame<'b>,
}

impl InOrder<'_, '_> {
    fn push(&mut self, index: usize, record: GameRecord) -> io::Result<()> {
        self.waiting.insert(index, record);
        while let Some(record) = self.waiting.remove(&self.next) {
            (self.on_game)(&record)?;
            self.next += 1;
        }
        Ok(())
    }
}

pub(crate) fn run_match<G: Game>(
    game: &G,
    a: &str,
    b: &str,
    factory: &dyn AgentFactory<G>,
    config: &MatchConfig,
    on_game: &mut OnGame<'_>,
) -> Result<MatchResult, ArenaError> {
    let pairs = (config.games / 2) as usize;
    let openings = openings(game, config.opening_plies, pairs, mix(config.seed, OPENING_STREAM))?;
    let batch_pairs = match config.sprt {
        Some(_) => config.sprt_batch_pairs.max(1) as usize,
        None => pairs,
    };
    let mut result = MatchResult {
        a: a.to_string(),
        b: b.to_string(),
        total: Wdl::default(),
        a_south: Wdl::default(),
        a_north: Wdl::default(),
        pairs: Pairs::default(),
        records: Vec::with_capacity(2 * pairs),
        sprt: None,
    };
    let order = Mutex::new(InOrder { next: 0, waiting: BTreeMap::new(), on_game });
    let mut pair = 0;
    while pair < pairs {
        let end = (pair + batch_pairs).min(pairs);
        let played: Vec<Played> = (2 * pair..2 * end)
            .into_par_iter()
            .map(|index| {
                let played = play_indexed(game, a, b, factory, &openings[index / 2], config.seed, index)?;
                order.lock().expect("a game panicked while writing its record").push(index, played.record.clone())?;
                Ok(played)
            })
            .collect::<Result<_, ArenaError>>()?;
        // Batches hold whole pairs in game order, so the games come first of a pair, then
        // second.
        let mut first_of_pair = None;
        for p in played {
            let wdl = match p.winner {
                None => Wdl { wins: 0, draws: 1, losses: 0 },
                Some(w) if w == p.a_side => Wdl { wins: 1, draws: 0, losses: 0 },
                Some(_) => Wdl { wins: 0, draws: 0, losses: 1 },
            };
            result.total += wdl;
            match p.a_side {
                Player::South => result.a_south += wdl,
                Player::North => result.a_north += wdl,
            }
            match first_of_pair.take() {
                None => first_of_pair = Some(wdl),
                Some(first) => result.pairs.add(first, wdl),
            }
            result.records.push(p.record);
        }
        pair = end;
        if let Some(sprt) = config.sprt {
            let report = SprtReport { sprt, llr: sprt.llr(result.total), decision: sprt.decision(result.total) };
            result.sprt = Some(report);
            if report.decision != SprtDecision::None {
                break;
            }
        }
    }
    Ok(result)
}

/// Game `index` of a match: its agents made fresh from seeds of the match seed and the index.
fn play_indexed<G: Game>(
    game: &G,
    a: &str,
    b: &str,
    factory: &dyn AgentFactory<G>,
    opening: &Opening,
    seed: u64,
    index: usize,
) -> Result<Played, ArenaError> {
    let game_seed = mix(seed, index as u64);
    let make = |spec: &str, stream: u64| {
        let agent_seed = mix(game_seed, stream);
        let mut agent =
            factory.make(spec, agent_seed).map_err(|source| ArenaError::Agent { spec: spec.to_string(), source })?;
        agent.new_game(agent_seed);
        Ok::<_, ArenaError>(agent)
    };
    let mut agent_a = make(a, A_STREAM)?;
    let mut agent_b = make(b, B_STREAM)?;
    let a_side = if index.is_multiple_of(2) { Player::South } else { Player::North };
    let (record, outcome) = match a_side {
        Player::South => play_game(game, opening, (a, agent_a.as_mut()), (b, agent_b.as_mut()))?,
        Player::North => play_game(game, opening, (b, agent_b.as_mut()), (a, agent_a.as_mut()))?,
    };
    Ok(Played { record, a_side, winner: outcome.winner })
}

/// Seed streams: the openings, and the agents A and B of a game.
const OPENING_STREAM: u64 = u64::MAX;
const A_STREAM: u64 = 0xA;
const B_STREAM: u64 = 0xB;

/// Derives an independent seed from a seed and a stream number (SplitMix64's finaliser over
/// the pair), so that nearby seeds and indices give unrelated streams.
pub fn mix(seed: u64, stream: u64) -> u64 {
    let mut z = seed.wrapping_add(stream.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
