//! The one trait that search, network and self-play use for every game.

use std::fmt::Debug;

use crate::error::{IllegalMove, MoveParseError, SetupError};
use crate::moves::{Action, MoveMask};
use crate::outcome::Status;
use crate::player::{ByPlayer, Player};
use crate::setup::Setup;

/// What a move did, beyond the new position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sowing {
    /// Seeds the move captured (or put in a store), for the mover or anyone.
    pub captured: u16,
    /// True when no earlier position can occur again after this move (a capture in Oware):
    /// the repetition history is cleared.
    pub irreversible: bool,
}

/// A sowing game with its rules fixed (a preset plus options). The rules value is small and
/// cheap to clone; positions are `Copy` values and playing a move never allocates.
///
/// Actions are indices in `0..action_space()` counted from the mover's side (action 0 is the
/// mover's first pit), so a network sees every position from the mover's seat.
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// A position: board, captures, side to move and whatever state the rules need.
    type Position: Copy + Clone + Debug + PartialEq + Eq + Send + Sync + 'static;

    /// The canonical rules string (preset plus every option), which [`crate::parse_rules`]
    /// reads back to the same game.
    fn rules_string(&self) -> String;

    /// The initial position.
    fn start(&self) -> Self::Position;

    /// How many actions there are (at most [`crate::MAX_ACTIONS`]).
    fn action_space(&self) -> usize;

    /// The total number of seeds in play.
    fn total_seeds(&self) -> u16;

    /// A seed margin as a share of all the game's seeds, in [-1, 1]: the scale of the
    /// network's margin target and head, and of the search's margin utility.
    fn margin_share(&self, margin: i32) -> f32 {
        margin as f32 / f32::from(self.total_seeds().max(1))
    }

    /// The player to move (for a finished game: who would be).
    fn side_to_move(&self, pos: &Self::Position) -> Player;

    /// The legal actions; empty when the game is over.
    fn legal_moves(&self, pos: &Self::Position) -> MoveMask;

    /// Plays a legal action in place.
    ///
    /// # Panics
    /// May panic or leave a meaningless position if `action` is not in `legal_moves(pos)`.
    fn play_unchecked(&self, pos: &mut Self::Position, action: Action) -> Sowing;

    /// Plays `action` if it is legal, returning the new position.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and why; `pos` is not changed.
    fn play(&self, pos: &Self::Position, action: Action) -> Result<(Self::Position, Sowing), IllegalMove> {
        if usize::from(action) >= self.action_space() {
            return Err(IllegalMove::OutOfRange { action: action.into(), space: self.action_space() });
        }
        let side = self.side_to_move(pos);
        if self.status(pos).is_over() {
            return Err(IllegalMove::GameOver { label: self.move_label(side, action) });
        }
        if !self.legal_moves(pos).contains(action) {
            return Err(IllegalMove::NotLegal {
                label: self.move_label(side, action),
                reason: self.why_illegal(pos, action),
            });
        }
        let mut next = *pos;
        let sowing = self.play_unchecked(&mut next, action);
        Ok((next, sowing))
    }

    /// Why a move that is not in `legal_moves` is refused, in words.
    fn why_illegal(&self, pos: &Self::Position, action: Action) -> String;

    /// Ongoing, or the outcome of the finished game.
    fn status(&self, pos: &Self::Position) -> Status;

    /// A 64-bit hash of everything that decides the rest of the game.
    fn hash(&self, pos: &Self::Position) -> u64;

    /// Whether a position occurring again (since the last irreversible move, same player to
    /// move) ends the game; see [`Game::settle_cycle`].
    fn repetition_ends_game(&self) -> bool {
        false
    }

    /// Whether the game ends as soon as a player has captured more than half the seeds (or
    /// each exactly half), leaving the seeds still on the board uncounted (Oware's rule 7).
    /// Where it does, a position's best move can depend on the scores, not only the board.
    fn stops_at_majority(&self) -> bool {
        false
    }

    /// Ends the game as the cycle rule says (Oware: each player captures the seeds of their
    /// own row). Called when a position repeats and [`Game::repetition_ends_game`] holds.
    fn settle_cycle(&self, pos: &mut Self::Position) {
        let _ = pos;
    }

    /// Plies still to be played before a ply rule ends the game (`max_plies`; Oware's
    /// `cycle=plies:N`, counting plies without a capture): the ply that many plies from now
    /// ends it, unless something else ends it first. The smallest over the rules' ply rules;
    /// 0 once a limit is reached. `None` when no ply rule can end a game of these rules
    /// (Kalah): whether it is `Some` depends on the rules only, never on the position.
    fn plies_left(&self, pos: &Self::Position) -> Option<u16> {
        let _ = pos;
        None
    }

    /// Whether the side to move makes the extra move of an Ouril grand slam (which must
    /// leave the opponent a seed). `None` for rules without such a move: whether it is
    /// `Some` depends on the rules only.
    fn bonus_move(&self, pos: &Self::Position) -> Option<bool> {
        let _ = pos;
        None
    }

    /// The player who began the game, for rules that look at it (Ba-awa: rule 4 gives them
    /// the last seeds); `None` for the others, whatever the position.
    fn starter(&self, pos: &Self::Position) -> Option<Player> {
        let _ = pos;
        None
    }

    /// Whether a sowing can leave the same side to move (Kalah's last seed in the store,
    /// Ouril's grand slam): whether a player may move twice in a row. The input encoding
    /// gives such games a moves-again channel.
    fn moves_twice(&self) -> bool {
        false
    }

    /// Whether houses may be controlled by the player who does not own them (Ba-awa), so
    /// that the controllers are part of a position. The input encoding gives such games a
    /// control channel.
    fn control_changes(&self) -> bool {
        false
    }

    /// Whether a player may claim houses for good (Toguz Kumalak's tuzdyk), so that the
    /// claims are part of a position. The input encoding gives such games a claims channel.
    fn claims_houses(&self) -> bool {
        false
    }

    /// The player who has claimed house `pit` (a Toguz Kumalak tuzdyk: every seed sown into
    /// it goes to that player), `None` for a house nobody claimed and in games without claims.
    fn claimed(&self, pos: &Self::Position, pit: usize) -> Option<Player> {
        let _ = (pos, pit);
        None
    }

    /// Whether a retrograde endgame database can hold this game: its positions must be
    /// just the board, the scores and the side to move, and seeds must leave the board for
    /// good. `Err` says why not, in words.
    ///
    /// # Errors
    /// The reason an endgame database cannot describe the game.
    fn endgame_database(&self) -> Result<(), String> {
        Err("this game's positions are not only its board and scores".to_string())
    }

    /// Seeds captured (or in the stores) of each player.
    fn scores(&self, pos: &Self::Position) -> ByPlayer<u16>;

    /// Seeds in every pit, in pit index order (docs/rules.md, "Conventions").
    fn pits<'a>(&self, pos: &'a Self::Position) -> &'a [u8];

    /// The player who may sow pit `pit` (Ba-awa: its controller; elsewhere its row's owner).
    fn controller(&self, pos: &Self::Position, pit: usize) -> Player;

    /// The pit index that `action` sows when `side` moves.
    fn action_pit(&self, side: Player, action: Action) -> usize;

    /// The label of the pit `action` sows when `side` moves (`D`, `c`).
    fn move_label(&self, side: Player, action: Action) -> String;

    /// Reads a pit label as an action of `side`.
    ///
    /// # Errors
    /// [`MoveParseError`] when the label names no pit, or a pit `side` does not sow.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Action, MoveParseError>;

    /// The raw description of a position, as the protocol's `position` line writes it.
    fn to_setup(&self, pos: &Self::Position) -> Setup;

    /// Validates a raw position.
    ///
    /// # Errors
    /// [`SetupError`] naming what is wrong (pit count, seed total, ...).
    // Not a constructor of the game: the game's rules (`self`) are what a setup is checked against.
    #[allow(clippy::wrong_self_convention)]
    fn from_setup(&self, setup: &Setup) -> Result<Self::Position, SetupError>;

    /// A human-readable board over several lines, pit labels included.
    fn display(&self, pos: &Self::Position) -> String;

    /// The position with the other side to move and nothing else changed, as if the side to
    /// move had passed. No sowing game allows a pass; the input encoding reads from it what
    /// the opponent threatens (what each of its sowings would capture now). `None` when the
    /// game is over or the rules refuse the position. An Ouril bonus move belongs to the
    /// side that made the grand slam, so the passed position has none.
    /// Games whose positions settle cheaply override it (the encoder asks at every leaf).
    fn passed(&self, pos: &Self::Position) -> Option<Self::Position> {
        passed_by_setup(self, pos)
    }
}

/// [`Game::passed`] through the position line: the other side to move, settled by the rules'
/// own set-up checks. The default of the trait, and what an override must agree with.
pub fn passed_by_setup<G: Game>(game: &G, pos: &G::Position) -> Option<G::Position> {
    if game.status(pos).is_over() {
        return None;
    }
    let mut setup = game.to_setup(pos);
    setup.side = setup.side.opponent();
    setup.bonus = false;
    game.from_setup(&setup).ok()
}
