//! Match mechanics on Kalah with fixed seeds: colours, openings, determinism across thread
//! counts, SPRT stops, records that replay, and errors that name the bad input.

use std::collections::HashSet;

use mancala_agents::SpecError;
use mancala_arena::{
    ArenaError, GameRecord, MatchConfig, Sprt, SprtDecision, play_match, read_records, round_robin, write_record,
};
use mancala_mcts::Agent;
use mancala_rules::{Action, AnyGame, Game, Line, parse_rules};

/// Always the first legal move: a deterministic agent that ignores its seed.
struct First;

impl<G: Game> Agent<G> for First {
    fn name(&self) -> String {
        "first".into()
    }
    fn choose(&mut self, line: &Line<G>) -> Action {
        line.legal_moves().iter().next().expect("an ongoing game has a legal move")
    }
}

/// Plays a move that is never legal.
struct Cheat;

impl<G: Game> Agent<G> for Cheat {
    fn name(&self) -> String {
        "cheat".into()
    }
    fn choose(&mut self, _line: &Line<G>) -> Action {
        63
    }
}

fn kalah() -> AnyGame {
    parse_rules("kalah").unwrap()
}

fn factory(game: &AnyGame) -> impl Fn(&str, u64) -> Result<Box<dyn Agent<AnyGame>>, SpecError> + Sync + '_ {
    move |spec: &str, seed: u64| match spec {
        "first" => Ok(Box::new(First) as Box<dyn Agent<AnyGame>>),
        "cheat" => Ok(Box::new(Cheat)),
        _ => mancala_agents::build(game, spec, seed),
    }
}

fn config(games: u32, seed: u64) -> MatchConfig {
    MatchConfig { games, seed, threads: Some(2), ..MatchConfig::default() }
}

/// The position after a record's opening.
fn after_opening(game: &AnyGame, record: &GameRecord) -> <AnyGame as Game>::Position {
    let mut line = Line::new(game.clone());
    for label in &record.opening {
        line.play_label(label).unwrap();
    }
    *line.position()
}

#[test]
fn colours_alternate_and_pairs_share_distinct_openings() {
    let game = kalah();
    let result = play_match(&game, "greedy", "first", &factory(&game), &config(24, 3), &mut |_| Ok(())).unwrap();
    assert_eq!(result.records.len(), 24);
    for (i, r) in result.records.iter().enumerate() {
        let (south, north) = if i % 2 == 0 { ("greedy", "first") } else { ("first", "greedy") };
        assert_eq!((r.south.as_str(), r.north.as_str()), (south, north), "game {i}");
        assert_eq!(r.opening.len(), 4, "game {i}");
        assert_eq!(r.moves[..4], r.opening[..], "game {i}");
    }
    let mut positions = Vec::new();
    for pair in result.records.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        let pos = after_opening(&game, &pair[0]);
        assert!(!positions.contains(&pos), "two pairs start from the same position");
        positions.push(pos);
    }
    // Games as a whole differ too.
    let distinct: HashSet<&Vec<String>> = result.records.iter().map(|r| &r.moves).collect();
    assert_eq!(distinct.len(), 24);
    // Counts from A's view add up, by colour too.
    assert_eq!(result.a_south.games(), 12);
    assert_eq!(result.a_north.games(), 12);
    let mut sum = result.a_south;
    sum += result.a_north;
    assert_eq!(sum, result.total);
    // The pairs, counted again from the records: A's points in each pair's two games.
    let mut by_points = [0u32; 5];
    let mut split = 0;
    for (k, pair) in result.records.chunks(2).enumerate() {
        let points: Vec<u32> = pair
            .iter()
            .map(|r| match r.result.split('+').next().unwrap() {
                "draw" => 1,
                winner => 2 * u32::from((winner == "south") == (r.south == "greedy")),
            })
            .collect();
        by_points[(points[0] + points[1]) as usize] += 1;
        split += u32::from(points == [2, 0] || points == [0, 2]);
        assert!(pair[0].south == "greedy" && pair[1].north == "greedy", "pair {k}");
    }
    let p = result.pairs;
    assert_eq!([p.lost_both, p.drew_lost, p.split + p.drew_both, p.won_drew, p.won_both], by_points, "{p:?}");
    assert_eq!(p.split, split);
    assert_eq!(p.count(), 12);
    assert!(p.won_both > 0, "greedy beats the first legal move from some openings as both colours: {p:?}");
}

