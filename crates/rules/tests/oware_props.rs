//! Property tests of the Oware family over random games, for several option combinations,
//! plus a move-by-move comparison of the default rules with a plain model of OpenSpiel's
//! `oware` (one seed at a time, a set of boards since the last capture).

use std::collections::HashSet;

use mancala_rules::oware::{Oware, OwarePosition};
use mancala_rules::{AnyGame, Game, Line, Player, Setup, Status, parse_rules};
use proptest::prelude::*;

const RULES: &[&str] = &[
    "oware",
    "ouril",
    "awale",
    "oware-capture-all",
    "oware cycle=plies:30 max_plies=200",
    "oware:4,3 singletons=restricted",
    "oware houses=16 seeds=7",
    "oware houses=1 seeds=3",
    "oware:3,2 grand_slam=extra-turn unfed_end=not-scored",
    "awale singletons=restricted max_plies=60",
    "oware houses=8 seeds=15 grand_slam=forbidden",
    "ouril:5,2 cycle=plies:12",
    "oware-capture-all:2,5 unfed_end=not-scored",
];

fn oware(rules: &str) -> Oware {
    match parse_rules(rules).unwrap() {
        AnyGame::Oware(g) => g,
        other => panic!("{rules} is not oware: {other:?}"),
    }
}

/// SplitMix64: a small deterministic generator for the random games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Plays a random game to its end through [`Line`] (so the repetition rule applies).
fn random_game(game: &Oware, seed: u64) -> Line<Oware> {
    let mut rng = Rng(seed);
    let mut line = Line::new(game.clone());
    while !line.status().is_over() {
        let legal = line.legal_moves();
        assert!(!legal.is_empty(), "an ongoing position has legal moves: {:?}", line.position());
        let a = legal.nth((rng.next() % legal.len() as u64) as usize).unwrap();
        line.play(a).unwrap();
        assert!(
            line.len() <= usize::from(game.options().max_plies),
            "{}: game longer than max_plies",
            game.rules_string()
        );
    }
    line
}

