//! Property tests of Kalah over random games, for many sizes and option combinations, plus a
//! seed-by-seed model of docs/rules.md section 2 that every move is checked against.

use mancala_rules::kalah::{Kalah, KalahPosition};
use mancala_rules::{Action, AnyGame, Game, Line, Player, Setup, Status, parse_rules};
use proptest::prelude::*;

fn kalah(rules: &str) -> Kalah {
    match parse_rules(rules).unwrap() {
        AnyGame::Kalah(k) => k,
        other => panic!("{rules} gave {other:?}"),
    }
}

/// A rules string: houses 1..=16, seeds up to the 255-seed limit (big sowings included),
/// both `empty_capture` values and both `end` values.
fn rules_strategy() -> impl Strategy<Value = String> {
    (1u32..=16, 1u32..=40, any::<bool>(), any::<bool>()).prop_map(|(houses, seeds, empty, mover)| {
        let seeds = seeds.min(255 / (2 * houses));
        let end = if mover { "mover-row-empty" } else { "either-row-empty" };
        format!("kalah:{houses},{seeds} empty_capture={empty} end={end}")
    })
}

/// docs/rules.md section 2 written out seed by seed, on a plain board: houses of South, South's
/// store, houses of North, North's store (the usual drawing of a Kalah board).
struct Model {
    h: usize,
    empty_capture: bool,
    mover_row_empty: bool,
    board: Vec<u32>,
    side: usize,
    over: bool,
}

impl Model {
    fn from(game: &Kalah, pos: &KalahPosition) -> Model {
        let h = game.action_space();
        let pits = game.pits(pos);
        let scores = game.scores(pos);
        let mut board: Vec<u32> = pits[..h].iter().map(|&p| u32::from(p)).collect();
        board.push(u32::from(scores.south));
        board.extend(pits[h..].iter().map(|&p| u32::from(p)));
        board.push(u32::from(scores.north));
        Model {
            h,
            empty_capture: game.options().empty_capture,
            mover_row_empty: game.options().end == mancala_rules::kalah::KalahEnd::MoverRowEmpty,
            board,
            side: game.side_to_move(pos).index(),
            over: game.status(pos).is_over(),
        }
    }

    fn house(&self, side: usize, i: usize) -> usize {
        side * (self.h + 1) + i
    }

    fn store(&self, side: usize) -> usize {
        side * (self.h + 1) + self.h
    }

    fn row_sum(&self, side: usize) -> u32 {
        (0..self.h).map(|i| self.board[self.house(side, i)]).sum()
    }

    fn play(&mut self, action: usize) {
        let me = self.side;
        let from = self.house(me, action);
        let mut seeds = self.board[from];
        assert!(seeds > 0);
        self.board[from] = 0;
        let mut at = from;
        while seeds > 0 {
            at = (at + 1) % self.board.len();
            if at == self.store(1 - me) {
                continue;
            }
            self.board[at] += 1;
            seeds -= 1;
        }
        if at == self.store(me) {
            // extra turn
        } else {
            let own_house = (0..self.h).find(|&i| self.house(me, i) == at);
            if let Some(i) = own_house
                && self.board[at] == 1
            {
                let opposite = self.house(1 - me, self.h - 1 - i);
                if self.board[opposite] > 0 || self.empty_capture {
                    let store = self.store(me);
                    self.board[store] += 1 + self.board[opposite];
                    self.board[at] = 0;
                    self.board[opposite] = 0;
                }
            }
            self.side = 1 - me;
        }
        let end = if self.mover_row_empty {
            self.row_sum(self.side) == 0
        } else {
            self.row_sum(0) == 0 || self.row_sum(1) == 0
        };
        if end {
            for side in 0..2 {
                let left = self.row_sum(side);
                for i in 0..self.h {
                    let p = self.house(side, i);
                    self.board[p] = 0;
                }
                let store = self.store(side);
                self.board[store] += left;
            }
            self.over = true;
        }
    }
}

/// Plays a random game: `choices[i]` picks among the legal moves at ply `i`.
fn random_game(game: &Kalah, choices: &[u32]) -> (Vec<Action>, Vec<KalahPosition>) {
    let mut pos = game.start();
    let mut moves = Vec::new();
    let mut positions = vec![pos];
    for &c in choices {
        let legal = game.legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let a = legal.nth(c as usize % legal.len()).unwrap();
        game.play_unchecked(&mut pos, a);
        moves.push(a);
        positions.push(pos);
    }
    (moves, positions)
}

