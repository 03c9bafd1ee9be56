//! `Game::passed`: Oware and Kalah settle the passed position themselves (the encoder asks
//! for it at every network leaf); it must be the position the setup route gives, the one
//! every game's own set-up rules settle.

use mancala_rules::{Game, parse_rules, passed_by_setup};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

#[test]
fn passed_is_the_set_up_position_with_the_other_side_to_move() {
    let mut rng = SmallRng::seed_from_u64(5);
    for rules in [
        "oware",
        "ouril",
        "awale",
        "oware-capture-all",
        "oware cycle=plies:40",
        "kalah",
        "kalah:4,3",
        "ba-awa",
        "owela",
    ] {
        let game = parse_rules(rules).unwrap();
        let mut positions = 0;
        for _ in 0..30 {
            let mut pos = game.start();
            loop {
                let passed = game.passed(&pos);
                assert_eq!(passed, passed_by_setup(&game, &pos), "{rules}: {}", game.display(&pos));
                // Unless passing left the other side without a move, which ends the game there
                // and hands out the seeds, only the side to move changed.
                if let Some(p) = passed.filter(|p| !game.status(p).is_over()) {
                    assert_eq!(game.side_to_move(&p), game.side_to_move(&pos).opponent(), "{rules}");
                    assert_eq!((game.pits(&p), game.scores(&p)), (game.pits(&pos), game.scores(&pos)), "{rules}");
                }
                positions += 1;
                if game.status(&pos).is_over() {
                    break;
                }
                let moves: Vec<u8> = game.legal_moves(&pos).iter().collect();
                game.play_unchecked(&mut pos, moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(positions > 300, "{rules}: {positions} positions");
    }
}
