//! Toguz Kumalak (games/toguz_kumalak.toml) and its special rule, the tuzdyk: the worked moves
//! of published rules texts, each limit of the rule, the position line's `tuzdyk=` field, and
//! random games that keep every invariant of the rule.

use mancala_rules::sowing::{Description, Step};
use mancala_rules::{AnyGame, Game, Line, Player, Setup, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn toguz() -> AnyGame {
    parse_rules("toguz-kumalak").expect("the catalogue has toguz-kumalak")
}

/// The position a line sets up, with the move `label` played: (after, South's gain, North's
/// gain, the trace's steps).
fn play(game: &AnyGame, line: &str, label: &str) -> (mancala_rules::AnyPosition, i32, i32, Vec<Step>) {
    let before = game.from_setup(&line.parse::<Setup>().unwrap()).unwrap_or_else(|e| panic!("{line}: {e}"));
    let action = game.parse_move(&before, label).unwrap();
    let (after, _, trace) = game.play_traced(&before, action).unwrap();
    let (b, a) = (game.scores(&before), game.scores(&after));
    let gain = |p: Player| i32::from(a[p]) - i32::from(b[p]);
    (after, gain(Player::South), gain(Player::North), trace.steps)
}

#[test]
fn the_file_and_the_catalogue_name_are_one_game() {
    let from_file = parse_rules(concat!(env!("CARGO_MANIFEST_DIR"), "/../../games/toguz_kumalak.toml")).unwrap();
    assert_eq!(from_file.rules_string(), toguz().rules_string());
    assert_eq!(toguz().total_seeds(), 162);
    assert_eq!(toguz().action_space(), 9);
    assert!(toguz().claims_houses());
    assert!(!parse_rules("oware").unwrap().claims_houses());
    assert!(toguz().endgame_database().is_err(), "a claim is state the board does not show");
}

/// The sowing example of the IG Game Center's rules page: nine seeds from house g (South's
/// seventh, `G` here), the first back into g; the last falls into the opponent's house that
/// then holds ten, an even count, and all ten are captured.
#[test]
fn worked_sowing_from_the_start_captures_an_even_house() {
    let game = toguz();
    let start = game.start();
    let g = game.parse_move(&start, "G").unwrap();
    let (after, _, trace) = game.play_traced(&start, g).unwrap();
    assert_eq!(trace.steps[0], Step::Lift { house: 6, seeds: 9 });
    assert_eq!(trace.steps[1], Step::Drop { house: 6 }, "the first seed goes back into the emptied house");
    assert_eq!(trace.steps[9], Step::Drop { house: 14 }, "the ninth seed falls into North's sixth house, f");
    assert_eq!(trace.steps[10], Step::Capture { house: 14, seeds: 10, player: Player::South });
    assert_eq!(game.scores(&after).south, 10);
    assert_eq!(game.pits(&after), [9, 9, 9, 9, 9, 9, 1, 10, 10, 10, 10, 10, 10, 10, 0, 9, 9, 9]);
}

/// A house of one seed moves its seed to the next house (every rules text of the game).
#[test]
fn a_single_seed_moves_on() {
    let game = toguz();
    let line = "south | 70 80 | 1 0 0 0 0 0 0 0 2 3 0 0 0 0 0 0 0 6 | ongoing";
    let (after, _, _, _) = play(&game, line, "A");
    assert_eq!(&game.pits(&after)[..2], [0, 1]);
}

/// The small board of the Czech Mancala Federation's lesson (five houses of five seeds, the
/// board the federation teaches first): sowing the third house puts seeds into the third,
/// fourth and fifth houses and the opponent's first two; the last makes six there, even, and
/// the six are captured.
#[test]
fn worked_move_on_the_small_board() {
    let text = "format = 1\nname = \"small-toguz\"\nspecial = [\"tuzdyk\"]\n[board]\nhouses = 5\nseeds = 5\n\
                [sowing]\norigin = \"first\"\n[capture]\nevens = true\n[end]\nmajority = true\ncycle = \"repetition\"\n";
    let game = mancala_rules::from_description(Description::from_toml(text).unwrap()).unwrap();
    let start = game.start();
    let c = game.parse_move(&start, "C").unwrap();
    let (after, _) = game.play(&start, c).unwrap();
    assert_eq!(game.pits(&after), [5, 5, 1, 6, 6, 6, 0, 5, 5, 5]);
    assert_eq!(game.scores(&after).south, 6);
}

/// The last seed makes North's second house hold 3: South captures the three and claims the
/// house; North's next seed into it goes to South, which then has 82 and wins.
#[test]
fn a_house_of_three_is_claimed_and_feeds_its_owner() {
    let game = toguz();
    let line = "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing";
    let (after, south, north, steps) = play(&game, line, "G");
    assert_eq!((south, north), (3, 0));
    assert_eq!(game.claimed(&after, 10), Some(Player::South));
    assert_eq!((0..18).filter(|&h| game.claimed(&after, h).is_some()).count(), 1);
    assert!(steps.contains(&Step::Claim { house: 10, player: Player::South }));
    assert_eq!(
        game.to_setup(&after).to_string(),
        "north | 81 77 | 0 0 0 0 0 0 1 1 1 1 0 0 0 0 0 0 0 0 | ongoing | tuzdyk=10,-"
    );
    assert!(game.display(&after).contains("tuzdyk: south b, north none"));
    // North's single seed in its first house moves into the claimed house: South's.
    let a = game.parse_move(&after, "a").unwrap();
    let (end, _) = game.play(&after, a).unwrap();
    assert_eq!(game.scores(&end).south, 82);
    let outcome = game.status(&end).outcome().expect("82 seeds win");
    assert_eq!(outcome.winner, Some(Player::South));
}

/// The claim is refused, and the move played as a plain move, where the rule says so.
#[test]
fn the_three_limits_of_a_claim() {
    let game = toguz();
    // South already holds a claim (North's fourth house): one a game.
    let (after, south, _, steps) =
        play(&game, "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing | tuzdyk=12,-", "G");
    assert_eq!(south, 0);
    assert_eq!(game.pits(&after)[10], 3);
    assert!(!steps.iter().any(|s| matches!(s, Step::Claim { .. })));
    // North's ninth house is never claimed.
    let (after, south, _, _) = play(&game, "south | 75 75 | 0 0 0 0 0 0 0 0 10 0 0 0 0 0 0 0 0 2 | ongoing", "I");
    assert_eq!((south, game.pits(&after)[17], game.claimed(&after, 17)), (0, 3, None));
    // North holds South's second house: South may not claim North's second house, its mirror
    // (PlayStrategy's example, with the fourth house).
    let (after, south, _, _) =
        play(&game, "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing | tuzdyk=-,1", "G");
    assert_eq!((south, game.claimed(&after, 10)), (0, None));
    // ... while North's claim on another house leaves the claim free.
    let (after, south, _, _) =
        play(&game, "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing | tuzdyk=-,2", "G");
    assert_eq!((south, game.claimed(&after, 10)), (3, Some(Player::South)));
}

/// A sowing that passes a claimed house gives its seed to the owner and goes on; the last
/// seed then captures as usual.
#[test]
fn sowing_through_a_claimed_house() {
    let game = toguz();
    let line = "south | 70 80 | 0 0 0 0 0 0 0 0 6 0 0 0 0 1 0 0 0 5 | ongoing | tuzdyk=12,-";
    let (after, south, north, steps) = play(&game, line, "I");
    // I keeps one; a, b, c get one; d is South's (one seed to South); e ends on 2: captured.
    assert_eq!((south, north), (3, 0));
    assert!(steps.contains(&Step::Capture { house: 12, seeds: 1, player: Player::South }));
    assert_eq!(game.pits(&after)[12], 0);
    assert_eq!(game.pits(&after)[13], 0);
    // The last seed into a claimed house is not a capture of anything else.
    let line = "south | 70 80 | 0 0 0 0 0 0 0 0 5 0 0 1 0 0 0 0 0 6 | ongoing | tuzdyk=12,-";
    let (after, south, _, _) = play(&game, line, "I");
    assert_eq!((south, game.pits(&after)[11]), (1, 2), "c is even but the last seed fell in d");
}

#[test]
fn position_lines_with_claims_are_checked() {
    let game = toguz();
    let ok = "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing | tuzdyk=12,4";
    let pos = game.from_setup(&ok.parse().unwrap()).unwrap();
    assert_eq!(game.to_setup(&pos).to_string(), ok);
    let other = game.from_setup(&ok.replace("tuzdyk=12,4", "tuzdyk=12,5").parse().unwrap()).unwrap();
    assert_ne!(game.hash(&pos), game.hash(&other), "claims are part of the position");
    let base = "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing";
    let bad: &[(&str, &str)] = &[
        ("tuzdyk=3,-", "not a house of north's row"),
        ("tuzdyk=-,12", "not a house of south's row"),
        ("tuzdyk=17,-", "last house"),
        ("tuzdyk=10,-", "holds 2 seeds"),
        // South holds North's fourth house (12), North South's fourth (3).
        ("tuzdyk=12,3", "numbered alike"),
        ("tuzdyk=40,-", "not a house"),
    ];
    for (field, want) in bad {
        let err = game.from_setup(&format!("{base} | {field}").parse().unwrap()).expect_err(field).to_string();
        assert!(err.contains(want), "{field}: {err}");
    }
    for (field, want) in [("tuzdyk=1", "tuzdyk=S,N"), ("tuzdyk=x,-", "tuzdyk=S,N"), ("tuzdyk", "tuzdyk=S,N")] {
        let err = format!("{base} | {field}").parse::<Setup>().expect_err(field).to_string();
        assert!(err.contains(want), "{field}: {err}");
    }
    let oware = parse_rules("oware").unwrap();
    let line = "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | tuzdyk=7,-";
    let err = oware.from_setup(&line.parse().unwrap()).expect_err("oware has no claims").to_string();
    assert!(err.contains("tuzdyk"), "{err}");
}

/// Random games: seeds conserved, claimed houses empty after every move, at most one claim a
/// player and never taken back, never an opponent's last house nor a mirror of the other
/// claim, every line read back to the same position, every game ends.
#[test]
fn random_games_keep_the_rule() {
    let game = toguz();
    let mut rng = SmallRng::seed_from_u64(11);
    let mut claims_made = 0;
    for _ in 0..1500 {
        let mut line = Line::new(game.clone());
        let mut held = [None, None];
        while !line.status().is_over() {
            let legal: Vec<_> = line.legal_moves().iter().collect();
            line.play(legal[rng.random_range(0..legal.len())]).unwrap();
            assert!(line.len() < 5000, "a game that does not end");
            let pos = line.position();
            let s = game.scores(pos);
            let board: u32 = game.pits(pos).iter().map(|&n| u32::from(n)).sum();
            assert_eq!(board + u32::from(s.south) + u32::from(s.north), 162);
            let mut now = [None, None];
            for h in 0..18 {
                if let Some(p) = game.claimed(pos, h) {
                    assert_eq!(game.pits(pos)[h], 0, "a claimed house is emptied at once");
                    assert!(now[p.index()].is_none(), "two claims of {p}");
                    assert_ne!(h % 9, 8, "a last house claimed");
                    assert_ne!(h / 9, p.index(), "{p} claimed its own house");
                    now[p.index()] = Some(h);
                }
            }
            if let (Some(a), Some(b)) = (now[0], now[1]) {
                assert_ne!(a % 9, b % 9, "mirrored claims");
            }
            for p in 0..2 {
                if held[p].is_some() {
                    assert_eq!(held[p], now[p], "a claim is for good");
                } else if now[p].is_some() {
                    claims_made += 1;
                }
            }
            held = now;
            if !game.status(pos).is_over() {
                let again = game.from_setup(&game.to_setup(pos)).unwrap();
                assert_eq!(&again, pos);
                assert_eq!(game.hash(&again), game.hash(pos));
            }
        }
    }
    assert!(claims_made > 500, "random games claim houses often ({claims_made})");
}

/// Where the rule cannot be judged, the description is refused naming `special`.
#[test]
fn tuzdyk_refuses_boards_it_cannot_judge() {
    let with = |extra: &str| {
        let text = format!(
            "format = 1\nname = \"t\"\nspecial = [\"tuzdyk\"]\n[board]\nhouses = 6\nseeds = 4\n{extra}[end]\nmax_plies = 100\n"
        );
        Description::from_toml(&text).map(|_| ())
    };
    assert!(with("").is_ok());
    for (extra, want) in [
        ("ranks = 4\n", "board.ranks = 2"),
        ("[sowing]\nrelay = true\n", "sowing.relay"),
        ("[capture]\ncounts = [3]\n", "capture.counts"),
        ("[capture]\ncounts = [2]\non = \"sowing\"\n", "capture.on"),
        ("[move]\nfrom = \"controlled\"\n", "move.from"),
    ] {
        let err = with(extra).expect_err(extra).to_string();
        assert!(err.contains("special") && err.contains(want), "{extra}: {err}");
    }
}
