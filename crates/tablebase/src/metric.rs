//! The endgame accuracy metric: on a fixed sample of database positions, how often a
//! player's value has the right sign and how often its chosen move is optimal.

use mancala_rules::{Action, Game, Player, Setup};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::{ScoredTablebase, Tablebase};

/// A predicted value within this distance of 0 counts as "draw"; beyond it as a win or a
/// loss. A third splits [-1, 1] evenly between the three results.
pub const DRAW_BAND: f32 = 1.0 / 3.0;

/// Shares over a sample of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EndgameAccuracy {
    pub positions: usize,
    /// Share whose predicted value names the right result (win, draw, loss; see
    /// [`DRAW_BAND`]).
    pub value_sign: f64,
    /// Share whose chosen move is one of the best moves.
    pub best_move: f64,
    /// Share whose chosen move keeps perfect play's result (win, draw or loss), whatever
    /// margin it gives away: `best_move` below this is a margin missed, not a result.
    pub result_kept: f64,
    /// Mean seeds of final margin the chosen moves give away against the best move (0 for
    /// a best move).
    pub seeds_given: f64,
}

/// How a sample of database positions chooses each position's seed count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SeedDraw {
    /// Every seed count from 1 to the database's limit alike (the metric's sample).
    #[default]
    Uniform,
    /// A seed count in proportion to itself: `k` seeds `k` times as often as one, so the
    /// fuller boards (where sowings lap and a network misses most) take the larger share.
    BySeeds,
}

/// `count` ongoing positions inside the database, the same for the same seed: a seed count
/// from 1 to the database's limit, a board uniform among those, a side, and the captured
/// seeds split at random among the splits that leave the game ongoing.
pub fn sample_positions<G: Game>(game: &G, tablebase: &Tablebase, count: usize, seed: u64) -> Vec<G::Position> {
    sample_positions_drawn(game, tablebase, count, seed, SeedDraw::Uniform)
}

/// [`sample_positions`] with the seed count chosen by `draw` ([`SeedDraw::Uniform`] gives the
/// same sample as [`sample_positions`]).
pub fn sample_positions_drawn<G: Game>(
    game: &G,
    tablebase: &Tablebase,
    count: usize,
    seed: u64,
    draw: SeedDraw,
) -> Vec<G::Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let ix = tablebase.indexer();
    let total = game.total_seeds();
    let mut setup = Setup { pits: vec![0; ix.pits()], ..Setup::default() };
    let mut out = Vec::with_capacity(count);
    // Every layer from 1 seed up holds ongoing positions, so this ends; the bound only
    // guards against a game whose rules refuse nearly every board.
    let mut attempts = 0usize;
    while out.len() < count && ix.max_seeds() > 0 && attempts < 1000 * count.max(1) {
        attempts += 1;
        let seeds = match draw {
            SeedDraw::Uniform => rng.random_range(1..=ix.max_seeds()),
            SeedDraw::BySeeds => {
                // The n-th of the 1 + 2 + ... + max tickets belongs to the smallest k whose
                // triangular number reaches it.
                let max = ix.max_seeds();
                let ticket = rng.random_range(1..=max * (max + 1) / 2);
                (1..=max).find(|k| k * (k + 1) / 2 >= ticket).unwrap_or(max)
            }
        };
        ix.unrank(rng.random_range(0..ix.boards(seeds)), seeds, &mut setup.pits);
        setup.side = if rng.random_range(0..2) == 0 { Player::South } else { Player::North };
        let captured = total - seeds as u16;
        let south = rng.random_range(0..=captured);
        setup.scores.south = south;
        setup.scores.north = captured - south;
        if let Ok(pos) = game.from_setup(&setup)
            && !game.status(&pos).is_over()
        {
            out.push(pos);
        }
    }
    out
}

/// What perfect play makes of one judged position, and whether a player got it right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameJudgement {
    /// Seeds still on the board.
    pub seeds: u16,
    /// The mover's final margin with perfect play (its sign is the result).
    pub final_margin: i32,
    /// The player's value named the right result.
    pub value_right: bool,
    /// The player's move was one of the best moves.
    pub move_right: bool,
    /// The player's move keeps perfect play's result (it may give away margin).
    pub result_kept: bool,
    /// Seeds of final margin the player's move gives away against the best move.
    pub seeds_given: i32,
}

impl EndgameAccuracy {
    /// The shares over `judgements` (zero shares for none).
    pub fn of(judgements: &[EndgameJudgement]) -> Self {
        let n = judgements.len();
        let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        EndgameAccuracy {
            positions: n,
            value_sign: share(judgements.iter().filter(|j| j.value_right).count()),
            best_move: share(judgements.iter().filter(|j| j.move_right).count()),
            result_kept: share(judgements.iter().filter(|j| j.result_kept).count()),
            seeds_given: if n == 0 {
                0.0
            } else {
                judgements.iter().map(|j| f64::from(j.seeds_given)).sum::<f64>() / n as f64
            },
        }
    }
}

