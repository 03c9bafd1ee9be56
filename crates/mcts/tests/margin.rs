//! The margin utility at finished games: with a weight, of two moves that both win at once
//! the search takes the one that wins by more, and the root's value is that game's utility.

use mancala_mcts::{Search, SearchConfig, UniformEvaluator, outcome_utility, utility};
use mancala_rules::{Game, Line, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

#[test]
fn utility_ranks_results_first_then_margins() {
    // A win by any margin above a draw, a draw above any loss, for every allowed weight.
    for weight in [0.0f32, 0.1, 0.25, 0.5] {
        let win = utility(1.0, 1.0 / 48.0, weight);
        assert!(win > utility(0.0, 0.0, weight) && utility(0.0, 0.0, weight) > utility(-1.0, -1.0 / 48.0, weight));
        assert!(utility(1.0, 0.5, weight) >= win);
    }
    assert_eq!(utility(0.6, 0.9, 0.0), 0.6);
    assert_eq!(utility(1.0, 2.0, 0.5), 1.0, "the margin share is clamped to [-1, 1]");
}

#[test]
fn the_search_takes_the_bigger_of_two_immediate_wins() {
    // Oware: a capture that takes the mover past half the seeds ends the game at once.
    let game = parse_rules("oware").unwrap();
    let mut rng = SmallRng::seed_from_u64(4);
    let mut found = 0;
    // Every position of random games, until enough have two immediate wins.
    let mut positions = Vec::new();
    while positions.len() < 20_000 {
        let mut line = Line::new(game.clone());
        while !line.status().is_over() {
            positions.push(line.clone());
            let legal: Vec<_> = line.legal_moves().iter().collect();
            line.play(legal[rng.random_range(0..legal.len())]).unwrap();
        }
    }
    for line in positions {
        if found == 12 {
            break;
        }
        let pos = *line.position();
        let me = game.side_to_move(&pos);
        // At least two moves that end the game at once in wins by different margins.
        let mut wins = Vec::new();
        for action in game.legal_moves(&pos) {
            let mut next = pos;
            game.play_unchecked(&mut next, action);
            if let Some(o) = game.status(&next).outcome().filter(|o| o.winner == Some(me)) {
                wins.push((action, o));
            }
        }
        let most = wins.iter().map(|(_, o)| o.margin_for(me)).max().unwrap_or(0);
        if !wins.iter().any(|(_, o)| o.margin_for(me) < most) {
            continue;
        }
        found += 1;
        for weight in [0.0f32, 0.1, 0.3] {
            let config = SearchConfig { simulations: 100, margin_utility: weight, ..SearchConfig::default() };
            let mut search = Search::new(game.clone(), config, 1);
            search.set_root_line(&line);
            search.run(&mut UniformEvaluator);
            // A finished game's value is its utility: the result alone at weight 0.
            for child in search.root_children() {
                if let (Some(q), Some((_, o))) = (child.q, wins.iter().find(|(a, _)| *a == child.action)) {
                    let want = outcome_utility(&game, *o, me, weight);
                    assert!((q - want).abs() < 1e-5, "weight {weight}: q {q}, utility {want}");
                    assert_eq!(weight == 0.0, q == 1.0);
                }
            }
            // The rest of the tree only sees the uniform evaluator's 0, so the search settles
            // on an immediate win, and with a weight on the biggest one.
            if weight > 0.0 {
                let action = search.select_action(0.0).unwrap();
                let (_, o) = wins.iter().find(|(a, _)| *a == action).expect("an immediate win");
                assert_eq!(o.margin_for(me), most, "weight {weight}: {:?}", line.position());
            }
        }
    }
    assert!(found >= 5, "only {found} positions with two immediate wins");
}
