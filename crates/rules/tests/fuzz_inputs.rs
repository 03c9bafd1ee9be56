//! Fuzzing the two text inputs of the rules crate: the rules string (`parse_rules`) and the
//! position line (`Setup`'s parser, then `from_setup` under every preset). Each starts from
//! valid inputs (every preset's canonical string with its options changed, positions of
//! real games) and changes characters, tokens and numbers, so the fuzz reaches the option
//! and position checks, not only the first token. Nothing panics; a string that parses is a
//! game that plays; a line that reads is a position that plays and writes back.

use mancala_rules::{AnyGame, Game, PRESETS, Setup, parse_rules};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Valid rules strings: every preset, its canonical form, and forms with options.
fn valid_rules() -> Vec<String> {
    let mut out: Vec<String> = PRESETS.iter().map(|p| p.to_string()).collect();
    for p in PRESETS {
        out.push(parse_rules(p).unwrap().rules_string());
    }
    for extra in ["kalah:4,3", "kalah:16,7", "kalah:1,127", "kalah houses=6 seeds=21", "owela", "ba-awa"] {
        if parse_rules(extra).is_ok() {
            out.push(extra.to_string());
        }
    }
    out
}

/// Characters and tokens that the grammar gives meaning to, and some it does not.
const PIECES: &[&str] = &[
    " ",
    "=",
    ":",
    ",",
    "|",
    "-",
    "_",
    "0",
    "1",
    "9",
    "12",
    "255",
    "256",
    "65535",
    "4294967296",
    "-1",
    "true",
    "false",
    "houses",
    "seeds",
    "cycle",
    "plies",
    "grand_slam",
    "forbidden",
    "extra-turn",
    "repetition",
    "south",
    "north",
    "ongoing",
    "draw",
    "south+3",
    "s",
    "n",
    "bonus",
    "since_capture=",
    "plies=",
    "starter=",
    "é",
    "\u{0}",
    "\n",
    "  ",
];

// The text mutations every fuzz test of bad input shares.
#[path = "support/text_edit.rs"]
mod text_edit;
use text_edit::{apply_text, text_edit};

/// Plays up to `plies` random moves from `pos`, checking what every move gives back.
fn play_some(game: &AnyGame, mut pos: <AnyGame as Game>::Position, plies: usize, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..plies {
        if game.status(&pos).outcome().is_some() {
            return;
        }
        let moves: Vec<_> = game.legal_moves(&pos).into_iter().collect();
        if moves.is_empty() {
            return;
        }
        let m = moves[rng.random_range(0..moves.len())];
        let _ = game.move_label(game.side_to_move(&pos), m);
        pos = game.play(&pos, m).expect("a legal move plays").0;
        let _ = game.display(&pos);
    }
}

/// Valid position lines: the start and some positions of random games of every preset.
fn valid_lines() -> Vec<String> {
    let mut out = Vec::new();
    for (k, p) in PRESETS.iter().enumerate() {
        let game = parse_rules(p).unwrap();
        let mut rng = SmallRng::seed_from_u64(k as u64);
        let mut pos = game.start();
        out.push(game.to_setup(&pos).to_string());
        for ply in 0..60 {
            if game.status(&pos).outcome().is_some() {
                break;
            }
            let moves: Vec<_> = game.legal_moves(&pos).into_iter().collect();
            pos = game.play(&pos, moves[rng.random_range(0..moves.len())]).unwrap().0;
            if ply % 15 == 14 {
                out.push(game.to_setup(&pos).to_string());
            }
        }
        out.push(game.to_setup(&pos).to_string());
    }
    out
}

fn cached_rules() -> &'static [String] {
    static RULES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    RULES.get_or_init(valid_rules)
}

fn cached_lines() -> &'static [String] {
    static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINES.get_or_init(valid_lines)
}

/// Every preset's game, made once.
fn games() -> &'static [AnyGame] {
    static GAMES: std::sync::OnceLock<Vec<AnyGame>> = std::sync::OnceLock::new();
    GAMES.get_or_init(|| PRESETS.iter().map(|p| parse_rules(p).unwrap()).collect())
}

/// A line that reads: under each game it is refused with a reason or is a position that
/// plays and writes back as a line that reads to the same position.
fn use_line(line: &str) {
    let Ok(setup) = line.parse::<Setup>() else { return };
    for game in games() {
        match game.from_setup(&setup) {
            Ok(pos) => {
                let again = game.to_setup(&pos).to_string();
                let back: Setup = again.parse().expect("a written line reads");
                assert_eq!(game.from_setup(&back).expect("a written position is valid"), pos, "{line} -> {again}");
                play_some(game, pos, 40, line.len() as u64);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_changed_rules_string_is_refused_or_plays(which in any::<usize>(), edits in proptest::collection::vec(text_edit(PIECES.len()), 1..4), seed in any::<u64>()) {
        let valid = cached_rules();
        let text = apply_text(&valid[which % valid.len()], &edits, PIECES);
        match parse_rules(&text) {
            Ok(game) => {
                // Its canonical string reads back to the same game.
                let canonical = game.rules_string();
                prop_assert_eq!(parse_rules(&canonical).unwrap(), game.clone());
                play_some(&game, game.start(), 60, seed);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn a_changed_position_line_is_refused_or_plays(which in any::<usize>(), edits in proptest::collection::vec(text_edit(PIECES.len()), 1..4)) {
        let valid = cached_lines();
        use_line(&apply_text(&valid[which % valid.len()], &edits, PIECES));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_text_is_refused_or_plays(text in "\\PC{0,40}") {
        if let Ok(game) = parse_rules(&text) {
            play_some(&game, game.start(), 20, 1);
        }
        use_line(&text);
    }

    #[test]
    fn lines_of_the_grammar_with_any_numbers_are_refused_or_play(
        side in prop_oneof![Just("south"), Just("north"), Just("east")],
        scores in proptest::collection::vec(0..300u32, 0..3),
        pits in proptest::collection::vec(prop_oneof![0..8u32, Just(48), Just(255), Just(256)], 0..40),
        status in prop_oneof![Just("ongoing"), Just("draw"), Just("south+2"), Just("north+300")],
        state in prop_oneof![Just(""), Just(" | plies=3"), Just(" | since_capture=70000"), Just(" | bonus"), Just(" | starter=north"), Just(" | s s n")],
    ) {
        let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        use_line(&format!("{side} | {} | {} | {status}{state}", join(&scores), join(&pits)));
    }
}

#[test]
fn the_valid_inputs_are_valid() {
    for r in valid_rules() {
        parse_rules(&r).unwrap();
    }
    for line in valid_lines() {
        let setup: Setup = line.parse().unwrap();
        assert!(games().iter().any(|g| g.from_setup(&setup).is_ok()), "{line}");
    }
}
