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

/// Adidada: E sows F, a and b; b made 3 and a made 2 in North's row are taken, the run
/// stopping at the start of North's row.
#[test]
fn adidada_takes_a_run_of_2s_and_3s_in_the_opponents_row() {
    worked(
        "adidada",
        "south | 5 5 | 4 4 4 4 3 0 1 2 4 4 4 4 | ongoing",
        "E",
        "north | 10 5 | 4 4 4 4 0 1 0 0 4 4 4 4 | ongoing | plies=1",
    );
}

/// Adidada sows the emptied house on a lap (Awari skips it): A's twelve seeds reach B to f,
/// then A again.
#[test]
fn adidada_sows_the_emptied_house_on_a_lap() {
    worked(
        "adidada",
        "south | 0 0 | 12 0 0 0 0 0 6 6 6 6 6 6 | ongoing",
        "A",
        "north | 0 0 | 1 1 1 1 1 1 7 7 7 7 7 7 | ongoing | plies=1",
    );
}

/// Alıtev: E sows F and a; a made 3 is taken, then F behind it, made 1, across the rows;
/// the emptied E ends the run.
#[test]
fn alitev_takes_a_run_of_ones_and_threes_on_either_side() {
    worked(
        "alitev",
        "south | 9 9 | 3 3 3 3 2 0 2 1 1 0 0 0 | ongoing",
        "E",
        "north | 13 9 | 3 3 3 3 0 0 0 1 1 0 0 0 | ongoing | plies=1",
    );
}

/// Awari (`all_singles`): F sows a and b; b made 2 is taken, a (1) stops the run, and with
/// every house holding one seed or none the game ends, the singles scored to nobody: North's
/// earlier captures win by one.
#[test]
fn awari_ends_when_every_house_holds_one_seed_or_none() {
    worked(
        "awari",
        "south | 20 23 | 1 0 1 0 0 2 0 1 0 0 0 0 | ongoing",
        "F",
        "north | 22 23 | 1 0 1 0 0 0 1 0 0 0 0 0 | north+1 | plies=1",
    );
}

/// Mangala (modern): F's four seeds go back into F, South's store, a and b; b made even (4)
/// is taken; the odd a is not.
#[test]
fn mangala_modern_sows_the_first_seed_back_and_takes_an_even_house() {
    worked(
        "mangala-modern",
        "south | 1 1 | 4 4 4 4 4 4 3 3 4 4 4 4 | ongoing",
        "F",
        "north | 6 1 | 4 4 4 4 4 1 4 0 4 4 4 4 | ongoing",
    );
}

/// Mangala (modern, `empty_row_to = "emptied"`): South's lone seed in F moves on into the
/// store; South's row is empty, so South takes the 17 seeds left in North's row.
#[test]
fn mangala_modern_gives_the_seeds_left_to_the_player_who_runs_out() {
    worked(
        "mangala-modern",
        "south | 20 10 | 0 0 0 0 0 1 3 2 4 1 5 2 | ongoing",
        "F",
        "south | 38 10 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+28",
    );
}

/// Kalah's empty-row end on the same position gives each player their own row: the key
/// changes who takes the seeds, nothing else.
#[test]
fn empty_row_to_owners_keeps_each_row_with_its_owner() {
    let text = games_text("mangala-modern").replace("empty_row_to = \"emptied\"", "empty_row_to = \"owners\"");
    let description = mancala_rules::sowing::Description::from_toml(&text).unwrap();
    let g = mancala_rules::sowing::Described::new(description).unwrap();
    let pos = g.from_setup(&"south | 20 10 | 0 0 0 0 0 1 3 2 4 1 5 2 | ongoing".parse().unwrap()).unwrap();
    let action = g.parse_move(&pos, "F").unwrap();
    let (next, _) = g.play(&pos, action).unwrap();
    assert_eq!(g.to_setup(&next).to_string(), "south | 21 27 | 0 0 0 0 0 0 0 0 0 0 0 0 | north+6");
}

fn games_text(name: &str) -> String {
    GAMES.iter().find(|(n, _)| *n == name).map(|(_, t)| t.to_string()).unwrap()
}

/// `empty_row_to` and `all_singles` are refused where they cannot apply, naming the key.
#[test]
fn empty_row_to_and_all_singles_are_refused_where_they_cannot_apply() {
    let refused = |tail: &str, key: &str| {
        let text = format!("format = 1\nname = \"x\"\n[board]\nhouses = 6\n{tail}");
        let err = mancala_rules::sowing::Description::from_toml(&text).unwrap_err().to_string();
        assert!(err.contains(key), "{tail}: {err}");
    };
    // Who takes the seeds of an empty row, without the empty-row end.
    refused("seeds = 4\n[end]\nmax_plies = 100\nempty_row_to = \"emptied\"\n", "end.empty_row_to");
    // Seeds handed to a player where the score is the seeds on the board.
    refused(
        "seeds = 4\n[end]\nmax_plies = 100\nempty_row = true\nscore = \"board\"\nempty_row_to = \"emptied\"\n",
        "end.empty_row_to",
    );
    // A game of singles would be over before it starts.
    refused("seeds = 1\n[end]\nmax_plies = 100\nall_singles = true\n", "end.all_singles");
    // An unknown value names the key too.
    let text = "format = 1\nname = \"x\"\n[board]\nhouses = 6\nseeds = 4\n[end]\nmax_plies = 100\nempty_row = true\nempty_row_to = \"mover\"\n";
    let err = mancala_rules::sowing::Description::from_toml(text).unwrap_err().to_string();
    assert!(err.contains("empty_row_to") || err.contains("mover"), "{err}");
}
