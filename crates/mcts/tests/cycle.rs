//! Oware's cycle rule inside the search tree: a move that repeats a position of the current
//! line (in the tree or in the game before the root) ends the game, each player taking the
//! seeds of their own row, exactly as [`Line`] would.

mod common;

use common::{HashEvaluator, position};
use mancala_mcts::{NodeId, NodeState, Search, SearchConfig, UniformEvaluator};
use mancala_rules::{Action, AnyGame, AnyPosition, Game, Line, Player};

/// Two houses a row, 8 seeds. South A=1, North a=1, South has 2 captured, North 4. Every move
/// is forced: A (to B), a (to b), B (into a: 1, no capture), b (into A): the start again, South
/// to move. The cycle rule gives each their own row: 3 to 5, North wins by 2.
const LOOP: &str = "south | 2 4 | 1 0 1 0 | ongoing";
const ROUND: [Action; 4] = [0, 0, 1, 1];

fn node_at(search: &Search<AnyGame>, path: &[Action]) -> Option<NodeId> {
    let t = search.tree();
    let mut node = NodeId::ROOT;
    for &a in path {
        node = t.children(node).find(|&c| t.action(c) == a)?;
    }
    Some(node)
}

fn line_after(game: &AnyGame, start: AnyPosition, moves: &[Action]) -> Line<AnyGame> {
    let mut line = Line::from_position(game.clone(), start);
    for &a in moves {
        line.play(a).unwrap();
    }
    line
}

#[test]
fn repetition_inside_the_tree_ends_the_game() {
    let (game, pos) = position("oware houses=2 seeds=2", LOOP);
    let line = line_after(&game, pos, &ROUND);
    let outcome = line.status().outcome().expect("the rules end the game on the repetition");
    assert_eq!((outcome.winner, outcome.margin), (Some(Player::North), 2));

    let mut search = Search::new(game.clone(), SearchConfig { simulations: 20, ..SearchConfig::default() }, 1);
    search.set_root(pos, std::iter::empty());
    search.run(&mut UniformEvaluator);
    let t = search.tree();
    assert_eq!(t.len(), 5, "a single forced line of four moves");
    for (depth, _) in ROUND.iter().enumerate().take(3) {
        let i = node_at(&search, &ROUND[..=depth]).unwrap();
        assert_eq!(t.state(i), NodeState::Expanded, "depth {}", depth + 1);
    }
    let end = node_at(&search, &ROUND).unwrap();
    assert_eq!(t.state(end), NodeState::Terminal);
    assert_eq!(*t.position(end), *line.position(), "settled as the rules settle it");
    assert_eq!(t.side(end), Player::South);
    assert_eq!(t.terminal_value(end), -1.0);
    // Every simulation after the first four reaches the end: the root's value tends to -1.
    assert_eq!(t.visits(end), 20 - 4);
    assert!(search.root_value() < -0.7, "{}", search.root_value());
}

/// The root comes from a game that already played A and a: the position after B, b repeats
/// the game's first position, which the search knows from the line's repetition window.
#[test]
fn repetition_of_a_position_before_the_root_ends_the_game() {
    let (game, pos) = position("oware houses=2 seeds=2", LOOP);
    let line = line_after(&game, pos, &ROUND[..2]);
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 10, ..SearchConfig::default() }, 1);
    search.set_root_line(&line);
    search.run(&mut UniformEvaluator);
    let end = node_at(&search, &ROUND[2..]).unwrap();
    let t = search.tree();
    assert_eq!(t.state(end), NodeState::Terminal);
    assert_eq!(*t.position(end), *line_after(&game, pos, &ROUND).position());
    assert_eq!(t.terminal_value(end), -1.0);

    // Without the history the same two moves do not repeat anything.
    let mut fresh = Search::new(game.clone(), SearchConfig { simulations: 10, ..SearchConfig::default() }, 1);
    fresh.set_root(*line.position(), std::iter::empty());
    fresh.run(&mut UniformEvaluator);
    let i = node_at(&fresh, &ROUND[2..]).unwrap();
    assert_eq!(fresh.tree().state(i), NodeState::Expanded);
}

/// With `cycle=plies:N` a repetition is just another position.
#[test]
fn without_the_repetition_rule_the_loop_goes_on() {
    let (game, pos) = position("oware houses=2 seeds=2 cycle=plies:50", LOOP);
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 12, ..SearchConfig::default() }, 1);
    search.set_root(pos, std::iter::empty());
    search.run(&mut UniformEvaluator);
    let i = node_at(&search, &ROUND).unwrap();
    assert_eq!(search.tree().state(i), NodeState::Expanded);
    // The same board and scores (the position's ply counters move on, and its line says so).
    let (mut after, mut before) = (game.to_setup(search.tree().position(i)), game.to_setup(&pos));
    assert_eq!((after.plies, after.since_capture), (before.plies + 4, before.since_capture + 4));
    for setup in [&mut after, &mut before] {
        (setup.plies, setup.since_capture) = (0, 0);
    }
    assert_eq!(after, before);
}

