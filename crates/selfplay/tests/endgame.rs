//! Self-play with an endgame database: a game that enters it ends there with its exact
//! result, and the position where it entered is recorded with exact targets.

use std::sync::atomic::AtomicBool;

use mancala_mcts::{SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, Game, Line, parse_rules};
use mancala_selfplay::{SelfPlayConfig, SelfPlayOutput, play_games};
use mancala_tablebase::{SeedDraw, Tablebase};

fn config() -> SelfPlayConfig {
    SelfPlayConfig {
        games_per_iteration: 8,
        games_per_shard: 8,
        threads: 2,
        parallel_games: 4,
        simulations: 16,
        fast_simulations: 4,
        // Every move recorded, so the rows line up with the moves.
        full_search_share: 1.0,
        temperature_plies: 40,
        temperature: 1.0,
        leaves_per_gather: 2,
        ..SelfPlayConfig::default()
    }
}

fn play(game: &AnyGame, tb: Option<&Tablebase>) -> SelfPlayOutput {
    let search = SearchConfig { dirichlet_noise: true, ..SearchConfig::default() };
    play_games(game, &config(), &search, tb, 8, 5, |_| UniformEvaluator, &|_| {}, &AtomicBool::new(false))
}

#[test]
fn games_end_where_they_enter_the_database_with_its_exact_result() {
    // Oware ends at a majority of the seeds: its database must reach half of them.
    for (rules, seeds) in [("kalah:3,3", 8), ("oware:4,3", 12)] {
        let game = parse_rules(rules).unwrap();
        let (tb, _) = Tablebase::build(&game, seeds, &|_| {}).unwrap();
        let out = play(&game, Some(&tb));
        assert_eq!(out.games.len(), 8, "{rules}");
        let mut adjudicated = 0;
        for record in &out.games {
            // Replay: no position before the last is inside the database.
            let mut line = Line::new(game.clone());
            for (k, label) in record.moves.iter().enumerate() {
                assert!(
                    !tb.contains(&game, line.position()),
                    "{rules}: the game went on inside the database at move {k}"
                );
                line.play_label(label).unwrap();
            }
            let last = line.position();
            if line.status().is_over() {
                assert_eq!(record.result, line.status().outcome().unwrap().to_string(), "{rules}");
                continue;
            }
            adjudicated += 1;
            let probe = tb.probe(&game, last).expect("an unfinished game ended inside the database");
            let side = game.side_to_move(last);
            // The result is the database's: the mover's final margin with perfect play.
            let margin = probe.final_margin;
            let expected = match margin.signum() {
                1 => format!("{side}+{margin}"),
                -1 => format!("{}+{}", side.opponent(), -margin),
                _ => "draw".to_string(),
            };
            assert_eq!(record.result, expected, "{rules}: {:?}", record.moves);
            // The entry position is the last row, with the best moves as its policy and the
            // exact result as every target.
            let row = record.rows.last().unwrap();
            assert_eq!(record.rows.len(), record.moves.len() + 1, "{rules}: one row a move and the entry row");
            for action in 0..game.action_space() {
                let best = probe.best.contains(action as u8);
                assert_eq!(row.policy[action] > 0.0, best, "{rules}: policy of action {action}");
            }
            assert_eq!(row.outcome, probe.result(), "{rules}");
            assert_eq!(row.search_value, probe.result(), "{rules}");
            assert!((row.margin * f32::from(game.total_seeds()) - margin as f32).abs() < 1e-3, "{rules}");
        }
        assert!(adjudicated >= 4, "{rules}: only {adjudicated} of 8 games were ended by the database");
        // Without the database the same games go on past its door.
        let plain = play(&game, None);
        let moves = |o: &SelfPlayOutput| o.games.iter().map(|g| g.moves.len()).sum::<usize>();
        assert!(moves(&plain) > moves(&out), "{rules}: {} moves without, {} with", moves(&plain), moves(&out));
    }
}