#[test]
fn a_deterministic_player_against_itself_splits_every_pair_by_colour() {
    // Both games of a pair are the same game with the players' names swapped, so the colour
    // that wins one wins the other: no pair is won or lost by A twice.
    let game = kalah();
    let result = play_match(&game, "first", "first", &factory(&game), &config(40, 5), &mut |_| Ok(())).unwrap();
    let p = result.pairs;
    assert_eq!(p.split + p.drew_both, 20, "{p:?}");
    assert!(p.split > 0, "{p:?}");
    assert_eq!((p.won_both, p.won_drew, p.drew_lost, p.lost_both), (0, 0, 0, 0), "{p:?}");
}

#[test]
fn openings_grow_when_the_asked_depth_has_too_few_positions() {
    let game = kalah();
    let c = MatchConfig { opening_plies: 0, ..config(8, 1) };
    let result = play_match(&game, "first", "first", &factory(&game), &c, &mut |_| Ok(())).unwrap();
    let positions: Vec<_> = result.records.iter().step_by(2).map(|r| after_opening(&game, r)).collect();
    assert!(result.records[0].opening.is_empty(), "the start itself is the first opening");
    for (i, p) in positions.iter().enumerate() {
        assert!(!positions[..i].contains(p), "pair {i} repeats an opening");
    }
    // One deterministic agent on both sides plays both games of a pair alike, yet no two
    // pairs are the same game.
    let distinct: HashSet<&Vec<String>> = result.records.iter().map(|r| &r.moves).collect();
    assert_eq!(distinct.len(), 4);
}

