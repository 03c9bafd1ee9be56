//! Value calibration by phase on real games: an oracle that knows each game's result is
//! perfectly calibrated, a silent value is as good as the yardstick, a confident wrong one is
//! the worst, and every position lands in the phase of its seed count.

use std::collections::HashMap;

use mancala_arena::{GameRecord, MatchConfig, PhaseBy, play_match, value_calibration};
use mancala_mcts::Evaluator;
use mancala_rules::{AnyGame, Game, Line, parse_rules};

fn games(game: &AnyGame, count: u32) -> Vec<GameRecord> {
    let factory = |spec: &str, seed: u64| mancala_agents::build(game, spec, seed);
    let config = MatchConfig { games: count, seed: 5, threads: Some(1), ..MatchConfig::default() };
    play_match(game, "greedy", "random", &factory, &config, &mut |_| Ok(())).unwrap().records
}

/// Answers `value(pos)` for every position, a uniform policy.
struct Fixed<F>(F);

impl<F: Fn(&<AnyGame as Game>::Position) -> f32 + Send> Evaluator<AnyGame> for Fixed<F> {
    fn evaluate(
        &mut self,
        game: &AnyGame,
        positions: &[<AnyGame as Game>::Position],
        policies: &mut [f32],
        values: &mut [f32],
    ) {
        policies.fill(1.0 / game.action_space() as f32);
        for (v, pos) in values.iter_mut().zip(positions) {
            *v = (self.0)(pos);
        }
    }
}

/// Every position of `records` with the result for its player to move (positions met in two
/// games with different results are left out, so the oracle below is exact).
fn results(game: &AnyGame, records: &[GameRecord]) -> HashMap<u64, f32> {
    let mut seen: HashMap<u64, Option<f32>> = HashMap::new();
    for r in records {
        let outcome = r.replay(game).unwrap();
        let mut line = Line::new(game.clone());
        for label in &r.moves {
            let value = outcome.value_for(line.side_to_move());
            let slot = seen.entry(game.hash(line.position())).or_insert(Some(value));
            if *slot != Some(value) {
                *slot = None;
            }
            line.play_label(label).unwrap();
        }
    }
    seen.into_iter().filter_map(|(h, v)| v.map(|v| (h, v))).collect()
}

#[test]
fn an_oracle_is_calibrated_and_a_silent_value_scores_the_yardstick() {
    let game = parse_rules("kalah:4,3").unwrap();
    let records = games(&game, 20);
    let plies: usize = records.iter().map(|r| r.plies).sum();
    // One game at a time, so that the oracle knows each position's result exactly (the start
    // and early positions recur across games with different results).
    for r in &records {
        let one = std::slice::from_ref(r);
        let known = results(&game, one);
        let oracle =
            value_calibration(&game, one, &mut Fixed(|p: &_| known[&game.hash(p)]), PhaseBy::Seeds, 4).unwrap();
        assert_eq!(oracle.len(), 4);
        assert_eq!(oracle.iter().map(|p| p.positions).sum::<usize>(), r.plies);
        for p in &oracle {
            assert_eq!(p.sign_correct, p.decisive, "{p:?}");
            assert_eq!(p.mse(), 0.0);
            assert!(p.calibration_error() < 1e-12);
        }
        // Sure of the opposite of every result: the largest error the bounded value can make.
        let wrong =
            value_calibration(&game, one, &mut Fixed(|p: &_| -known[&game.hash(p)]), PhaseBy::Seeds, 4).unwrap();
        for (w, o) in wrong.iter().zip(&oracle) {
            assert_eq!(w.sign_correct, 0);
            assert!((w.mse() - 4.0 * o.baseline_mse()).abs() < 1e-9, "{w:?}");
            assert!((w.calibration_error() - 2.0 * o.baseline_mse()).abs() < 1e-9, "{w:?}");
        }
    }

    let silent = value_calibration(&game, &records, &mut Fixed(|_: &_| 0.0), PhaseBy::Seeds, 4).unwrap();
    assert_eq!(silent.iter().map(|p| p.positions).sum::<usize>(), plies, "every position counted once");
    for p in &silent {
        assert_eq!(p.sign_correct, 0, "a value of 0 has no sign");
        assert!((p.mse() - p.baseline_mse()).abs() < 1e-12);
        assert_eq!(p.mean_confidence(), 0.0);
    }
}