/// Kalah cannot cycle; random games end fast. This bound is far above what they need.
const PLY_BOUND: usize = 3000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_games_keep_every_invariant(rules in rules_strategy(), choices in prop::collection::vec(any::<u32>(), PLY_BOUND)) {
        let game = kalah(&rules);
        let total = game.total_seeds();
        let h = game.action_space();
        let (moves, positions) = random_game(&game, &choices);
        let last = positions.last().unwrap();
        prop_assert!(game.status(last).is_over(), "{rules}: not over after {} plies", moves.len());

        for (i, pos) in positions.iter().enumerate() {
            // Seed conservation, no overflow.
            let pits = game.pits(pos);
            prop_assert_eq!(pits.len(), 2 * h);
            let sum: u32 = pits.iter().map(|&p| u32::from(p)).sum::<u32>()
                + u32::from(game.scores(pos).south) + u32::from(game.scores(pos).north);
            prop_assert_eq!(sum, u32::from(total));
            prop_assert!(pits.iter().all(|&p| u16::from(p) <= total));

            // The legal moves are exactly the actions `play` accepts; refusals say why.
            let legal = game.legal_moves(pos);
            let side = game.side_to_move(pos);
            for a in 0..h as Action {
                match game.play(pos, a) {
                    Ok(_) => prop_assert!(legal.contains(a)),
                    Err(e) => {
                        prop_assert!(!legal.contains(a));
                        let msg = e.to_string();
                        prop_assert!(msg.contains("empty") || msg.contains("over"), "{}", msg);
                    }
                }
                // Labels round trip; the opponent's labels are refused.
                let label = game.move_label(side, a);
                prop_assert_eq!(game.parse_move(pos, &label).unwrap(), a);
                prop_assert!(game.parse_move(pos, &game.move_label(!side, a)).is_err());
            }
            prop_assert!(game.play(pos, h as Action).is_err());

            // Status: ongoing exactly while there are moves; a finished game is all in stores.
            match game.status(pos) {
                Status::Ongoing => {
                    prop_assert!(!legal.is_empty());
                    if game.options().end == mancala_rules::kalah::KalahEnd::EitherRowEmpty {
                        prop_assert!(pits[..h].iter().any(|&p| p > 0) && pits[h..].iter().any(|&p| p > 0));
                    }
                }
                Status::Over(outcome) => {
                    prop_assert!(legal.is_empty());
                    prop_assert!(pits.iter().all(|&p| p == 0));
                    prop_assert_eq!(outcome, mancala_rules::Outcome::from_totals(game.scores(pos)));
                }
            }

            // Position line round trip, with equal hashes.
            let setup = game.to_setup(pos);
            let line = setup.to_string();
            let back = game.from_setup(&line.parse::<Setup>().unwrap()).unwrap();
            prop_assert_eq!(back, *pos);
            prop_assert_eq!(game.hash(&back), game.hash(pos));

            // Every move agrees with the seed-by-seed model.
            if i < moves.len() {
                let mut model = Model::from(&game, pos);
                model.play(usize::from(moves[i]));
                let next = Model::from(&game, &positions[i + 1]);
                prop_assert_eq!(&model.board, &next.board, "{} move {}", rules, i);
                prop_assert_eq!(model.side, next.side);
                prop_assert_eq!(model.over, next.over);
            }
        }

        // Replaying the record through `Line` gives the same positions and hashes.
        let mut replay = Line::new(game.clone());
        for &a in &moves {
            replay.play(a).unwrap();
        }
        for (a, b) in replay.positions().zip(&positions) {
            prop_assert_eq!(a, b);
            prop_assert_eq!(game.hash(a), game.hash(b));
        }
        prop_assert_eq!(replay.move_labels().len(), moves.len());

        // The rules string reads back to the same game.
        prop_assert_eq!(parse_rules(&game.rules_string()).unwrap(), AnyGame::Kalah(game.clone()));
    }

    #[test]
    fn hash_tells_apart_different_positions(choices in prop::collection::vec(any::<u32>(), 200)) {
        let game = kalah("kalah");
        let (_, positions) = random_game(&game, &choices);
        for w in positions.windows(2) {
            prop_assert_ne!(w[0], w[1]);
            prop_assert_ne!(game.hash(&w[0]), game.hash(&w[1]));
        }
    }
}

