//! The state beyond the board that can decide a game, for every game: what `plies_left`,
//! `bonus_move` and `starter` report, and how the position line carries it
//! (`| plies=N since_capture=N bonus starter=north`, docs/protocol.md).

use mancala_rules::ba_awa::BaAwa;
use mancala_rules::{AnyGame, Game, Line, Player, Setup, SetupError, parse_rules};
use proptest::prelude::*;

/// Rules of every family, with ply limits small enough for random games to reach them.
const RULES: &[&str] = &[
    "oware",
    "oware max_plies=40",
    "oware cycle=plies:6 max_plies=50",
    "ouril",
    "ouril:3,2 max_plies=30",
    "awale cycle=plies:10",
    "kalah",
    "kalah:4,3",
    "ba-awa",
    "ba-awa max_plies=12",
    "ba-awa match=true max_plies=20",
    "owela max_plies=15",
    "owela columns=6 min_sow=1",
];

/// SplitMix64, for the random games.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// A random game to its end; Ba-awa matches go on into their next games.
fn random_positions(game: &AnyGame, seed: u64) -> Vec<<AnyGame as Game>::Position> {
    let mut rng = Rng(seed);
    let mut pos = game.start();
    let mut out = vec![pos];
    for _ in 0..3000 {
        let legal = game.legal_moves(&pos);
        if legal.is_empty() {
            match (game, &pos) {
                (AnyGame::BaAwa(g), mancala_rules::AnyPosition::BaAwa(p)) => match g.next_game(p) {
                    Some(next) => pos = mancala_rules::AnyPosition::BaAwa(next),
                    None => break,
                },
                _ => break,
            }
        } else {
            game.play_unchecked(&mut pos, legal.nth(rng.below(legal.len() as u64) as usize).unwrap());
        }
        out.push(pos);
    }
    out
}

fn read(game: &AnyGame, line: &str) -> Result<<AnyGame as Game>::Position, SetupError> {
    game.from_setup(&line.parse()?)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whether a game reports each piece of state depends on its rules only; a position
    /// still going on has at least one ply left, and the count falls by one a ply until a
    /// limit ends the game (a capture may restart Oware's `cycle=plies:N`).
    #[test]
    fn state_is_reported_by_rules_and_counts_down(which in 0..RULES.len(), seed in any::<u64>()) {
        let game = parse_rules(RULES[which]).unwrap();
        let start = game.start();
        let positions = random_positions(&game, seed);
        for pair in positions.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            for p in [before, after] {
                prop_assert_eq!(game.plies_left(p).is_some(), game.plies_left(&start).is_some());
                prop_assert_eq!(game.bonus_move(p).is_some(), game.bonus_move(&start).is_some());
                prop_assert_eq!(game.starter(p).is_some(), game.starter(&start).is_some());
                if !game.status(p).is_over() {
                    prop_assert!(game.plies_left(p).is_none_or(|n| n >= 1), "{}", game.to_setup(p));
                }
            }
            let (Some(b), Some(a)) = (game.plies_left(before), game.plies_left(after)) else { continue };
            if game.status(before).is_over() || game.scores(after) != game.scores(before) {
                continue;
            }
            if game.starter(before) != game.starter(after) {
                continue; // the next game of a Ba-awa match
            }
            if b == 1 {
                prop_assert!(game.status(after).is_over(), "one ply left, yet {} goes on", game.to_setup(after));
            } else {
                prop_assert_eq!(a, b - 1, "{} -> {}", game.to_setup(before), game.to_setup(after));
            }
        }
    }

    /// Every position reads back from its line to the same position (ply counters, bonus
    /// flag and starter included), and its line to the same line.
    #[test]
    fn every_position_round_trips(which in 0..RULES.len(), seed in any::<u64>()) {
        let game = parse_rules(RULES[which]).unwrap();
        for pos in random_positions(&game, seed) {
            let setup = game.to_setup(&pos);
            let text = setup.to_string();
            let parsed: Setup = text.parse().map_err(|e: SetupError| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&parsed, &setup);
            let back = game.from_setup(&parsed).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(game.to_setup(&back).to_string(), text);
            prop_assert_eq!(back, pos);
            prop_assert_eq!(game.hash(&back), game.hash(&pos));
            prop_assert_eq!(game.plies_left(&back), game.plies_left(&pos));
            prop_assert_eq!(game.bonus_move(&back), game.bonus_move(&pos));
            prop_assert_eq!(game.starter(&back), game.starter(&pos));
        }
    }

    /// Any state the rules keep, within its limits, is read from a line and written back
    /// the same, even where reading it ends the game.
    #[test]
    fn state_fields_survive_reading(which in 0..RULES.len(), seed in any::<u64>(), plies in any::<u16>(),
                                    since in any::<u16>(), bonus in any::<bool>(), north_began in any::<bool>()) {
        let game = parse_rules(RULES[which]).unwrap();
        let positions = random_positions(&game, seed);
        let pos = positions[seed as usize % positions.len()];
        let mut setup = game.to_setup(&pos);
        let (max_plies, capture_limit) = limits(&game);
        setup.plies = max_plies.map_or(0, |m| plies % (m + 1));
        setup.since_capture = capture_limit.map_or(0, |n| since % (n + 1));
        setup.bonus = game.bonus_move(&pos).is_some() && bonus;
        setup.starter = if game.starter(&pos).is_some() && north_began { Player::North } else { Player::South };
        let read = game.from_setup(&setup).map_err(|e| TestCaseError::fail(format!("{setup}: {e}")))?;
        let written = game.to_setup(&read);
        prop_assert_eq!(
            (written.plies, written.since_capture, written.bonus, written.starter),
            (setup.plies, setup.since_capture, setup.bonus, setup.starter)
        );
        let again = game.from_setup(&written.to_string().parse().unwrap()).unwrap();
        prop_assert_eq!(again, read);
        if let Some(left) = game.plies_left(&read) {
            let by_max = max_plies.unwrap() - setup.plies;
            let by_capture = capture_limit.map_or(by_max, |n| n - setup.since_capture);
            prop_assert_eq!(left, by_max.min(by_capture));
        }
    }
}

