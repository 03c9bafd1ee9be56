//! The arithmetic the CPU kernel runs a network in: `fp32`, `int8`, or `auto` (the run
//! config's `network.inference_precision`, `bench nn --precision`, and the word a `net:`
//! agent spec may carry).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::int8::Int8Path;

/// How the plain-Rust CPU kernel computes the residual blocks (see [`crate::int8`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// The trained weights as they are: the answers training sees.
    #[default]
    Fp32,
    /// The residual blocks in integers (12-bit weights, activations of up to 13 bits; see
    /// [`crate::int8`]), on whatever path the CPU has (the scalar one is slower than FP32).
    Int8,
    /// `int8` where the CPU has an int8 SIMD path (AVX-512 VNNI or AVX2), else `fp32`.
    Auto,
}

impl Precision {
    /// Every precision, as the config and the command line spell them.
    pub const ALL: [Precision; 3] = [Precision::Fp32, Precision::Int8, Precision::Auto];

    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Int8 => "int8",
            Precision::Auto => "auto",
        }
    }

    /// `Fp32` or `Int8`: what `Auto` means on this CPU.
    pub fn resolve(self) -> Precision {
        match self {
            Precision::Auto if Int8Path::has_simd() => Precision::Int8,
            Precision::Auto => Precision::Fp32,
            other => other,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A precision name that is none of `fp32`, `int8`, `auto`.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("unknown inference precision '{0}': expected fp32, int8 or auto")]
pub struct UnknownPrecision(pub String);

impl FromStr for Precision {
    type Err = UnknownPrecision;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Precision::ALL.into_iter().find(|p| p.name() == text).ok_or_else(|| UnknownPrecision(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_named() {
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        let err = "fp16".parse::<Precision>().unwrap_err();
        assert!(err.to_string().contains("'fp16'"), "{err}");
    }

    #[test]
    fn auto_resolves_to_a_concrete_precision() {
        let auto = Precision::Auto.resolve();
        assert_eq!(auto, if Int8Path::has_simd() { Precision::Int8 } else { Precision::Fp32 });
        assert_eq!(Precision::Int8.resolve(), Precision::Int8);
        assert_eq!(Precision::Fp32.resolve(), Precision::Fp32);
    }
}