#[test]
fn default_rules_string_is_canonical() {
    let game = kalah("kalah");
    assert_eq!(game.rules_string(), "kalah houses=6 seeds=4 empty_capture=false end=either-row-empty");
    assert_eq!(game.total_seeds(), 48);
    assert_eq!(game.action_space(), 6);
    assert_eq!(kalah("kalah:6,6").rules_string(), "kalah houses=6 seeds=6 empty_capture=false end=either-row-empty");
    assert_eq!(
        kalah("kalah houses=4 seeds=3 empty-capture=true end=mover-row-empty").rules_string(),
        "kalah houses=4 seeds=3 empty_capture=true end=mover-row-empty"
    );
    assert_eq!(kalah("kalah:4,3 houses=4 seeds=3"), kalah("kalah houses=4 seeds=3"));
}

#[test]
fn start_position_and_display() {
    let game = kalah("kalah");
    let start = game.start();
    assert_eq!(game.to_setup(&start).to_string(), "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing");
    let board = game.display(&start);
    eprintln!("{board}");
    assert!(board.contains("f   e   d   c   b   a"), "{board}");
    assert!(board.contains("A   B   C   D   E   F"), "{board}");
    assert!(board.ends_with("south to move"), "{board}");
    assert_eq!(game.controller(&start, 5), Player::South);
    assert_eq!(game.controller(&start, 6), Player::North);
    assert_eq!(game.action_pit(Player::North, 2), 8);
}

#[test]
fn parse_move_errors_name_the_label() {
    let game = kalah("kalah");
    let start = game.start();
    let e = game.parse_move(&start, "G").unwrap_err().to_string();
    assert!(e.contains("'G'") && e.contains("A, B, C, D, E, F"), "{e}");
    let e = game.parse_move(&start, "c").unwrap_err().to_string();
    assert!(e.contains("north") && e.contains("south"), "{e}");
    assert!(game.parse_move(&start, "").is_err());
    assert!(game.parse_move(&start, "AB").is_err());
}

#[test]
fn from_setup_refuses_bad_positions() {
    let game = kalah("kalah");
    let read = |line: &str| game.from_setup(&line.parse::<Setup>().unwrap());
    let e = read("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 | ongoing").unwrap_err().to_string();
    assert!(e.contains("11 pits") && e.contains("12"), "{e}");
    let e = read("south | 1 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing").unwrap_err().to_string();
    assert!(e.contains("49") && e.contains("48"), "{e}");
    let e = read("south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n n").unwrap_err().to_string();
    assert!(e.contains("controllers"), "{e}");
    // A position whose game has ended is settled: each row to its owner.
    let pos = read("north | 20 10 | 0 0 0 0 0 0 1 2 3 4 5 3 | ongoing").unwrap();
    assert_eq!(game.to_setup(&pos).to_string(), "north | 20 28 | 0 0 0 0 0 0 0 0 0 0 0 0 | north+8");
}

/// Random playouts a second on one core (run with `--ignored --nocapture`, release build).
#[test]
#[ignore = "speed measurement"]
fn playout_speed() {
    let game = kalah("kalah");
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut moves = 0u64;
    let started = std::time::Instant::now();
    let mut checksum = 0u64;
    while started.elapsed().as_secs_f64() < 2.0 {
        for _ in 0..10_000 {
            let mut pos = game.start();
            loop {
                let legal = game.legal_moves(&pos);
                if legal.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let n = ((rng >> 32) * legal.len() as u64) >> 32;
                let a = legal.nth(n as usize).unwrap();
                game.play_unchecked(&mut pos, a);
                moves += 1;
            }
            checksum += u64::from(game.scores(&pos).south);
        }
    }
    let rate = moves as f64 / started.elapsed().as_secs_f64();
    eprintln!("kalah: {:.1} M random-playout moves/s (checksum {checksum})", rate / 1e6);
}