#[test]
fn the_feed_draws_database_positions_with_exact_targets() {
    for (rules, seeds) in [("kalah:3,3", 8), ("oware:4,3", 10)] {
        let game = parse_rules(rules).unwrap();
        let (tb, _) = Tablebase::build(&game, seeds, &|_| {}).unwrap();
        let lay = mancala_encoding::layout(&game);
        let rows = mancala_selfplay::database_rows(&game, &lay, &tb, 300, 9, SeedDraw::Uniform);
        assert_eq!(rows.len(), 300, "{rules}");
        assert_eq!(
            rows,
            mancala_selfplay::database_rows(&game, &lay, &tb, 300, 9, SeedDraw::Uniform),
            "{rules}: same seed, same rows"
        );
        // The rows are those of the metric's sample, in order, each with the database's
        // answer as its targets.
        let positions = mancala_tablebase::sample_positions(&game, &tb, 300, 9);
        let total = f32::from(game.total_seeds());
        let mut wins = 0;
        for (row, pos) in rows.iter().zip(&positions) {
            let probe = tb.probe(&game, pos).unwrap();
            let mut inputs = vec![0.0; lay.inputs()];
            mancala_encoding::encode(&game, &lay, pos, &mut inputs);
            assert_eq!(row.inputs, inputs, "{rules}");
            assert_eq!(row.legal, game.legal_moves(pos).0);
            assert_eq!(row.outcome, probe.result());
            assert_eq!(row.margin, probe.final_margin as f32 / total);
            assert!((row.policy.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            for a in 0..game.action_space() {
                let best = probe.best.contains(a as u8);
                assert_eq!(row.policy[a] > 0.0, best, "{rules}: move {a}");
            }
            wins += usize::from(row.outcome > 0.5);
        }
        // Not one kind of position only: wins and losses or draws both appear.
        assert!(wins > 30 && wins < 270, "{rules}: {wins} wins of 300");
    }
}

#[test]
fn the_feed_drawn_by_seeds_leans_to_full_boards() {
    let game = parse_rules("oware:4,3").unwrap();
    let (tb, _) = Tablebase::build(&game, 10, &|_| {}).unwrap();
    let seeds = |draw: SeedDraw| -> Vec<usize> {
        mancala_tablebase::sample_positions_drawn(&game, &tb, 2000, 5, draw)
            .iter()
            .map(|pos| game.pits(pos).iter().map(|&s| usize::from(s)).sum())
            .collect()
    };
    // Uniform is the metric's own sample.
    assert_eq!(
        mancala_tablebase::sample_positions_drawn(&game, &tb, 300, 9, SeedDraw::Uniform),
        mancala_tablebase::sample_positions(&game, &tb, 300, 9)
    );
    let (uniform, by_seeds) = (seeds(SeedDraw::Uniform), seeds(SeedDraw::BySeeds));
    let share = |drawn: &[usize], k: usize| drawn.iter().filter(|&&s| s == k).count() as f64 / drawn.len() as f64;
    // The sample keeps only ongoing positions, and a random split of many captured seeds
    // often ends the game, so even the uniform draw leans to fuller boards. Drawing by seeds
    // weighs each count by itself on top: against the uniform sample a count's share grows by
    // k over the uniform sample's mean count (2000 draws each; within a fifth).
    let mean = uniform.iter().sum::<usize>() as f64 / uniform.len() as f64;
    for k in 6..=10 {
        let (ratio, expected) = (share(&by_seeds, k) / share(&uniform, k), k as f64 / mean);
        assert!(
            (ratio / expected - 1.0).abs() < 0.2,
            "{k} seeds: by seeds {ratio:.2} times the uniform share, expected {expected:.2}"
        );
    }
    let by_seeds_mean = by_seeds.iter().sum::<usize>() as f64 / by_seeds.len() as f64;
    assert!(by_seeds_mean > mean + 0.5, "mean seeds {by_seeds_mean} by seeds against {mean}");
    // The rows follow the same draw.
    let lay = mancala_encoding::layout(&game);
    let rows = mancala_selfplay::database_rows(&game, &lay, &tb, 50, 5, SeedDraw::BySeeds);
    let positions = mancala_tablebase::sample_positions_drawn(&game, &tb, 50, 5, SeedDraw::BySeeds);
    for (row, pos) in rows.iter().zip(&positions) {
        let mut inputs = vec![0.0; lay.inputs()];
        mancala_encoding::encode(&game, &lay, pos, &mut inputs);
        assert_eq!(row.inputs, inputs);
    }
}

#[test]
fn the_feed_can_teach_the_games_own_end() {
    // The same positions, with the targets of a scored database: where Oware's stop at a
    // majority changes the best moves, the rows' policy follows the game's own end.
    let game = parse_rules("oware:4,3").unwrap();
    let (tb, _) = Tablebase::build(&game, 8, &|_| {}).unwrap();
    let (scored, _) = mancala_tablebase::ScoredTablebase::build_within(&game, 8, 1 << 30, &|_| {}).unwrap();
    let lay = mancala_encoding::layout(&game);
    let played_out = mancala_selfplay::database_rows(&game, &lay, &tb, 300, 4, SeedDraw::Uniform);
    let own_end = mancala_selfplay::database_rows_with(&game, &lay, &tb, 300, 4, SeedDraw::Uniform, |pos| {
        scored.probe(&game, pos)
    });
    let positions = mancala_tablebase::sample_positions(&game, &tb, 300, 4);
    assert_eq!(own_end.len(), 300);
    let mut policies_differ = 0;
    for ((own, out), pos) in own_end.iter().zip(&played_out).zip(&positions) {
        let probe = scored.probe(&game, pos).unwrap();
        assert_eq!(own.inputs, out.inputs, "the same positions");
        assert_eq!(own.outcome, probe.result());
        assert_eq!(own.outcome, out.outcome, "a majority cannot be overturned");
        for a in 0..game.action_space() {
            assert_eq!(own.policy[a] > 0.0, probe.best.contains(a as u8), "move {a}");
        }
        policies_differ += usize::from(own.policy != out.policy);
    }
    assert!(policies_differ > 0, "no position of 300 where the stop changes the best moves");
}
