//! Ba-awa: properties over random games (and matches), checked against a plain reference
//! model of the rules, plus the match-play control assignment (rule 6).

use mancala_rules::ba_awa::{BaAwa, BaAwaPosition, match_layout, pits_earned};
use mancala_rules::{AnyGame, ByPlayer, Game, IllegalMove, Line, MoveParseError, Player, Setup, parse_rules};
use proptest::prelude::*;

const S: Player = Player::South;
const N: Player = Player::North;

fn ba_awa(rules: &str) -> BaAwa {
    match parse_rules(rules).unwrap() {
        AnyGame::BaAwa(g) => g,
        other => panic!("{rules} gave {other:?}"),
    }
}

/// SplitMix64: a small deterministic generator for random moves.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The rules written out the plain way, seed by seed, to compare the fast code against.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Model {
    pits: [u8; 12],
    scores: [u16; 2],
    controllers: [Player; 12],
    side: Player,
    starter: Player,
    plies: u32,
}

impl Model {
    fn from(game: &BaAwa, pos: &BaAwaPosition) -> Model {
        let scores = game.scores(pos);
        Model {
            pits: *pos.pits(),
            scores: [scores.south, scores.north],
            controllers: pos.controllers(),
            side: pos.side_to_move(),
            starter: pos.starter(),
            plies: u32::from(pos.plies()),
        }
    }

    fn on_board(&self) -> u16 {
        self.pits.iter().map(|&n| u16::from(n)).sum()
    }

    fn legal_pits(&self) -> Vec<usize> {
        (0..12).filter(|&p| self.pits[p] > 0 && self.controllers[p] == self.side).collect()
    }

    fn take_all(&mut self, taker: impl Fn(usize) -> Player) {
        for p in 0..12 {
            self.scores[taker(p).index()] += u16::from(self.pits[p]);
            self.pits[p] = 0;
        }
    }

    fn play(&mut self, pit: usize, mover_takes_fours: bool, max_relay: u32, max_plies: u32) {
        let mover = self.side;
        let mut at = pit;
        let mut hand = std::mem::take(&mut self.pits[at]);
        let mut relays = 0;
        loop {
            for seed in 1..=hand {
                at = (at + 1) % 12;
                self.pits[at] += 1;
                let last = seed == hand;
                if !last && self.pits[at] == 4 {
                    let taker = if mover_takes_fours { mover } else { self.controllers[at] };
                    self.scores[taker.index()] += 4;
                    self.pits[at] = 0;
                }
            }
            if self.pits[at] == 4 {
                self.scores[mover.index()] += 4;
                self.pits[at] = 0;
                break;
            }
            if self.pits[at] == 1 || relays >= max_relay {
                break;
            }
            relays += 1;
            hand = std::mem::take(&mut self.pits[at]);
        }
        self.plies += 1;
        self.side = mover.opponent();
        if self.on_board() <= 8 {
            let starter = self.starter;
            self.take_all(|_| starter);
        } else if self.plies >= max_plies {
            let c = self.controllers;
            self.take_all(|p| c[p]);
        } else if self.legal_pits().is_empty() {
            let taker = self.side.opponent();
            self.take_all(|_| taker);
        }
    }
}

fn options() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("controller"), Just("mover")],
        prop_oneof![Just(0u32), Just(1), Just(3), Just(1000)],
        prop_oneof![Just(1u32), Just(2), Just(7), Just(40), Just(1000)],
        any::<bool>(),
        1u32..=12,
    )
        .prop_map(|(f, r, p, m, t)| {
            format!("ba-awa fours_to={f} max_relay={r} max_plies={p} match={m} match_target={t}")
        })
}

