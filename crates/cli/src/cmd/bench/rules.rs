//! `bench rules`: random playouts from the start position on one thread.
//!
//! The loop is what a rollout pays per move: the end test, the legal moves, a random pick and
//! the sowing. It runs on the concrete game type, so the compiler sees one game and inlines
//! it, as a search specialised to that game would. Oware's cycle rule is left to the
//! position's own guards (`max_plies`, `cycle=plies:N`), as in the search's playouts.

use std::time::{Duration, Instant};

use mancala_rules::{AnyGame, Game};

use super::measure::{CpuShare, per_second};
use super::{Common, default_game};

/// Arguments of `mancala-zero bench rules`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Play the game with the sowing engine from its description even where a preset's
    /// hand-written engine would be chosen (to compare the two on the same game).
    #[arg(long)]
    described: bool,
    /// Seed of the random move picks.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Common { game, seconds } = args.common;
    let mut game = game.unwrap_or_else(default_game);
    if args.described && !matches!(game, AnyGame::Described(_)) {
        game = AnyGame::Described(mancala_rules::sowing::Described::new(game.description())?);
    }
    let share = CpuShare::start();
    let tally = match &game {
        AnyGame::Oware(g) => playouts(g, seconds, args.seed),
        AnyGame::Kalah(g) => playouts(g, seconds, args.seed),
        AnyGame::BaAwa(g) => playouts(g, seconds, args.seed),
        AnyGame::Owela(g) => playouts(g, seconds, args.seed),
        AnyGame::Described(g) => playouts(g, seconds, args.seed),
    };
    println!("game: {}", game.rules_string());
    println!("engine: {}", if matches!(game, AnyGame::Described(_)) { "sowing (described)" } else { "hand-written" });
    println!("playouts: {} in {:.2} s", tally.games, tally.elapsed.as_secs_f64());
    println!("games/s: {}", per_second(tally.games, tally.elapsed));
    println!("plies/game: {:.1}", tally.moves as f64 / tally.games as f64);
    if let Some(line) = share.report() {
        println!("{line}");
    }
    println!("moves/s: {}", per_second(tally.moves, tally.elapsed));
    Ok(())
}

/// What a run of playouts did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    pub moves: u64,
    pub elapsed: Duration,
}

/// Plays random games from the start until `budget` has passed (at least one game).
pub fn playouts<G: Game>(game: &G, budget: Duration, seed: u64) -> Tally {
    let start_pos = game.start();
    let mut rng = WyRand::new(seed);
    let (mut games, mut moves) = (0u64, 0u64);
    let start = Instant::now();
    loop {
        moves += playout(game, start_pos, &mut rng);
        games += 1;
        // One clock read a game (hundreds of moves) costs nothing measurable.
        let elapsed = start.elapsed();
        if elapsed >= budget {
            return Tally { games, moves, elapsed };
        }
    }
}

/// Plays one random game from `pos` to its end; returns the number of moves.
#[inline]
pub fn playout<G: Game>(game: &G, mut pos: G::Position, rng: &mut WyRand) -> u64 {
    let mut moves = 0;
    while !game.status(&pos).is_over() {
        let legal = game.legal_moves(&pos);
        let action = legal.nth(rng.below(legal.len())).expect("an ongoing game has a legal move");
        game.play_unchecked(&mut pos, action);
        moves += 1;
    }
    moves
}

/// wyrand (Wang Yi's one-multiply generator): statistically fine for picking moves and a
/// few times cheaper than a general-purpose generator, which matters when a move costs
/// about as much as a random number.
#[derive(Clone, Debug)]
pub struct WyRand(u64);

impl WyRand {
    pub fn new(seed: u64) -> Self {
        WyRand(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// A number in `0..n` (`n > 0`), by Lemire's multiply-shift (no division).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::parse_rules;

    #[test]
    fn below_covers_the_range_evenly() {
        let mut rng = WyRand::new(9);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[rng.below(6)] += 1;
        }
        // Each bucket expects 10,000; 5 standard deviations is about 450.
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
    }

    /// The playout loop plays legal moves to a finished game: replaying the same picks
    /// through `Game::play`, which checks every move, reaches the same end.
    #[test]
    fn playouts_play_legal_games_to_the_end() {
        for rules in ["oware", "ouril", "awale", "kalah", "ba-awa", "owela"] {
            let game = parse_rules(rules).unwrap();
            for seed in 0..5 {
                let moves = playout(&game, game.start(), &mut WyRand::new(seed));
                let mut rng = WyRand::new(seed);
                let mut pos = game.start();
                for _ in 0..moves {
                    let legal = game.legal_moves(&pos);
                    let action = legal.nth(rng.below(legal.len())).unwrap();
                    pos = game.play(&pos, action).unwrap().0;
                }
                assert!(game.status(&pos).is_over(), "{rules} seed {seed}");
                assert!(moves > 0, "{rules} seed {seed}");
            }
        }
    }

    #[test]
    fn playouts_stop_after_the_budget() {
        let game = parse_rules("kalah").unwrap();
        let tally = playouts(&game, Duration::ZERO, 3);
        assert_eq!(tally.games, 1);
        assert!(tally.moves > 0);
    }
}
