//! Using a database: the `perfect` agent, exact values at search leaves, the endgame metric.

use std::sync::Arc;

use mancala_mcts::agents::RandomAgent;
use mancala_mcts::{Agent, Evaluator, Search, SearchConfig, UniformEvaluator};
use mancala_rules::{AnyGame, Game, Line, Setup, parse_rules};
use mancala_tablebase::{
    EndgameAccuracy, PerfectAgent, Tablebase, TablebaseEvaluator, endgame_accuracy, endgame_judgements,
    sample_positions,
};

fn kalah(seeds: usize) -> (AnyGame, Arc<Tablebase>) {
    let game = parse_rules("kalah").unwrap();
    let tb = Tablebase::build(&game, seeds, &|_| {}).unwrap().0;
    (game, Arc::new(tb))
}

fn perfect(game: &AnyGame, tb: &Arc<Tablebase>, seed: u64) -> PerfectAgent<AnyGame> {
    PerfectAgent::new(game.clone(), tb.clone(), Box::new(RandomAgent::new(seed)), seed).unwrap()
}

#[test]
fn two_perfect_agents_reach_the_database_margin() {
    let (game, tb) = kalah(8);
    for (k, pos) in sample_positions(&game, &tb, 40, 3).into_iter().enumerate() {
        let expected = tb.probe(&game, &pos).unwrap().final_margin;
        let mover = game.side_to_move(&pos);
        let mut agents = [perfect(&game, &tb, k as u64), perfect(&game, &tb, 100 + k as u64)];
        let mut line = Line::from_position(game.clone(), pos);
        while !line.status().is_over() {
            let side = line.side_to_move();
            let action = agents[side.index()].choose(&line);
            line.play(action).unwrap();
        }
        let margin = line.status().outcome().unwrap().margin_for(mover);
        assert_eq!(margin, expected, "from {}", game.to_setup(&pos));
        assert_eq!(agents[0].probed, agents[0].moves, "every move was inside the database");
    }
}

#[test]
fn the_perfect_agent_falls_back_outside_the_database() {
    let (game, tb) = kalah(4);
    let mut agent = perfect(&game, &tb, 1);
    let line = Line::new(game.clone());
    let action = agent.choose(&line);
    assert!(game.legal_moves(&game.start()).contains(action));
    assert_eq!((agent.probed, agent.moves), (0, 1));
}

#[test]
fn the_perfect_agent_refuses_another_game() {
    let (_, tb) = kalah(2);
    let oware = parse_rules("oware").unwrap();
    assert!(PerfectAgent::new(oware, tb, Box::new(RandomAgent::new(0)), 0).is_err());
}

#[test]
fn the_evaluator_answers_inside_and_delegates_outside() {
    let (game, tb) = kalah(5);
    let inside: Setup = "south | 20 23 | 0 2 0 0 0 1 0 0 1 0 1 0 | ongoing".parse().unwrap();
    let inside = game.from_setup(&inside).unwrap();
    let outside = game.start();
    let mut eval = TablebaseEvaluator::new(&game, tb.clone(), UniformEvaluator).unwrap();
    let a = game.action_space();
    let mut policies = vec![0.0; 2 * a];
    let mut values = vec![9.0; 2];
    eval.evaluate(&game, &[inside, outside], &mut policies, &mut values);
    let probe = tb.probe(&game, &inside).unwrap();
    assert_eq!(values[0], probe.result());
    for action in 0..a as u8 {
        let p = policies[usize::from(action)];
        if probe.best.contains(action) {
            assert!((p - 1.0 / probe.best.len() as f32).abs() < 1e-6);
        } else {
            assert_eq!(p, 0.0);
        }
    }
    assert_eq!(values[1], 0.0, "the uniform evaluator's value");
    assert!(policies[a..].iter().all(|&p| (p - 1.0 / 6.0).abs() < 1e-6));
    assert_eq!((eval.hits, eval.lookups), (1, 2));
}

