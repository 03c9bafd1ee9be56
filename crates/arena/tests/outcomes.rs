//! The reference agents' strength order on Oware, as the issue asks: search beats chance
//! and deeper search beats a one-ply capture count. Fixed seeds, games in parallel.

use mancala_arena::{MatchConfig, play_match};
use mancala_rules::parse_rules;

#[test]
fn mcts_400_beats_random_in_95_percent_of_40_oware_games() {
    let game = parse_rules("oware").unwrap();
    let factory = |spec: &str, seed: u64| mancala_agents::build(&game, spec, seed);
    let config = MatchConfig { games: 40, seed: 2024, ..MatchConfig::default() };
    let result = play_match(&game, "mcts:sims=400", "random", &factory, &config, &mut |_| Ok(())).unwrap();
    assert_eq!(result.games(), 40);
    assert!(result.total.wins >= 38, "mcts:sims=400 vs random: {}", result.total);
}

#[test]
fn alphabeta_6_beats_greedy_clearly_on_oware() {
    let game = parse_rules("oware").unwrap();
    let factory = |spec: &str, seed: u64| mancala_agents::build(&game, spec, seed);
    let config = MatchConfig { games: 40, seed: 2024, ..MatchConfig::default() };
    let result = play_match(&game, "alphabeta:depth=6", "greedy", &factory, &config, &mut |_| Ok(())).unwrap();
    assert!(result.score() >= 0.75, "alphabeta:depth=6 vs greedy: {} ({:.1}%)", result.total, 100.0 * result.score());
    let (_, lo, _) = result.elo();
    assert!(lo > 0.0, "the 95% interval excludes equal strength");
}
