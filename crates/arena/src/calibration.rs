//! Value calibration by game phase: how well a value function (a network's value head, behind
//! the `Evaluator` seam) predicts the results of recorded games, position by position, with
//! the positions grouped by phase: the seeds still on the board, or the plies played (for
//! games such as Owela, where no seed leaves the board). A network can be sharp in the endgame
//! and blind in the opening, or the reverse; one accuracy over all positions hides which, and
//! so which data or search setting would help.

use mancala_mcts::Evaluator;
use mancala_rules::Game;

use crate::error::ArenaError;
use crate::record::GameRecord;

/// Positions valued in one network call.
const CHUNK: usize = 256;
/// Bins of the predicted value for the calibration error.
const VALUE_BINS: usize = 10;

/// What divides a game into phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseBy {
    /// Equal ranges of seeds on the board, the first holding the start (every seed on it).
    Seeds,
    /// Ranges of this many plies from the start; the last phase takes every later ply.
    Plies(u32),
}

/// How well the values of one phase predicted the results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseCalibration {
    /// The phase's range, inclusive: seeds on the board (most first) or plies from the start
    /// (`u32::MAX` as the end of the last ply phase).
    pub range: (u32, u32),
    /// Positions of the phase (the player to move's turn in an unfinished game).
    pub positions: usize,
    /// Positions whose game was not drawn.
    pub decisive: usize,
    /// Decisive positions whose value had the sign of the result for the player to move.
    pub sign_correct: usize,
    /// Sum of `(value - result)^2`.
    pub squared_error: f64,
    /// Sum of `result^2`: the squared error of always answering 0.
    pub squared_result: f64,
    /// Sum of `|value|`.
    pub confidence: f64,
    /// Per bin of the value (-1 to 1 in equal steps): positions, sum of values, sum of results.
    bins: [(usize, f64, f64); VALUE_BINS],
}

impl PhaseCalibration {
    /// Share of decisive positions whose value had the right sign (0 when none).
    pub fn sign_accuracy(&self) -> f64 {
        ratio(self.sign_correct as f64, self.decisive)
    }

    /// Mean squared error of the value against the result (-1, 0, 1).
    pub fn mse(&self) -> f64 {
        ratio(self.squared_error, self.positions)
    }

    /// Mean squared error of answering 0 everywhere, the yardstick for [`Self::mse`].
    pub fn baseline_mse(&self) -> f64 {
        ratio(self.squared_result, self.positions)
    }

    /// Mean `|value|`: how sure the values are.
    pub fn mean_confidence(&self) -> f64 {
        ratio(self.confidence, self.positions)
    }

    /// Expected calibration error: over ten equal bins of the value, the gap between the mean
    /// value and the mean result, weighted by the bin's positions. 0 for a value that means
    /// what it says; large for one that is sure and wrong, or right but timid.
    pub fn calibration_error(&self) -> f64 {
        let gap: f64 = self.bins.iter().map(|&(n, v, r)| if n == 0 { 0.0 } else { (v - r).abs() }).sum();
        ratio(gap, self.positions)
    }

    fn add(&mut self, value: f32, result: f32) {
        let (v, r) = (f64::from(value.clamp(-1.0, 1.0)), f64::from(result));
        self.positions += 1;
        if r != 0.0 {
            self.decisive += 1;
            if v * r > 0.0 {
                self.sign_correct += 1;
            }
        }
        self.squared_error += (v - r) * (v - r);
        self.squared_result += r * r;
        self.confidence += v.abs();
        let bin = (((v + 1.0) / 2.0 * VALUE_BINS as f64) as usize).min(VALUE_BINS - 1);
        let b = &mut self.bins[bin];
        *b = (b.0 + 1, b.1 + v, b.2 + r);
    }
}

fn ratio(sum: f64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// Values every position of `records` (each must be a finished game of `game`, as
/// [`GameRecord::replay`] checks) with `evaluator` and compares each value with the game's
/// result for the player to move there, in `phases` phases by `by`. By seeds the phases are
/// of equal width, the first holding the start (every seed on the board), the last the fewest
/// seeds; by plies the first holds plies 0 to width - 1. The opening's random plies count too:
/// their results come from the play after them.
///
/// # Errors
/// [`ArenaError::Replay`] naming the record (its index, from 1) that does not replay;
/// [`ArenaError::Calibration`] for no phase or phases of 0 plies.
pub fn value_calibration<G: Game, E: Evaluator<G> + ?Sized>(
    game: &G,
    records: &[GameRecord],
    evaluator: &mut E,
    by: PhaseBy,
    phases: usize,
) -> Result<Vec<PhaseCalibration>, ArenaError> {
    if phases == 0 {
        return Err(ArenaError::Calibration("at least one phase is needed".into()));
    }
    let ranges: Vec<(u32, u32)> = match by {
        PhaseBy::Seeds => {
            // Phase k holds the seed counts above total * (phases-k-1)/phases, up to the
            // phase before's.
            let total = usize::from(game.total_seeds());
            let fewest = |k: usize| if k + 1 == phases { 0 } else { total * (phases - k - 1) / phases + 1 };
            (0..phases).map(|k| (fewest(k) as u32, if k == 0 { total } else { fewest(k - 1) - 1 } as u32)).collect()
        }
        PhaseBy::Plies(0) => {
            return Err(ArenaError::Calibration("phases by plies need a width of at least 1 ply".into()));
        }
        PhaseBy::Plies(width) => (0..phases as u32)
            .map(|k| {
                let from = k.saturating_mul(width);
                (from, if k + 1 == phases as u32 { u32::MAX } else { from.saturating_add(width - 1) })
            })
            .collect(),
    };
    let mut out: Vec<PhaseCalibration> =
        ranges.iter().map(|&range| PhaseCalibration { range, ..PhaseCalibration::default() }).collect();
    let phase_of = |x: u32| -> usize { ranges.iter().position(|r| x >= r.0 && x <= r.1).unwrap_or(phases - 1) };
    let mut positions: Vec<G::Position> = Vec::new();
    let mut targets: Vec<(usize, f32)> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let (line, outcome) = record.replay_line(game).map_err(|e| match e {
            ArenaError::Replay { reason } => ArenaError::Replay { reason: format!("record {}: {reason}", i + 1) },
            other => other,
        })?;
        // Every position but the finished last one, each with its ply from the start.
        for (ply, pos) in line.positions().take(record.moves.len()).enumerate() {
            let x = match by {
                PhaseBy::Seeds => game.pits(pos).iter().map(|&s| u32::from(s)).sum(),
                PhaseBy::Plies(_) => ply as u32,
            };
            targets.push((phase_of(x), outcome.value_for(game.side_to_move(pos))));
            positions.push(*pos);
        }
    }
    let a = game.action_space();
    let mut policies = vec![0.0f32; CHUNK * a];
    let mut values = vec![0.0f32; CHUNK];
    for (chunk, wanted) in positions.chunks(CHUNK).zip(targets.chunks(CHUNK)) {
        let n = chunk.len();
        evaluator.evaluate(game, chunk, &mut policies[..n * a], &mut values[..n]);
        for (&v, &(phase, result)) in values[..n].iter().zip(wanted) {
            out[phase].add(v, result);
        }
    }
    Ok(out)
}
