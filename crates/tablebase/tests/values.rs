//! Database values against searches written independently of the build: a plain minimax to
//! the end for Kalah (which cannot cycle), and for Oware a threshold-by-threshold attractor
//! computation (who can force at least t, who can hold the mover to at most t) with the
//! cycle rule applied where neither can; the boards come from a recursive enumeration, not
//! from the index. The same attractor computation, with the game's own end and every split
//! of the captured seeds, is the reference of the scored database.

use std::collections::HashMap;

use mancala_rules::{AnyGame, ByPlayer, Game, Player, Setup, parse_rules};
use mancala_tablebase::build::{cycle_value, endgame_scores};
use mancala_tablebase::{BuildStats, ScoredTablebase, Tablebase};

/// A position as the references know it: board, side to move, and South's score (North's is
/// the rest of the captured seeds).
type Key = (Vec<u8>, Player, u16);

/// How a reference ends a game: as the database does, playing on to the end from the
/// captured seeds split evenly; or by the game's own end, for every split of them that
/// leaves the game ongoing (the scored database).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ends {
    PlayedOut,
    OwnEnd,
}

/// The database's key of a board: its scores are the even split.
fn played_out_key<G: Game>(game: &G, board: &[u8], side: Player) -> Key {
    let seeds: usize = board.iter().map(|&c| usize::from(c)).sum();
    (board.to_vec(), side, endgame_scores(game.total_seeds(), seeds)[Player::South])
}

/// South's scores that the references value a layer with.
fn splits<G: Game>(game: &G, seeds: usize, ends: Ends) -> Vec<u16> {
    let total = game.total_seeds();
    let captured = total - seeds as u16;
    match ends {
        Ends::PlayedOut => vec![endgame_scores(total, seeds)[Player::South]],
        Ends::OwnEnd if !game.stops_at_majority() => (0..=captured).collect(),
        Ends::OwnEnd => (0..=captured).filter(|s| *s <= total / 2 && captured - s <= total / 2).collect(),
    }
}

