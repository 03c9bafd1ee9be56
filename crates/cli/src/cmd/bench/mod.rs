//! `mancala-zero bench`: how fast the rules, the search and the network run on one core.
//!
//! Each kind prints a few figures and, as its last line, the one figure it is named after
//! (`moves/s: N`, `simulations/s: N`, `train step (batch 256): X ms`), so scripts can read
//! the last line. Nothing here asserts a speed: the targets in docs/design.md are for a person to
//! compare, on a quiet machine.

mod fleet;
mod mcts;
mod measure;
pub(crate) mod nn;
mod rules;
mod selfplay;

use std::time::Duration;

use mancala_rules::AnyGame;

/// Arguments of `mancala-zero bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    kind: Kind,
}

#[derive(clap::Subcommand, Debug)]
enum Kind {
    /// Random playouts from the start position: legal moves, sow, end test, a random pick.
    Rules(rules::Args),
    /// Rollout MCTS from the start position: one random playout a leaf.
    Mcts(mcts::Args),
    /// The network: evaluator and raw forward at batch 1 to 512, and a training step.
    Nn(nn::Args),
    /// Self-play end to end (search, network, recording): positions a second.
    Selfplay(selfplay::Args),
    /// Simulated workers upload shards to a store while the trainer ingests them: rows a second.
    Fleet(fleet::Args),
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.kind {
        Kind::Rules(a) => rules::run(a),
        Kind::Mcts(a) => mcts::run(a),
        Kind::Nn(a) => nn::run(a),
        Kind::Selfplay(a) => selfplay::run(a),
        Kind::Fleet(a) => fleet::run(a),
    }
}

/// What every kind takes: the game and how long to measure.
#[derive(clap::Args, Debug)]
struct Common {
    /// Rules string: a preset (oware, abapa, ouril, awale, oware-capture-all, kalah, ba-awa,
    /// owela) and `key=value` options, e.g. "oware grand_slam=capture-all" [default: oware].
    #[arg(long, value_parser = parse_game)]
    game: Option<AnyGame>,
    /// How long to measure, in seconds (fractions allowed).
    #[arg(long, default_value = "3", value_parser = parse_seconds, allow_negative_numbers = true)]
    seconds: Duration,
}

/// The game benchmarked when none is named: Oware (Abapa), the project's main game.
fn default_game() -> AnyGame {
    mancala_rules::parse_rules("oware").expect("oware is a preset")
}

fn parse_game(text: &str) -> Result<AnyGame, String> {
    mancala_rules::parse_rules(text).map_err(|e| e.to_string())
}

/// A positive, finite number of seconds, at most a day (a typo guard, not a real limit).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(format!("{text} seconds is out of range: give a number above 0 and at most 86400"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_accept_fractions_and_refuse_nonsense() {
        assert_eq!(parse_seconds("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("3"), Ok(Duration::from_secs(3)));
        for bad in ["0", "-1", "abc", "inf", "NaN", "100000", ""] {
            let err = parse_seconds(bad).unwrap_err();
            assert!(err.contains(bad), "{bad}: {err}");
        }
    }

    #[test]
    fn games_parse_through_the_rules_crate() {
        assert_eq!(parse_game("kalah").unwrap().family(), "kalah");
        let err = parse_game("chess").unwrap_err();
        assert!(err.contains("chess"), "{err}");
    }
}
