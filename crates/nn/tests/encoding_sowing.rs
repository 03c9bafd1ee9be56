//! Input encoding version 3: the per-pit sowing channels (what sowing each pit would gain its
//! owner now, the mover's and the opponent's; whether it would leave the owner to move again).

use mancala_encoding::{Layout, encode, layout, layout_for};
use mancala_rules::{AnyGame, Game, Player, Setup, parse_rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn game(rules: &str) -> AnyGame {
    parse_rules(rules).unwrap()
}

fn encoded(game: &AnyGame, lay: &Layout, line: &str) -> Vec<f32> {
    let pos = game.from_setup(&line.parse::<Setup>().unwrap()).unwrap();
    let mut out = vec![-1.0; lay.inputs()];
    encode(game, lay, &pos, &mut out);
    out
}

/// Channel `c` (0 = seeds) of every pit, in the mover's order.
fn channel(out: &[f32], lay: &Layout, c: usize) -> Vec<f32> {
    out[c * lay.pits..(c + 1) * lay.pits].to_vec()
}

#[test]
fn version_3_adds_the_sowing_channels_per_game() {
    // (rules, pit channels): seeds, control (Ba-awa), capture, moves again (Kalah, Ouril).
    for (rules, channels) in [
        ("oware", 2),
        ("awale", 2),
        ("ouril", 3),
        ("oware grand_slam=extra-turn", 3),
        ("kalah", 3),
        ("kalah:6,6", 3),
        ("ba-awa", 3),
        ("owela", 2),
    ] {
        let g = game(rules);
        let v3 = layout(&g);
        let v2 = layout_for(&g, 2).unwrap();
        assert_eq!((v3.version, v3.pit_channels), (3, channels), "{rules}");
        assert_eq!((v3.pits, v3.globals, v3.state), (v2.pits, v2.globals, v2.state), "{rules}");
        assert!(v3.sowing.capture, "{rules}");
        assert_eq!(v3.inputs(), v2.inputs() + (channels - v2.pit_channels) * v3.pits, "{rules}");
    }
}

#[test]
fn oware_capture_channel_reads_the_movers_captures_and_the_opponents_threats() {
    // South's F (1 seed) makes a two in North's a; North's f would make a two in South's A.
    let g = game("oware");
    let lay = layout(&g);
    let board = "| 22 22 | 1 0 0 0 0 1 1 0 0 0 0 1 | ongoing";
    let south = encoded(&g, &lay, &format!("south {board}"));
    let quarter = 12.0 / 48.0;
    assert_eq!(
        channel(&south, &lay, 0),
        [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0].map(|s| s * quarter)
    );
    assert_eq!(channel(&south, &lay, 1), [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]);
    // The same board with North to move is the mirror image: North's pits come first.
    let north = encoded(&g, &lay, &format!("north {board}"));
    assert_eq!(channel(&north, &lay, 1), channel(&south, &lay, 1));
    // A pit its owner may not sow reads 0: North has no seed, so South must feed it, and
    // only E (2 seeds) reaches North's row; sowing F's lone seed would capture nothing anyway.
    let feed = encoded(&g, &lay, "south | 22 22 | 1 1 0 0 2 0 0 0 0 0 0 0 | ongoing");
    assert_eq!(channel(&feed, &lay, 1), [0.0; 12]);
}

#[test]
fn kalah_channels_read_the_store_the_capture_and_the_extra_turn() {
    // South: A (5) ends in F, E (3) passes the store, F (1) ends in it; North's e (1) ends in
    // its empty f and would capture the 5 in South's A with it.
    let g = game("kalah");
    let lay = layout(&g);
    let out = encoded(&g, &lay, "south | 18 20 | 5 0 0 0 3 1 0 0 0 0 1 0 | ongoing");
    let quarter = 12.0 / 48.0;
    let capture = channel(&out, &lay, 1);
    assert_eq!(capture, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 6.0, 0.0].map(|s| s * quarter));
    let again = channel(&out, &lay, 2);
    assert_eq!(again, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn ouril_grand_slam_moves_again() {
    // South's E makes a grand slam (North's last two houses, two seeds each): in Ouril South
    // captures them and moves again.
    let g = game("ouril");
    let lay = layout(&g);
    let out = encoded(&g, &lay, "south | 19 23 | 0 0 2 0 2 0 2 0 0 0 0 0 | ongoing");
    let again = channel(&out, &lay, 2);
    assert_eq!(again[4], 1.0, "{again:?}");
    assert!(channel(&out, &lay, 1)[4] > 0.0);
}

/// Along random games of every preset, the mover's capture channel is the score its sowing
/// gains, and each channel is 0 at pits that cannot be sown.
#[test]
fn random_games_of_every_preset_encode_their_sowings() {
    let mut rng = SmallRng::seed_from_u64(7);
    for rules in ["oware", "ouril", "awale", "oware-capture-all", "kalah", "ba-awa", "owela"] {
        let g = game(rules);
        let lay = layout(&g);
        let scale = lay.pits as f32 / f32::from(g.total_seeds());
        let mut out = vec![0.0; lay.inputs()];
        let mut captures_seen = 0;
        for _ in 0..20 {
            let mut pos = g.start();
            while !g.status(&pos).is_over() {
                encode(&g, &lay, &pos, &mut out);
                let side = g.side_to_move(&pos);
                let shift = if side == Player::South { 0 } else { lay.pits / 2 };
                let capture_at = (1 + usize::from(lay.control)) * lay.pits;
                let legal = g.legal_moves(&pos);
                for action in 0..g.action_space() as u8 {
                    let k = (g.action_pit(side, action) + lay.pits - shift) % lay.pits;
                    let read = out[capture_at + k];
                    if legal.contains(action) {
                        let (next, _) = g.play(&pos, action).unwrap();
                        let gain = f32::from(g.scores(&next)[side]) - f32::from(g.scores(&pos)[side]);
                        assert_eq!(read, gain * scale, "{rules}: {}", g.display(&pos));
                        captures_seen += usize::from(gain > 0.0);
                    } else if g.action_space() == lay.pits / 2 {
                        assert_eq!(read, 0.0, "{rules}: action {action} is not legal: {}", g.display(&pos));
                    }
                }
                assert!(out.iter().all(|x| x.is_finite()));
                let moves: Vec<u8> = legal.iter().collect();
                g.play_unchecked(&mut pos, moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(captures_seen > 0, "{rules}: no sowing gained a seed in 20 games");
    }
}

#[test]
fn version_2_is_version_3_without_the_sowing_channels() {
    for (rules, line) in [
        ("oware", "south | 22 22 | 1 0 0 0 0 1 1 0 0 0 0 1 | ongoing | plies=990"),
        ("ouril", "south | 19 23 | 0 0 2 0 2 0 2 0 0 0 0 0 | ongoing"),
        ("ba-awa", "north | 0 0 | 2 7 1 6 1 6 6 6 0 1 6 6 | ongoing | s s s s s s n n n n n n | plies=990"),
        ("kalah", "north | 18 20 | 5 0 0 0 3 1 0 0 0 0 1 0 | ongoing"),
    ] {
        let g = game(rules);
        let (v2, v3) = (layout_for(&g, 2).unwrap(), layout(&g));
        let (old, new) = (encoded(&g, &v2, line), encoded(&g, &v3, line));
        // Seeds (and Ba-awa's control), then the sowing channels, then the same globals.
        let board = v2.pits * v2.pit_channels;
        let sowing = (v3.pit_channels - v2.pit_channels) * v3.pits;
        assert_eq!(old[..board], new[..board], "{rules}");
        assert_eq!(old[board..], new[board + sowing..], "{rules}");
    }
}