/// Plays one game of random legal moves from `start`, checking every property at every ply;
/// returns the moves played and the final position.
fn random_game(game: &BaAwa, start: BaAwaPosition, rng: &mut Rng) -> (Vec<u8>, BaAwaPosition) {
    let mut pos = start;
    let mut model = Model::from(game, &pos);
    let mut moves = Vec::new();
    let total = game.total_seeds();
    loop {
        check_position(game, &pos);
        let legal = game.legal_moves(&pos);
        let side = game.side_to_move(&pos);
        // legal moves == exactly the actions play accepts
        for a in 0..game.action_space() as u8 {
            let played = game.play(&pos, a);
            assert_eq!(played.is_ok(), legal.contains(a), "action {a} in {pos:?}");
            if let Err(e) = played {
                assert!(!e.to_string().is_empty());
                if !game.status(&pos).is_over() {
                    assert!(matches!(e, IllegalMove::NotLegal { .. }), "{e}");
                }
            }
        }
        // the model agrees on the legal moves
        let mut model_legal: Vec<u8> =
            model.legal_pits().iter().map(|&p| ((p + 12 - 6 * side.index()) % 12) as u8).collect();
        model_legal.sort_unstable();
        assert_eq!(legal.iter().collect::<Vec<_>>(), model_legal);
        if legal.is_empty() {
            assert!(game.status(&pos).is_over(), "no legal move but not over: {pos:?}");
            break;
        }
        assert!(!game.status(&pos).is_over());
        let a = legal.nth(rng.below(legal.len())).unwrap();
        let before = game.scores(&pos);
        let (next, sowing) = game.play(&pos, a).unwrap();
        let after = game.scores(&next);
        assert_eq!(after.south + after.north - before.south - before.north, sowing.captured);
        assert_eq!(sowing.irreversible, sowing.captured > 0);
        assert!(after.south >= before.south && after.north >= before.north);
        model.play(
            game.action_pit(side, a),
            game.rules_string().contains("fours_to=mover"),
            game.max_relay(),
            u32::from(game.max_plies()),
        );
        assert_eq!(Model::from(game, &next), model, "after {} from {pos:?}", game.move_label(side, a));
        let mut unchecked = pos;
        assert_eq!(game.play_unchecked(&mut unchecked, a), sowing);
        assert_eq!(unchecked, next);
        assert_eq!(game.pits(&next).iter().map(|&n| u16::from(n)).sum::<u16>() + after.south + after.north, total);
        pos = next;
        moves.push(a);
        assert!(moves.len() <= usize::from(game.max_plies()), "game longer than max_plies");
    }
    (moves, pos)
}

