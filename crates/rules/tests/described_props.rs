//! Property tests of the sowing engine over random valid descriptions and random games: no
//! panic, seeds conserved after every move, every legal move accepted by the checked `play`
//! and every other action refused with a reason, position lines read back, every game ends.

use mancala_rules::sowing::{
    BoardDesc, CaptureDesc, CaptureFrom, CaptureOn, Cross, CrossFrom, CrossSeed, CycleDesc, Described, Description,
    Direction, EmptyRowTo, EndDesc, FORMAT, GrandSlam, MoveDesc, NoMove, Origin, Score, Singletons, SowFrom,
    SowingDesc, SowingTo,
};
use mancala_rules::{Game, Line};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn pick<T: Copy + std::fmt::Debug + 'static>(items: &'static [T]) -> impl Strategy<Value = T> {
    (0..items.len()).prop_map(move |i| items[i])
}

prop_compose! {
    fn board()(ranks in pick(&[2u8, 2, 4]), houses in 1u8..=9, seeds in 2u8..=5, stores in any::<bool>(), pattern in any::<bool>())
        (ranks in Just(ranks), houses in Just(houses), seeds in Just(seeds), stores in Just(stores && ranks == 2),
         start in proptest::collection::vec(0u8..=4, usize::from(ranks) * usize::from(houses) / 2), pattern in Just(pattern))
        -> BoardDesc {
        let mut start = start;
        start[0] = start[0].max(2);
        BoardDesc { ranks, houses, seeds: (!pattern).then_some(seeds), start: pattern.then_some(start), stores }
    }
}