/// Tree reuse keeps the window: after advancing A and a, the search still sees the cycle.
#[test]
fn advance_carries_the_repetition_window() {
    let (game, pos) = position("oware houses=2 seeds=2", LOOP);
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 10, ..SearchConfig::default() }, 1);
    search.set_root(pos, std::iter::empty());
    search.run(&mut UniformEvaluator);
    search.advance(0);
    search.advance(0);
    // The kept subtree already has the settled node; a new search from a tree rebuilt with
    // advance on unexpanded children must find it too.
    let end = node_at(&search, &ROUND[2..]).unwrap();
    assert_eq!(search.tree().state(end), NodeState::Terminal);

    let mut rebuilt = Search::new(game.clone(), SearchConfig { simulations: 10, ..SearchConfig::default() }, 1);
    rebuilt.set_root(pos, std::iter::empty());
    rebuilt.advance(0);
    rebuilt.advance(0);
    rebuilt.run(&mut UniformEvaluator);
    let end = node_at(&rebuilt, &ROUND[2..]).unwrap();
    assert_eq!(rebuilt.tree().state(end), NodeState::Terminal);
    assert_eq!(rebuilt.tree().terminal_value(end), -1.0);
}

/// Advancing into a child the search never looked at, whose move closes the cycle: the new
/// root is the finished, settled position, as the game's line has it.
#[test]
fn advance_into_an_unexpanded_child_applies_the_cycle_rule() {
    let (game, pos) = position("oware houses=2 seeds=2", LOOP);
    let line = line_after(&game, pos, &ROUND[..3]);
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 1, ..SearchConfig::default() }, 1);
    search.set_root_line(&line);
    search.run(&mut UniformEvaluator);
    assert_eq!(search.tree().state(node_at(&search, &[1]).unwrap()), NodeState::Fresh);
    search.advance(1);
    let full = line_after(&game, pos, &ROUND);
    assert_eq!(*search.root_position(), *full.position());
    assert!(search.is_done(), "the game is over");
    assert_eq!(search.select_action(0.0), None);
    assert_eq!(search.root_value(), -1.0);

    // The same without any search first (the root was never evaluated).
    let mut search = Search::new(game.clone(), SearchConfig { simulations: 1, ..SearchConfig::default() }, 1);
    search.set_root_line(&line_after(&game, pos, &ROUND[..2]));
    search.advance(1);
    search.advance(1);
    assert_eq!(*search.root_position(), *full.position());
    assert!(search.is_done());
}

/// Every position in trees over Oware endgames agrees with the rules' own line: replaying a
/// node's action path through [`Line`] (cycle rule included) gives the node's position, and a
/// node is terminal exactly when the line's game is over. The endgame (a seed each going round
/// the board, from the rules tests) repeats after 12 plies.
#[test]
fn tree_positions_agree_with_the_line_in_oware_endgames() {
    let cases = [
        ("oware", "south | 22 24 | 1 0 0 0 0 0 1 0 0 0 0 0 | ongoing"),
        ("oware", "south | 21 22 | 1 0 1 0 0 0 1 0 0 2 0 0 | ongoing"),
        ("oware houses=3 seeds=2", "north | 4 4 | 1 0 0 1 1 1 | ongoing"),
        ("oware houses=2 seeds=2", LOOP),
    ];
    for (rules, setup) in cases {
        let (game, pos) = position(rules, setup);
        let mut search = Search::new(game.clone(), SearchConfig { simulations: 3000, ..SearchConfig::default() }, 1);
        search.set_root(pos, std::iter::empty());
        search.run(&mut HashEvaluator::default());
        let t = search.tree();
        let mut settled = 0;
        let mut stack = vec![(NodeId::ROOT, Line::from_position(game.clone(), pos))];
        while let Some((i, line)) = stack.pop() {
            if t.state(i) == NodeState::Fresh {
                continue;
            }
            assert_eq!(*t.position(i), *line.position(), "{rules}: node {i} after {:?}", line.move_labels());
            assert_eq!(t.state(i) == NodeState::Terminal, line.status().is_over(), "{rules}: node {i}");
            if i != NodeId::ROOT {
                let mut raw = *line.positions().nth(line.len() - 1).unwrap();
                game.play_unchecked(&mut raw, line.moves().last().unwrap());
                if raw != *t.position(i) {
                    settled += 1;
                }
            }
            for c in t.children(i) {
                let mut next = line.clone();
                next.play(t.action(c)).unwrap();
                stack.push((c, next));
            }
        }
        assert!(settled > 0, "{rules} {setup}: no cycle was reached in the tree");
    }
}