#[test]
fn positions_fall_in_the_phase_of_their_seed_count() {
    let game = parse_rules("kalah:4,3").unwrap(); // 24 seeds
    let records = games(&game, 6);
    let phases = value_calibration(&game, &records, &mut Fixed(|_: &_| 0.5), PhaseBy::Seeds, 4).unwrap();
    assert_eq!(phases.iter().map(|p| p.range).collect::<Vec<_>>(), [(19, 24), (13, 18), (7, 12), (0, 6)]);
    // The start has every seed on the board; every game starts there.
    assert!(phases[0].positions >= records.len());
    // Count by hand: seeds on the board (Kalah's stores are not pits on the board).
    let mut by_hand = [0usize; 4];
    for r in &records {
        let mut line = Line::new(game.clone());
        for m in &r.moves {
            let on_board: u32 = game.pits(line.position()).iter().map(|&s| u32::from(s)).sum();
            by_hand[phases.iter().position(|p| on_board >= p.range.0 && on_board <= p.range.1).unwrap()] += 1;
            line.play_label(m).unwrap();
        }
    }
    assert_eq!(phases.iter().map(|p| p.positions).collect::<Vec<_>>(), by_hand);
    // By plies: plies 0-4, 5-9, 10 and later.
    let by_plies = value_calibration(&game, &records, &mut Fixed(|_: &_| 0.5), PhaseBy::Plies(5), 3).unwrap();
    assert_eq!(by_plies.iter().map(|p| p.range).collect::<Vec<_>>(), [(0, 4), (5, 9), (10, u32::MAX)]);
    let longer = |n: usize| records.iter().map(|r| r.plies.saturating_sub(n).min(5)).sum::<usize>();
    assert_eq!(by_plies[0].positions, longer(0));
    assert_eq!(by_plies[1].positions, longer(5));
    assert_eq!(by_plies[2].positions, records.iter().map(|r| r.plies.saturating_sub(10)).sum::<usize>());
    // Phases that do not divide the seeds evenly still cover every count once.
    let oware = parse_rules("oware:5,5").unwrap(); // 50 seeds
    let none: Vec<GameRecord> = Vec::new();
    let p = value_calibration(&oware, &none, &mut Fixed(|_: &_| 0.0), PhaseBy::Seeds, 4).unwrap();
    assert_eq!(p.iter().map(|p| p.range).collect::<Vec<_>>(), [(38, 50), (26, 37), (13, 25), (0, 12)]);
}

#[test]
fn records_that_do_not_replay_are_refused_by_number() {
    let game = parse_rules("kalah:4,3").unwrap();
    let mut records = games(&game, 2);
    let at = records[1].opening.len() + 1;
    records[1].moves[at] = "Z".into();
    let err = value_calibration(&game, &records, &mut Fixed(|_: &_| 0.0), PhaseBy::Seeds, 4).unwrap_err().to_string();
    assert!(err.contains("record 2") && err.contains(&format!("move {}", at + 1)), "{err}");
    let other = parse_rules("oware").unwrap();
    let err =
        value_calibration(&other, &records[..1], &mut Fixed(|_: &_| 0.0), PhaseBy::Seeds, 4).unwrap_err().to_string();
    assert!(err.contains("record 1") && err.contains("rules"), "{err}");
    let err =
        value_calibration(&game, &records[..1], &mut Fixed(|_: &_| 0.0), PhaseBy::Seeds, 0).unwrap_err().to_string();
    assert!(err.contains("value calibration: at least one phase"), "{err}");
    let err = value_calibration(&game, &records[..1], &mut Fixed(|_: &_| 0.0), PhaseBy::Plies(0), 2).unwrap_err();
    assert!(err.to_string().contains("width of at least 1 ply"), "{err}");
}
