//! The Oware family's rule options (docs/rules.md section 1) and how a rules string sets them.

use std::fmt;

use crate::error::RulesError;
use crate::options::{RulesSpec, parse_choice, parse_number, same_key, unknown_key};

/// The most houses a row may have (the pit array holds 32 pits).
pub const MAX_HOUSES: u32 = 16;
/// The most seeds a board may hold: pit counts are bytes.
pub const MAX_TOTAL_SEEDS: u32 = 255;

/// Option keys, in canonical order.
pub const KEYS: &[&str] = &["houses", "seeds", "grand_slam", "unfed_end", "singletons", "cycle", "max_plies"];

/// Rule 3: what a move whose capture would leave the opponent's row empty does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GrandSlam {
    /// Legal, captures nothing (Abapa, the default).
    NoCapture,
    /// Illegal unless every legal move is one; then the mover plays one and loses.
    Forbidden,
    /// Captures everything it reaches; the opponent then has no move (rule 5).
    CaptureAll,
    /// Captures, then the mover moves again and must leave the opponent a seed (Ouril).
    ExtraTurn,
}

/// Rule 5: who gets the seeds left when the player to move has no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnfedEnd {
    /// Every seed left goes to the player whose row holds it, which is the player to move
    /// whenever that player has seeds (the default).
    MoverTakes,
    /// The seeds left are nobody's.
    NotScored,
}

/// Rule 6: whether a house holding one seed may be played while another holds more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Singletons {
    Free,
    Restricted,
}

/// Rule 8: how endless games end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cycle {
    /// A position occurring again since the last capture ends the game (the default).
    Repetition,
    /// This many plies in a row without a capture end the game.
    Plies(u16),
}

const GRAND_SLAM: &[(&str, GrandSlam)] = &[
    ("no-capture", GrandSlam::NoCapture),
    ("forbidden", GrandSlam::Forbidden),
    ("capture-all", GrandSlam::CaptureAll),
    ("extra-turn", GrandSlam::ExtraTurn),
];
const UNFED_END: &[(&str, UnfedEnd)] = &[("mover-takes", UnfedEnd::MoverTakes), ("not-scored", UnfedEnd::NotScored)];
const SINGLETONS: &[(&str, Singletons)] = &[("free", Singletons::Free), ("restricted", Singletons::Restricted)];

fn name_of<T: PartialEq + Copy>(choices: &[(&'static str, T)], value: T) -> &'static str {
    choices.iter().find(|(_, v)| *v == value).map(|(n, _)| *n).expect("every value has a name")
}

impl fmt::Display for GrandSlam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(name_of(GRAND_SLAM, *self))
    }
}

impl fmt::Display for UnfedEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(name_of(UNFED_END, *self))
    }
}

impl fmt::Display for Singletons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(name_of(SINGLETONS, *self))
    }
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cycle::Repetition => f.write_str("repetition"),
            Cycle::Plies(n) => write!(f, "plies:{n}"),
        }
    }
}

/// Every option of an Oware game, as read from a rules string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwareOptions {
    pub houses: u8,
    pub seeds: u8,
    pub grand_slam: GrandSlam,
    pub unfed_end: UnfedEnd,
    pub singletons: Singletons,
    pub cycle: Cycle,
    pub max_plies: u16,
}

impl Default for OwareOptions {
    /// Abapa: 2 x 6 houses, 4 seeds each, the international rules.
    fn default() -> Self {
        OwareOptions {
            houses: 6,
            seeds: 4,
            grand_slam: GrandSlam::NoCapture,
            unfed_end: UnfedEnd::MoverTakes,
            singletons: Singletons::Free,
            cycle: Cycle::Repetition,
            max_plies: 1000,
        }
    }
}

/// Presets and how each differs from the defaults.
pub const PRESETS: &[&str] = &["oware", "abapa", "ouril", "awale", "oware-capture-all"];

impl OwareOptions {
    /// The options of a preset, before any `key=value` is applied.
    fn preset(name: &str) -> Option<OwareOptions> {
        let d = OwareOptions::default();
        Some(match name {
            "oware" | "abapa" => d,
            "ouril" => OwareOptions { grand_slam: GrandSlam::ExtraTurn, singletons: Singletons::Restricted, ..d },
            "awale" => OwareOptions { grand_slam: GrandSlam::Forbidden, unfed_end: UnfedEnd::NotScored, ..d },
            "oware-capture-all" => OwareOptions { grand_slam: GrandSlam::CaptureAll, ..d },
            _ => return None,
        })
    }

