//! Input encoding version 2: the state globals after the two scores (bonus move, mover
//! began, plies left), present only where the rules let them vary; version 1 without them.
//! Version 3 (the sowing channels) is in `encoding_sowing.rs`; its globals are version 2's.

use mancala_encoding::{ENCODING_VERSION, ENCODING_VERSIONS, Layout, encode, layout, layout_for};
use mancala_rules::{AnyGame, Game, Line, Setup, parse_rules};

fn game(rules: &str) -> AnyGame {
    parse_rules(rules).unwrap()
}

/// The version 2 layout, which these tests are about.
fn v2(game: &AnyGame) -> Layout {
    layout_for(game, 2).unwrap()
}

fn features_with(game: &AnyGame, lay: &Layout, line: &str) -> Vec<f32> {
    let pos = game.from_setup(&line.parse::<Setup>().unwrap()).unwrap();
    let mut out = vec![-1.0; lay.inputs()];
    encode(game, lay, &pos, &mut out);
    out
}

/// The globals after the two scores, version 2.
fn state(rules: &str, line: &str) -> Vec<f32> {
    let g = game(rules);
    let lay = v2(&g);
    let at = lay.pits * lay.pit_channels + 2;
    let state = features_with(&g, &lay, line)[at..].to_vec();
    // Version 3 keeps the same globals after its sowing channels.
    let v3 = layout(&g);
    assert_eq!(v3.globals, lay.globals);
    assert_eq!(features_with(&g, &v3, line)[v3.pits * v3.pit_channels + 2..], state[..], "{rules}: {line}");
    state
}

const OWARE_START: &str = "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing";
const BA_AWA_START: &str = "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s n n n n n n";
const OWELA_START: &str = "south | 24 24 | 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 2 2 2 2 2 2 2 2 2 2 2 2 0 0 0 0 | ongoing";

#[test]
fn version_2_adds_a_global_only_where_it_can_vary() {
    assert_eq!(ENCODING_VERSION, 3);
    assert_eq!(ENCODING_VERSIONS, [1, 2, 3]);
    // (rules, globals in version 2): scores, then bonus, mover began, plies left where kept.
    for (rules, globals) in [
        ("oware", 3),
        ("awale", 3),
        ("oware cycle=plies:40", 3),
        ("ouril", 4),
        ("oware grand_slam=extra-turn", 4),
        ("kalah", 2),
        ("kalah:6,6", 2),
        ("ba-awa", 4),
        ("owela", 3),
    ] {
        let g = game(rules);
        let v2 = v2(&g);
        assert_eq!((v2.version, v2.globals), (2, globals), "{rules}");
        let v1 = layout_for(&g, 1).unwrap();
        assert_eq!((v1.version, v1.globals, v1.pits, v1.pit_channels), (1, 2, v2.pits, v2.pit_channels), "{rules}");
        assert_eq!(v1.inputs() + globals - 2, v2.inputs(), "{rules}");
    }
    let ouril = v2(&game("ouril"));
    assert!(ouril.state.bonus_move && !ouril.state.mover_began && ouril.state.plies_left);
    let ba_awa = v2(&game("ba-awa"));
    assert!(!ba_awa.state.bonus_move && ba_awa.state.mover_began && ba_awa.state.plies_left);
}

#[test]
fn an_unknown_version_is_refused_with_the_versions_read() {
    let e = layout_for(&game("oware"), 4).unwrap_err();
    assert_eq!(e.version, 4);
    assert_eq!(e.to_string(), "input encoding version 4 is not one this build reads (1, 2, 3)");
    assert!(layout_for(&game("kalah"), 0).is_err());
}

#[test]
fn ouril_bonus_move_is_an_input() {
    // South has just made a grand slam and moves again: bonus 1, plies far from the limit.
    let bonus = "south | 21 23 | 0 0 0 2 2 0 0 0 0 0 0 0 | ongoing";
    assert_eq!(state("ouril", &format!("{bonus} | bonus")), [1.0, 1.0]);
    assert_eq!(state("ouril", bonus), [0.0, 1.0]);
    // Reached by play: E makes a grand slam, South moves again, then not after F.
    let g = game("ouril");
    let lay = v2(&g);
    let start = g.from_setup(&"south | 19 23 | 0 0 2 0 2 0 2 0 0 0 0 0 | ongoing".parse().unwrap()).unwrap();
    let mut line = Line::from_position(g.clone(), start);
    let bonus_input = |line: &Line<AnyGame>| {
        let mut out = vec![0.0; lay.inputs()];
        encode(&g, &lay, line.position(), &mut out);
        out[12 + 2]
    };
    assert_eq!(bonus_input(&line), 0.0);
    line.play_label("E").unwrap();
    assert_eq!(bonus_input(&line), 1.0);
    line.play_label("F").unwrap();
    assert_eq!(bonus_input(&line), 0.0);
}

