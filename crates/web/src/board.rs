//! Where every pit sits on the drawn board, worked out from the game's description (ranks,
//! houses a rank, stores, direction) so that the page only draws a grid of cells and never
//! knows a game. Any described game gets a board this way, presets included: nothing here
//! names a game.
//!
//! Rows count from the top of the picture, which is North's side; South sits at the bottom.

use mancala_rules::sowing::{Direction, Score};
use mancala_rules::{AnyGame, Game, Player};
use serde::Serialize;

/// One pit: its index (as in the protocol's position line), its label and its cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    pub pit: usize,
    /// The house's name (`A`, `a`, `A2`); a move's label may add a direction (`A+`).
    pub label: String,
    /// The labels of the moves that sow this house, either side's (one, or two where the
    /// mover chooses the direction).
    pub moves: Vec<String>,
    /// `south` or `north`: the rank's owner (Ba-awa: the controller can differ, see the
    /// game view).
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
    /// `store` (seeds in each player's store), `captured` (seeds captured) or `on_side`
    /// (seeds on each player's side, which is the score: Owela).
    pub scores: &'static str,
    /// The end of the board where South's count is drawn, `right` or `left`: where South's
    /// store is, after South's last house in its sowing direction (North's is opposite).
    pub south_end: &'static str,
}

/// The layout of `game`'s board, from its description.
pub fn layout(game: &AnyGame) -> Layout {
    let description = game.description();
    let board = &description.board;
    let pits = game.pits(&game.start()).len();
    let moves = pit_moves(game, pits);
    let four_ranks = board.ranks == 4;
    // A rank's houses: what the description says, checked against the position itself.
    let cols = pits / usize::from(board.ranks.max(2));
    let territory = pits / 2;
    let places = (0..pits)
        .map(|pit| {
            let (row, col) = if four_ranks { four_rank_cell(cols, pit) } else { two_rank_cell(cols, pit) };
            let owner = if pit < territory { Player::South } else { Player::North };
            let label = moves[pit].first().map(|m| house_of(m).to_string()).unwrap_or_default();
            Place { pit, label, moves: moves[pit].clone(), owner: owner.name(), row, col }
        })
        .collect();
    let scores = if description.end.score == Score::Board {
        "on_side"
    } else if board.stores {
        "store"
    } else {
        "captured"
    };
    // Clockwise, South's store follows South's first house, at the left end.
    let south_end = if board.stores && description.sowing.direction == Direction::Clockwise { "left" } else { "right" };
    Layout { rows: if four_ranks { 4 } else { 2 }, cols, places, scores, south_end }
}

/// Two ranks: South's houses run left to right along the bottom, North's continue right to
/// left along the top (counter-clockwise seen from above).
fn two_rank_cell(cols: usize, pit: usize) -> (usize, usize) {
    if pit < cols { (1, pit) } else { (0, 2 * cols - 1 - pit) }
}

/// Four ranks: each player's territory runs along their outer rank from their left, then
/// back along their inner rank; North's left is the picture's right.
fn four_rank_cell(cols: usize, pit: usize) -> (usize, usize) {
    let territory = 2 * cols;
    let (local, north) = if pit < territory { (pit, false) } else { (pit - territory, true) };
    let (inner, col) = if local < cols { (false, local) } else { (true, territory - 1 - local) };
    match (north, inner) {
        (false, false) => (3, col),
        (false, true) => (2, col),
        (true, false) => (0, cols - 1 - col),
        (true, true) => (1, cols - 1 - col),
    }
}

/// A move label without its direction (`A+` sows house `A`).
fn house_of(label: &str) -> &str {
    label.trim_end_matches(['+', '-'])
}

