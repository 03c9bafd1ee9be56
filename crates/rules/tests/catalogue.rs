//! Every game of the catalogue (the presets and the described games of `games/`) plays:
//! random games from the start never panic, conserve the seeds at every ply and end.
//! The 10,000 games a game (about five seconds in release for the whole catalogue;
//! `MZ_CATALOGUE_GAMES` sets the count, `scripts/catalogue-random.sh` prints the figures).

use mancala_rules::catalogue::{GAMES, entries};
use mancala_rules::sowing::Score;
use mancala_rules::{AnyGame, Game, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn games_per_game() -> usize {
    std::env::var("MZ_CATALOGUE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// The seeds on the board and in the scores agree with the total: captured and stored seeds
/// add to the board's; where a player's seeds are the seeds on their side, the scores are
/// the board.
fn check_seeds(name: &str, game: &AnyGame, pos: &<AnyGame as Game>::Position, board_score: bool, ply: usize) {
    let total = game.total_seeds();
    let on_board: u16 = game.pits(pos).iter().map(|&s| u16::from(s)).sum();
    let scores = game.scores(pos);
    let scored = scores.south + scores.north;
    if board_score {
        assert_eq!(on_board, total, "{name}: ply {ply}: seeds on the board");
        assert_eq!(scored, total, "{name}: ply {ply}: the scores are the seeds on each side");
    } else {
        assert_eq!(on_board + scored, total, "{name}: ply {ply}: board {on_board} + scores {scored}");
    }
}

/// Plays `games` random games of `name`; returns the plies of the longest game and of all.
fn play_random(name: &str, games: usize, seed: u64) -> (usize, usize) {
    let game = parse_rules(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let board_score = game.description().end.score == Score::Board;
    // Every catalogue game ends by its rules or its ply cap; a move adds at most one ply
    // (an extra turn is a ply of its own), so a game past this bound would not end.
    let bound = 70_000;
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut longest, mut plies) = (0, 0);
    for g in 0..games {
        let mut pos = game.start();
        let mut ply = 0;
        check_seeds(name, &game, &pos, board_score, ply);
        while !game.status(&pos).is_over() {
            let legal = game.legal_moves(&pos);
            assert!(!legal.is_empty(), "{name}: game {g} ply {ply}: ongoing with no legal move");
            let action = legal.nth(rng.random_range(0..legal.len())).unwrap();
            game.play_unchecked(&mut pos, action);
            ply += 1;
            check_seeds(name, &game, &pos, board_score, ply);
            assert!(ply < bound, "{name}: game {g} did not end in {bound} plies");
        }
        longest = longest.max(ply);
        plies += ply;
    }
    (longest, plies)
}

#[test]
fn every_catalogue_game_plays_random_games_to_the_end() {
    let games = games_per_game();
    for (i, entry) in entries().iter().enumerate() {
        let (longest, plies) = play_random(&entry.name, games, 0xca7a_0000 + i as u64);
        assert!(longest > 0, "{}: no game lasted a ply", entry.name);
        // Shown with --nocapture (scripts/catalogue-random.sh).
        println!(
            "{:<24} {games:>6} games  {:>7.1} plies on average  {longest:>5} the longest",
            entry.name,
            plies as f64 / games as f64
        );
    }
}

/// Every described game is read by name and by its one-line rules string alike, so a model
/// or a shard made for it plays it without the file.
#[test]
fn every_described_game_reads_back_from_its_rules_string() {
    for (name, _) in GAMES {
        let game = parse_rules(name).unwrap();
        let again = parse_rules(&game.rules_string()).unwrap();
        assert_eq!(again.rules_string(), game.rules_string(), "{name}");
        assert_eq!(again.action_space(), game.action_space(), "{name}");
    }
}

/// Sets up `position` (a position line), plays `mv` and compares the next position line:
/// moves worked by hand from the rules the sources state (docs/games.md).
fn worked(game: &str, position: &str, mv: &str, expect: &str) {
    let g = parse_rules(game).unwrap();
    let pos = g.from_setup(&position.parse().unwrap()).unwrap_or_else(|e| panic!("{game}: {position}: {e}"));
    let action = g.parse_move(&pos, mv).unwrap_or_else(|e| panic!("{game}: {mv}: {e}"));
    let (next, _) = g.play(&pos, action).unwrap();
    assert_eq!(g.to_setup(&next).to_string(), expect, "{game}: {position}, {mv}");
}

/// Bohnenspiel: E sows F, a, b; b makes 6, a 4 and F (South's own house) 2: the run takes
/// all three across the rows and stops at the emptied E.
#[test]
fn bohnenspiel_captures_a_run_of_2_4_6_on_either_side() {
    worked(
        "bohnenspiel",
        "south | 14 14 | 4 4 4 4 3 1 3 5 4 4 4 4 | ongoing",
        "E",
        "north | 26 14 | 4 4 4 4 0 0 0 0 4 4 4 4 | ongoing | plies=1",
    );
}

/// Anywoli: South's last house L sows a and b; a made four on the way goes to North, the
/// owner of its row; b made four by the last seed goes to South, the mover.
#[test]
fn anywoli_gives_fours_to_the_row_owner_and_the_last_four_to_the_mover() {
    worked(
        "anywoli",
        "south | 2 2 | 4 4 4 4 4 4 4 4 4 4 4 2 3 3 4 4 4 4 4 4 4 4 4 4 | ongoing",
        "L",
        "north | 6 6 | 4 4 4 4 4 4 4 4 4 4 4 0 0 0 4 4 4 4 4 4 4 4 4 4 | ongoing | plies=1",
    );
}

/// Halusa: B sows C and D; D made even (4) is taken with C before it (2); the emptied B
/// ends the run.
#[test]
fn halusa_takes_even_houses_in_ones_own_row() {
    worked(
        "halusa",
        "south | 6 6 | 6 2 1 3 6 6 6 6 6 6 6 6 | ongoing",
        "B",
        "north | 12 6 | 6 0 0 0 6 6 6 6 6 6 6 6 | ongoing | plies=1",
    );
}

/// Vai Lung Thlan: C sows clockwise into B and A, both empty: the last seed's single in A
/// is taken, and the single in B behind it.
#[test]
fn vai_lung_thlan_takes_the_line_of_single_seeds_behind_the_last() {
    worked(
        "vai-lung-thlan",
        "south | 7 6 | 0 0 2 5 5 5 5 5 5 5 5 5 | ongoing",
        "C",
        "north | 9 6 | 0 0 0 5 5 5 5 5 5 5 5 5 | ongoing | plies=1",
    );
}

/// Yovodji (`cross_seed = "left"`): B sows C and D; the last seed in South's empty D takes
/// the 4 of c opposite and stays in D.
#[test]
fn yovodji_takes_the_opposite_house_and_leaves_the_capturing_seed() {
    worked(
        "yovodji",
        "south | 3 3 | 4 2 4 0 4 4 4 4 4 4 4 4 | ongoing",
        "B",
        "north | 7 3 | 4 0 5 1 4 4 4 4 0 4 4 4 | ongoing | plies=1",
    );
}

/// Ayoayo plays the same sowing with the default `cross_seed = "taken"`: D is emptied too.
#[test]
fn ayoayo_takes_the_capturing_seed_with_the_opposite_house() {
    worked(
        "ayoayo",
        "south | 3 3 | 4 2 4 0 4 4 4 4 4 4 4 4 | ongoing",
        "B",
        "north | 8 3 | 4 0 5 0 4 4 4 4 0 4 4 4 | ongoing | plies=1",
    );
}

/// `cross_seed` says what a cross capture leaves: without a cross capture it is refused,
/// naming the key.
#[test]
fn cross_seed_without_a_cross_capture_is_refused() {
    let text = "format = 1\nname = \"x\"\n[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 100\n[capture]\ncounts = [2, 3]\ncross_seed = \"left\"\n";
    let err = mancala_rules::sowing::Description::from_toml(text).unwrap_err().to_string();
    assert!(err.contains("capture.cross_seed"), "{err}");
}

/// French Wari (`cross_from = "any"`): E sows F and a; the last seed in North's empty a
/// takes South's own F opposite (5 after the sowing) and stays in a.
#[test]
fn french_wari_captures_from_an_empty_house_on_either_side() {
    worked(
        "french-wari",
        "south | 3 3 | 4 4 4 4 2 4 0 4 4 4 4 4 | ongoing",
        "E",
        "north | 8 3 | 4 4 4 4 0 0 1 4 4 4 4 4 | ongoing | plies=1",
    );
}

/// Chonka (`cross_from = "any"`, the seed taken): F sows G, South's store and North's
/// empty a; the last seed takes itself and South's own G opposite (8 after the sowing).
#[test]
fn chonka_takes_the_seed_and_the_house_opposite_on_either_side() {
    worked(
        "chonka",
        "south | 6 5 | 7 7 7 7 7 3 7 0 7 7 7 7 7 7 | ongoing",
        "F",
        "north | 16 5 | 7 7 7 7 7 0 0 0 7 7 7 7 7 7 | ongoing | plies=1",
    );
}