/// `max_plies` and the `N` of `cycle=plies:N`, read from the canonical rules string.
fn limits(game: &AnyGame) -> (Option<u16>, Option<u16>) {
    let rules = game.rules_string();
    let value = |key: &str| {
        rules.split_whitespace().find_map(|t| t.strip_prefix(key)).map(|v| v.trim_start_matches("plies:").parse().ok())
    };
    (value("max_plies=").flatten(), value("cycle=").flatten())
}

#[test]
fn plies_left_near_the_limits() {
    let game = parse_rules("oware cycle=plies:20 max_plies=100").unwrap();
    let start = game.start();
    assert_eq!(game.plies_left(&start), Some(20));
    let pos = read(&game, "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | plies=95 since_capture=3").unwrap();
    assert_eq!(game.plies_left(&pos), Some(5), "max_plies is nearer");
    let pos = read(&game, "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | plies=50 since_capture=18").unwrap();
    assert_eq!(game.plies_left(&pos), Some(2), "the plies without a capture are nearer");
    // One ply left: whatever is played, the game ends.
    let pos = read(&game, "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | plies=99").unwrap();
    assert_eq!(game.plies_left(&pos), Some(1));
    for a in game.legal_moves(&pos) {
        let (next, _) = game.play(&pos, a).unwrap();
        assert!(game.status(&next).is_over());
        assert_eq!(game.plies_left(&next), Some(0));
    }

    for (rules, line) in [
        ("ba-awa max_plies=30", "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n n | plies=29"),
        (
            "owela max_plies=30",
            "south | 24 24 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing | plies=29",
        ),
    ] {
        let game = parse_rules(rules).unwrap();
        assert_eq!(game.plies_left(&game.start()), Some(30), "{rules}");
        let pos = read(&game, line).unwrap();
        assert_eq!(game.plies_left(&pos), Some(1), "{rules}");
        let a = game.legal_moves(&pos).nth(0).unwrap();
        assert!(game.status(&game.play(&pos, a).unwrap().0).is_over(), "{rules}");
    }

    // Kalah always ends without a ply rule.
    let kalah = parse_rules("kalah").unwrap();
    assert_eq!(kalah.plies_left(&kalah.start()), None);
}

#[test]
fn ouril_bonus_move_and_ba_awa_starter() {
    let ouril = parse_rules("ouril").unwrap();
    let mut line = Line::new(ouril.clone());
    assert_eq!(ouril.bonus_move(line.position()), Some(false));
    // A grand slam: E takes a's 3 and leaves North's row empty; South moves again.
    line =
        Line::from_position(ouril.clone(), read(&ouril, "south | 19 23 | 0 0 2 0 2 0 2 0 0 0 0 0 | ongoing").unwrap());
    line.play_label("E").unwrap();
    assert_eq!(ouril.bonus_move(line.position()), Some(true));
    assert_eq!(
        ouril.to_setup(line.position()).to_string(),
        "south | 22 23 | 0 0 2 0 0 1 0 0 0 0 0 0 | ongoing | plies=1 bonus"
    );
    line.play_label("F").unwrap();
    assert_eq!(ouril.bonus_move(line.position()), Some(false));
    for rules in ["oware", "awale", "kalah", "ba-awa", "owela"] {
        let game = parse_rules(rules).unwrap();
        assert_eq!(game.bonus_move(&game.start()), None, "{rules}");
    }

    let ba_awa = parse_rules("ba-awa match=true").unwrap();
    assert_eq!(ba_awa.starter(&ba_awa.start()), Some(Player::South));
    let AnyGame::BaAwa(g) = &ba_awa else { unreachable!() };
    let finished =
        read(&ba_awa, "north | 28 20 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+8 | s s s s s s n n n n n n").unwrap();
    let mancala_rules::AnyPosition::BaAwa(f) = finished else { unreachable!() };
    let next = g.next_game(&f).unwrap();
    assert_eq!(g.starter(&next), Some(Player::North));
    assert_eq!(BaAwa::default().starter(&BaAwa::default().start()), Some(Player::South));
    for rules in ["oware", "ouril", "kalah", "owela"] {
        let game = parse_rules(rules).unwrap();
        assert_eq!(game.starter(&game.start()), None, "{rules}");
    }
}

