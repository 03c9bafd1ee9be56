//! The human-readable board: North's row on top, read from North's last house so that
//! houses facing each other line up; North's store on the left, South's on the right.

use std::fmt::Write;

use super::{Kalah, KalahPosition};
use crate::game::Game;
use crate::outcome::Status;
use crate::player::Player;

/// Width of one house column.
const CELL: usize = 4;

pub(super) fn board(game: &Kalah, pos: &KalahPosition) -> String {
    let h = usize::from(game.options().houses);
    let pits = game.pits(pos);
    let scores = game.scores(pos);
    let row = |cells: &mut dyn Iterator<Item = String>| cells.map(|c| format!("{c:>CELL$}")).collect::<String>();
    let north: Vec<usize> = (0..h).rev().collect();
    let south: Vec<usize> = (0..h).collect();
    let margin = " ".repeat(CELL + 1);
    let mut out = String::new();
    let _ = writeln!(out, "{margin}{}", row(&mut north.iter().map(|&a| game.move_label(Player::North, a as u8))));
    let _ = writeln!(out, "{margin}{}", row(&mut north.iter().map(|&a| pits[h + a].to_string())));
    let _ = writeln!(out, "{:>CELL$}{}{:>CELL$}", scores.north, " ".repeat(CELL * h + 2), scores.south);
    let _ = writeln!(out, "{margin}{}", row(&mut south.iter().map(|&a| pits[a].to_string())));
    let _ = writeln!(out, "{margin}{}", row(&mut south.iter().map(|&a| game.move_label(Player::South, a as u8))));
    match game.status(pos) {
        Status::Ongoing => {
            let _ = write!(out, "{} to move", game.side_to_move(pos));
        }
        over => {
            let _ = write!(out, "game over: {over}");
        }
    }
    out
}
