//! The presets written as descriptions, played by the sowing engine, agree move for move and
//! position for position with the hand-written engines; descriptions round-trip; bad
//! descriptions are refused by name. `scripts/described-equivalence.sh` runs the full
//! 100,000 games a preset (`MZ_EQUIVALENCE_GAMES`).

use mancala_rules::sowing::{Described, Description, preset_description};
use mancala_rules::{AnyGame, Game, Line, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Every preset and options that change the engine's path.
const RULES: &[&str] = &[
    "oware",
    "ouril",
    "awale",
    "oware-capture-all",
    "oware cycle=plies:40 max_plies=300",
    "oware:8,5 singletons=restricted grand_slam=forbidden",
    "awale:3,2",
    "ouril:4,3 unfed_end=not-scored",
    "kalah",
    "kalah:6,6 empty_capture=true",
    "kalah:4,3 end=mover-row-empty",
    "kalah:9,9",
    "ba-awa",
    "ba-awa fours_to=mover max_relay=3",
    "ba-awa max_plies=40",
    "owela",
    "owela columns=6 min_sow=1",
    "owela max_relay=3 max_plies=60",
];

fn games_per_rules() -> usize {
    std::env::var("MZ_EQUIVALENCE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// Plays the same random games on the hand-written engine and the described one, comparing
/// the legal moves, the position line, the status and what each move captured at every ply.
fn agree(rules: &str, games: usize, seed: u64) {
    let hand = parse_rules(rules).unwrap();
    let described = Described::new(preset_description(&hand)).unwrap();
    assert_eq!(hand.action_space(), described.action_space(), "{rules}");
    assert_eq!(hand.total_seeds(), described.total_seeds(), "{rules}");
    let mut rng = SmallRng::seed_from_u64(seed);
    for game in 0..games {
        let mut a = hand.start();
        let mut b = described.start();
        let mut ply = 0;
        loop {
            let (la, lb) = (hand.to_setup(&a).to_string(), described.to_setup(&b).to_string());
            assert_eq!(la, lb, "{rules}: game {game} ply {ply}");
            assert_eq!(hand.legal_moves(&a), described.legal_moves(&b), "{rules}: game {game} ply {ply}: {la}");
            assert_eq!(hand.status(&a), described.status(&b), "{rules}: game {game} ply {ply}: {la}");
            assert_eq!(hand.plies_left(&a), described.plies_left(&b), "{rules}: {la}");
            assert_eq!(hand.bonus_move(&a), described.bonus_move(&b), "{rules}: {la}");
            let legal = hand.legal_moves(&a);
            if legal.is_empty() {
                break;
            }
            let action = legal.nth(rng.random_range(0..legal.len())).unwrap();
            let side = hand.side_to_move(&a);
            assert_eq!(hand.move_label(side, action), described.move_label(side, action), "{rules}");
            let sa = hand.play_unchecked(&mut a, action);
            let sb = described.play_unchecked(&mut b, action);
            // The engines book the seeds an ending hands out differently (the Oware engine
            // leaves them out of the move's count); the position lines above settle the rest.
            if !hand.status(&a).is_over() {
                assert_eq!(sa.captured, sb.captured, "{rules}: game {game} ply {ply}: {la} action {action}");
            }
            ply += 1;
        }
    }
}

#[test]
fn presets_as_descriptions_agree_with_the_hand_written_engines() {
    let games = games_per_rules();
    for (i, rules) in RULES.iter().enumerate() {
        agree(rules, games, 0x5eed_0000 + i as u64);
    }
}

/// Position lines read back the same on both engines, illegal moves are refused on both, and
/// the repetition rule settles the same way through `Line`.
#[test]
fn set_up_positions_and_lines_agree() {
    let mut rng = SmallRng::seed_from_u64(7);
    for rules in RULES {
        let hand = parse_rules(rules).unwrap();
        let described = AnyGame::Described(Described::new(preset_description(&hand)).unwrap());
        for _ in 0..40 {
            let mut la = Line::new(hand.clone());
            let mut lb = Line::new(described.clone());
            while !la.status().is_over() {
                let legal = hand.legal_moves(la.position());
                let action = legal.nth(rng.random_range(0..legal.len())).unwrap();
                la.play(action).unwrap();
                lb.play(action).unwrap();
                let line = hand.to_setup(la.position()).to_string();
                assert_eq!(line, described.to_setup(lb.position()).to_string(), "{rules}");
                let setup = line.parse().unwrap();
                let (ra, rb) = (hand.from_setup(&setup), described.from_setup(&setup));
                assert_eq!(ra.is_ok(), rb.is_ok(), "{rules}: {line}");
                if let (Ok(pa), Ok(pb)) = (ra, rb) {
                    assert_eq!(hand.legal_moves(&pa), described.legal_moves(&pb), "{rules}: {line}");
                    assert_eq!(hand.status(&pa), described.status(&pb), "{rules}: {line}");
                }
                for action in 0..hand.action_space() as u8 {
                    let (pa, pb) = (la.position(), lb.position());
                    assert_eq!(
                        hand.play(pa, action).is_ok(),
                        described.play(pb, action).is_ok(),
                        "{rules}: {line} {action}"
                    );
                }
            }
            assert!(lb.status().is_over(), "{rules}");
            assert_eq!(hand.status(la.position()), described.status(lb.position()), "{rules}");
        }
    }
}

/// A description equal to a preset is played by the preset's engine; its TOML and one-line
/// forms read back to the same game.
#[test]
fn descriptions_round_trip_and_presets_take_the_fast_path() {
    for rules in RULES {
        let hand = parse_rules(rules).unwrap();
        let description = preset_description(&hand);
        let toml = description.to_toml();
        assert_eq!(Description::from_toml(&toml).unwrap(), description, "{rules}:\n{toml}");
        let back = mancala_rules::from_description(description.clone()).unwrap();
        if rules.starts_with("ba-awa") {
            // Match play is not a rule of one game; the canonical strings differ only there.
            assert_eq!(back.family(), "ba-awa");
        } else {
            assert_eq!(back.rules_string(), hand.rules_string(), "{rules}");
        }
        let described = Described::new(description).unwrap();
        let again = parse_rules(&described.rules_string()).unwrap();
        assert_eq!(again.family(), hand.family(), "{rules}: the one-line form picks the preset's engine");
    }
}

/// Congkak (games/congkak.toml): the worked move of a published description: from the
/// start, South sows its second house from the right clockwise; five houses and the store get
/// a seed each and the last seed falls into North's far-left house, which then holds 8 and is
/// sown on (a relay).
#[test]
fn congkak_worked_example_relays_through_the_store() {
    use mancala_rules::sowing::Step;
    let game = parse_rules(concat!(env!("CARGO_MANIFEST_DIR"), "/../../games/congkak.toml")).unwrap();
    let AnyGame::Described(described) = &game else { panic!("congkak is no preset") };
    let start = described.start();
    let f = described.parse_move(&start, "F").unwrap();
    let (_, _, trace) = described.play_traced(&start, f).unwrap();
    let first: Vec<Step> = trace.steps.iter().copied().take(9).collect();
    use mancala_rules::Player::South;
    assert_eq!(
        first,
        vec![
            Step::Lift { house: 5, seeds: 7 },
            Step::Drop { house: 4 },
            Step::Drop { house: 3 },
            Step::Drop { house: 2 },
            Step::Drop { house: 1 },
            Step::Drop { house: 0 },
            Step::Store { player: South },
            Step::Drop { house: 13 },
            Step::Lift { house: 13, seeds: 8 },
        ]
    );
    // House 13 is North's last house in sowing order: the top-left house seen from South.
    assert_eq!(described.house_label(13), "g");
}

fn description(extra: &str) -> Result<AnyGame, mancala_rules::RulesError> {
    let text = format!("format = 1\nname = \"test\"\n{extra}");
    Description::from_toml(&text).and_then(mancala_rules::from_description)
}

/// Every way a description can be wrong is refused before any play, naming the key.
#[test]
fn bad_descriptions_are_refused_by_name() {
    let board = "[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 100\n";
    assert!(description(board).is_ok());
    let cases: &[(&str, &str)] = &[
        ("[board]\nhouses = 0\nseeds = 4\n[end]\nmax_plies = 10\n", "board.houses"),
        ("[board]\nranks = 3\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 10\n", "board.ranks"),
        ("[board]\nhouses = 33\nseeds = 1\n[end]\nmax_plies = 10\n", "board.houses"),
        (
            "[board]\nhouses = 20\nseeds = 1\n[move]\nfrom = \"controlled\"\n[sowing]\ndirection = \"either\"\n[end]\nmax_plies = 10\n",
            "board.houses",
        ),
        ("[board]\nhouses = 16\nseeds = 9\n[end]\nmax_plies = 10\n", "board.seeds"),
        ("[board]\nhouses = 6\nseeds = 0\n[end]\nmax_plies = 10\n", "board.seeds"),
        ("[board]\nhouses = 6\n[end]\nmax_plies = 10\n", "board.seeds"),
        ("[board]\nhouses = 6\nseeds = 4\nstart = [1, 1, 1, 1, 1, 1]\n[end]\nmax_plies = 10\n", "board.start"),
        ("[board]\nhouses = 6\nstart = [1, 1]\n[end]\nmax_plies = 10\n", "board.start"),
        ("[board]\nhouses = 6\nseeds = 4\n[capture]\ncounts = [49]\n[end]\nmax_plies = 10\n", "capture.counts"),
        ("[board]\nhouses = 6\nseeds = 4\n[capture]\ncounts = [0]\n[end]\nmax_plies = 10\n", "capture.counts"),
        ("[board]\nhouses = 6\nseeds = 4\n[capture]\non = \"sowing\"\n[end]\nmax_plies = 10\n", "capture.on"),
        ("[board]\nhouses = 6\nseeds = 4\n", "end.max_plies"),
        ("[board]\nhouses = 6\nseeds = 4\n[sowing]\nrelay = true\n[end]\ncycle = \"none\"\n", "end.max_plies"),
        ("[board]\nhouses = 6\nseeds = 4\nspecial = 1\n[end]\nmax_plies = 10\n", "special"),
        ("[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 10\n[special]\n", "special"),
        ("special = [\"flying-seeds\"]\n[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 10\n", "flying-seeds"),
        ("[board]\nhouses = 6\nseeds = 4\nwidth = 3\n[end]\nmax_plies = 10\n", "width"),
        ("[board]\nhouses = 6\nseeds = 4\n[sowing]\nextra_turn = true\n[end]\nmax_plies = 10\n", "sowing.extra_turn"),
        ("[board]\nhouses = 6\nseeds = 4\n[move]\nmin_seeds = 5\n[end]\nmax_plies = 10\n", "move.min_seeds"),
        ("[board]\nhouses = 6\nseeds = 4\n[capture]\nfour_rank = true\n[end]\nmax_plies = 10\n", "capture.four_rank"),
        ("[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 10\ncycle = \"plies:0\"\n", "plies:0"),
        ("[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 10\nseeds_left = 48\n", "end.seeds_left"),
        ("[board]\nhouses = 6\nseeds = 4\n[sowing]\ndirection = \"sideways\"\n[end]\nmax_plies = 10\n", "sideways"),
    ];
    for (extra, key) in cases {
        let err = description(extra).expect_err(extra).to_string();
        assert!(err.contains(key), "{extra}\n=> {err}\n(expected it to name {key})");
    }
    let err = Description::from_toml("format = 2\nname = \"x\"\n[board]\nhouses = 6\nseeds = 4\n").unwrap_err();
    assert!(err.to_string().contains("format"), "{err}");
    let err = Description::from_toml(
        "format = 1\nname = \"Not A Name\"\n[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 9\n",
    )
    .unwrap_err();
    assert!(err.to_string().contains("name"), "{err}");
    let err = parse_rules("no-such-file.toml").unwrap_err().to_string();
    assert!(err.contains("no-such-file.toml"), "{err}");
    let err = parse_rules("sowing {\"format\":1}").unwrap_err().to_string();
    assert!(err.contains("missing field"), "{err}");
}

/// A described game's description is its own, and its moves are traced like a preset's.
#[test]
fn a_described_game_gives_its_description_and_traces() {
    let game = parse_rules("congkak").unwrap();
    assert_eq!(game.description().name, "congkak");
    let pos = game.start();
    let action = game.legal_moves(&pos).nth(0).unwrap();
    let (next, _, trace) = game.play_traced(&pos, action).unwrap();
    assert_eq!(next, game.play(&pos, action).unwrap().0);
    assert!(matches!(trace.steps.last(), Some(mancala_rules::sowing::Step::End { .. })));
}