fn check_position(game: &Oware, pos: &OwarePosition) {
    // Seed conservation and no overflow.
    let pits = game.pits(pos);
    assert_eq!(pits.len(), 2 * usize::from(game.options().houses));
    let on_board: u32 = pits.iter().map(|&c| u32::from(c)).sum();
    let scores = game.scores(pos);
    assert_eq!(on_board + u32::from(scores.south) + u32::from(scores.north), u32::from(game.total_seeds()));
    assert!(pits.iter().all(|&c| u16::from(c) <= game.total_seeds()));

    // Legal moves are exactly the actions `play` accepts; refusals leave a reason.
    let legal = game.legal_moves(pos);
    assert_eq!(legal.is_empty(), game.status(pos).is_over(), "legal moves iff ongoing: {pos:?}");
    for a in 0..=game.action_space() as u8 {
        match game.play(pos, a) {
            Ok((next, _)) => {
                assert!(legal.contains(a), "play accepted {a}, not in {legal:?}");
                let mut again = *pos;
                game.play_unchecked(&mut again, a);
                assert_eq!(again, next);
            }
            Err(e) => {
                assert!(!legal.contains(a), "play refused legal {a}: {e}");
                assert!(!e.to_string().is_empty());
            }
        }
    }

    // Labels round trip; the label of the other side's pit is refused.
    let side = game.side_to_move(pos);
    for a in 0..game.action_space() as u8 {
        let label = game.move_label(side, a);
        assert_eq!(game.parse_move(pos, &label).unwrap(), a);
        assert_eq!(game.action_pit(side, a), usize::from(a) + if side == Player::South { 0 } else { pits.len() / 2 });
        assert!(game.parse_move(pos, &game.move_label(!side, a)).is_err());
        assert_eq!(game.controller(pos, game.action_pit(side, a)), side);
    }

    // Setup round trip: the line reads back to the same line and the same position, hash,
    // ply counters and bonus flag included.
    let setup = game.to_setup(pos);
    let text = setup.to_string();
    let parsed: Setup = text.parse().unwrap();
    assert_eq!(parsed, setup);
    let back = game.from_setup(&parsed).unwrap();
    assert_eq!(game.to_setup(&back).to_string(), text);
    assert_eq!(back, *pos);
    assert_eq!(back.plies(), pos.plies());
    assert_eq!(game.hash(&back), game.hash(pos));
    assert!(!game.display(pos).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_keep_the_invariants(which in 0..RULES.len(), seed in any::<u64>()) {
        let game = oware(RULES[which]);

        // Rules string round trip.
        let canonical = game.rules_string();
        prop_assert_eq!(&oware(&canonical), &game);
        prop_assert_eq!(oware(&canonical).rules_string(), canonical.clone());

        let line = random_game(&game, seed);
        for pos in line.positions() {
            check_position(&game, pos);
        }

        // Replay determinism: the moves give the same positions and hashes again.
        let mut replay = Line::new(game.clone());
        for a in line.moves() {
            replay.play(a).unwrap();
        }
        let (a, b): (Vec<_>, Vec<_>) = (line.positions().collect(), replay.positions().collect());
        prop_assert_eq!(&a, &b);
        for (p, q) in a.iter().zip(&b) {
            prop_assert_eq!(game.hash(p), game.hash(q));
        }
        // Replaying by labels, through the dynamic game, gives the same end.
        let any = parse_rules(&canonical).unwrap();
        let mut by_label = Line::new(any);
        for label in line.move_labels() {
            by_label.play_label(&label).unwrap();
        }
        prop_assert_eq!(by_label.game().to_setup(by_label.position()), game.to_setup(line.position()));
    }

    #[test]
    fn default_rules_agree_with_an_openspiel_model(seed in any::<u64>()) {
        let game = oware("oware");
        let mut rng = Rng(seed);
        let mut line = Line::new(game.clone());
        let mut model = Model::new(6, 4);
        loop {
            let legal: Vec<u8> = line.legal_moves().iter().collect();
            prop_assert_eq!(&legal, &model.legal_actions());
            prop_assert_eq!(line.status().is_over(), model.is_terminal());
            let ours = game.to_setup(line.position());
            // OpenSpiel lets each player take their own row after every game-ending move, a
            // majority included (its LegalActions is empty when terminal); Oware rule 7 of
            // docs/rules.md leaves the seeds on the board then. Taking them here must give its
            // scores.
            let h = ours.pits.len() / 2;
            let row = |r: usize| ours.pits[r * h..(r + 1) * h].iter().map(|&c| u16::from(c)).sum::<u16>();
            if model.is_terminal() {
                prop_assert_eq!([ours.scores.south + row(0), ours.scores.north + row(1)], model.score);
            } else {
                prop_assert_eq!(&ours.pits, &model.seeds);
                prop_assert_eq!([ours.scores.south, ours.scores.north], model.score);
            }
            if model.is_terminal() {
                let want = match model.score[0].cmp(&model.score[1]) {
                    std::cmp::Ordering::Greater => "south",
                    std::cmp::Ordering::Less => "north",
                    std::cmp::Ordering::Equal => "draw",
                };
                prop_assert!(line.status().to_string().starts_with(want));
                break;
            }
            prop_assert_eq!(line.side_to_move().index(), model.player);
            let a = legal[(rng.next() % legal.len() as u64) as usize];
            line.play(a).unwrap();
            model.apply(a);
        }
    }
}

/// A plain model of OpenSpiel's `oware` (num_houses_per_player, num_seeds_per_house), written
/// from its documented behaviour: one seed at a time, grand slams capture nothing, a board
/// seen again since the last capture ends the game with each player taking their own row,
/// and so does having no legal move.
struct Model {
    houses: usize,
    seeds: Vec<u8>,
    score: [u16; 2],
    player: usize,
    total: u16,
    seen: HashSet<(Vec<u8>, [u16; 2], usize)>,
}

impl Model {
    fn new(houses: usize, per_house: u8) -> Model {
        let seeds = vec![per_house; 2 * houses];
        let mut seen = HashSet::new();
        seen.insert((seeds.clone(), [0, 0], 0));
        Model { houses, total: 2 * houses as u16 * u16::from(per_house), seeds, score: [0, 0], player: 0, seen }
    }

    fn is_terminal(&self) -> bool {
        let half = self.total / 2;
        self.score[0] > half || self.score[1] > half || (self.score[0] == half && self.score[1] == half)
    }

    fn legal_actions(&self) -> Vec<u8> {
        if self.is_terminal() {
            return Vec::new();
        }
        let own = self.player * self.houses;
        let opp = (1 - self.player) * self.houses;
        let opponent_seeds: u32 = self.seeds[opp..opp + self.houses].iter().map(|&c| u32::from(c)).sum();
        (0..self.houses)
            .filter(|&i| {
                let c = usize::from(self.seeds[own + i]);
                if opponent_seeds == 0 { c > self.houses - 1 - i } else { c > 0 }
            })
            .map(|i| i as u8)
            .collect()
    }

    fn collect(&mut self) {
        for (pit, c) in self.seeds.iter_mut().enumerate() {
            self.score[pit / self.houses] += u16::from(*c);
            *c = 0;
        }
    }

    fn apply(&mut self, action: u8) {
        let n = 2 * self.houses;
        let origin = self.player * self.houses + usize::from(action);
        let mut hand = self.seeds[origin];
        self.seeds[origin] = 0;
        let mut pit = origin;
        while hand > 0 {
            pit = (pit + 1) % n;
            if pit != origin {
                self.seeds[pit] += 1;
                hand -= 1;
            }
        }
        let opp = (1 - self.player) * self.houses;
        if (opp..opp + self.houses).contains(&pit) {
            // Grand slam: nothing beyond the last house and everything up to it capturable.
            let beyond_empty = self.seeds[pit + 1..opp + self.houses].iter().all(|&c| c == 0);
            let all_taken = self.seeds[opp..=pit].iter().all(|&c| c == 2 || c == 3);
            if !(beyond_empty && all_taken) {
                let mut captured = 0;
                let mut p = pit;
                loop {
                    let c = self.seeds[p];
                    if c != 2 && c != 3 {
                        break;
                    }
                    captured += u16::from(c);
                    self.seeds[p] = 0;
                    if p == opp {
                        break;
                    }
                    p -= 1;
                }
                self.score[self.player] += captured;
                if captured > 0 {
                    self.seen.clear();
                }
            }
        }
        self.player = 1 - self.player;
        if !self.seen.insert((self.seeds.clone(), self.score, self.player)) {
            self.collect();
        }
        if self.legal_actions().is_empty() {
            self.collect();
        }
    }
}

#[test]
fn the_start_and_d() {
    let game = Oware::default();
    let start = game.start();
    assert_eq!(game.status(&start), Status::Ongoing);
    let (pos, sowing) = game.play(&start, 3).unwrap();
    assert_eq!(game.to_setup(&pos).to_string(), "north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing | plies=1");
    assert_eq!(sowing.captured, 0);
    assert!(!sowing.irreversible);
    assert!(game.display(&pos).contains("north  captured 0  (to move)"));
}

#[test]
fn play_refuses_with_reasons() {
    let game = Oware::default();
    let pos = game.from_setup(&"south | 20 21 | 3 0 2 0 2 0 0 0 0 0 0 0 | ongoing".parse().unwrap()).unwrap();
    let err = |a: u8| game.play(&pos, a).unwrap_err().to_string();
    assert!(err(1).contains("house B is empty"), "{}", err(1));
    assert!(err(0).contains("must feed"), "{}", err(0));
    assert!(err(6).contains("outside the action space"), "{}", err(6));
}

#[test]
fn from_setup_names_the_problem() {
    let game = Oware::default();
    let bad = |line: &str| game.from_setup(&line.parse().unwrap()).unwrap_err().to_string();
    assert!(bad("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 | ongoing").contains("11 pits"));
    assert!(bad("south | 1 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing").contains("49 seeds"));
    assert!(bad("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n n").contains("controllers"));
}

#[test]
fn max_plies_ply_count_is_not_identity() {
    // The same board reached after a different number of plies compares equal.
    let game = Oware::default();
    let mut line = Line::new(game.clone());
    for label in ["A", "a"] {
        line.play_label(label).unwrap();
    }
    let pos = *line.position();
    let mut setup = game.to_setup(&pos);
    assert_eq!(setup.plies, 2, "the position line carries the ply count");
    setup.plies = 0;
    let fresh = game.from_setup(&setup).unwrap();
    assert_eq!(pos.plies(), 2);
    assert_eq!(fresh.plies(), 0);
    assert_eq!(pos, fresh);
    assert_eq!(game.hash(&pos), game.hash(&fresh));
}

/// Random-playout speed on one core (legal moves, a random pick, play, status), the first
/// speed target of docs/design.md: `cargo test --release -p mancala-rules --test oware_props
/// -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a check"]
fn playout_speed() {
    let list: Vec<String> = match std::env::var("OWARE_SPEED_RULES") {
        Ok(rules) => vec![rules],
        Err(_) => ["oware", "ouril", "awale"].map(String::from).to_vec(),
    };
    for rules in &list {
        let game = oware(rules);
        let mut rng = Rng(7);
        let mut moves = 0u64;
        let mut games = 0u64;
        let start = std::time::Instant::now();
        // A fixed number of games (for instruction counts), or as many as fit in 2 seconds.
        let fixed: Option<u64> = std::env::var("OWARE_SPEED_GAMES").ok().and_then(|n| n.parse().ok());
        while fixed.map_or(start.elapsed().as_secs_f64() < 2.0, |n| games < n) {
            for _ in 0..fixed.map_or(1000, |n| n.min(1000)) {
                let mut pos = game.start();
                while !game.status(&pos).is_over() {
                    let legal = game.legal_moves(&pos);
                    let r = rng.next();
                    let a = legal.nth(((r as u32 as u64 * legal.len() as u64) >> 32) as usize).unwrap();
                    game.play_unchecked(&mut pos, a);
                    moves += 1;
                }
                games += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{rules}: {:.1} M moves/s, {:.0} games/s, {:.1} plies a game",
            moves as f64 / secs / 1e6,
            games as f64 / secs,
            moves as f64 / games as f64
        );
    }
}
