//! Where every pit sits on the drawn board, worked out here from the rules crate's pit
//! conventions so that the page only draws a grid of cells and never knows a game's layout.
//!
//! Rows count from the top of the picture, which is North's side; South sits at the bottom.

use mancala_rules::{AnyGame, Game, Player};
use serde::Serialize;

/// One pit: its index (as in the protocol's position line), its label and its cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    pub pit: usize,
    pub label: String,
    /// `south` or `north`: the row's owner (Ba-awa: the controller can differ, see the game
    /// view).
    pub owner: &'static str,
    pub row: usize,
    pub col: usize,
}

/// The board's shape: how many rows and columns of houses, and what the two counts beside
/// them are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub places: Vec<Place>,
    /// `store` (Kalah: seeds in each player's store), `captured` (Oware, Ba-awa: seeds
    /// captured) or `on_side` (Owela: seeds on each player's side, which is its score).
    pub scores: &'static str,
}

/// The layout of `game`'s board.
pub fn layout(game: &AnyGame) -> Layout {
    let start = game.start();
    let pits = game.pits(&start).len();
    let labels = pit_labels(game, pits);
    let owner = |pit: usize| if pit < pits / 2 { Player::South.name() } else { Player::North.name() };
    let owela = matches!(game, AnyGame::Owela(_));
    let (rows, cols) = if owela { (4, pits / 4) } else { (2, pits / 2) };
    let places = (0..pits)
        .map(|pit| {
            let (row, col) = if owela { owela_cell(pits, pit) } else { two_row_cell(pits, pit) };
            Place { pit, label: labels[pit].clone(), owner: owner(pit), row, col }
        })
        .collect();
    let scores = match game {
        AnyGame::Kalah(_) => "store",
        AnyGame::Owela(_) => "on_side",
        _ => "captured",
    };
    Layout { rows, cols, places, scores }
}

/// Sowing runs A..F along the bottom row left to right, then a..f along the top row right to
/// left (counter-clockwise seen from above).
fn two_row_cell(pits: usize, pit: usize) -> (usize, usize) {
    let h = pits / 2;
    if pit < h { (1, pit) } else { (0, 2 * h - 1 - pit) }
}

/// Each Owela player's pits run along their outer row from their left, then back along their
/// inner row; North's left is the picture's right.
fn owela_cell(pits: usize, pit: usize) -> (usize, usize) {
    let c = pits / 4;
    let (local, north) = if pit < 2 * c { (pit, false) } else { (pit - 2 * c, true) };
    let (inner, col) = if local < c { (false, local) } else { (true, 2 * c - 1 - local) };
    match (north, inner) {
        (false, false) => (3, col),
        (false, true) => (2, col),
        (true, false) => (0, c - 1 - col),
        (true, true) => (1, c - 1 - col),
    }
}

/// The label of every pit, read from the rules crate: each side's actions name the pits it
/// may sow.
pub fn pit_labels(game: &AnyGame, pits: usize) -> Vec<String> {
    let mut labels = vec![String::new(); pits];
    for side in Player::BOTH {
        for a in 0..game.action_space() {
            let action = u8::try_from(a).expect("action spaces fit in u8");
            let pit = game.action_pit(side, action);
            if pit < pits && labels[pit].is_empty() {
                labels[pit] = game.move_label(side, action);
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::parse_rules;

    fn cells(rules: &str) -> Vec<(String, usize, usize)> {
        layout(&parse_rules(rules).unwrap()).places.into_iter().map(|p| (p.label, p.row, p.col)).collect()
    }

    #[test]
    fn two_row_games_put_south_at_the_bottom_left_to_right() {
        let c = cells("oware");
        assert_eq!(c[0], ("A".into(), 1, 0));
        assert_eq!(c[5], ("F".into(), 1, 5));
        // North's first house is opposite South's last.
        assert_eq!(c[6], ("a".into(), 0, 5));
        assert_eq!(c[11], ("f".into(), 0, 0));
        assert_eq!(cells("kalah:4,3").len(), 8);
        assert_eq!(cells("ba-awa")[7], ("b".into(), 0, 4));
    }

    #[test]
    fn owela_has_four_ranks_each_a_loop() {
        let c = cells("owela");
        assert_eq!(c.len(), 32);
        assert_eq!(c[0], ("A".into(), 3, 0));
        assert_eq!(c[7], ("H".into(), 3, 7));
        assert_eq!(c[8], ("I".into(), 2, 7));
        assert_eq!(c[15], ("P".into(), 2, 0));
        assert_eq!(c[16], ("a".into(), 0, 7));
        assert_eq!(c[24], ("i".into(), 1, 0));
        assert_eq!(c[31], ("p".into(), 1, 7));
        // Every cell holds one pit.
        let mut seen: Vec<(usize, usize)> = c.iter().map(|(_, r, col)| (*r, *col)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 32);
    }
}