    /// The preset these options are exactly (default size), if any; `oware` for the defaults.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS.iter().filter(|p| **p != "abapa").find(|p| OwareOptions::preset(p) == Some(*self)).copied()
    }

    /// Reads a preset (`oware`, `abapa`, `ouril`, `awale`, `oware-capture-all`), an optional
    /// size suffix `:HOUSES[,SEEDS]` and `key=value` options, which override the preset.
    ///
    /// # Errors
    /// [`RulesError`] naming the unknown preset, key or bad value.
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<OwareOptions, RulesError> {
        let mut o = OwareOptions::preset(&spec.preset)
            .ok_or_else(|| RulesError::UnknownPreset { name: spec.preset.clone(), allowed: PRESETS.join(", ") })?;
        let size_error = |reason: String| RulesError::BadSize {
            text: format!("{}:{}", spec.preset, spec.sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
            reason,
        };
        match spec.sizes.as_slice() {
            [] => {}
            [h] | [h, _] => {
                if !(1..=MAX_HOUSES).contains(h) {
                    return Err(size_error(format!("houses must be from 1 to {MAX_HOUSES}, not {h}")));
                }
                o.houses = *h as u8;
                if let [_, s] = spec.sizes.as_slice() {
                    if !(1..=MAX_TOTAL_SEEDS).contains(s) {
                        return Err(size_error(format!("seeds must be from 1 to {MAX_TOTAL_SEEDS}, not {s}")));
                    }
                    o.seeds = *s as u8;
                }
            }
            _ => return Err(size_error("expected oware:HOUSES or oware:HOUSES,SEEDS".to_string())),
        }
        let mut seeds_text = None;
        for &(key, value) in &spec.options {
            if same_key(key, "houses") {
                o.houses = parse_number(key, value, 1, MAX_HOUSES)? as u8;
            } else if same_key(key, "seeds") {
                o.seeds = parse_number(key, value, 1, MAX_TOTAL_SEEDS)? as u8;
                seeds_text = Some((key, value));
            } else if same_key(key, "grand_slam") {
                o.grand_slam = parse_choice(key, value, GRAND_SLAM)?;
            } else if same_key(key, "unfed_end") {
                o.unfed_end = parse_choice(key, value, UNFED_END)?;
            } else if same_key(key, "singletons") {
                o.singletons = parse_choice(key, value, SINGLETONS)?;
            } else if same_key(key, "cycle") {
                o.cycle = parse_cycle(key, value)?;
            } else if same_key(key, "max_plies") {
                o.max_plies = parse_number(key, value, 1, u32::from(u16::MAX))? as u16;
            } else {
                return Err(unknown_key("oware", key, KEYS));
            }
        }
        let total = 2 * u32::from(o.houses) * u32::from(o.seeds);
        if total > MAX_TOTAL_SEEDS {
            let (key, value) = seeds_text.unwrap_or(("seeds", ""));
            let value = if value.is_empty() { o.seeds.to_string() } else { value.to_string() };
            return Err(RulesError::BadValue {
                key: key.to_string(),
                value,
                allowed: format!(
                    "at most {MAX_TOTAL_SEEDS} seeds in all (2 x houses x seeds), so at most {} with houses={}",
                    MAX_TOTAL_SEEDS / (2 * u32::from(o.houses)),
                    o.houses
                ),
            });
        }
        Ok(o)
    }

    /// The canonical rules string: `oware` and every option.
    pub fn rules_string(&self) -> String {
        format!(
            "oware houses={} seeds={} grand_slam={} unfed_end={} singletons={} cycle={} max_plies={}",
            self.houses, self.seeds, self.grand_slam, self.unfed_end, self.singletons, self.cycle, self.max_plies
        )
    }
}

fn parse_cycle(key: &str, value: &str) -> Result<Cycle, RulesError> {
    if value.eq_ignore_ascii_case("repetition") {
        return Ok(Cycle::Repetition);
    }
    let bad = || RulesError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        allowed: format!("repetition or plies:N (N from 1 to {})", u16::MAX),
    };
    let (head, n) = value.split_once(':').ok_or_else(bad)?;
    if !head.eq_ignore_ascii_case("plies") {
        return Err(bad());
    }
    match n.parse::<u16>() {
        Ok(n) if n >= 1 => Ok(Cycle::Plies(n)),
        _ => Err(bad()),
    }
}