#[test]
fn without_a_database_the_evaluator_is_its_inner_one() {
    let (game, tb) = kalah(5);
    let inside: Setup = "south | 20 23 | 0 2 0 0 0 1 0 0 1 0 1 0 | ongoing".parse().unwrap();
    let inside = game.from_setup(&inside).unwrap();
    let mut eval = TablebaseEvaluator::optional(&game, None, UniformEvaluator).unwrap();
    let a = game.action_space();
    let mut policies = vec![0.0; a];
    let mut values = vec![9.0];
    eval.evaluate(&game, &[inside], &mut policies, &mut values);
    // The uniform evaluator's answer; the database was never asked.
    assert_eq!(values[0], 0.0);
    let legal = game.legal_moves(&inside);
    for action in 0..a as u8 {
        let expected = if legal.contains(action) { 1.0 / legal.len() as f32 } else { 0.0 };
        assert!((policies[usize::from(action)] - expected).abs() < 1e-6);
    }
    assert_eq!((eval.hits, eval.lookups), (0, 0));
    // With one, a database of other rules is refused as by `new`.
    let other = mancala_rules::parse_rules("kalah:4,3").unwrap();
    assert!(TablebaseEvaluator::optional(&other, Some(tb), UniformEvaluator).is_err());
}

#[test]
fn search_with_exact_leaves_finds_a_best_move() {
    let (game, tb) = kalah(8);
    let positions = sample_positions(&game, &tb, 30, 11);
    let config = SearchConfig { simulations: 200, ..SearchConfig::default() };
    let mut eval = TablebaseEvaluator::new(&game, tb.clone(), UniformEvaluator).unwrap();
    let mut search = Search::new(game.clone(), config, 5);
    let accuracy = endgame_accuracy(&game, &tb, &positions, |pos| {
        search.set_root_line(&Line::from_position(game.clone(), *pos));
        search.run(&mut eval);
        let action = search.select_action(0.0).unwrap();
        (search.root_value(), action)
    });
    assert_eq!(accuracy.positions, positions.len());
    // Every leaf is answered exactly, so the root's value names the database's result on
    // every position of this (fixed) sample, and most chosen moves are optimal.
    assert_eq!(accuracy.value_sign, 1.0, "{accuracy:?}");
    assert!(accuracy.best_move > 0.5, "{accuracy:?}");
}

#[test]
fn the_metric_scores_a_perfect_and_a_clueless_player() {
    let (game, tb) = kalah(7);
    let positions = sample_positions(&game, &tb, 200, 7);
    assert_eq!(positions.len(), 200);
    assert_eq!(positions, sample_positions(&game, &tb, 200, 7), "the same sample for the same seed");
    let perfect = endgame_accuracy(&game, &tb, &positions, |pos| {
        let probe = tb.probe(&game, pos).unwrap();
        (probe.result(), probe.best.iter().next().unwrap())
    });
    assert_eq!((perfect.positions, perfect.value_sign, perfect.best_move), (200, 1.0, 1.0));
    assert_eq!((perfect.result_kept, perfect.seeds_given), (1.0, 0.0));
    // Always "draw", always the worst move.
    let draws = positions.iter().filter(|p| tb.probe(&game, p).unwrap().final_margin == 0).count();
    let all_best = positions
        .iter()
        .filter(|p| {
            let probe = tb.probe(&game, p).unwrap();
            probe.best == probe.legal
        })
        .count();
    let clueless = endgame_accuracy(&game, &tb, &positions, |pos| {
        let probe = tb.probe(&game, pos).unwrap();
        let worst = probe.legal.iter().min_by_key(|&a| probe.move_values[usize::from(a)]).unwrap();
        (0.0, worst)
    });
    assert_eq!(clueless.value_sign, draws as f64 / 200.0);
    assert_eq!(clueless.best_move, all_best as f64 / 200.0);
    assert!(clueless.best_move < 1.0);
    // The worst move gives away, on average, the gap between the best and the worst move's
    // margin, and keeps the result only where even it reaches the best result.
    let (mut given, mut kept) = (0i32, 0usize);
    for pos in &positions {
        let probe = tb.probe(&game, pos).unwrap();
        let worst = probe.legal.iter().map(|a| probe.move_margin(a)).min().unwrap();
        given += probe.final_margin - worst;
        kept += usize::from(worst.signum() == probe.final_margin.signum());
    }
    assert!(given > 0);
    assert_eq!(clueless.seeds_given, f64::from(given) / 200.0);
    assert_eq!(clueless.result_kept, kept as f64 / 200.0);
    assert!(clueless.result_kept >= clueless.best_move && clueless.result_kept < 1.0, "{clueless:?}");
    // Knowing results but not margins lies between: every position where all moves are best
    // counts whole, the rest in part.
    let result_only = mancala_tablebase::result_only_best_move(&game, &tb, &positions);
    assert!(result_only > clueless.best_move && result_only < 1.0, "{result_only}");
}

