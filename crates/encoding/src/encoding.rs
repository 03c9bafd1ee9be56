//! Input encoding: every position seen from the mover's seat.
//!
//! Layout of version 2 ([`ENCODING_VERSION`], what new networks get), `P` = number of pits,
//! one line a field:
//! - `[0, P)`: seeds in each pit, mover's pits first (pit order rotated by half the board so
//!   the mover's first pit comes first), each count times `P / total_seeds` (1.0 = average);
//! - `[P, 2P)` (Ba-awa only): 1.0 where the mover controls the pit, same order;
//! - then the globals: the mover's and the opponent's score (captures, stores; Owela: seeds
//!   on each side) divided by the total seeds; then, in this order, one for each piece of
//!   state beyond the board that can change a position's value, present only in the games
//!   where it can vary (a constant input would teach the network nothing):
//!   - *bonus move* (Oware with `grand_slam=extra-turn`, Ouril): 1.0 when the mover makes
//!     the extra move of a grand slam (it must leave the opponent a seed), else 0.0;
//!   - *mover began* (Ba-awa): 1.0 when the mover began the game, so rule 4 gives the mover
//!     the last 8 seeds or fewer, else 0.0;
//!   - *plies left* (games with a ply rule: the Oware family, Ba-awa, Owela):
//!     `min(plies_left, 64) / 64`, the plies before `max_plies` (or Oware's `cycle=plies:N`)
//!     ends the game: 1.0 while the end is more than 64 plies away, `1/64` when the next ply
//!     ends it. Kalah has no ply rule.
//!
//! Version 3 adds per-pit channels that read the sowing for the network, after the control
//! channel (where there is one) and before the globals, in the same pit order:
//! - *capture*: what sowing the pit now would gain its owner (the mover for the mover's
//!   pits; for the opponent's, as if the mover passed: the opponent's threats), in the same
//!   unit as the seed counts: the owner's score after the sowing minus before (captures,
//!   seeds sown into a store), times `P / total_seeds`; 0.0 where the owner cannot sow it;
//! - *moves again* (Kalah, and Oware with `grand_slam=extra-turn`, where a sowing can leave
//!   the same side to move): 1.0 where sowing the pit would, else 0.0.
//!
//! - *claims* (games with claimed houses, Toguz Kumalak's tuzdyk), right after the control
//!   channel: 1.0 where the mover has claimed the house (seeds sown there are the mover's),
//!   -1.0 where the opponent has, else 0.0. Games without claims have no such channel, so
//!   every earlier model's layout is unchanged.
//!
//! A network reads counts well but sowing arithmetic badly (where the last seed of 17 lands,
//! whether the houses behind it hold two or three): the search sees a capture only once it
//! has expanded the move, so without these a leaf's value misses every threat one ply on.
//!
//! Version 1 is version 2 without the state globals (two globals for every game); models
//! made with versions 1 and 2 are still read and encoded with them ([`layout_for`]).
//!
//! Action `a` is the mover's `a`-th pit in this order for every game, so the policy head and
//! the per-pit inputs line up.

use mancala_rules::{Game, Player};
use thiserror::Error;

/// The version new networks are made with; stored in model files and shards.
pub const ENCODING_VERSION: u32 = 3;

/// The versions this build can encode, oldest first: a model of any of them plays.
pub const ENCODING_VERSIONS: [u32; 3] = [1, 2, 3];

/// Plies to the end of the game at which the *plies left* input starts to fall below 1.0.
pub const PLY_HORIZON: u16 = 64;

/// An encoding version this build cannot encode.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("input encoding version {version} is not one this build reads ({})", versions_read())]
pub struct UnknownEncoding {
    pub version: u32,
}

/// The versions this build reads, in words (`1, 2`), for error messages.
pub fn versions_read() -> String {
    ENCODING_VERSIONS.map(|v| v.to_string()).join(", ")
}

/// Which state globals (version 2) a layout has, in their order after the two scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateInputs {
    /// Ouril's bonus move.
    pub bonus_move: bool,
    /// Ba-awa: whether the mover began the game.
    pub mover_began: bool,
    /// Plies before a ply rule ends the game, clipped at [`PLY_HORIZON`].
    pub plies_left: bool,
}

impl StateInputs {
    fn count(self) -> usize {
        usize::from(self.bonus_move) + usize::from(self.mover_began) + usize::from(self.plies_left)
    }
}

/// Which sowing channels (version 3) a layout has, after the seeds and control channels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SowingInputs {
    /// What sowing each pit would gain its owner now.
    pub capture: bool,
    /// Whether sowing each pit would leave its owner to move again.
    pub moves_again: bool,
}

impl SowingInputs {
    fn count(self) -> usize {
        usize::from(self.capture) + usize::from(self.moves_again)
    }
}

