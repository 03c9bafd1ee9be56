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

    /// The WDL value target: the outcome's one-hot with a share `search_share` (0 to 1) of
    /// the search's root value mixed in. A game's result also carries the luck of every
    /// exploring move played after this position; the root value is what a search of this
    /// position expected, so mixing it in lowers the target's noise (AlphaZero trains on the
    /// result alone; Lc0's training can mix in the search's Q). The root value is a scalar, so it
    /// enters as the WDL with that expectation and the most draw: `q` of win (or loss) and
    /// `1 - |q|` of draw.
    pub fn value_target(&self, search_share: f32) -> [f32; 3] {
        let z = self.wdl();
        if search_share <= 0.0 {
            return z;
        }
        let q = self.search_value.clamp(-1.0, 1.0);
        let s = [q.max(0.0), 1.0 - q.abs(), (-q).max(0.0)];
        std::array::from_fn(|k| (1.0 - search_share) * z[k] + search_share * s[k])
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