#[test]
fn judgements_carry_each_position_and_sum_to_the_metric() {
    let (game, tb) = kalah(7);
    let positions = sample_positions(&game, &tb, 120, 3);
    // Right about the result only where the mover wins, and about the best move only on
    // boards of an odd seed count: two answers that differ by position.
    let player = |pos: &<AnyGame as Game>::Position| {
        let probe = tb.probe(&game, pos).unwrap();
        let scores = game.scores(pos);
        let seeds = game.total_seeds() - scores.south - scores.north;
        let action = if seeds % 2 == 1 {
            probe.best.iter().next().unwrap()
        } else {
            probe.legal.iter().min_by_key(|&a| probe.move_values[usize::from(a)]).unwrap()
        };
        (1.0, action)
    };
    let judged = endgame_judgements(&game, &tb, &positions, player);
    assert_eq!(judged.len(), positions.len());
    for (j, pos) in judged.iter().zip(&positions) {
        let probe = tb.probe(&game, pos).unwrap();
        let scores = game.scores(pos);
        assert_eq!(j.seeds, game.total_seeds() - scores.south - scores.north);
        assert!(j.seeds >= 1 && usize::from(j.seeds) <= tb.max_seeds());
        assert_eq!(j.final_margin, probe.final_margin);
        assert_eq!(j.value_right, probe.final_margin > 0);
        let worst_is_best = probe.best == probe.legal;
        assert_eq!(j.move_right, j.seeds % 2 == 1 || worst_is_best);
        assert_eq!(j.seeds_given == 0, j.move_right, "a move gives nothing away exactly when it is best");
        assert!(j.seeds_given >= 0);
        assert!(j.result_kept || !j.move_right);
    }
    let whole = endgame_accuracy(&game, &tb, &positions, player);
    assert_eq!(EndgameAccuracy::of(&judged), whole);
    assert!(whole.value_sign > 0.0 && whole.value_sign < 1.0, "{whole:?}");
    assert_eq!(EndgameAccuracy::of(&[]), EndgameAccuracy::default());
}

/// The database's values with its best moves hidden: a uniform prior over the legal moves,
/// so the search alone must tell the moves apart.
struct UniformPriors<E>(E);

impl<E: Evaluator<AnyGame>> Evaluator<AnyGame> for UniformPriors<E> {
    fn evaluate(&mut self, game: &AnyGame, positions: &[<AnyGame as Game>::Position], p: &mut [f32], v: &mut [f32]) {
        self.0.evaluate(game, positions, p, v);
        let a = game.action_space();
        for (i, pos) in positions.iter().enumerate() {
            mancala_mcts::uniform_policy(game, pos, &mut p[i * a..(i + 1) * a]);
        }
    }
}

#[test]
fn a_margin_utility_makes_the_search_keep_the_most_seeds() {
    // Exact results at every leaf: counting wins alone, every winning move looks alike and
    // the search picks among them by chance; weighing the margin (at finished games in the
    // search and at database leaves alike) it picks a move that keeps the most seeds.
    let (game, tb) = kalah(8);
    let positions = sample_positions(&game, &tb, 150, 21);
    let best_move = |weight: f32| {
        let config = SearchConfig { simulations: 300, margin_utility: weight, ..SearchConfig::default() };
        let mut eval = UniformPriors(
            TablebaseEvaluator::new(&game, tb.clone(), UniformEvaluator).unwrap().with_margin_utility(weight),
        );
        let mut search = Search::new(game.clone(), config, 5);
        endgame_accuracy(&game, &tb, &positions, |pos| {
            search.set_root_line(&Line::from_position(game.clone(), *pos));
            search.run(&mut eval);
            (search.root_value(), search.select_action(0.0).unwrap())
        })
    };
    let (results, margins) = (best_move(0.0), best_move(0.25));
    assert_eq!(margins.value_sign, 1.0, "{margins:?}");
    assert!(margins.best_move >= 0.97, "{margins:?}");
    assert!(results.best_move < margins.best_move - 0.1, "{results:?} against {margins:?}");
    // Counting results alone, the search does about as well as a uniform choice among the
    // moves of the best result.
    let result_only = mancala_tablebase::result_only_best_move(&game, &tb, &positions);
    assert!((results.best_move - result_only).abs() < 0.1, "{results:?} against {result_only}");
}