/// How the flat input vector splits into per-pit channels and globals (for the conv tower),
/// for one encoding version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The encoding version this layout writes.
    pub version: u32,
    pub pits: usize,
    /// Seeds, control (Ba-awa) and the sowing channels.
    pub pit_channels: usize,
    /// Whether the pits have a control channel (Ba-awa).
    pub control: bool,
    /// Whether the pits have a claims channel (Toguz Kumalak's tuzdyk; version 3).
    pub claims: bool,
    pub sowing: SowingInputs,
    /// The two scores and the state inputs.
    pub globals: usize,
    pub state: StateInputs,
}

impl Layout {
    pub fn inputs(&self) -> usize {
        self.pits * self.pit_channels + self.globals
    }
}

/// The layout of this build's version, [`ENCODING_VERSION`], for a game: the one a new
/// network gets. A network read from a file is encoded with its own version's layout,
/// [`layout_for`].
pub fn layout<G: Game>(game: &G) -> Layout {
    layout_for(game, ENCODING_VERSION).expect("this build encodes its own version")
}

/// The layout of encoding version `version` for a game.
///
/// # Errors
/// [`UnknownEncoding`] for a version not in [`ENCODING_VERSIONS`].
pub fn layout_for<G: Game>(game: &G, version: u32) -> Result<Layout, UnknownEncoding> {
    let start = game.start();
    let pits = game.pits(&start).len();
    if !ENCODING_VERSIONS.contains(&version) {
        return Err(UnknownEncoding { version });
    }
    // The rules say which state they keep: the answers for the start are `Some` exactly
    // where a game of these rules can have that state.
    let state = if version >= 2 {
        StateInputs {
            bonus_move: game.bonus_move(&start).is_some(),
            mover_began: game.starter(&start).is_some(),
            plies_left: game.plies_left(&start).is_some(),
        }
    } else {
        StateInputs::default()
    };
    let sowing = if version >= 3 {
        SowingInputs { capture: true, moves_again: has_extra_turns(game) }
    } else {
        SowingInputs::default()
    };
    let control = has_control(game);
    let claims = version >= 3 && game.claims_houses();
    let pit_channels = 1 + usize::from(control) + usize::from(claims) + sowing.count();
    Ok(Layout { version, pits, pit_channels, control, claims, sowing, globals: 2 + state.count(), state })
}

/// Whether a sowing can leave the same side to move (Kalah's store, Ouril's grand slam).
fn has_extra_turns<G: Game>(game: &G) -> bool {
    game.moves_twice()
}

/// Whether pits may be controlled by the player who does not own their row (Ba-awa).
fn has_control<G: Game>(game: &G) -> bool {
    game.control_changes()
}

/// Writes the features of `pos` into `out` (length `layout.inputs()`).
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
    if layout.control {
        for k in 0..p {
            out[at + k] = if game.controller(pos, (k + shift) % p) == side { 1.0 } else { 0.0 };
        }
        at += p;
    }
    if layout.claims {
        for k in 0..p {
            out[at + k] = match game.claimed(pos, (k + shift) % p) {
                Some(owner) if owner == side => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
        }
        at += p;
    }
    if layout.sowing.count() > 0 {
        let channels = layout.sowing.count();
        let block = &mut out[at..at + channels * p];
        block.fill(0.0);
        sowing_channels(game, layout, pos, shift, scale, block);
        if let Some(passed) = game.passed(pos) {
            sowing_channels(game, layout, &passed, shift, scale, block);
        }
        at += channels * p;
    }
    let scores = game.scores(pos);
    out[at] = f32::from(scores[side]) / total;
    out[at + 1] = f32::from(scores[side.opponent()]) / total;
    at += 2;
    let flag = |on: bool| if on { 1.0 } else { 0.0 };
    if layout.state.bonus_move {
        out[at] = flag(game.bonus_move(pos) == Some(true));
        at += 1;
    }
    if layout.state.mover_began {
        out[at] = flag(game.starter(pos) == Some(side));
        at += 1;
    }
    if layout.state.plies_left {
        let left = game.plies_left(pos).unwrap_or(PLY_HORIZON).min(PLY_HORIZON);
        out[at] = f32::from(left) / f32::from(PLY_HORIZON);
    }
}

/// Writes the sowing channels of the side to move in `pos` into `block` (the capture channel,
/// then the moves-again channel, each `P` long, in the order of the encoded position's mover,
/// whose rotation is `shift`), leaving the other pits as they are.
fn sowing_channels<G: Game>(game: &G, layout: &Layout, pos: &G::Position, shift: usize, scale: f32, block: &mut [f32]) {
    let p = layout.pits;
    let sower = game.side_to_move(pos);
    let before = game.scores(pos)[sower];
    let again_at = if layout.sowing.capture { p } else { 0 };
    for action in game.legal_moves(pos).iter() {
        let k = (game.action_pit(sower, action) + p - shift) % p;
        let mut next = *pos;
        game.play_unchecked(&mut next, action);
        if layout.sowing.capture {
            let gain = i32::from(game.scores(&next)[sower]) - i32::from(before);
            block[k] = gain as f32 * scale;
        }
        if layout.sowing.moves_again && !game.status(&next).is_over() && game.side_to_move(&next) == sower {
            block[again_at + k] = 1.0;
        }
    }
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