prop_compose! {
    fn description()(board in board(),
        min_seeds in 1u8..=2, singletons in pick(&[Singletons::Free, Singletons::Restricted]), must_feed in any::<bool>(),
        from in pick(&[SowFrom::Own, SowFrom::Own, SowFrom::Controlled]),
        direction in pick(&[Direction::CounterClockwise, Direction::Clockwise, Direction::Either]),
        origin in pick(&[Origin::Sow, Origin::Skip, Origin::First]), relay in any::<bool>(), relay_limit in 0u32..50,
        extra_turn in any::<bool>(),
        counts in proptest::collection::vec(1u8..=6, 0..3), evens in any::<bool>(),
        on in pick(&[CaptureOn::Last, CaptureOn::Run, CaptureOn::Sowing]),
        capture_from in pick(&[CaptureFrom::Opponent, CaptureFrom::Own, CaptureFrom::Any]),
        sowing_to in pick(&[SowingTo::Controller, SowingTo::Mover]),
        cross in pick(&[Cross::None, Cross::Occupied, Cross::Always]), four_rank in any::<bool>(),
        cross_seed in pick(&[CrossSeed::Taken, CrossSeed::Left]), cross_from in pick(&[CrossFrom::Own, CrossFrom::Any]),
        grand_slam in pick(&[GrandSlam::CaptureAll, GrandSlam::NoCapture, GrandSlam::Forbidden, GrandSlam::ExtraTurn]),
        majority in any::<bool>(), no_move in pick(&[NoMove::OwnersTake, NoMove::NotScored, NoMove::OpponentTakes, NoMove::MoverLoses]),
        empty_row in any::<bool>(), seeds_left in pick(&[0u8, 0, 2]),
        empty_row_to in pick(&[EmptyRowTo::Owners, EmptyRowTo::Emptied]), all_singles in any::<bool>(),
        cycle in pick(&[CycleDesc::None, CycleDesc::Repetition, CycleDesc::Plies(30)]), max_plies in pick(&[0u16, 60, 300]),
        board_score in any::<bool>())
        -> Description {
        let four = board.ranks == 4;
        let per_player: u32 = match (&board.start, board.seeds) {
            (Some(start), _) => start.iter().map(|&s| u32::from(s)).sum(),
            (None, Some(s)) => u32::from(s) * u32::from(board.ranks) * u32::from(board.houses) / 2,
            (None, None) => 0,
        };
        let mut counts = counts;
        counts.retain(|&c| u32::from(c) <= 2 * per_player);
        let from = if four { SowFrom::Own } else { from };
        let stores = board.stores;
        let score = if board_score && !stores && counts.is_empty() && !evens { Score::Board } else { Score::Captures };
        let captures = score == Score::Captures;
        let can_count = captures && (!counts.is_empty() || evens);
        Description {
            format: FORMAT,
            name: "random".to_string(),
            title: String::new(), origin: String::new(), about: String::new(), sources: Vec::new(),
            board,
            moves: MoveDesc { min_seeds, singletons, must_feed, from },
            sowing: SowingDesc {
                direction: if stores && direction == Direction::Either { Direction::Clockwise } else { direction },
                origin, relay: relay || (four && four_rank), relay_limit, extra_turn: extra_turn && stores,
            },
            capture: CaptureDesc {
                counts: if captures { counts } else { Vec::new() }, evens: evens && captures,
                on: if on == CaptureOn::Sowing && !can_count { CaptureOn::Last } else { on },
                from: capture_from, sowing_to,
                cross: if four || !captures { Cross::None } else { cross }, four_rank: four && four_rank, grand_slam,
                // Said only of a cross capture (refused without one).
                cross_seed: if four || !captures || cross == Cross::None { CrossSeed::Taken } else { cross_seed },
                cross_from: if four || !captures || cross == Cross::None { CrossFrom::Own } else { cross_from },
            },
            // A ply cap wherever seeds can circulate: a repetition alone ends such a game only
            // after more plies than a test can wait for.
            end: EndDesc {
                majority: majority && captures, no_move, empty_row, seeds_left, cycle, all_singles,
                // Said only of an empty row's end, and only where seeds are taken off the board.
                empty_row_to: if empty_row && score == Score::Captures { empty_row_to } else { EmptyRowTo::Owners },
                max_plies: if max_plies == 0 && !(stores && !relay && !four_rank) { 300 } else { max_plies },
                score,
            },
            special: Vec::new(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A description either resolves, and then its games keep every rule of the engine, or
    /// is refused with an error naming a key.
    #[test]
    fn random_descriptions_play_random_games(desc in description(), seed in any::<u64>()) {
        // The generator makes only valid descriptions (the refusals have their own test).
        let game = match Described::new(desc.clone()) {
            Ok(g) => g,
            Err(e) => return Err(TestCaseError::fail(format!("{e}: {desc:?}"))),
        };
        let total = u32::from(game.total_seeds());
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..4 {
            let mut line = Line::new(game.clone());
            let mut plies = 0u32;
            while !line.status().is_over() {
                let pos = *line.position();
                let on_board: u32 = game.pits(&pos).iter().map(|&c| u32::from(c)).sum();
                let scores = game.scores(&pos);
                let counted = if game.rules().score == Score::Board { on_board } else { on_board + u32::from(scores.south) + u32::from(scores.north) };
                prop_assert_eq!(counted, total, "seeds not conserved: {}", game.to_setup(&pos));
                let legal = game.legal_moves(&pos);
                prop_assert!(!legal.is_empty(), "an ongoing game with no legal move: {}", game.to_setup(&pos));
                // Every action checked on the first plies of a game, where most positions differ.
                for a in (0..game.action_space() as u8).filter(|_| plies < 40) {
                    match game.play(&pos, a) {
                        Ok(_) => prop_assert!(legal.contains(a)),
                        Err(e) => {
                            prop_assert!(!legal.contains(a), "legal {} refused: {}", a, e);
                            prop_assert!(!e.to_string().is_empty());
                        }
                    }
                }
                let setup = game.to_setup(&pos);
                let back = game.from_setup(&setup);
                prop_assert!(back.is_ok(), "{} does not read back: {:?}", setup, back.err());
                let back = back.unwrap();
                prop_assert_eq!(game.legal_moves(&back), legal, "{}", setup);
                let label = game.move_label(game.side_to_move(&pos), legal.nth(0).unwrap());
                prop_assert_eq!(game.parse_move(&pos, &label).ok(), legal.nth(0), "{}", label);
                let action = legal.nth(rng.random_range(0..legal.len())).unwrap();
                line.play(action).unwrap();
                plies += 1;
                prop_assert!(plies < 20_000, "a game did not end: {}", game.to_setup(line.position()));
            }
            let end = *line.position();
            let on_board: u32 = game.pits(&end).iter().map(|&c| u32::from(c)).sum();
            let scores = game.scores(&end);
            let counted = if game.rules().score == Score::Board { on_board } else { on_board + u32::from(scores.south) + u32::from(scores.north) };
            prop_assert_eq!(counted, total);
        }
    }
}
