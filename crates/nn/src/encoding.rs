//! Input encoding: every position seen from the mover's seat.
//!
//! Layout (version [`ENCODING_VERSION`]), `P` = number of pits, one line a field:
//! - `[0, P)`: seeds in each pit, mover's pits first (pit order rotated by half the board so
//!   the mover's first pit comes first), each count times `P / total_seeds` (1.0 = average);
//! - `[P, 2P)` (Ba-awa only): 1.0 where the mover controls the pit, same order;
//! - then 2 globals: the mover's and the opponent's score (captures, stores; Owela: seeds on
//!   each side) divided by the total seeds.
//!
//! Action `a` is the mover's `a`-th pit in this order for every game, so the policy head and
//! the per-pit inputs line up.

use mancala_rules::{AnyGame, Game, Player};

/// Bumped whenever the layout above changes; stored in model files and shards.
pub const ENCODING_VERSION: u32 = 1;

/// How the flat input vector splits into per-pit channels and globals (for the conv tower).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub pits: usize,
    pub pit_channels: usize,
    pub globals: usize,
}

impl Layout {
    pub fn inputs(&self) -> usize {
        self.pits * self.pit_channels + self.globals
    }
}

/// The layout for a game.
pub fn layout<G: Game>(game: &G) -> Layout {
    let start = game.start();
    let pits = game.pits(&start).len();
    Layout { pits, pit_channels: if has_control(game) { 2 } else { 1 }, globals: 2 }
}

/// Whether pits may be controlled by the player who does not own their row (Ba-awa).
fn has_control<G: Game>(game: &G) -> bool {
    game.rules_string().starts_with("ba-awa")
}

/// Writes the features of `pos` into `out` (length `layout(game).inputs()`).
pub fn encode<G: Game>(game: &G, layout: &Layout, pos: &G::Position, out: &mut [f32]) {
    let side = game.side_to_move(pos);
    let pits = game.pits(pos);
    let p = layout.pits;
    let half = p / 2;
    let shift = if side == Player::South { 0 } else { half };
    let total = f32::from(game.total_seeds().max(1));
    let scale = p as f32 / total;
    for k in 0..p {
        out[k] = f32::from(pits[(k + shift) % p]) * scale;
    }
    let mut at = p;
    if layout.pit_channels == 2 {
        for k in 0..p {
            out[p + k] = if game.controller(pos, (k + shift) % p) == side { 1.0 } else { 0.0 };
        }
        at = 2 * p;
    }
    let scores = game.scores(pos);
    out[at] = f32::from(scores[side]) / total;
    out[at + 1] = f32::from(scores[side.opponent()]) / total;
}

/// Encodes a batch into a flat buffer (cleared first).
pub fn encode_batch<G: Game>(game: &G, layout: &Layout, positions: &[G::Position], out: &mut Vec<f32>) {
    let n = layout.inputs();
    out.clear();
    out.resize(positions.len() * n, 0.0);
    for (i, pos) in positions.iter().enumerate() {
        encode(game, layout, pos, &mut out[i * n..(i + 1) * n]);
    }
}

/// A short name of the game family for model metadata (`oware`, `kalah`, ...).
pub fn family(game: &AnyGame) -> &'static str {
    game.family()
}
