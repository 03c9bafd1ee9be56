//! A minibatch of training rows in the flat layout the training step reads.

/// A minibatch as flat rows; `n` rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub n: usize,
    /// `[n, inputs]`
    pub inputs: Vec<f32>,
    /// `[n, actions]`: 1 for legal moves, 0 otherwise.
    pub legal: Vec<f32>,
    /// `[n, actions]`: the search's policy target (zero on illegal moves).
    pub policy: Vec<f32>,
    /// `[n, 3]`: win, draw, loss target for the player to move.
    pub wdl: Vec<f32>,
    /// `[n]`: final margin for the player to move / total seeds.
    pub margin: Vec<f32>,
}
