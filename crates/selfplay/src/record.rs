//! Training rows: what self-play keeps of each recorded position.

/// One recorded position, seen from the player to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Encoded input (`mancala_encoding::encode`).
    pub inputs: Vec<f32>,
    /// Legal actions as a bit mask.
    pub legal: u64,
    /// The search's policy target over the action space.
    pub policy: Vec<f32>,
    /// The search's root value for the player to move.
    pub search_value: f32,
    /// Final result for the player to move: 1 win, 0 draw, -1 loss.
    pub outcome: f32,
    /// Final seed margin for the player to move, divided by the total seeds.
    pub margin: f32,
}

impl Row {
    /// The WDL one-hot target of the outcome.
    pub fn wdl(&self) -> [f32; 3] {
        if self.outcome > 0.5 {
            [1.0, 0.0, 0.0]
        } else if self.outcome < -0.5 {
            [0.0, 0.0, 1.0]
        } else {
            [0.0, 1.0, 0.0]
        }
    }
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Labels of every move.
    pub moves: Vec<String>,
    /// `south+N`, `north+N` or `draw`.
    pub result: String,
    /// Rows of the moves that got a full search.
    pub rows: Vec<Row>,
}
