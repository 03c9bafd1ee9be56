//! Elo from match scores, its 95% interval, and the sequential probability ratio test.
//!
//! Logistic Elo throughout: a player `d` points stronger expects a score of
//! `1 / (1 + 10^(-d/400))` (draws count half). Used by the arena and by the trainer's gate.
//!
//! ```
//! use mancala_arena::elo::{elo_from_score, elo_interval, Wdl};
//!
//! assert_eq!(elo_from_score(0.5), 0.0);
//! assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
//! let (elo, lo, hi) = elo_interval(Wdl { wins: 30, draws: 0, losses: 10 });
//! assert!(lo < elo && elo < hi);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// The largest Elo difference reported: a score of 0% or 100% has no finite Elo, and a
/// sample cannot tell +1200 from more.
pub const MAX_ELO: f64 = 1200.0;

/// The two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points over games, draws counting half (0.5 for no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 { 0.5 } else { (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n) }
    }

    /// The same games from the other side's view.
    pub fn flipped(&self) -> Wdl {
        Wdl { wins: self.losses, draws: self.draws, losses: self.wins }
    }

    /// Variance of one game's score (1, 1/2 or 0) around the mean, never below the variance
    /// that one game going half a point the other way would give (`1/(4n)`): a sample where
    /// every game ended alike does not prove the spread is zero.
    pub fn score_variance(&self) -> f64 {
        let n = f64::from(self.games().max(1));
        let s = self.score();
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        var.max(0.25 / n)
    }
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, rhs: Wdl) {
        self.wins += rhs.wins;
        self.draws += rhs.draws;
        self.losses += rhs.losses;
    }
}

impl fmt::Display for Wdl {
    /// `+W =D -L`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)
    }
}

/// The Elo difference that expects `score` (0 to 1), within `±MAX_ELO`.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return -MAX_ELO;
    }
    if score >= 1.0 {
        return MAX_ELO;
    }
    (-400.0 * (1.0 / score - 1.0).log10()).clamp(-MAX_ELO, MAX_ELO)
}

/// `elo` to whole points for display, without a negative zero (`-0.3` shows as `+0`).
pub fn rounded(elo: f64) -> f64 {
    elo.round() + 0.0
}

/// The score expected at an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference and its 95% interval `(elo, lo, hi)` from one side's results.
///
/// The interval is the Wilson score interval with the sample variance of the per-game score
/// in place of the binomial `p(1-p)`: for many games it is `score ± 1.96·se`, and at 0% or
/// 100% it stays honest (`n` wins of `n` give a lower bound of `n/(n+1.96²)`, not 100%). Its
/// ends are mapped to Elo and capped at `±MAX_ELO`. No games: `(0, -MAX_ELO, MAX_ELO)`.
pub fn elo_interval(wdl: Wdl) -> (f64, f64, f64) {
    let n = f64::from(wdl.games());
    if n == 0.0 {
        return (0.0, -MAX_ELO, MAX_ELO);
    }
    let s = wdl.score();
    let var = if wdl.games() > 1 { raw_variance(wdl) } else { 0.0 };
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (s + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (var / n + z2 / (4.0 * n * n)).sqrt();
    let lo = (center - half).clamp(0.0, 1.0);
    let hi = (center + half).clamp(0.0, 1.0);
    (elo_from_score(s), elo_from_score(lo), elo_from_score(hi))
}

/// The per-game score variance without the floor of [`Wdl::score_variance`] (the Wilson
/// form brings its own correction at the edges).
fn raw_variance(wdl: Wdl) -> f64 {
    let n = f64::from(wdl.games());
    let s = wdl.score();
    (f64::from(wdl.wins) * (1.0 - s).powi(2)
        + f64::from(wdl.draws) * (0.5 - s).powi(2)
        + f64::from(wdl.losses) * s.powi(2))
        / n
}

/// A sequential probability ratio test of H0 "the Elo difference is `elo0`" against H1 "it
/// is `elo1`", with false-positive rate `alpha` and false-negative rate `beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What an SPRT has concluded so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// The log-likelihood ratio fell to the lower bound: `elo0` is accepted.
    H0,
    /// It rose to the upper bound: `elo1` is accepted.
    H1,
    /// Neither bound reached: more games are needed.
    None,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::H0 => "H0",
            SprtDecision::H1 => "H1",
            SprtDecision::None => "none",
        })
    }
}

/// Why an SPRT setting cannot be used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("SPRT: elo0 ({elo0}) must be below elo1 ({elo1})")]
    Order { elo0: f64, elo1: f64 },
    #[error("SPRT: {name} = {value} must be strictly between 0 and 1")]
    Rate { name: &'static str, value: f64 },
    #[error("SPRT: '{text}' is not elo0,elo1 or elo0,elo1,alpha,beta ({reason})")]
    Parse { text: String, reason: String },
}

impl Sprt {
    /// The usual rates: alpha = beta = 0.05.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt { elo0, elo1, alpha: 0.05, beta: 0.05 }
    }

    /// Reads `elo0,elo1` or `elo0,elo1,alpha,beta`.
    ///
    /// # Errors
    /// [`SprtError`] naming the bad field.
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let bad = |reason: String| SprtError::Parse { text: text.to_string(), reason };
        let fields: Vec<f64> = text
            .split(',')
            .map(|f| f.trim().parse::<f64>().map_err(|_| bad(format!("'{}' is not a number", f.trim()))))
            .collect::<Result<_, _>>()?;
        let sprt = match fields[..] {
            [elo0, elo1] => Sprt::new(elo0, elo1),
            [elo0, elo1, alpha, beta] => Sprt { elo0, elo1, alpha, beta },
            _ => return Err(bad(format!("{} numbers", fields.len()))),
        };
        sprt.validate()?;
        Ok(sprt)
    }

    /// Checks the bounds make sense.
    ///
    /// # Errors
    /// [`SprtError`] when elo0 >= elo1 or a rate is outside (0, 1).
    pub fn validate(&self) -> Result<(), SprtError> {
        if !self.elo0.is_finite() || !self.elo1.is_finite() || self.elo0 >= self.elo1 {
            return Err(SprtError::Order { elo0: self.elo0, elo1: self.elo1 });
        }
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtError::Rate { name, value });
            }
        }
        Ok(())
    }

    /// The lower and upper bounds on the log-likelihood ratio (Wald).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 over H0 after `wdl`, in the normal approximation of the
    /// generalised SPRT (the per-game score's mean and variance from the sample; as in
    /// fishtest's trinomial test): `n (s1 - s0)(2s - s0 - s1) / (2 var)`.
    pub fn llr(&self, wdl: Wdl) -> f64 {
        let n = f64::from(wdl.games());
        if n == 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * wdl.score() - s0 - s1) / (2.0 * wdl.score_variance())
    }

    /// H0 or H1 once the ratio has crossed a bound, else none.
    pub fn decision(&self, wdl: Wdl) -> SprtDecision {
        let llr = self.llr(wdl);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::None
        }
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "elo0 {}, elo1 {}, alpha {}, beta {}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}