/// Lines of the syntax before the state field read exactly as before: no state.
#[test]
fn lines_without_state_read_as_before() {
    for line in [
        "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4",
        "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing",
        "north | 1 2 | 4 4 4 0 5 5 5 5 4 4 4 1 | anything at all",
        "SOUTH|0 0|4 4 4 4 4 4 4 4 4 4 4 4|ongoing",
        "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | s s s s s s n n n n n n",
        "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | S s s s s s N n n n n n",
        "south | 0 0 | 4 4 | ongoing | ",
    ] {
        let setup: Setup = line.parse().unwrap();
        assert_eq!((setup.plies, setup.since_capture, setup.bonus, setup.starter), (0, 0, false, Player::South));
    }
    let empty: Setup = "south | 0 0 | 4 4 | ongoing | ".parse().unwrap();
    assert_eq!(empty.controllers, Some(Vec::new()), "an empty fifth field is an empty controllers list, as before");
    let plain = Setup { pits: vec![4; 12], ..Setup::default() };
    assert_eq!(plain.to_string(), "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing");
    let full = Setup {
        pits: vec![4; 12],
        controllers: Some(vec![Player::South; 12]),
        plies: 7,
        since_capture: 3,
        bonus: true,
        starter: Player::North,
        ..Setup::default()
    };
    let text = full.to_string();
    assert_eq!(
        text,
        "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s s s s s s s | plies=7 since_capture=3 bonus \
         starter=north"
    );
    assert_eq!(text.parse::<Setup>().unwrap(), full);
    // Keys in any order, `bonus=true` and `bonus=false` as well as the bare flag.
    let any_order: Setup = "south | 0 0 | 4 4 | ongoing | starter=n bonus=true plies=2".parse().unwrap();
    assert_eq!((any_order.plies, any_order.bonus, any_order.starter), (2, true, Player::North));
    assert!(!"south | 0 0 | 4 4 | ongoing | bonus=false".parse::<Setup>().unwrap().bonus);
}

#[test]
fn bad_state_names_the_field() {
    let syntax = |line: &str| line.parse::<Setup>().unwrap_err().to_string();
    for (line, needle) in [
        ("south | 0 0 | 4 4 | ongoing | plies=abc", "plies must be a whole number"),
        ("south | 0 0 | 4 4 | ongoing | plies=70000", "plies"),
        ("south | 0 0 | 4 4 | ongoing | plies", "plies"),
        ("south | 0 0 | 4 4 | ongoing | since_capture=-1", "since_capture"),
        ("south | 0 0 | 4 4 | ongoing | bonus=maybe", "bonus"),
        ("south | 0 0 | 4 4 | ongoing | starter=east", "starter must be 'south' or 'north'"),
        ("south | 0 0 | 4 4 | ongoing | moves=3", "unknown state field 'moves=3'"),
        ("south | 0 0 | 4 4 | ongoing | plies=1 plies=2", "'plies' given twice"),
        ("south | 0 0 | 4 4 | ongoing | plies=1 | s s", "the fifth must list controllers"),
        ("south | 0 0 | 4 4 | ongoing | s s | plies=1 | x", "expected 'SIDE"),
    ] {
        let e = syntax(line);
        assert!(e.contains(needle), "{line}: {e}");
    }

    let refused = |rules: &str, line: &str| read(&parse_rules(rules).unwrap(), line).unwrap_err().to_string();
    let board = "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing";
    let ba_awa = "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n n";
    let owela = "south | 24 24 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing";
    for (rules, line, needle) in [
        ("oware", format!("{board} | bonus"), "bonus: oware has no bonus move"),
        ("awale", format!("{board} | bonus"), "bonus: awale"),
        ("oware", format!("{board} | since_capture=3"), "since_capture=3"),
        ("oware cycle=plies:10", format!("{board} | since_capture=11"), "cycle=plies:10"),
        ("oware", format!("{board} | plies=1001"), "plies=1001 is past the game's limit max_plies=1000"),
        ("oware", format!("{board} | starter=north"), "starter=north"),
        ("kalah", format!("{board} | plies=3"), "plies=3: kalah counts no plies"),
        ("kalah", format!("{board} | bonus"), "bonus"),
        ("ba-awa max_plies=50", format!("{ba_awa} | plies=51"), "max_plies=50"),
        ("ba-awa", format!("{ba_awa} | bonus"), "bonus"),
        ("owela max_plies=9", format!("{owela} | plies=10"), "max_plies=9"),
        ("owela", format!("{owela} | starter=north"), "starter"),
    ] {
        let e = refused(rules, &line);
        assert!(e.contains(needle), "{rules}: {line}: {e}");
    }
}
