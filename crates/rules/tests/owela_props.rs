//! Properties of Owela over random games, for several option combinations, plus the checks
//! of the position line, labels and board display.

use mancala_rules::owela::Owela;
use mancala_rules::{AnyGame, Game, IllegalMove, Player, Setup, SetupError, Status, parse_rules};
use proptest::prelude::*;

fn owela(rules: &str) -> Owela {
    match parse_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}")) {
        AnyGame::Owela(g) => g,
        other => panic!("{rules} gave {}", other.family()),
    }
}

fn rules_strategy() -> impl Strategy<Value = String> {
    (6u32..=16, 1u32..=2, prop_oneof![Just(1u32), Just(2), Just(5), Just(1000)], prop_oneof![1u32..=40, Just(1000)])
        .prop_map(|(c, m, r, p)| format!("owela columns={c} min_sow={m} max_relay={r} max_plies={p}"))
}

fn seeds_of(game: &Owela, pos: &<Owela as Game>::Position, side: Player) -> u16 {
    let pits = game.pits(pos);
    let half = pits.len() / 2;
    let own = if side == Player::South { &pits[..half] } else { &pits[half..] };
    own.iter().map(|&n| u16::from(n)).sum()
}

/// Every invariant of one position.
fn check_position(game: &Owela, pos: &<Owela as Game>::Position) -> Result<(), TestCaseError> {
    let total = game.total_seeds();
    let pits = game.pits(pos);
    prop_assert_eq!(pits.len(), 2 * game.action_space());
    let on_board: u16 = pits.iter().map(|&n| u16::from(n)).sum();
    prop_assert_eq!(on_board, total, "seed conservation");
    prop_assert!(pits.iter().all(|&n| u16::from(n) <= total), "pit overflow");
    let scores = game.scores(pos);
    prop_assert_eq!(scores.south, seeds_of(game, pos, Player::South));
    prop_assert_eq!(scores.north, seeds_of(game, pos, Player::North));

    // Legal moves are exactly the actions `play` accepts.
    let side = game.side_to_move(pos);
    let legal = game.legal_moves(pos);
    let over = game.status(pos).is_over();
    prop_assert_eq!(over, legal.is_empty(), "a game is over exactly when no move is legal");
    for a in 0..game.action_space() as u8 {
        let res = game.play(pos, a);
        prop_assert_eq!(res.is_ok(), legal.contains(a), "action {}", a);
        match res {
            Ok(_) => prop_assert!(pits[game.action_pit(side, a)] >= 1),
            Err(IllegalMove::NotLegal { reason, .. }) => prop_assert!(reason.contains("seed"), "{}", reason),
            Err(IllegalMove::GameOver { .. }) => prop_assert!(over),
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
        // Labels round trip.
        let label = game.move_label(side, a);
        prop_assert_eq!(game.parse_move(pos, &label), Ok(a));
        prop_assert_eq!(game.controller(pos, game.action_pit(side, a)), side);
        let other = game.move_label(side.opponent(), a);
        prop_assert!(game.parse_move(pos, &other).is_err());
    }
    let space = game.action_space() as u8;
    let out_of_range = matches!(game.play(pos, space), Err(IllegalMove::OutOfRange { .. }));
    prop_assert!(out_of_range, "action {} is outside the action space", space);

    // Hashes of equal positions agree.
    let copy = *pos;
    prop_assert_eq!(game.hash(&copy), game.hash(pos));

    // The position line round trips, ply count included: the same position, hash and all.
    let setup = game.to_setup(pos);
    let text = setup.to_string();
    let parsed: Setup = text.parse().map_err(|e: SetupError| TestCaseError::fail(e.to_string()))?;
    let back = game.from_setup(&parsed).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(game.pits(&back), game.pits(pos));
    prop_assert_eq!(game.side_to_move(&back), side);
    prop_assert_eq!(game.scores(&back), scores);
    if game.status(pos) == Status::Ongoing {
        prop_assert_eq!(game.to_setup(&back), setup);
        prop_assert_eq!(game.legal_moves(&back), legal);
        prop_assert_eq!(back, *pos);
        prop_assert_eq!(game.hash(&back), game.hash(pos));
    }
    Ok(())
}

/// Plays random legal moves (chosen by `choices`) to the end; returns the positions and moves.
fn random_game(game: &Owela, choices: &[u16]) -> Result<(Vec<<Owela as Game>::Position>, Vec<u8>), TestCaseError> {
    let mut pos = game.start();
    let mut positions = vec![pos];
    let mut moves = Vec::new();
    let mut k = 0usize;
    while !game.status(&pos).is_over() {
        check_position(game, &pos)?;
        let legal = game.legal_moves(&pos);
        let pick = usize::from(choices[k % choices.len()]) % legal.len();
        k += 1;
        let a = legal.nth(pick).expect("pick < len");
        let mover = game.side_to_move(&pos);
        let before = seeds_of(game, &pos, mover);
        let (next, sowing) = game.play(&pos, a).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let after = seeds_of(game, &next, mover);
        prop_assert_eq!(after - before, sowing.captured, "the mover's side gains the captured seeds");
        prop_assert_eq!(sowing.irreversible, sowing.captured > 0, "captures, and only they, are irreversible");
        prop_assert_eq!(game.side_to_move(&next), mover.opponent());
        pos = next;
        positions.push(pos);
        moves.push(a);
    }
    check_position(game, &pos)?;
    Ok((positions, moves))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(rules in rules_strategy(), choices in prop::collection::vec(any::<u16>(), 1..64)) {
        let game = owela(&rules);
        let (positions, moves) = random_game(&game, &choices)?;
        let plies: u16 = rules.rsplit('=').next().unwrap().parse().unwrap();
        prop_assert!(moves.len() <= usize::from(plies), "the game ends within max_plies");

        // Replaying the record gives the same positions.
        let mut pos = game.start();
        for (i, &a) in moves.iter().enumerate() {
            game.play_unchecked(&mut pos, a);
            prop_assert_eq!(pos, positions[i + 1]);
            prop_assert_eq!(game.hash(&pos), game.hash(&positions[i + 1]));
        }
        match game.status(&pos) {
            Status::Over(o) => {
                let s = game.scores(&pos);
                if let Some(w) = o.winner {
                    prop_assert_eq!(o.margin, s[w].saturating_sub(s[w.opponent()]));
                } else {
                    prop_assert_eq!(s.south, s.north);
                }
            }
            Status::Ongoing => prop_assert!(false, "the game did not end"),
        }
    }

    #[test]
    fn rules_string_round_trips(rules in rules_strategy()) {
        let game = owela(&rules);
        prop_assert_eq!(game.rules_string(), rules.clone());
        prop_assert_eq!(owela(&game.rules_string()), game);
    }
}

#[test]
fn default_games_end_and_differ_by_the_hash() {
    let game = owela("owela");
    let mut choices = 1u16;
    for _ in 0..50 {
        choices = choices.wrapping_mul(31).wrapping_add(7);
        let (positions, _) = random_game(&game, &[choices, choices / 3, choices / 7]).unwrap();
        let last = positions.last().unwrap();
        assert!(game.status(last).is_over());
    }
    let start = game.start();
    let (next, _) = game.play(&start, 0).unwrap();
    assert_ne!(game.hash(&start), game.hash(&next));
}

#[test]
fn rules_string_is_canonical() {
    assert_eq!(owela("owela").rules_string(), "owela columns=8 min_sow=2 max_relay=1000 max_plies=1000");
    assert_eq!(
        owela("OWELA min-sow=1 Columns=6").rules_string(),
        "owela columns=6 min_sow=1 max_relay=1000 max_plies=1000"
    );
    let game = owela("owela columns=10");
    assert_eq!(game.action_space(), 20);
    assert_eq!(game.total_seeds(), 56);
}

#[test]
fn from_setup_names_what_is_wrong() {
    let game = owela("owela");
    let read = |line: &str| game.from_setup(&line.parse::<Setup>().unwrap());
    let start = "south | 24 24 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing";
    assert_eq!(read(start).unwrap(), game.start());
    assert_eq!(read("south | 24 24 | 2 2 2 2 | ongoing"), Err(SetupError::PitCount { found: 4, expected: 32 }));
    assert_eq!(
        read("south | 24 25 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 1 0 0 0 | ongoing"),
        Err(SetupError::SeedCount { found: 49, expected: 48 })
    );
    let err = read("south | 0 0 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing")
        .unwrap_err()
        .to_string();
    assert!(err.contains("score of south is 0") && err.contains("24"), "{err}");
    let err = read("south | 24 24 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing | s s")
        .unwrap_err()
        .to_string();
    assert!(err.contains("controllers"), "{err}");
}

#[test]
fn labels_and_move_errors() {
    let game = owela("owela columns=16");
    let pos = game.start();
    assert_eq!(game.move_label(Player::South, 0), "A");
    assert_eq!(game.move_label(Player::South, 25), "Z");
    assert_eq!(game.move_label(Player::South, 26), "A2");
    assert_eq!(game.move_label(Player::North, 31), "f2");
    assert_eq!(game.action_pit(Player::North, 31), 63);
    assert_eq!(game.parse_move(&pos, "F2"), Ok(31));
    let err = game.parse_move(&pos, "b").unwrap_err().to_string();
    assert!(err.contains("north") && err.contains("south is to move"), "{err}");
    let err = game.parse_move(&pos, "G2").unwrap_err().to_string();
    assert!(err.contains("'G2'") && err.contains("A, B"), "{err}");
    assert!(game.parse_move(&pos, "").is_err());
    assert!(game.parse_move(&pos, "A3").is_err());
}

#[test]
fn display_lines_up_the_columns() {
    let game = owela("owela");
    let text = game.display(&game.start());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "North: 24 seeds");
    // North's outer row h..a, North's inner i..p, South's inner P..I, South's outer A..H.
    assert_eq!(lines[1].split_whitespace().collect::<String>(), "hgfedcba");
    assert_eq!(lines[3].split_whitespace().collect::<String>(), "ijklmnop");
    assert_eq!(lines[4].split_whitespace().collect::<String>(), "22220000");
    assert_eq!(lines[5].split_whitespace().collect::<String>(), "PONMLKJI");
    assert_eq!(lines[6].split_whitespace().collect::<String>(), "00002222");
    assert_eq!(lines[7].split_whitespace().collect::<String>(), "ABCDEFGH");
    assert!(text.contains("South: 24 seeds") && text.contains("south to move"), "{text}");
}
