//! Reading rules strings: `PRESET [key=value ...]`, for example `oware grand_slam=capture-all`
//! or `kalah:6,6 empty_capture=true`.

use crate::error::RulesError;

/// A rules string split into its preset (with an optional `:a,b` size suffix) and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesSpec<'a> {
    /// The preset name, lower case, without the size suffix.
    pub preset: String,
    /// The numbers after `:` in the preset (`kalah:6,6` gives `[6, 6]`).
    pub sizes: Vec<u32>,
    /// The `key=value` options, in the order given, keys unique.
    pub options: Vec<(&'a str, &'a str)>,
}

impl<'a> RulesSpec<'a> {
    /// Splits a rules string. Keys may be written with `-` or `_`.
    ///
    /// # Errors
    /// An empty string, a token without `=`, a repeated key or a size that is not a number.
    pub fn parse(text: &'a str, presets: &[&str]) -> Result<RulesSpec<'a>, RulesError> {
        let mut tokens = text.split_whitespace();
        let head = tokens.next().ok_or_else(|| RulesError::Empty { allowed: presets.join(", ") })?;
        let (name, sizes) = match head.split_once(':') {
            None => (head, Vec::new()),
            Some((name, sizes)) => {
                let sizes = sizes
                    .split(',')
                    .map(|s| {
                        s.trim().parse::<u32>().map_err(|_| RulesError::BadSize {
                            text: head.to_string(),
                            reason: format!("'{s}' is not a whole number"),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (name, sizes)
            }
        };
        let mut options: Vec<(&str, &str)> = Vec::new();
        for token in tokens {
            let (key, value) =
                token.split_once('=').ok_or_else(|| RulesError::NotKeyValue { token: token.to_string() })?;
            if options.iter().any(|(k, _)| same_key(k, key)) {
                return Err(RulesError::Duplicate { key: key.to_string() });
            }
            options.push((key, value));
        }
        Ok(RulesSpec { preset: name.to_ascii_lowercase(), sizes, options })
    }
}

/// Keys compare with `-` and `_` taken as equal, any case.
pub fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(x, y)| {
            let norm = |c: u8| if c == b'-' { b'_' } else { c.to_ascii_lowercase() };
            norm(x) == norm(y)
        })
}

/// Parses one of a fixed set of named values.
///
/// # Errors
/// [`RulesError::BadValue`] listing the allowed names.
pub fn parse_choice<T: Copy>(key: &str, value: &str, choices: &[(&str, T)]) -> Result<T, RulesError> {
    choices.iter().find(|(name, _)| name.eq_ignore_ascii_case(value)).map(|(_, v)| *v).ok_or_else(|| {
        RulesError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            allowed: choices.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        }
    })
}

/// Parses a whole number in `min..=max`.
///
/// # Errors
/// [`RulesError::BadValue`] naming the range.
pub fn parse_number(key: &str, value: &str, min: u32, max: u32) -> Result<u32, RulesError> {
    match value.parse::<u32>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(RulesError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            allowed: format!("a whole number from {min} to {max}"),
        }),
    }
}

/// Parses `true`/`false`.
///
/// # Errors
/// [`RulesError::BadValue`].
pub fn parse_bool(key: &str, value: &str) -> Result<bool, RulesError> {
    parse_choice(key, value, &[("true", true), ("false", false)])
}

/// The error for a key the game does not know.
pub fn unknown_key(game: &str, key: &str, allowed: &[&str]) -> RulesError {
    RulesError::UnknownKey { game: game.to_string(), key: key.to_string(), allowed: allowed.join(", ") }
}