#[test]
fn ba_awa_mover_began_flips_with_the_mover() {
    // [mover began, plies left]
    assert_eq!(state("ba-awa", BA_AWA_START), [1.0, 1.0], "South began and moves");
    let north_to_move = "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | s s s s s s n n n n n n";
    assert_eq!(state("ba-awa", north_to_move), [0.0, 1.0], "South began, North moves");
    assert_eq!(state("ba-awa", &format!("{north_to_move} | starter=north")), [1.0, 1.0]);
    assert_eq!(state("ba-awa", &format!("{BA_AWA_START} | starter=north")), [0.0, 1.0]);
    // Along a game the flag alternates: the starter never changes, the mover does.
    let g = game("ba-awa");
    let lay = v2(&g);
    let mut line = Line::new(g.clone());
    for ply in 0..6 {
        let mut out = vec![0.0; lay.inputs()];
        encode(&g, &lay, line.position(), &mut out);
        let began = out[24 + 2];
        assert_eq!(began, if line.side_to_move() == mancala_rules::Player::South { 1.0 } else { 0.0 }, "ply {ply}");
        let a = line.legal_moves().nth(0).unwrap();
        line.play(a).unwrap();
    }
}

#[test]
fn plies_left_falls_over_the_last_64_plies() {
    // max_plies 1000: far away, then (1000 - plies) / 64 within 64 plies of the end.
    for (plies, want) in [(0, 1.0), (900, 1.0), (936, 1.0), (937, 63.0 / 64.0), (990, 10.0 / 64.0), (999, 1.0 / 64.0)] {
        let line = format!("{OWARE_START} | plies={plies}");
        assert_eq!(state("oware", &line), [want], "oware plies={plies}");
        assert_eq!(state("ouril", &line)[1], want, "ouril plies={plies}");
    }
    // cycle=plies:N: the plies still allowed without a capture, when they are nearer.
    assert_eq!(state("oware cycle=plies:40", &format!("{OWARE_START} | plies=10 since_capture=30")), [10.0 / 64.0]);
    assert_eq!(state("oware cycle=plies:40", &format!("{OWARE_START} | plies=990 since_capture=2")), [10.0 / 64.0]);
    let ba = format!("{BA_AWA_START} | plies=968");
    assert_eq!(state("ba-awa", &ba), [1.0, 32.0 / 64.0]);
    assert_eq!(state("ba-awa max_plies=100", &format!("{BA_AWA_START} | plies=98")), [1.0, 2.0 / 64.0]);
    assert_eq!(state("owela", &format!("{OWELA_START} | plies=999")), [1.0 / 64.0]);
    assert_eq!(state("owela max_plies=20", OWELA_START), [20.0 / 64.0], "a short game starts near its end");
    assert!(state("kalah", OWARE_START).is_empty(), "Kalah has no ply rule");
}

#[test]
fn version_1_is_version_2_without_the_state() {
    for (rules, line) in [
        ("ouril", "south | 21 23 | 0 0 0 2 2 0 0 0 0 0 0 0 | ongoing | plies=990 bonus"),
        ("ba-awa", "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | s s s s s s n n n n n n | plies=990"),
        ("owela", &format!("{OWELA_START} | plies=999")),
        ("kalah", "north | 13 15 | 1 0 2 0 0 4 8 0 0 0 4 1 | ongoing"),
    ] {
        let g = game(rules);
        let v1 = features_with(&g, &layout_for(&g, 1).unwrap(), line);
        let v2 = features_with(&g, &v2(&g), line);
        assert_eq!(v1[..], v2[..v1.len()], "{rules}");
    }
}

/// Toguz Kumalak's claimed houses (the tuzdyk) are a channel of their own, right after the
/// seeds, from the mover's seat: 1.0 for the mover's claim, -1.0 for the opponent's. Games
/// without claims keep their layouts.
#[test]
fn claimed_houses_have_a_channel_from_the_movers_seat() {
    let g = game("toguz-kumalak");
    let lay = layout(&g);
    assert!(lay.claims);
    assert!(!v2(&g).claims, "version 2 has no claims channel");
    assert_eq!(lay.pit_channels, 3, "seeds, claims, capture");
    for rules in ["oware", "kalah", "ba-awa", "owela", "congkak"] {
        assert!(!layout(&game(rules)).claims, "{rules}");
    }
    // South holds North's fourth house (12), North holds South's fifth (4).
    let line = "south | 78 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 0 0 | ongoing | tuzdyk=12,4";
    let south = features_with(&g, &lay, line);
    let claims = &south[18..36];
    let mut want = [0.0f32; 18];
    want[12] = 1.0;
    want[4] = -1.0;
    assert_eq!(claims, want);
    // North to move sees its own row first: its claim (South's fifth house) is 1.0.
    let north = features_with(&g, &lay, &line.replacen("south", "north", 1));
    let mut want = [0.0f32; 18];
    want[4 + 9] = 1.0;
    want[12 - 9] = -1.0;
    assert_eq!(&north[18..36], want);
}
