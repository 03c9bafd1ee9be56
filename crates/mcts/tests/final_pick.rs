//! The move a finished PUCT search plays: the most visited child by default; with
//! `FinalPick::Value` the best mean value among the children with at least a share of the top
//! visits. Checked against the search's own root statistics over many searched positions.

mod common;

use common::HashEvaluator;
use mancala_mcts::{ChildStats, FinalPick, Search, SearchConfig};
use mancala_rules::{Action, Game, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// What the rule says `pick` plays, from the root statistics.
fn expected(kids: &[ChildStats], pick: FinalPick) -> Action {
    let top = kids.iter().map(|k| k.visits).max().unwrap();
    let by_visits = |a: &&ChildStats, b: &&ChildStats| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior));
    match pick {
        FinalPick::Visits => kids.iter().max_by(by_visits).unwrap().action,
        FinalPick::Value { min_share } => {
            let floor = ((top as f32 * min_share).ceil() as u32).max(1);
            kids.iter()
                .filter(|k| k.visits >= floor)
                .max_by(|a, b| a.q.unwrap().total_cmp(&b.q.unwrap()).then(by_visits(a, b)))
                .unwrap()
                .action
        }
    }
}

#[test]
fn each_pick_plays_the_child_its_rule_names() {
    let mut differed = 0;
    let mut searched = 0;
    for rules in ["oware", "kalah", "ouril"] {
        let game = parse_rules(rules).unwrap();
        let mut rng = SmallRng::seed_from_u64(5);
        for game_no in 0..12 {
            let mut pos = game.start();
            // A position some random plies in, so the roots differ.
            for _ in 0..rng.random_range(0..30) {
                let moves: Vec<Action> = game.legal_moves(&pos).into_iter().collect();
                if game.status(&pos).is_over() || moves.is_empty() {
                    break;
                }
                game.play_unchecked(&mut pos, moves[rng.random_range(0..moves.len())]);
            }
            if game.status(&pos).is_over() {
                continue;
            }
            let config = SearchConfig { simulations: 150, ..SearchConfig::default() };
            let mut search = Search::new(game.clone(), config, game_no);
            search.set_root(pos, []);
            search.run(&mut HashEvaluator::default());
            let kids = search.root_children();
            searched += 1;
            let mut picked = Vec::new();
            for pick in [FinalPick::Visits, FinalPick::Value { min_share: 0.5 }, FinalPick::Value { min_share: 0.2 }] {
                search.config_mut().final_pick = pick;
                let action = search.select_action(0.0).unwrap();
                assert_eq!(action, expected(&kids, pick), "{rules} game {game_no} {pick}: {kids:?}");
                picked.push(action);
            }
            // The same search asked again gives the same answers: picking changes nothing.
            search.config_mut().final_pick = FinalPick::Visits;
            assert_eq!(search.select_action(0.0).unwrap(), picked[0]);
            if picked[0] != picked[2] {
                differed += 1;
            }
        }
    }
    assert!(searched >= 30, "only {searched} positions searched");
    // Visits and values disagree somewhere, so the option is not a no-op.
    assert!(differed > 0, "the value pick never differed from the most visited in {searched} searches");
}

#[test]
fn a_share_of_one_keeps_the_most_visited_unless_tied() {
    let game = parse_rules("oware").unwrap();
    let config =
        SearchConfig { simulations: 300, final_pick: FinalPick::Value { min_share: 1.0 }, ..SearchConfig::default() };
    let mut search = Search::new(game.clone(), config, 1);
    search.run(&mut HashEvaluator::default());
    let kids = search.root_children();
    let top = kids.iter().map(|k| k.visits).max().unwrap();
    let action = search.select_action(0.0).unwrap();
    let chosen = kids.iter().find(|k| k.action == action).unwrap();
    assert_eq!(chosen.visits, top);
}

#[test]
fn sampling_at_a_temperature_ignores_the_final_pick() {
    // Above temperature 0 the move is drawn by visits whatever the pick: self-play's
    // exploration does not change with it.
    let game = parse_rules("kalah").unwrap();
    let draw = |pick: FinalPick| {
        let config = SearchConfig { simulations: 100, final_pick: pick, ..SearchConfig::default() };
        let mut search = Search::new(game.clone(), config, 9);
        search.run(&mut HashEvaluator::default());
        (0..20).map(|_| search.select_action(1.0).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(draw(FinalPick::Visits), draw(FinalPick::Value { min_share: 0.5 }));
}

#[test]
fn picks_parse_and_print() {
    assert_eq!(FinalPick::parse("visits"), Some(FinalPick::Visits));
    assert_eq!(FinalPick::parse("value"), Some(FinalPick::Value { min_share: FinalPick::VALUE_SHARE }));
    assert_eq!(FinalPick::parse("value:0.25"), Some(FinalPick::Value { min_share: 0.25 }));
    assert_eq!(FinalPick::parse("value:1"), Some(FinalPick::Value { min_share: 1.0 }));
    for bad in ["", "value:0", "value:1.5", "value:-0.5", "value:NaN", "value:x", "visit", "q"] {
        assert_eq!(FinalPick::parse(bad), None, "{bad:?}");
    }
    for pick in [FinalPick::Visits, FinalPick::Value { min_share: 0.25 }] {
        assert_eq!(FinalPick::parse(&pick.to_string()), Some(pick));
    }
}
