//! Self-play settings (the `[selfplay]` table of a run config).

use serde::{Deserialize, Serialize};

/// How self-play games are played and recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Games of self-play for each candidate the trainer publishes (a generation).
    pub games_per_iteration: usize,
    /// Games a worker uploads as one shard (a killed worker loses at most these).
    pub games_per_shard: usize,
    /// Self-play worker threads of a one-machine `train` (each with its own evaluator).
    pub threads: usize,
    /// Games each worker plays at once, so one network call serves many searches.
    pub parallel_games: usize,
    /// Simulations of a full search (recorded as a policy target).
    pub simulations: u32,
    /// Simulations of a cheap search (playout-cap randomization, KataGo): not recorded.
    pub fast_simulations: u32,
    /// Share of moves that get the full search.
    pub full_search_share: f64,
    /// Uniformly random plies each game begins with before the first search, as the openings
    /// of the arena's, gating's and evaluation's matches do (0: every game from the initial
    /// position). Not recorded: no search chose them. They put the network in front of the
    /// unbalanced positions a random opening makes, which sampling by visits rarely reaches.
    /// They count among the first `temperature_plies` plies of the game.
    pub opening_plies: u32,
    /// Plies played with `temperature`; later plies take `temperature_final`.
    pub temperature_plies: u32,
    /// PUCT root: in those plies moves are sampled with visits^(1/temperature) (0 to 10; 0:
    /// the most visited move).
    pub temperature: f32,
    /// With a half-life above 0, the temperature of ply p within `temperature_plies` decays
    /// from `temperature` towards `temperature_final`, halving the gap every
    /// `temperature_halflife` plies (KataGo's move temperature); 0 keeps `temperature` for
    /// all those plies.
    pub temperature_halflife: f32,
    /// The temperature after `temperature_plies` (0 to 10; 0, the default: the most visited
    /// move), and where a half-life decays to.
    pub temperature_final: f32,
    /// Leaves each search hands out per batched network call.
    pub leaves_per_gather: usize,
    /// Where the leaves are evaluated: `direct` (each self-play thread calls its own copy of
    /// the network) or `service` (one inference thread a worker batches the leaves of all its
    /// threads, each of which searches half its games while the other half's batch is
    /// evaluated: for a GPU; `direct` is the CPU default, see docs/results.md).
    pub inference: Inference,
    /// With `service`: most positions in one network call.
    pub service_batch: usize,
    /// With `service`: microseconds a batch that is not full waits for more positions after
    /// its oldest request (no wait once every thread is waiting for an answer).
    pub service_flush_us: u64,
}

/// How self-play threads reach the network (`selfplay.inference`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inference {
    /// Each thread evaluates its own batches.
    #[default]
    Direct,
    /// Threads queue their leaves to one inference service (`mancala_mcts::service`).
    Service,
}

/// The largest `selfplay.service_batch` accepted: far above what any device needs, it only
/// catches a typo that would allocate gigabytes.
pub const MAX_SERVICE_BATCH: usize = 1 << 16;

/// The most random plies a self-play game may begin with: past a few dozen most games would
/// end before the first search.
pub const MAX_OPENING_PLIES: u32 = 32;

/// The longest `selfplay.service_flush_us` accepted (one second).
pub const MAX_SERVICE_FLUSH_US: u64 = 1_000_000;

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_iteration: 64,
            games_per_shard: 32,
            threads: 2,
            parallel_games: 16,
            simulations: 128,
            fast_simulations: 24,
            full_search_share: 0.25,
            opening_plies: 0,
            temperature_plies: 12,
            temperature: 1.0,
            temperature_halflife: 0.0,
            temperature_final: 0.0,
            leaves_per_gather: 4,
            inference: Inference::Direct,
            service_batch: 256,
            service_flush_us: 200,
        }
    }
}

impl SelfPlayConfig {
    /// The temperature self-play samples the move of ply `ply` with (see
    /// `temperature_plies`, `temperature_halflife` and `temperature_final`).
    pub fn temperature_at(&self, ply: u32) -> f32 {
        if ply >= self.temperature_plies {
            return self.temperature_final;
        }
        if self.temperature_halflife <= 0.0 {
            return self.temperature;
        }
        let gap = self.temperature - self.temperature_final;
        self.temperature_final + gap * 0.5f32.powf(ply as f32 / self.temperature_halflife)
    }

    /// Checks every value; the error names the key and what is allowed.
    ///
    /// # Errors
    /// A message `selfplay.KEY: ...`.
    pub fn validate(&self) -> Result<(), String> {
        let positive =
            |key: &str, v: usize| if v == 0 { Err(format!("selfplay.{key} must be at least 1")) } else { Ok(()) };
        positive("games_per_iteration", self.games_per_iteration)?;
        positive("games_per_shard", self.games_per_shard)?;
        positive("threads", self.threads)?;
        positive("parallel_games", self.parallel_games)?;
        positive("leaves_per_gather", self.leaves_per_gather)?;
        if self.simulations == 0 || self.fast_simulations == 0 {
            return Err("selfplay.simulations and selfplay.fast_simulations must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.full_search_share) || self.full_search_share == 0.0 {
            return Err(format!("selfplay.full_search_share must be in (0, 1], got {}", self.full_search_share));
        }
        if self.opening_plies > MAX_OPENING_PLIES {
            return Err(format!(
                "selfplay.opening_plies must be at most {MAX_OPENING_PLIES}, got {}",
                self.opening_plies
            ));
        }
        // Written as a negated test so that NaN is refused too.
        let temperature = |key: &str, t: f32| {
            if !(0.0..=10.0).contains(&t) { Err(format!("selfplay.{key} must be in [0, 10], got {t}")) } else { Ok(()) }
        };
        temperature("temperature", self.temperature)?;
        temperature("temperature_final", self.temperature_final)?;
        if !(self.temperature_halflife >= 0.0 && self.temperature_halflife.is_finite()) {
            return Err(format!(
                "selfplay.temperature_halflife must be a finite number of plies of at least 0, got {}",
                self.temperature_halflife
            ));
        }
        if !(1..=MAX_SERVICE_BATCH).contains(&self.service_batch) {
            return Err(format!(
                "selfplay.service_batch must be in 1..={MAX_SERVICE_BATCH}, got {}",
                self.service_batch
            ));
        }
        if self.service_flush_us > MAX_SERVICE_FLUSH_US {
            return Err(format!(
                "selfplay.service_flush_us must be at most {MAX_SERVICE_FLUSH_US} (one second), got {}",
                self.service_flush_us
            ));
        }
        Ok(())
    }
}