#[test]
fn same_result_with_one_and_two_threads() {
    let game = kalah();
    let run = |threads| {
        let c = MatchConfig { threads: Some(threads), ..config(8, 11) };
        let mut seen = Vec::new();
        let result = play_match(&game, "mcts:sims=60", "greedy", &factory(&game), &c, &mut |r: &GameRecord| {
            seen.push(r.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, result.records, "records are handed out in game order");
        result
    };
    let one = run(1);
    let two = run(2);
    assert_eq!(one, two);
    // The seed matters: another one plays other games.
    let other = play_match(&game, "mcts:sims=60", "greedy", &factory(&game), &config(8, 12), &mut |_| Ok(())).unwrap();
    assert_ne!(other.records, one.records);
}

#[test]
fn records_parse_back_and_replay_to_their_result() {
    for rules in ["kalah", "oware", "ba-awa", "owela"] {
        records_replay(&parse_rules(rules).unwrap());
    }
}

fn records_replay(game: &AnyGame) {
    let game = game.clone();
    let result = play_match(&game, "greedy", "random", &factory(&game), &config(6, 5), &mut |_| Ok(())).unwrap();
    let mut buf = Vec::new();
    for r in &result.records {
        write_record(&mut buf, r).unwrap();
    }
    let text = String::from_utf8(buf.clone()).unwrap();
    assert_eq!(text.lines().count(), 6);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    for key in ["rules", "south", "north", "opening", "moves", "result", "plies"] {
        assert!(first.get(key).is_some(), "missing {key}: {first}");
    }
    assert_eq!(first["rules"], game.rules_string());
    let back = read_records(buf.as_slice()).unwrap();
    assert_eq!(back, result.records);
    for r in &back {
        let outcome = r.replay(&game).unwrap();
        assert_eq!(outcome.to_string(), r.result);
        assert_eq!(r.plies, r.moves.len());
    }
}

#[test]
fn replay_refuses_a_tampered_record() {
    let game = kalah();
    let result = play_match(&game, "greedy", "random", &factory(&game), &config(2, 5), &mut |_| Ok(())).unwrap();
    let good = &result.records[0];
    let mut wrong_result = good.clone();
    wrong_result.result = if good.result == "draw" { "south+2".into() } else { "draw".into() };
    assert!(wrong_result.replay(&game).unwrap_err().to_string().contains("recorded result"));
    let mut short = good.clone();
    short.moves.pop();
    short.plies -= 1;
    assert!(short.replay(&game).unwrap_err().to_string().contains("not over"));
    let mut other_rules = good.clone();
    other_rules.rules = "kalah:4,3".into();
    assert!(other_rules.replay(&game).unwrap_err().to_string().contains("rules"));
    let bad_line = read_records("{\"rules\": 3}\n".as_bytes()).unwrap_err();
    assert!(bad_line.to_string().contains("line 1"), "{bad_line}");
}

#[test]
fn sprt_accepts_h1_for_a_stronger_agent_and_stops_early() {
    let game = kalah();
    let c = MatchConfig { sprt: Some(Sprt::new(0.0, 100.0)), ..config(400, 7) };
    let result = play_match(&game, "greedy", "random", &factory(&game), &c, &mut |_| Ok(())).unwrap();
    let report = result.sprt.unwrap();
    assert_eq!(report.decision, SprtDecision::H1);
    assert!(report.llr >= Sprt::new(0.0, 100.0).bounds().1);
    assert!(result.games() < 400, "stopped after {} games", result.games());
    // It stops at a batch boundary: 8 pairs a look.
    assert_eq!(result.games() % 16, 0);
}

#[test]
fn sprt_accepts_h0_for_equal_agents() {
    let game = kalah();
    let c = MatchConfig { sprt: Some(Sprt::new(0.0, 100.0)), ..config(1000, 7) };
    let result = play_match(&game, "random", "random", &factory(&game), &c, &mut |_| Ok(())).unwrap();
    let report = result.sprt.unwrap();
    assert_eq!(report.decision, SprtDecision::H0, "llr {} after {}", report.llr, result.total);
    assert!(result.games() < 1000);
}

#[test]
fn sprt_without_decision_plays_every_game() {
    let game = kalah();
    // Far-apart hypotheses around a true gap of neither: 16 games cannot decide.
    let c = MatchConfig { sprt: Some(Sprt { elo0: -20.0, elo1: 20.0, alpha: 0.001, beta: 0.001 }), ..config(16, 7) };
    let result = play_match(&game, "random", "random", &factory(&game), &c, &mut |_| Ok(())).unwrap();
    assert_eq!(result.games(), 16);
    assert_eq!(result.sprt.unwrap().decision, SprtDecision::None);
}

#[test]
fn bad_input_is_named() {
    let game = kalah();
    let f = factory(&game);
    let err = play_match(&game, "greedy", "gredy", &f, &config(4, 1), &mut |_| Ok(())).unwrap_err();
    assert!(matches!(&err, ArenaError::Agent { spec, .. } if spec == "gredy"), "{err}");
    assert!(err.to_string().contains("'gredy'"));
    let err = play_match(&game, "mcts:sims=0", "greedy", &f, &config(4, 1), &mut |_| Ok(())).unwrap_err();
    assert!(err.to_string().contains("mcts:sims=0"), "{err}");
    let err = play_match(&game, "greedy", "random", &f, &config(5, 1), &mut |_| Ok(())).unwrap_err();
    assert!(err.to_string().contains("even number of games") && err.to_string().contains('5'), "{err}");
    let err = play_match(&game, "cheat", "random", &f, &config(2, 1), &mut |_| Ok(())).unwrap_err();
    assert!(matches!(&err, ArenaError::IllegalMove { agent, .. } if agent == "cheat"), "{err}");
    let err =
        play_match(&game, "greedy", "random", &f, &config(4, 1), &mut |_| Err(std::io::Error::other("disk full")))
            .unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
}

#[test]
fn round_robin_plays_every_pair_and_rates_them() {
    let game = kalah();
    let agents: Vec<String> = ["random", "greedy", "alphabeta:depth=3"].map(String::from).to_vec();
    let mut count = 0;
    let games = |i: usize, j: usize| if (i, j) == (0, 1) { 10 } else { 16 };
    let table = round_robin(&game, &agents, &factory(&game), &config(0, 2), &games, &mut |_| {
        count += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(count, 10 + 16 + 16);
    let pairs: Vec<(&str, &str, u32)> = table.pairs.iter().map(|m| (m.a.as_str(), m.b.as_str(), m.games())).collect();
    assert_eq!(
        pairs,
        [("random", "greedy", 10), ("random", "alphabeta:depth=3", 16), ("greedy", "alphabeta:depth=3", 16)]
    );
    assert_eq!(table.ratings[0], 0.0);
    // Random is the weakest: both others rate above it.
    assert!(table.ratings[1] > 0.0 && table.ratings[2] > 0.0, "{:?}", table.ratings);
    let text = table.to_string();
    assert!(text.contains("alphabeta:depth=3") && text.contains("ratings"), "{text}");
    let err = round_robin(&game, &agents[..1], &factory(&game), &config(2, 1), &|_, _| 2, &mut |_| Ok(())).unwrap_err();
    assert!(matches!(err, ArenaError::TooFewAgents(1)));
    let twice = vec!["random".to_string(), "random".to_string()];
    let err = round_robin(&game, &twice, &factory(&game), &config(2, 1), &|_, _| 2, &mut |_| Ok(())).unwrap_err();
    assert!(err.to_string().contains("'random' appears twice"));
}