/// The labels of the moves sowing every pit, read from the rules crate: each side's actions
/// name the pits it may sow.
fn pit_moves(game: &AnyGame, pits: usize) -> Vec<Vec<String>> {
    let mut moves = vec![Vec::<String>::new(); pits];
    for side in Player::BOTH {
        for a in 0..game.action_space() {
            let action = u8::try_from(a).expect("action spaces fit in u8");
            let pit = game.action_pit(side, action);
            let Some(named) = moves.get_mut(pit) else { continue };
            let label = game.move_label(side, action);
            // The first side to name a pit names it (match play: both sides may sow it).
            let same_house = named.first().is_none_or(|m| house_of(m) == house_of(&label));
            if same_house && !named.contains(&label) {
                named.push(label);
            }
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::parse_rules;

    fn cells(rules: &str) -> Vec<(String, usize, usize)> {
        layout(&parse_rules(rules).unwrap()).places.into_iter().map(|p| (p.label, p.row, p.col)).collect()
    }

    /// Every cell of the grid holds exactly one pit.
    fn one_pit_a_cell(layout: &Layout) {
        let mut seen: Vec<(usize, usize)> = layout.places.iter().map(|p| (p.row, p.col)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), layout.rows * layout.cols);
        assert_eq!(layout.places.len(), layout.rows * layout.cols);
        assert!(layout.places.iter().all(|p| p.row < layout.rows && p.col < layout.cols));
    }

    fn described(json: &str) -> AnyGame {
        parse_rules(&format!("sowing {json}")).unwrap()
    }

    #[test]
    fn two_rank_games_put_south_at_the_bottom_left_to_right() {
        let c = cells("oware");
        assert_eq!(c[0], ("A".into(), 1, 0));
        assert_eq!(c[5], ("F".into(), 1, 5));
        // North's first house is opposite South's last.
        assert_eq!(c[6], ("a".into(), 0, 5));
        assert_eq!(c[11], ("f".into(), 0, 0));
        assert_eq!(cells("ba-awa")[7], ("b".into(), 0, 4));
        let oware = layout(&parse_rules("oware").unwrap());
        assert_eq!((oware.rows, oware.cols, oware.scores), (2, 6, "captured"));
        one_pit_a_cell(&oware);
    }

    #[test]
    fn two_rank_boards_with_stores() {
        let kalah = layout(&parse_rules("kalah:4,3").unwrap());
        assert_eq!((kalah.rows, kalah.cols, kalah.scores, kalah.south_end), (2, 4, "store", "right"));
        one_pit_a_cell(&kalah);
        // Sown clockwise, South's store follows South's first house: the left end.
        let game = described(
            r#"{"format":1,"name":"cw","board":{"houses":5,"seeds":3,"stores":true},"sowing":{"direction":"clockwise"},"end":{"max_plies":200}}"#,
        );
        let cw = layout(&game);
        assert_eq!((cw.rows, cw.cols, cw.scores, cw.south_end), (2, 5, "store", "left"));
        one_pit_a_cell(&cw);
        assert_eq!((cw.places[0].label.as_str(), cw.places[0].row, cw.places[0].col), ("A", 1, 0));
        assert_eq!((cw.places[5].label.as_str(), cw.places[5].row, cw.places[5].col), ("a", 0, 4));
    }

    #[test]
    fn either_direction_houses_carry_both_moves() {
        let game = described(
            r#"{"format":1,"name":"both-ways","board":{"houses":7,"seeds":2},"sowing":{"direction":"either"},"end":{"max_plies":100}}"#,
        );
        let lay = layout(&game);
        assert_eq!((lay.rows, lay.cols, lay.scores), (2, 7, "captured"));
        assert_eq!(lay.places[0].label, "A");
        assert_eq!(lay.places[0].moves, ["A+", "A-"]);
        assert_eq!(lay.places[13].moves, ["g+", "g-"]);
        one_pit_a_cell(&lay);
    }

    #[test]
    fn four_rank_boards_run_each_territory_as_a_loop() {
        let c = cells("owela");
        assert_eq!(c.len(), 32);
        assert_eq!(c[0], ("A".into(), 3, 0));
        assert_eq!(c[7], ("H".into(), 3, 7));
        assert_eq!(c[8], ("I".into(), 2, 7));
        assert_eq!(c[15], ("P".into(), 2, 0));
        assert_eq!(c[16], ("a".into(), 0, 7));
        assert_eq!(c[24], ("i".into(), 1, 0));
        assert_eq!(c[31], ("p".into(), 1, 7));
        let owela = layout(&parse_rules("owela").unwrap());
        assert_eq!(owela.scores, "on_side");
        one_pit_a_cell(&owela);
        // A four-rank game no preset covers: five houses a rank.
        let game = described(
            r#"{"format":1,"name":"small-four","board":{"ranks":4,"houses":5,"seeds":2},"move":{"min_seeds":2},"sowing":{"relay":true},"end":{"max_plies":300}}"#,
        );
        let lay = layout(&game);
        assert_eq!((lay.rows, lay.cols), (4, 5));
        one_pit_a_cell(&lay);
        let at = |pit: usize| (lay.places[pit].row, lay.places[pit].col);
        assert_eq!([at(0), at(4), at(5), at(9)], [(3, 0), (3, 4), (2, 4), (2, 0)]);
        assert_eq!([at(10), at(14), at(15), at(19)], [(0, 4), (0, 0), (1, 0), (1, 4)]);
        assert_eq!(lay.places[10].owner, "north");
    }
}
