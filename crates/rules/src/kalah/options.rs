//! Kalah's rules string: `kalah[:HOUSES,SEEDS] houses=.. seeds=.. empty_capture=.. end=..`.

use std::fmt;

use crate::error::RulesError;
use crate::options::{RulesSpec, parse_bool, parse_choice, parse_number, same_key, unknown_key};

/// The most houses a row may have (32 pits fill the position's fixed array).
pub const MAX_HOUSES: usize = 16;

/// The most seeds in play: every pit and store count fits a `u8`.
pub const MAX_TOTAL_SEEDS: u32 = 255;

/// The option keys, as the canonical rules string writes them.
const KEYS: &[&str] = &["houses", "seeds", "empty_capture", "end"];

/// When the game ends (docs/rules.md section 2, rule 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KalahEnd {
    /// After any move, if either row is empty (OpenSpiel's `mancala`).
    EitherRowEmpty,
    /// When the player to move has no seeds in their row.
    MoverRowEmpty,
}

impl KalahEnd {
    const CHOICES: &[(&str, KalahEnd)] =
        &[("either-row-empty", KalahEnd::EitherRowEmpty), ("mover-row-empty", KalahEnd::MoverRowEmpty)];

    /// The name the rules string uses.
    pub fn name(self) -> &'static str {
        match self {
            KalahEnd::EitherRowEmpty => "either-row-empty",
            KalahEnd::MoverRowEmpty => "mover-row-empty",
        }
    }
}

impl fmt::Display for KalahEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every Kalah rule choice, as read from a rules string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KalahOptions {
    pub houses: u8,
    pub seeds: u8,
    pub empty_capture: bool,
    pub end: KalahEnd,
}

impl Default for KalahOptions {
    /// Kalah(6,4) as OpenSpiel plays it.
    fn default() -> Self {
        KalahOptions { houses: 6, seeds: 4, empty_capture: false, end: KalahEnd::EitherRowEmpty }
    }
}

impl KalahOptions {
    /// Reads the preset's size suffix and the options.
    ///
    /// # Errors
    /// [`RulesError`] naming the unknown key, the bad value or size, a size suffix that an
    /// option contradicts, or a board of more than 255 seeds.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<KalahOptions, RulesError> {
        if spec.preset != "kalah" {
            return Err(RulesError::UnknownPreset { name: spec.preset.clone(), allowed: "kalah".to_string() });
        }
        let mut opts = KalahOptions::default();
        let suffix = match spec.sizes.as_slice() {
            [] => None,
            &[houses, seeds] => {
                let text = format!("kalah:{houses},{seeds}");
                let bad = |reason: String| RulesError::BadSize { text: text.clone(), reason };
                if !(1..=MAX_HOUSES as u32).contains(&houses) {
                    return Err(bad(format!("{houses} houses: expected 1 to {MAX_HOUSES}")));
                }
                if seeds == 0 {
                    return Err(bad("0 seeds a house: expected at least 1".to_string()));
                }
                if 2 * houses * seeds > MAX_TOTAL_SEEDS {
                    return Err(bad(format!(
                        "2 x {houses} houses x {seeds} seeds = {} seeds, at most {MAX_TOTAL_SEEDS} are allowed",
                        2 * houses * seeds
                    )));
                }
                opts.houses = houses as u8;
                opts.seeds = seeds as u8;
                Some((houses, seeds))
            }
            sizes => {
                return Err(RulesError::BadSize {
                    text: format!("kalah:{}", sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
                    reason: "expected kalah:HOUSES,SEEDS (two numbers)".to_string(),
                });
            }
        };
        // A size suffix and an option may both name the size only if they agree.
        let agree = |key: &str, value: &str, given: u32, from_suffix: Option<u32>| match from_suffix {
            Some(s) if s != given => Err(RulesError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                allowed: format!("{s}, as the size suffix says (or leave one of them out)"),
            }),
            _ => Ok(()),
        };
        let mut seeds_value = None;
        for &(key, value) in &spec.options {
            if same_key(key, "houses") {
                let h = parse_number(key, value, 1, MAX_HOUSES as u32)?;
                agree(key, value, h, suffix.map(|s| s.0))?;
                opts.houses = h as u8;
            } else if same_key(key, "seeds") {
                let s = parse_number(key, value, 1, MAX_TOTAL_SEEDS / 2)?;
                agree(key, value, s, suffix.map(|s| s.1))?;
                opts.seeds = s as u8;
                seeds_value = Some((key, value));
            } else if same_key(key, "empty_capture") {
                opts.empty_capture = parse_bool(key, value)?;
            } else if same_key(key, "end") {
                opts.end = parse_choice(key, value, KalahEnd::CHOICES)?;
            } else {
                return Err(unknown_key("kalah", key, KEYS));
            }
        }
        let total = 2 * u32::from(opts.houses) * u32::from(opts.seeds);
        if total > MAX_TOTAL_SEEDS {
            let (key, value) = seeds_value.unwrap_or(("seeds", ""));
            let value = if value.is_empty() { opts.seeds.to_string() } else { value.to_string() };
            return Err(RulesError::BadValue {
                key: key.to_string(),
                value,
                allowed: format!(
                    "at most {} seeds a house with {} houses ({MAX_TOTAL_SEEDS} seeds in all at most)",
                    MAX_TOTAL_SEEDS / (2 * u32::from(opts.houses)),
                    opts.houses
                ),
            });
        }
        Ok(opts)
    }

    /// The canonical rules string: the preset and every option.
    pub fn rules_string(&self) -> String {
        format!(
            "kalah houses={} seeds={} empty_capture={} end={}",
            self.houses, self.seeds, self.empty_capture, self.end
        )
    }
}