fn check_position(game: &BaAwa, pos: &BaAwaPosition) {
    let scores = game.scores(pos);
    let pits = game.pits(pos);
    assert_eq!(pits.len(), 12);
    // seed conservation and no overflow
    assert_eq!(pits.iter().map(|&n| u16::from(n)).sum::<u16>() + scores.south + scores.north, 48);
    assert!(pits.iter().all(|&n| n <= 48));
    // finished exactly when the board is empty
    assert_eq!(game.status(pos).is_over(), pits.iter().all(|&n| n == 0));
    // controllers agree
    for pit in 0..12 {
        assert_eq!(game.controller(pos, pit), pos.controller(pit));
    }
    // setup round trip: the whole position, ply count and who began included
    let setup = game.to_setup(pos);
    let text = setup.to_string();
    let reread: Setup = text.parse().unwrap();
    assert_eq!(reread, setup);
    let back = game.from_setup(&reread).unwrap();
    assert_eq!(game.to_setup(&back).to_string(), text);
    assert_eq!(back.pits(), pos.pits());
    assert_eq!(back.controllers(), pos.controllers());
    assert_eq!(back.scores(), pos.scores());
    assert_eq!(back.side_to_move(), pos.side_to_move());
    assert_eq!(back, *pos);
    assert_eq!(game.hash(&back), game.hash(pos));
    // equal positions hash equal
    let again = game.from_setup(&text.parse().unwrap()).unwrap();
    assert_eq!(again, back);
    assert_eq!(game.hash(&again), game.hash(&back));
    let copy = *pos;
    assert_eq!(game.hash(&copy), game.hash(pos));
    // label round trip, for every action of the side to move
    let side = game.side_to_move(pos);
    for a in 0..12u8 {
        let label = game.move_label(side, a);
        let pit = game.action_pit(side, a);
        match game.parse_move(pos, &label) {
            Ok(b) => {
                assert_eq!(b, a);
                assert_eq!(pos.controller(pit), side);
            }
            Err(MoveParseError::NotOwn { owner, mover, .. }) => {
                assert_eq!(owner, pos.controller(pit));
                assert_eq!(mover, side);
                assert_ne!(owner, side);
            }
            Err(e) => panic!("{label}: {e}"),
        }
    }
    // display names every pit
    let shown = game.display(pos);
    for label in ["A", "F", "a", "f"] {
        assert!(shown.contains(label), "{shown}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_games_keep_every_property(rules in options(), seed in any::<u64>()) {
        let game = ba_awa(&rules);
        // rules string round trip
        prop_assert_eq!(parse_rules(&game.rules_string()).unwrap(), AnyGame::BaAwa(game.clone()));
        let mut rng = Rng(seed);
        let (moves, last) = random_game(&game, game.start(), &mut rng);
        prop_assert!(game.status(&last).is_over());
        // replay determinism, through Line as real games are played
        let mut line = Line::new(game.clone());
        let mut pos = game.start();
        for &a in &moves {
            line.play(a).unwrap();
            pos = game.play(&pos, a).unwrap().0;
            prop_assert_eq!(line.position(), &pos);
        }
        prop_assert_eq!(pos, last);
        let labels = line.move_labels();
        let mut by_label = Line::new(game.clone());
        for l in &labels {
            by_label.play_label(l).unwrap();
        }
        prop_assert_eq!(by_label.position(), &last);
    }

    #[test]
    fn random_matches_follow_rule_6(target in 1u8..=12, plies in prop_oneof![Just(30u32), Just(1000)], seed in any::<u64>()) {
        let game = ba_awa(&format!("ba-awa match=true match_target={target} max_plies={plies}"));
        let mut rng = Rng(seed);
        let mut start = game.start();
        let mut starter = Player::South;
        for _ in 0..40 {
            prop_assert_eq!(start.starter(), starter);
            let (_, finished) = random_game(&game, start, &mut rng);
            let earned = pits_earned(finished.scores());
            prop_assert_eq!(u32::from(earned.south) + u32::from(earned.north), 12);
            match game.next_game(&finished) {
                None => {
                    prop_assert!(game.match_over(&finished));
                    let most = earned.south.max(earned.north);
                    prop_assert!(most >= target || most == 12);
                    break;
                }
                Some(next) => {
                    prop_assert!(!game.match_over(&finished));
                    prop_assert_eq!(game.match_winner(&finished), None);
                    starter = starter.opponent();
                    prop_assert_eq!(next.side_to_move(), starter);
                    prop_assert_eq!(next.pits(), &[4u8; 12]);
                    prop_assert_eq!(next.controllers(), match_layout(earned));
                    let controlled = next.controllers().iter().filter(|&&p| p == Player::South).count();
                    prop_assert_eq!(controlled, usize::from(earned.south));
                    start = next;
                }
            }
        }
    }
}

fn row(s: &str) -> [Player; 12] {
    let v: Vec<Player> = s.split_whitespace().map(|t| if t == "s" { S } else { N }).collect();
    v.try_into().unwrap()
}

/// A finished game with the given captures (South began), read from a position line.
fn finished(game: &BaAwa, south: u16, north: u16) -> BaAwaPosition {
    let line = format!("north | {south} {north} | 0 0 0 0 0 0 0 0 0 0 0 0 | ongoing | s s s s s s n n n n n n");
    let pos = game.from_setup(&line.parse().unwrap()).unwrap();
    assert!(game.status(&pos).is_over());
    pos
}

#[test]
fn next_game_gives_one_pit_per_four_seeds_own_row_first() {
    let game = ba_awa("ba-awa match=true");
    let cases: [(u16, u16, &str); 7] = [
        (24, 24, "s s s s s s n n n n n n"),
        (28, 20, "s s s s s s s n n n n n"),
        (20, 28, "n s s s s s n n n n n n"),
        (32, 16, "s s s s s s s s n n n n"),
        (16, 32, "n n s s s s n n n n n n"),
        (36, 12, "s s s s s s s s s n n n"),
        (12, 36, "n n n s s s n n n n n n"),
    ];
    for (south, north, want) in cases {
        let next = game.next_game(&finished(&game, south, north)).unwrap_or_else(|| panic!("{south}/{north}"));
        assert_eq!(next.controllers(), row(want), "{south}/{north}");
        assert_eq!(next.starter(), N, "games alternate who begins");
        assert_eq!(next.side_to_move(), N);
        assert_eq!(
            game.to_setup(&next).to_string(),
            // North began this game: the line says so, so that rule 4 reads back the same.
            format!("north | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | {want} | starter=north")
        );
        assert!(!game.match_over(&finished(&game, south, north)));
        // North, to move, may name pit a only while it controls it.
        let a = BaAwa::parse_pit("a").unwrap();
        assert_eq!(game.parse_move(&next, "a").is_ok(), next.controller(a) == N);
    }
}

#[test]
fn match_ends_at_match_target_or_all_pits() {
    let game = ba_awa("ba-awa match=true match_target=10");
    // 40 seeds: 10 pits, the target.
    let done = finished(&game, 40, 8);
    assert!(game.match_over(&done));
    assert_eq!(game.match_winner(&done), Some(S));
    assert_eq!(game.next_game(&done), None);
    let done = finished(&game, 4, 44);
    assert_eq!(game.match_winner(&done), Some(N));
    assert_eq!(game.next_game(&done), None);
    // 9 pits: the match goes on.
    let on = finished(&game, 36, 12);
    assert!(!game.match_over(&on));
    assert_eq!(game.match_winner(&on), None);
    // target 12: only all pits end it.
    let all = ba_awa("ba-awa match=true match_target=12");
    assert!(all.next_game(&finished(&all, 44, 4)).is_some());
    assert_eq!(all.next_game(&finished(&all, 48, 0)), None);
    assert_eq!(all.match_winner(&finished(&all, 48, 0)), Some(S));
    // a low target can end in a drawn match: 6 pits each.
    let low = ba_awa("ba-awa match=true match_target=6");
    assert!(low.match_over(&finished(&low, 24, 24)));
    assert_eq!(low.match_winner(&finished(&low, 24, 24)), None);
}

#[test]
fn next_game_is_none_without_match_or_before_the_end() {
    let single = ba_awa("ba-awa");
    let done = finished(&single, 28, 20);
    assert_eq!(single.next_game(&done), None);
    assert!(single.match_over(&done));
    assert_eq!(single.match_winner(&done), Some(S));
    let game = ba_awa("ba-awa match=true");
    assert_eq!(game.next_game(&game.start()), None);
    assert!(!game.match_over(&game.start()));
}

#[test]
fn guard_endings_round_to_the_nearest_pit() {
    assert_eq!(pits_earned(ByPlayer::new(24, 24)), ByPlayer::new(6, 6));
    assert_eq!(pits_earned(ByPlayer::new(27, 21)), ByPlayer::new(7, 5));
    assert_eq!(pits_earned(ByPlayer::new(21, 27)), ByPlayer::new(5, 7));
    assert_eq!(pits_earned(ByPlayer::new(25, 23)), ByPlayer::new(6, 6));
    assert_eq!(pits_earned(ByPlayer::new(23, 25)), ByPlayer::new(6, 6));
    // remainders 2 and 2: the half pit goes to the bigger capture.
    assert_eq!(pits_earned(ByPlayer::new(26, 22)), ByPlayer::new(7, 5));
    assert_eq!(pits_earned(ByPlayer::new(22, 26)), ByPlayer::new(5, 7));
    assert_eq!(pits_earned(ByPlayer::new(2, 46)), ByPlayer::new(0, 12));
    assert_eq!(pits_earned(ByPlayer::new(47, 1)), ByPlayer::new(12, 0));
    assert_eq!(pits_earned(ByPlayer::new(45, 3)), ByPlayer::new(11, 1));
}

#[test]
fn second_game_of_a_match_gives_the_last_seeds_to_north_who_began() {
    let game = ba_awa("ba-awa match=true");
    let second = game.next_game(&finished(&game, 24, 24)).unwrap();
    assert_eq!(second.starter(), N);
    // Play random games from there: whenever a move leaves 8 seeds or fewer, North takes
    // them (the reference model in `random_game` checks this move by move); the game after
    // is begun by South again.
    let mut rng = Rng(7);
    let (_, done) = random_game(&game, second, &mut rng);
    if let Some(third) = game.next_game(&done) {
        assert_eq!(third.starter(), S);
        assert_eq!(third.side_to_move(), S);
    }
}

#[test]
fn start_with_a_starter_who_controls_nothing_is_over() {
    let game = ba_awa("ba-awa");
    let pos = game.start_with([S; 12], N);
    assert!(game.status(&pos).is_over());
    assert_eq!(game.scores(&pos), ByPlayer::new(48, 0));
    let pos = game.start_with(row("n s s s s s s s s s s s"), N);
    assert!(!game.status(&pos).is_over());
    assert_eq!(game.legal_moves(&pos).iter().map(|a| game.move_label(N, a)).collect::<Vec<_>>(), ["A"]);
}

#[test]
fn setup_errors_name_the_problem() {
    let game = ba_awa("ba-awa");
    let err = |line: &str| game.from_setup(&line.parse().unwrap()).unwrap_err().to_string();
    assert!(err("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n").contains("11 pits"));
    assert!(err("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 5 | ongoing | s s s s s s n n n n n n").contains("49 seeds"));
    assert!(err("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing").contains("controllers"));
    assert!(err("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s n").contains("3 controllers"));
}

#[test]
fn illegal_moves_say_why() {
    let game = ba_awa("ba-awa");
    let mut line = Line::new(game.clone());
    line.play_label("A").unwrap();
    let pos = *line.position();
    let c = game.parse_move(&pos, "c").unwrap();
    assert!(game.play(&pos, c).unwrap_err().to_string().contains("pit c is empty"));
    assert!(game.play(&pos, 12).unwrap_err().to_string().contains("outside"));
    let e = game.parse_move(&pos, "D").unwrap_err().to_string();
    assert!(e.contains("'D' is a pit of south, but north is to move"), "{e}");
    let e = game.parse_move(&pos, "g").unwrap_err().to_string();
    assert!(e.contains("'g' is not a pit label"), "{e}");
}

/// Seconds this thread has run on a CPU (Linux), else wall-clock seconds from `wall`: the
/// speed check should not count time spent waiting for a shared core.
fn cpu_seconds(wall: std::time::Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()))
        .map_or_else(|| wall.elapsed().as_secs_f64(), |ns| ns / 1e9)
}

/// Random playouts from the start; run with `--ignored --nocapture` to see the speed.
#[test]
#[ignore]
fn playout_speed() {
    let game = ba_awa("ba-awa");
    let mut rng = Rng(1);
    let wall = std::time::Instant::now();
    let cpu0 = cpu_seconds(wall);
    let (mut moves, mut games) = (0u64, 0u64);
    while wall.elapsed().as_secs_f64() < 3.0 {
        for _ in 0..1000 {
            let mut pos = game.start();
            loop {
                let legal = game.legal_moves(&pos);
                if legal.is_empty() {
                    break;
                }
                let a = legal.nth(rng.below(legal.len())).unwrap();
                game.play_unchecked(&mut pos, a);
                moves += 1;
            }
            games += 1;
        }
    }
    let secs = cpu_seconds(wall) - cpu0;
    eprintln!(
        "ba-awa: {:.1} M moves per CPU second, {:.1} moves a game, {games} games",
        moves as f64 / secs / 1e6,
        moves as f64 / games as f64
    );
}
