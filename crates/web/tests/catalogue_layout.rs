//! The browser draws every game of the catalogue: each preset and each described game of
//! `games/` lays out one house a cell, on its ranks, with a move label for every house.

use std::collections::HashSet;

use mancala_rules::catalogue::entries;
use mancala_rules::{Game, parse_rules};
use mancala_web::board::layout;

#[test]
fn every_catalogue_game_lays_out_one_house_a_cell() {
    for entry in entries() {
        let game = parse_rules(&entry.name).unwrap();
        let board = layout(&game);
        let pits = game.pits(&game.start()).len();
        assert_eq!(board.rows, usize::from(entry.ranks), "{}", entry.name);
        assert_eq!(board.cols, usize::from(entry.houses), "{}", entry.name);
        assert_eq!(board.places.len(), pits, "{}", entry.name);
        let cells: HashSet<(usize, usize)> = board.places.iter().map(|p| (p.row, p.col)).collect();
        assert_eq!(cells.len(), pits, "{}: two houses share a cell", entry.name);
        assert!(board.places.iter().all(|p| p.row < board.rows && p.col < board.cols), "{}", entry.name);
        assert!(board.places.iter().all(|p| !p.label.is_empty()), "{}: a house without a label", entry.name);
    }
}