/// Judges `player` on `positions` (all inside `tablebase`, ongoing): `player` returns its
/// value for the mover in [-1, 1] and the move it would play.
pub fn endgame_accuracy<G: Game>(
    game: &G,
    tablebase: &Tablebase,
    positions: &[G::Position],
    player: impl FnMut(&G::Position) -> (f32, Action),
) -> EndgameAccuracy {
    EndgameAccuracy::of(&endgame_judgements(game, tablebase, positions, player))
}

/// [`endgame_accuracy`] position by position, so a caller can split the figures (by seeds
/// on the board, by how close the result is). Positions outside the database, or without a
/// move, are left out.
pub fn endgame_judgements<G: Game>(
    game: &G,
    tablebase: &Tablebase,
    positions: &[G::Position],
    mut player: impl FnMut(&G::Position) -> (f32, Action),
) -> Vec<EndgameJudgement> {
    let mut out = Vec::with_capacity(positions.len());
    for pos in positions {
        let Some(probe) = tablebase.probe(game, pos) else { continue };
        if probe.best.is_empty() {
            continue;
        }
        let (value, action) = player(pos);
        let predicted = if value > DRAW_BAND {
            1
        } else if value < -DRAW_BAND {
            -1
        } else {
            0
        };
        out.push(EndgameJudgement {
            // Counted on the board, as the database indexes positions.
            seeds: game.pits(pos).iter().map(|&s| u16::from(s)).sum(),
            final_margin: probe.final_margin,
            value_right: predicted == probe.final_margin.signum(),
            move_right: probe.best.contains(action),
            result_kept: probe.move_margin(action).signum() == probe.final_margin.signum(),
            seeds_given: probe.final_margin - probe.move_margin(action),
        });
    }
    out
}

/// The best-move share of a player that knows the result (win, draw, loss) of every move
/// but not its margin, choosing uniformly among the moves of the best result: the expected
/// share, over `positions`. The best moves keep the most seeds, so this is what a search
/// that counts results alone can reach, and the gap to 1 is what weighing the margin adds.
pub fn result_only_best_move<G: Game>(game: &G, tablebase: &Tablebase, positions: &[G::Position]) -> f64 {
    let (mut judged, mut sum) = (0usize, 0.0f64);
    for pos in positions {
        let Some(probe) = tablebase.probe(game, pos) else { continue };
        if probe.best.is_empty() {
            continue;
        }
        judged += 1;
        let result = |action: Action| probe.move_margin(action).signum();
        let top = probe.legal.iter().map(result).max().expect("an ongoing position has a move");
        let (candidates, best) = probe
            .legal
            .iter()
            .filter(|a| result(*a) == top)
            .fold((0usize, 0usize), |(n, b), a| (n + 1, b + usize::from(probe.best.contains(a))));
        sum += best as f64 / candidates as f64;
    }
    if judged == 0 { 0.0 } else { sum / judged as f64 }
}

/// One position judged by the game's own end ([`ScoredTablebase`]): where Oware stops at a
/// majority, the best moves can differ from the database's, which plays to the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealEndJudgement {
    /// Seeds still on the board.
    pub seeds: u16,
    /// The player's move is one of the best moves under the game's own end.
    pub move_right: bool,
    /// The share of those best moves that are the database's best moves too: the expected
    /// best-move figure ([`EndgameAccuracy::best_move`]) of a player perfect under the game's
    /// own end that picks among its best moves at random.
    pub perfect_on_database: f64,
}

impl RealEndJudgement {
    /// The share of `judged` whose move is best by the game's own end (0 for none): the
    /// figure `tablebase accuracy --real-end` prints and a run records as
    /// `endgame/best_move_own`.
    pub fn best_move<'a>(judged: impl IntoIterator<Item = &'a RealEndJudgement>) -> f64 {
        let (mut right, mut all) = (0usize, 0usize);
        for j in judged {
            right += usize::from(j.move_right);
            all += 1;
        }
        if all == 0 { 0.0 } else { right as f64 / all as f64 }
    }
}

/// Judges the moves `played` (a position and the player's move there) by the game's own end;
/// positions outside either database, or without a move, are left out.
pub fn real_end_judgements<G: Game>(
    game: &G,
    tablebase: &Tablebase,
    scored: &ScoredTablebase,
    played: &[(G::Position, Action)],
) -> Vec<RealEndJudgement> {
    let mut out = Vec::with_capacity(played.len());
    for (pos, action) in played {
        let (Some(database), Some(real)) = (tablebase.probe(game, pos), scored.probe(game, pos)) else { continue };
        if real.best.is_empty() {
            continue;
        }
        let shared = real.best.iter().filter(|a| database.best.contains(*a)).count();
        out.push(RealEndJudgement {
            seeds: game.pits(pos).iter().map(|&s| u16::from(s)).sum(),
            move_right: real.best.contains(*action),
            perfect_on_database: shared as f64 / real.best.len() as f64,
        });
    }
    out
}
