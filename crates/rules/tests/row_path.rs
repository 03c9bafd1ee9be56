//! The sowing engine's row-word path (two ranks of at most 8 houses, one lap, last-seed
//! captures in the opponent's row) against its general path: the same legal moves, the same
//! positions, captures and ends, move by move, on random games of every game that takes it.

use mancala_rules::catalogue::GAMES;
use mancala_rules::sowing::{CaptureOn, Described, Description, Origin};
use mancala_rules::{Game, PRESETS, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Every description the framework ships: the presets' and the catalogue's.
fn descriptions() -> Vec<(String, Description)> {
    let mut out: Vec<(String, Description)> =
        PRESETS.iter().map(|p| (p.to_string(), parse_rules(p).unwrap().description())).collect();
    for (name, text) in GAMES {
        out.push((name.to_string(), Description::from_toml(text).unwrap()));
    }
    out
}

fn play_both(name: &str, fast: &Described, general: &Described, games: usize, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    for g in 0..games {
        let mut a = fast.start();
        let mut b = general.start();
        let mut ply = 0;
        while !fast.status(&a).is_over() {
            let legal = fast.legal_moves(&a);
            assert_eq!(legal, general.legal_moves(&b), "{name} game {g} ply {ply}: legal moves");
            let action = legal.nth(rng.random_range(0..legal.len())).unwrap();
            let sa = fast.play_unchecked(&mut a, action);
            let sb = general.play_unchecked(&mut b, action);
            assert_eq!(a, b, "{name} game {g} ply {ply}: position after {action}");
            assert_eq!(a.plies(), b.plies(), "{name} game {g} ply {ply}");
            assert_eq!(sa, sb, "{name} game {g} ply {ply}: what the move did");
            assert_eq!(fast.status(&a), general.status(&b), "{name} game {g} ply {ply}: status");
            ply += 1;
        }
        assert!(general.status(&b).is_over(), "{name} game {g}: both end together");
    }
}

#[test]
fn the_row_path_agrees_with_the_general_sowing() {
    let mut taken = Vec::new();
    for (name, d) in descriptions() {
        let fast = Described::new(d.clone()).unwrap();
        let general = Described::without_row_path(d).unwrap();
        assert!(!general.takes_row_path());
        if !fast.takes_row_path() {
            continue;
        }
        taken.push(name.clone());
        play_both(&name, &fast, &general, 400, 7);
    }
    // The Oware family takes it; Kalah (stores), the relay games and the catalogue's games
    // (captures during the sowing or from either row, relays, cross captures) do not.
    for name in ["oware", "ouril", "awale", "oware-capture-all"] {
        assert!(taken.iter().any(|t| t == name), "{name} takes the row path: {taken:?}");
    }
    for name in ["kalah", "ba-awa", "owela", "toguz-kumalak"] {
        assert!(!taken.iter().any(|t| t == name), "{name} does not: {taken:?}");
    }
    assert!(taken.len() >= 5, "{taken:?}");
}

/// Variants the shipped games do not cover: captures of the last house alone, other
/// counts, the origin sown on every lap, small and 8-house rows, no must-feed.
#[test]
fn the_row_path_agrees_on_varied_descriptions() {
    let base = parse_rules("oware").unwrap().description();
    let mut seed = 11;
    for houses in [3u8, 5, 6, 8] {
        for seeds in [2u8, 4] {
            for run in [false, true] {
                for skip in [false, true] {
                    for counts in [vec![2, 3], vec![4], vec![1, 2], vec![3]] {
                        let mut d = base.clone();
                        d.board.houses = houses;
                        d.board.seeds = Some(seeds);
                        d.capture.on = if run { CaptureOn::Run } else { CaptureOn::Last };
                        d.sowing.origin = if skip { Origin::Skip } else { Origin::Sow };
                        d.capture.counts = counts;
                        d.moves.must_feed = seed % 2 == 0;
                        let name = format!("{houses}x{seeds} run {run} skip {skip} counts {:?}", d.capture.counts);
                        let Ok(fast) = Described::new(d.clone()) else { continue };
                        assert!(fast.takes_row_path(), "{name}");
                        let general = Described::without_row_path(d).unwrap();
                        play_both(&name, &fast, &general, 40, seed);
                        seed += 1;
                    }
                }
            }
        }
    }
}