fn every_board(pits: usize, seeds: usize) -> Vec<Vec<u8>> {
    fn go(prefix: &mut Vec<u8>, pits: usize, left: usize, out: &mut Vec<Vec<u8>>) {
        if prefix.len() == pits - 1 {
            prefix.push(left as u8);
            out.push(prefix.clone());
            prefix.pop();
            return;
        }
        for c in 0..=left {
            prefix.push(c as u8);
            go(prefix, pits, left - c, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), pits, seeds, &mut out);
    out
}

fn position<G: Game>(game: &G, key: &Key) -> (G::Position, ByPlayer<u16>) {
    let (board, side, south) = key;
    let seeds: usize = board.iter().map(|&c| usize::from(c)).sum();
    let scores = ByPlayer::new(*south, game.total_seeds() - seeds as u16 - south);
    let setup = Setup {
        side: *side,
        scores,
        pits: board.to_vec(),
        controllers: None,
        status: "ongoing".into(),
        ..Setup::default()
    };
    (game.from_setup(&setup).unwrap(), scores)
}

/// The remaining-seeds value of a finished game, for the mover, from the scores it had.
fn finished<G: Game>(game: &G, pos: &G::Position, scores: ByPlayer<u16>) -> Option<i32> {
    let me = game.side_to_move(pos);
    let o = game.status(pos).outcome()?;
    Some(o.margin_for(me) - (i32::from(scores[me]) - i32::from(scores[!me])))
}

/// A move's seeds gained (mover minus opponent), the position after it (or, when the game's
/// own end stops it there, the value of that end beyond the scores after the move), and
/// whether the mover moves again.
fn moves<G: Game>(
    game: &G,
    pos: &G::Position,
    scores: ByPlayer<u16>,
    ends: Ends,
) -> Vec<(i32, Result<Key, i32>, bool)> {
    let me = game.side_to_move(pos);
    game.legal_moves(pos)
        .iter()
        .map(|a| {
            let mut next = *pos;
            game.play_unchecked(&mut next, a);
            let after = game.scores(&next);
            let gained =
                (i32::from(after[me]) - i32::from(scores[me])) - (i32::from(after[!me]) - i32::from(scores[!me]));
            let side = game.side_to_move(&next);
            let child = match ends {
                Ends::PlayedOut => Ok(played_out_key(game, game.pits(&next), side)),
                Ends::OwnEnd => match finished(game, &next, after) {
                    Some(v) => Err(v),
                    None => Ok((game.pits(&next).to_vec(), side, after[Player::South])),
                },
            };
            (gained, child, side == me)
        })
        .collect()
}

/// Plain minimax to the end of the game, memoised; only for games that cannot cycle.
fn minimax<G: Game>(game: &G, key: &Key, memo: &mut HashMap<Key, i32>) -> i32 {
    if let Some(&v) = memo.get(key) {
        return v;
    }
    let (pos, scores) = position(game, key);
    let v = match finished(game, &pos, scores) {
        Some(v) => v,
        None => moves(game, &pos, scores, Ends::PlayedOut)
            .into_iter()
            .map(|(gained, child, same)| {
                let v = minimax(game, &child.expect("played out, a game goes on"), memo);
                gained + if same { v } else { -v }
            })
            .max()
            .expect("an ongoing game has a move"),
    };
    memo.insert(key.clone(), v);
    v
}

/// Every value up to `max_seeds`, layer by layer. In a layer, `force_at_least[t]` holds the
/// positions whose mover can force a value of at least `t` in finitely many moves, and
/// `hold_to[t]` those where the opponent can hold the mover to at most `t`; both are least
/// fixed points, grown until nothing changes.
fn attractor_values<G: Game>(game: &G, max_seeds: usize, ends: Ends) -> HashMap<Key, i32> {
    let pits = game.pits(&game.start()).len();
    let mut values: HashMap<Key, i32> = HashMap::new();
    for seeds in 0..=max_seeds {
        let n = seeds as i32;
        let mut keys = Vec::new();
        let mut fixed: HashMap<Key, i32> = HashMap::new();
        let mut exits: HashMap<Key, Vec<i32>> = HashMap::new();
        let mut inner: HashMap<Key, Vec<(Key, bool)>> = HashMap::new();
        for board in every_board(pits, seeds) {
            for side in Player::BOTH {
                for south in splits(game, seeds, ends) {
                    let key = (board.clone(), side, south);
                    let (pos, scores) = position(game, &key);
                    if let Some(v) = finished(game, &pos, scores) {
                        fixed.insert(key.clone(), v);
                    } else {
                        let mut ex = Vec::new();
                        let mut inn = Vec::new();
                        for (gained, child, same) in moves(game, &pos, scores, ends) {
                            let child = match child {
                                Err(end) => {
                                    ex.push(gained + if same { end } else { -end });
                                    continue;
                                }
                                Ok(child) => child,
                            };
                            let child_seeds: usize = child.0.iter().map(|&c| usize::from(c)).sum();
                            if child_seeds < seeds {
                                let v = values[&child];
                                ex.push(gained + if same { v } else { -v });
                            } else {
                                assert_eq!(gained, 0);
                                inn.push((child, same));
                            }
                        }
                        exits.insert(key.clone(), ex);
                        inner.insert(key.clone(), inn);
                    }
                    keys.push(key);
                }
            }
        }
        // sets[t + n] for t in -n..=n.
        let mut force: Vec<HashMap<Key, bool>> = vec![HashMap::new(); (2 * n + 1) as usize];
        let mut hold: Vec<HashMap<Key, bool>> = vec![HashMap::new(); (2 * n + 1) as usize];
        let at = |t: i32| (t + n) as usize;
        loop {
            let mut changed = false;
            for key in &keys {
                for t in -n..=n {
                    let (f, h) = if let Some(&v) = fixed.get(key) {
                        (v >= t, v <= t)
                    } else {
                        let ex = &exits[key];
                        let inn = &inner[key];
                        let in_force = |k: &Key, t: i32| force[at(t)].get(k).copied().unwrap_or(false);
                        let in_hold = |k: &Key, t: i32| hold[at(t)].get(k).copied().unwrap_or(false);
                        let f = ex.iter().any(|&v| v >= t)
                            || inn.iter().any(|(c, same)| if *same { in_force(c, t) } else { in_hold(c, -t) });
                        let h = ex.iter().all(|&v| v <= t)
                            && inn.iter().all(|(c, same)| if *same { in_hold(c, t) } else { in_force(c, -t) });
                        (f, h)
                    };
                    if f && !force[at(t)].get(key).copied().unwrap_or(false) {
                        force[at(t)].insert(key.clone(), true);
                        changed = true;
                    }
                    if h && !hold[at(t)].get(key).copied().unwrap_or(false) {
                        hold[at(t)].insert(key.clone(), true);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for key in keys {
            let lo = (-n..=n).rev().find(|&t| force[at(t)].contains_key(&key)).unwrap_or(-n);
            let hi = (-n..=n).find(|&t| hold[at(t)].contains_key(&key)).unwrap_or(n);
            let v = if lo == hi {
                lo
            } else {
                let (pos, scores) = position(game, &key);
                i32::from(cycle_value(game, &pos, scores)).clamp(lo, hi)
            };
            values.insert(key, v);
        }
    }
    values
}

fn build(rules: &str, seeds: usize) -> (AnyGame, Tablebase) {
    let (game, tb, _) = build_with_stats(rules, seeds);
    (game, tb)
}

fn build_with_stats(rules: &str, seeds: usize) -> (AnyGame, Tablebase, BuildStats) {
    let game = parse_rules(rules).unwrap();
    let (tb, stats) = Tablebase::build(&game, seeds, &|_| {}).unwrap();
    assert_eq!(stats.slots, tb.values().len() as u64);
    (game, tb, stats)
}

#[test]
fn kalah_values_equal_plain_minimax_to_the_end() {
    let (game, tb) = build("kalah", 6);
    let mut memo = HashMap::new();
    let mut checked = 0;
    for seeds in 0..=6 {
        for board in every_board(12, seeds) {
            for side in Player::BOTH {
                let expected = minimax(&game, &played_out_key(&game, &board, side), &mut memo);
                assert_eq!(i32::from(tb.value(&board, side).unwrap()), expected, "{board:?} {side}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, tb.values().len());
}

#[test]
fn kalah_values_equal_the_attractor_search_too() {
    let (game, tb, stats) = build_with_stats("kalah:4,3", 7);
    assert_eq!(stats.cyclic, 0, "Kalah cannot cycle");
    let reference = attractor_values(&game, 7, Ends::PlayedOut);
    let mut memo = HashMap::new();
    for (key, v) in &reference {
        let (board, side, _) = key;
        assert_eq!(i32::from(tb.value(board, *side).unwrap()), *v, "{board:?} {side}");
        assert_eq!(minimax(&game, key, &mut memo), *v, "{board:?} {side}");
    }
    assert_eq!(reference.len(), tb.values().len());
}

#[test]
fn probe_agrees_with_the_values_of_the_moves() {
    let (game, tb) = build("kalah", 5);
    let setup: Setup = "north | 20 23 | 1 0 2 0 0 0 0 0 0 1 1 0 | ongoing".parse().unwrap();
    let pos = game.from_setup(&setup).unwrap();
    let probe = tb.probe(&game, &pos).unwrap();
    let best = probe.best.iter().map(|a| probe.move_values[usize::from(a)]).max().unwrap();
    assert_eq!(probe.value, best, "without cycles a value is its best move's");
    assert_eq!(probe.final_margin, 3 + i32::from(probe.value));
    for a in probe.legal {
        assert!(probe.move_values[usize::from(a)] <= best);
    }
}

#[test]
fn positions_outside_the_database_are_not_probed() {
    let (game, tb) = build("kalah", 3);
    assert!(tb.probe(&game, &game.start()).is_none());
    assert!(tb.value(&[1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], Player::South).is_none());
    assert!(tb.value(&[0; 10], Player::South).is_none(), "another pit count");
}

#[test]
fn the_empty_board_is_worth_nothing_and_one_seed_one() {
    let (_, tb) = build("kalah", 1);
    assert_eq!(tb.value(&[0; 12], Player::South), Some(0));
    assert_eq!(tb.value(&[0; 12], Player::North), Some(0));
    // One seed in a row ends Kalah at once (the other row is empty): it goes to the row's
    // owner.
    for pit in 0..12 {
        let mut board = [0u8; 12];
        board[pit] = 1;
        let owner = if pit < 6 { Player::South } else { Player::North };
        for side in Player::BOTH {
            let expected = if side == owner { 1 } else { -1 };
            assert_eq!(tb.value(&board, side), Some(expected), "seed in pit {pit}, {side} to move");
        }
    }
}

/// Swapping the rows and the side to move gives the same value: the rules favour no seat.
fn assert_row_symmetry(tb: &Tablebase) {
    let pits = tb.pits();
    let half = pits / 2;
    for seeds in 0..=tb.max_seeds() {
        for board in every_board(pits, seeds) {
            let mut swapped = board[half..].to_vec();
            swapped.extend_from_slice(&board[..half]);
            assert_eq!(tb.value(&board, Player::South), tb.value(&swapped, Player::North), "{board:?}");
        }
    }
}

#[test]
fn kalah_values_are_symmetric_between_the_seats() {
    assert_row_symmetry(&build("kalah", 6).1);
}

#[test]
fn values_are_bounded_by_the_seeds_on_the_board() {
    let (_, tb) = build("kalah", 6);
    for (slot, &v) in tb.values().iter().enumerate() {
        let (seeds, _, _) = tb.indexer().locate(slot as u64);
        assert!(i32::from(v).abs() <= seeds as i32, "slot {slot}: {v} with {seeds} seeds");
        // Seeds change hands whole: the margin has the parity of the seeds (Kalah keeps all).
        assert_eq!((i32::from(v) - seeds as i32).rem_euclid(2), 0, "slot {slot}");
    }
}

#[test]
fn oware_values_equal_the_attractor_search_with_the_cycle_rule() {
    let (game, tb, stats) = build_with_stats("oware", 6);
    // The cycle rule must have been needed, or this would not test it; layer 6 spans two
    // units of parallel work, so the chunked iteration is covered too.
    assert!(stats.cyclic > 0);
    let reference = attractor_values(&game, 6, Ends::PlayedOut);
    assert_eq!(reference.len(), tb.values().len());
    for ((board, side, _), v) in &reference {
        assert_eq!(i32::from(tb.value(board, *side).unwrap()), *v, "{board:?} {side}");
    }
}

#[test]
fn oware_variants_equal_the_attractor_search_too() {
    // Three houses a row reach deep layers cheaply, with layers that need the cycle rule and
    // layers that do not (as in the full board, where none from 11 to 15 seeds does).
    let (_, _, stats) = build_with_stats("oware houses=3 seeds=4", 10);
    assert!(stats.cyclic_by_seeds[7] > 0 && stats.cyclic_by_seeds[10] == 0, "{:?}", stats.cyclic_by_seeds);
    // Not awale: since the rules give a forced grand slam's forfeit as all 48 seeds to the
    // opponent, the database counts that forfeit while this reference counts only the seeds
    // on the board (a known open defect, see the closing note of the tablebase work).
    for (rules, seeds) in [("oware-capture-all", 5), ("oware houses=3 seeds=4", 10)] {
        let (game, tb) = build(rules, seeds);
        for ((board, side, _), v) in attractor_values(&game, seeds, Ends::PlayedOut) {
            assert_eq!(i32::from(tb.value(&board, side).unwrap()), v, "{rules}: {board:?} {side}");
        }
    }
}

#[test]
fn oware_values_are_symmetric_between_the_seats() {
    assert_row_symmetry(&build("oware", 7).1);
}

#[test]
fn oware_one_seed_goes_to_whoever_rule_five_gives_it() {
    let (_, tb) = build("oware", 1);
    assert_eq!(tb.value(&[0; 12], Player::South), Some(0));
    for pit in 0..6 {
        let mut board = [0u8; 12];
        board[pit] = 1;
        // South to move must feed North; only a seed in F can, and then North cannot feed
        // back and takes the seed. From any other house South cannot feed and takes it.
        let south = if pit == 5 { -1 } else { 1 };
        assert_eq!(tb.value(&board, Player::South), Some(south), "seed in pit {pit}");
        // North to move has no seed: the game ends and the seed goes to its row's owner.
        assert_eq!(tb.value(&board, Player::North), Some(-1), "seed in pit {pit}");
    }
}

#[test]
fn an_oware_capture_then_rule_five_written_out() {
    let (game, tb) = build("oware", 4);
    // South's only move, F, brings a to 2 and captures it (+2). North is left with the seed
    // in b, cannot feed South's empty row, and takes it by rule 5 (-1): worth 1 to South,
    // which with South one seed behind is a draw.
    let setup: Setup = "south | 22 23 | 0 0 0 0 0 1 1 1 0 0 0 0 | ongoing".parse().unwrap();
    let pos = game.from_setup(&setup).unwrap();
    let probe = tb.probe(&game, &pos).unwrap();
    assert_eq!(probe.value, 1);
    assert_eq!(probe.move_values[5], 1);
    assert_eq!(probe.best.iter().collect::<Vec<_>>(), vec![5]);
    assert_eq!(probe.final_margin, 0);
    assert_eq!(probe.result(), 0.0);
}

#[test]
fn unsupported_games_are_refused_by_name() {
    for rules in ["ouril", "owela", "ba-awa", "oware cycle=plies:50"] {
        let game = parse_rules(rules).unwrap();
        let err = Tablebase::build(&game, 2, &|_| {}).unwrap_err().to_string();
        assert!(err.contains("Oware and Kalah only"), "{rules}: {err}");
    }
    let err = Tablebase::build(&parse_rules("kalah:2,1").unwrap(), 5, &|_| {}).unwrap_err().to_string();
    assert!(err.contains("only 4 seeds"), "{err}");
}

fn build_scored(rules: &str, seeds: usize) -> (AnyGame, ScoredTablebase, BuildStats) {
    let game = parse_rules(rules).unwrap();
    let (scored, stats) = ScoredTablebase::build_within(&game, seeds, 1 << 30, &|_| {}).unwrap();
    (game, scored, stats)
}

#[test]
fn scored_oware_values_equal_the_attractor_search_with_the_games_own_end() {
    let (game, scored, stats) = build_scored("oware", 5);
    let (_, tb) = build("oware", 5);
    let reference = attractor_values(&game, 5, Ends::OwnEnd);
    assert_eq!(reference.len() as u64, stats.slots, "a value for every board, side and split");
    let mut stopped_differently = 0;
    for (key, v) in &reference {
        let (pos, scores) = position(&game, key);
        let probe = scored.probe(&game, &pos).unwrap();
        // A position the set-up already ends has moved the board's seeds into the scores
        // that the probe counts from; the final margin is the same either way.
        let side = key.1;
        let already = i32::from(scores[side]) - i32::from(scores[!side]);
        assert_eq!(probe.final_margin, already + v, "{key:?}");
        if !game.status(&pos).is_over() && tb.probe(&game, &pos).unwrap().value != probe.value {
            stopped_differently += 1;
        }
    }
    // Were the stop at a majority never to matter, this would not test it.
    assert!(stopped_differently > 100, "{stopped_differently}");
}

#[test]
fn scored_values_equal_the_databases_where_no_majority_stops_the_game() {
    // Kalah has no stop at a majority: every split of the captured seeds has the database's
    // values, moves and best moves.
    let (game, scored, _) = build_scored("kalah", 5);
    let (_, tb) = build("kalah", 5);
    let mut checked = 0;
    for seeds in 0..=5 {
        for board in every_board(12, seeds) {
            for side in Player::BOTH {
                for south in splits(&game, seeds, Ends::OwnEnd) {
                    let (pos, _) = position(&game, &(board.clone(), side, south));
                    assert_eq!(scored.probe(&game, &pos), tb.probe(&game, &pos), "{board:?} {side} {south}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn in_oware_a_majority_can_change_the_best_move() {
    let (game, scored, _) = build_scored("oware", 5);
    let (_, tb) = build("oware", 5);
    // South has 24 of the 48 seeds: any capture gives it a majority and stops the game, with
    // what is still on the board uncounted. Played out, both moves end 29 to 19 (+10). By the
    // game's own end A is worth +7 (the capture it comes to stops the game with seeds left on
    // the board) and B +10, so only B is best. (Found among the metric's sample positions.)
    let setup: Setup = "south | 24 19 | 1 2 0 0 0 0 0 0 1 1 0 0 | ongoing".parse().unwrap();
    let pos = game.from_setup(&setup).unwrap();
    let (own_end, played_out) = (scored.probe(&game, &pos).unwrap(), tb.probe(&game, &pos).unwrap());
    assert_eq!((played_out.move_margin(0), played_out.move_margin(1)), (10, 10));
    assert_eq!((own_end.move_margin(0), own_end.move_margin(1)), (7, 10));
    assert_eq!(played_out.best.iter().collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(own_end.best.iter().collect::<Vec<_>>(), vec![1]);
    assert_eq!((own_end.final_margin, played_out.final_margin), (10, 10));
}

#[test]
fn a_scored_database_too_large_for_the_limit_is_refused() {
    let game = parse_rules("oware").unwrap();
    // 0.52 billion values and the work of the largest split: about 0.83 GiB.
    let Err(err) = ScoredTablebase::build_within(&game, 15, 1 << 28, &|_| {}) else { panic!("built past the limit") };
    let err = err.to_string();
    assert!(err.contains("up to 15 seeds") && err.contains("the limit is 256.0 MiB"), "{err}");
    let Err(err) = ScoredTablebase::build_within(&parse_rules("ouril").unwrap(), 3, 1 << 30, &|_| {}) else {
        panic!("built for Ouril")
    };
    assert!(err.to_string().contains("Oware and Kalah only"), "{err}");
}

#[test]
fn the_search_evaluator_answers_by_the_games_own_end_when_given_the_scored_database() {
    use std::sync::Arc;

    use mancala_mcts::{Evaluator, UniformEvaluator};
    use mancala_tablebase::{TablebaseError, TablebaseEvaluator};
    let (game, scored, _) = build_scored("oware", 5);
    let (_, tb) = build("oware", 5);
    let (scored, tb) = (Arc::new(scored), Arc::new(tb));
    // The position above: played out both moves are best, by the game's own end only B.
    let setup: Setup = "south | 24 19 | 1 2 0 0 0 0 0 0 1 1 0 0 | ongoing".parse().unwrap();
    let pos = game.from_setup(&setup).unwrap();
    let policy_of = |eval: &mut TablebaseEvaluator<AnyGame, UniformEvaluator>| {
        let (mut policy, mut value) = (vec![0.0; game.action_space()], [0.0f32]);
        eval.evaluate(&game, &[pos], &mut policy, &mut value);
        (policy[..2].to_vec(), value[0])
    };
    let mut played_out = TablebaseEvaluator::new(&game, tb.clone(), UniformEvaluator).unwrap();
    let mut own_end = TablebaseEvaluator::new(&game, tb.clone(), UniformEvaluator)
        .unwrap()
        .with_scored(&game, scored.clone())
        .unwrap();
    assert_eq!(policy_of(&mut played_out), (vec![0.5, 0.5], 1.0));
    assert_eq!(policy_of(&mut own_end), (vec![0.0, 1.0], 1.0));
    assert_eq!(own_end.hits, 1);
    // A scored database of other rules, or of fewer seeds than the database, is refused.
    let (awale, awale_scored, _) = build_scored("awale", 3);
    let awale_tb = Arc::new(build("awale", 5).1);
    let err = TablebaseEvaluator::new(&awale, awale_tb.clone(), UniformEvaluator)
        .unwrap()
        .with_scored(&awale, scored.clone())
        .err()
        .unwrap();
    assert!(matches!(err, TablebaseError::WrongGame { .. }), "{err}");
    let err = TablebaseEvaluator::new(&awale, awale_tb, UniformEvaluator)
        .unwrap()
        .with_scored(&awale, Arc::new(awale_scored))
        .err()
        .unwrap();
    assert!(err.to_string().contains("to 3 seeds") && err.to_string().contains("to 5 seeds"), "{err}");
}
