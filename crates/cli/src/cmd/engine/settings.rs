//! The search settings that `set KEY VALUE` changes. Every value is checked before anything
//! changes, so a refused `set` leaves the engine as it was.

use anyhow::bail;

/// Simulations a move by default: enough for rollout MCTS to play sensibly in well under a
/// second on one core.
pub const DEFAULT_SIMULATIONS: u32 = 1000;

/// The most simulations a move: the cap every front-end shares.
pub use mancala_agents::MAX_SIMULATIONS;

use super::clock::MAX_TIME_MS;

/// Below this a positive temperature is refused: the search samples with visits^(1/T), which
/// overflows for large visit counts when T is tiny. Temperature 0 (most visited) covers it.
pub const MIN_TEMPERATURE: f32 = 0.05;
pub const MAX_TEMPERATURE: f32 = 100.0;

/// The most threads one search may use (the cap every front-end shares).
pub const MAX_THREADS: u32 = mancala_agents::MAX_THREADS as u32;

/// The keys `set` knows, as its error message lists them.
pub const KEYS: &str = "simulations, movetime, temperature, seed, threads";

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Simulations a `genmove` or `analyze`.
    pub simulations: u32,
    /// 0: play the most visited move; above: sample moves with visits^(1/T).
    pub temperature: f32,
    /// Seeds the search and the evaluator; the same seed and commands give the same moves.
    pub seed: u64,
    /// Threads that evaluate each batch of the search's leaves.
    pub threads: u32,
    /// A fixed time a move in milliseconds, instead of `simulations`; 0: off.
    pub movetime: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { simulations: DEFAULT_SIMULATIONS, temperature: 0.0, seed: 0, threads: 1, movetime: 0 }
    }
}

/// One checked `set KEY VALUE`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Simulations(u32),
    Temperature(f32),
    Seed(u64),
    Threads(u32),
    MoveTime(u64),
}

impl Setting {
    /// Reads `KEY VALUE`.
    ///
    /// # Errors
    /// An unknown key, or a value that is not a number in the key's range; both name the
    /// bad input and what is allowed.
    pub fn parse(key: &str, value: &str) -> anyhow::Result<Setting> {
        let bad = |allowed: &str| anyhow::anyhow!("bad value '{value}' for {key}: expected {allowed}");
        match key {
            "simulations" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_SIMULATIONS).contains(&n) => Ok(Setting::Simulations(n)),
                _ => Err(bad(&format!("a whole number from 1 to the cap MAX_SIMULATIONS = {MAX_SIMULATIONS}"))),
            },
            "movetime" => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_TIME_MS => Ok(Setting::MoveTime(ms)),
                _ => Err(bad(&format!("milliseconds from 0 (off: search by simulations) to {MAX_TIME_MS}"))),
            },
            "temperature" => match value.parse::<f32>() {
                Ok(t) if t == 0.0 || (MIN_TEMPERATURE..=MAX_TEMPERATURE).contains(&t) => Ok(Setting::Temperature(t)),
                _ => {
                    Err(bad(&format!("0 (most visited move) or a number from {MIN_TEMPERATURE} to {MAX_TEMPERATURE}")))
                }
            },
            "seed" => value.parse::<u64>().map(Setting::Seed).map_err(|_| bad("a whole number from 0 to 2^64-1")),
            "threads" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(Setting::Threads(n)),
                _ => Err(bad(&format!("a whole number from 1 to {MAX_THREADS}"))),
            },
            _ => bail!("unknown setting '{key}': expected one of {KEYS}"),
        }
    }
}

impl Settings {
    pub fn apply(&mut self, setting: Setting) {
        match setting {
            Setting::Simulations(n) => self.simulations = n,
            Setting::Temperature(t) => self.temperature = t,
            Setting::Seed(s) => self.seed = s,
            Setting::Threads(n) => self.threads = n,
            Setting::MoveTime(ms) => self.movetime = ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_key_in_range() {
        assert_eq!(Setting::parse("simulations", "50").unwrap(), Setting::Simulations(50));
        assert_eq!(Setting::parse("temperature", "0").unwrap(), Setting::Temperature(0.0));
        assert_eq!(Setting::parse("temperature", "1.5").unwrap(), Setting::Temperature(1.5));
        assert_eq!(Setting::parse("seed", "18446744073709551615").unwrap(), Setting::Seed(u64::MAX));
        assert_eq!(Setting::parse("threads", "4").unwrap(), Setting::Threads(4));
        assert_eq!(Setting::parse("movetime", "250").unwrap(), Setting::MoveTime(250));
        assert_eq!(Setting::parse("movetime", "0").unwrap(), Setting::MoveTime(0));
    }

    #[test]
    fn refuses_values_out_of_range_naming_them() {
        for (key, value) in [
            ("simulations", "0"),
            ("simulations", "-3"),
            ("simulations", "1000001"),
            ("simulations", "many"),
            ("temperature", "-1"),
            ("temperature", "0.01"),
            ("temperature", "NaN"),
            ("temperature", "inf"),
            ("temperature", "101"),
            ("seed", "-1"),
            ("seed", "1.5"),
            ("threads", "0"),
            ("threads", "257"),
            ("movetime", "-1"),
            ("movetime", "3600001"),
            ("movetime", "fast"),
        ] {
            let message = Setting::parse(key, value).unwrap_err().to_string();
            assert!(message.contains(&format!("'{value}'")) && message.contains(key), "{key} {value}: {message}");
        }
    }

    #[test]
    fn refuses_unknown_keys_listing_the_known_ones() {
        let message = Setting::parse("visits", "5").unwrap_err().to_string();
        assert!(message.contains("'visits'") && message.contains(KEYS), "{message}");
    }

    #[test]
    fn apply_changes_only_its_key() {
        let mut s = Settings::default();
        s.apply(Setting::Seed(9));
        assert_eq!(s, Settings { seed: 9, ..Settings::default() });
    }
}
