//! Round robin: every pair of a list of agents plays a match; the table lists each pair and
//! fits one rating per agent from all the results.

use std::fmt;

use mancala_rules::Game;

use crate::elo::{Wdl, rounded};
use crate::error::ArenaError;
use crate::matches::{AgentFactory, MatchConfig, MatchResult, OnGame, check_spec, in_pool, mix, run_match};

/// The results of a round robin.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The agents' specs in the order given.
    pub agents: Vec<String>,
    /// One match a pair `(i, j)`, `i < j`, in order; agent `i` is the match's A.
    pub pairs: Vec<MatchResult>,
    /// One Elo rating an agent (same order as `agents`), the first anchored at 0; see
    /// [`fit_ratings`].
    pub ratings: Vec<f64>,
}

/// Plays every pair of `agents`: pair `(i, j)` plays `games(i, j)` games (even) with the rest
/// of `config`, and a seed made from `config.seed` and the pair. `on_game` sees every record,
/// pair after pair, each pair's in game order.
///
/// # Errors
/// [`ArenaError`] for fewer than two agents, a repeated or bad spec (all checked before any
/// game), an odd game count, or whatever a match returns.
pub fn round_robin<G: Game>(
    game: &G,
    agents: &[String],
    factory: &dyn AgentFactory<G>,
    config: &MatchConfig,
    games: &dyn Fn(usize, usize) -> u32,
    on_game: &mut OnGame<'_>,
) -> Result<Table, ArenaError> {
    if agents.len() < 2 {
        return Err(ArenaError::TooFewAgents(agents.len()));
    }
    for (i, spec) in agents.iter().enumerate() {
        if agents[..i].contains(spec) {
            return Err(ArenaError::DuplicateAgent(spec.clone()));
        }
        check_spec(factory, spec)?;
    }
    let mut matches = Vec::new();
    for i in 0..agents.len() {
        for j in i + 1..agents.len() {
            let pair_config = MatchConfig {
                games: games(i, j),
                seed: mix(config.seed, (i * agents.len() + j) as u64),
                ..config.clone()
            };
            pair_config.validate()?;
            matches.push((i, j, pair_config));
        }
    }
    let pairs = in_pool(config.threads, || {
        matches
            .iter()
            .map(|(i, j, c)| run_match(game, &agents[*i], &agents[*j], factory, c, on_game))
            .collect::<Result<Vec<_>, _>>()
    })?;
    let results: Vec<(usize, usize, Wdl)> =
        matches.iter().zip(&pairs).map(|((i, j, _), m)| (*i, *j, m.total)).collect();
    let ratings = fit_ratings(agents.len(), &results);
    Ok(Table { agents: agents.to_vec(), pairs, ratings })
}

/// Elo ratings for `n` agents from pairwise results `(i, j, i's results against j)`: the
/// maximum-likelihood Bradley-Terry fit (draws half a win each), by minorisation-maximisation
/// (Hunter 2004, "MM algorithms for generalized Bradley-Terry models"). Every pair that played
/// gets one virtual draw, so a 100% score gives a large finite gap instead of an infinite
/// one. Agent 0 is anchored at 0; an agent that played no one stays at 0.
pub fn fit_ratings(n: usize, results: &[(usize, usize, Wdl)]) -> Vec<f64> {
    // Points won and games played, with the virtual draw.
    let mut points = vec![0.0f64; n];
    let mut games = vec![vec![0.0f64; n]; n];
    for &(i, j, wdl) in results {
        if wdl.games() == 0 {
            continue;
        }
        let g = f64::from(wdl.games()) + 1.0;
        let s = f64::from(wdl.wins) + 0.5 * f64::from(wdl.draws) + 0.5;
        points[i] += s;
        points[j] += g - s;
        games[i][j] += g;
        games[j][i] += g;
    }
    let mut gamma = vec![1.0f64; n];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..n {
            let denom: f64 = (0..n).filter(|&j| games[i][j] > 0.0).map(|j| games[i][j] / (gamma[i] + gamma[j])).sum();
            if denom > 0.0 {
                let next = points[i] / denom;
                change = change.max((next / gamma[i]).ln().abs());
                gamma[i] = next;
            }
        }
        let anchor = gamma[0];
        for g in &mut gamma {
            *g /= anchor;
        }
        if change < 1e-12 {
            break;
        }
    }
    gamma.iter().map(|g| 400.0 * g.log10()).collect()
}

impl fmt::Display for Table {
    /// One row a pair (W/D/L from the first agent's view, score, Elo with its 95% interval),
    /// then the fitted ratings, best first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.agents.iter().map(String::len).max().unwrap_or(0).max(5);
        writeln!(
            f,
            "{:<width$}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6}  {:<16}",
            "A", "B", "games", "wins", "draws", "losses", "score", "elo", "95% interval"
        )?;
        for m in &self.pairs {
            let (elo, lo, hi) = m.elo();
            writeln!(
                f,
                "{:<width$}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5.1}%  {:>+6.0}  [{:+.0}, {:+.0}]{}",
                m.a,
                m.b,
                m.games(),
                m.total.wins,
                m.total.draws,
                m.total.losses,
                100.0 * m.score(),
                rounded(elo),
                rounded(lo),
                rounded(hi),
                match &m.sprt {
                    Some(s) => format!("  sprt {}", s.decision),
                    None => String::new(),
                }
            )?;
        }
        writeln!(f)?;
        writeln!(f, "ratings (Bradley-Terry fit over all games, {} = 0):", self.agents[0])?;
        let mut order: Vec<usize> = (0..self.agents.len()).collect();
        order.sort_by(|&x, &y| self.ratings[y].total_cmp(&self.ratings[x]));
        for i in order {
            writeln!(f, "  {:<width$}  {:>+6.0}", self.agents[i], rounded(self.ratings[i]))?;
        }
        Ok(())
    }
}
