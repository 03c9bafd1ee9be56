//! Endgame databases: the exact value of every Oware or Kalah position with at most N seeds
//! on the board, built by retrograde analysis, stored one byte a position under a perfect
//! index, and used as a referee ([`PerfectAgent`]), inside search ([`TablebaseEvaluator`])
//! and as a training metric ([`endgame_accuracy`]).
//!
//! ```
//! use mancala_rules::{parse_rules, Game, Setup};
//! use mancala_tablebase::Tablebase;
//!
//! let game = parse_rules("kalah").unwrap();
//! let (tb, _stats) = Tablebase::build(&game, 4, &|_| {}).unwrap();
//! // South sows B: its last seed lands in the empty house C and captures the seed opposite.
//! let setup: Setup = "south | 23 23 | 0 1 0 0 0 0 0 0 0 1 0 0 | ongoing".parse().unwrap();
//! let pos = game.from_setup(&setup).unwrap();
//! let probe = tb.probe(&game, &pos).unwrap();
//! assert_eq!(probe.value, 2);
//! assert_eq!(game.move_label(game.side_to_move(&pos), probe.best.iter().next().unwrap()), "B");
//! ```
//!
//! # What a value is
//!
//! As Romein and Bal define it for Awari: the value of (board, side to move) is, with perfect
//! play by both sides, the seeds the mover will still get minus the seeds the opponent will
//! still get, counting only the seeds now on the board. Captures already made are not part of
//! the key and do not change the value. A position's final margin in a real game is its
//! score difference plus this value.
//!
//! The rules are never rewritten here: every position is made with [`Game::from_setup`] and
//! every move played with [`Game::play_unchecked`]; what a move or the end of the game gives
//! each player is read off the scores and the outcome. The positions are made with the
//! captured seeds split evenly ([`build::endgame_scores`]), so no one holds a majority.
//!
//! **The majority rule.** Oware ends as soon as a player holds more than half the seeds. The
//! database ignores that stop and plays to the end (as Romein and Bal's databases do): after
//! a capture the value is looked up by the new board alone, whatever the scores. This never
//! changes who wins (a majority cannot be overturned), only the final margin, and it keeps
//! the value a function of (board, side) alone. Where the margin changes, so can the best
//! move: [`ScoredTablebase`] keeps the stop, with the scores in the key, to judge moves by the
//! game's own end.
//!
//! **Cycles.** In Oware, moves that capture nothing can lead back to a position. For each
//! position the build finds `lo`, what the mover can force in a finite number of moves, and
//! `hi`, the most the opponent must concede, by iterating both to their fixed point. Where
//! they meet, that is the value. Where they do not, both sides can keep the game in a cycle
//! rather than accept worse; the game would end by the cycle rule, each player taking the
//! seeds of their own row ([`Game::settle_cycle`]). That rule is applied to the position
//! itself and clamped to `[lo, hi]`. (In the real game the rule is applied to whichever
//! position repeats, which depends on the history; a value that depends only on the board
//! must pick one, and the position itself is the natural choice.) Kalah cannot cycle: there
//! `lo = hi` everywhere and every value is exact.
//!
//! **Variants.** Oware presets `oware` (= `abapa`), `awale` and `oware-capture-all` are
//! supported; `ouril` (the extra-turn grand slam) and `cycle=plies:N` are refused, because
//! their positions carry state the board does not show. Under `grand_slam=forbidden`
//! (`awale`) a forced grand slam forfeits the game; the database counts the seeds the
//! forfeit hands over, not the forfeit itself, so there a value's sign can differ from the
//! real result when the forfeiting player was far ahead. The `max_plies` guard is ignored.
//!
//! # Index and file
//!
//! See [`index`] (combinatorial ranking, O(pits) a probe) and [`format`] (versioned,
//! checksummed).

pub mod agent;
pub mod build;
pub mod error;
pub mod evaluator;
pub mod format;
pub mod index;
pub mod metric;
pub mod scored;

use std::path::Path;

use mancala_rules::{Action, AnyGame, Game, MAX_ACTIONS, MoveMask, Player};

pub use agent::PerfectAgent;
pub use build::{BuildStats, DEFAULT_MEMORY_LIMIT, Progress};
pub use error::TablebaseError;
pub use evaluator::{Exact, TablebaseEvaluator};
pub use index::Indexer;
pub use metric::{
    EndgameAccuracy, EndgameJudgement, RealEndJudgement, SeedDraw, endgame_accuracy, endgame_judgements,
    real_end_judgements, result_only_best_move, sample_positions, sample_positions_drawn,
};
pub use scored::ScoredTablebase;

/// An endgame database: one value a (board, side to move) with at most `max_seeds` seeds on
/// the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tablebase {
    rules: String,
    indexer: Indexer,
    values: Vec<i8>,
}

/// What the database says about a real position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The value (remaining seeds, mover minus opponent) of the position.
    pub value: i8,
    /// The value of each legal move for the mover (seeds it gains plus the value after it);
    /// meaningless on actions outside `legal`.
    pub move_values: [i8; MAX_ACTIONS],
    pub legal: MoveMask,
    /// The moves of the highest value.
    pub best: MoveMask,
    /// The mover's final margin in the whole game: score difference plus `value`.
    pub final_margin: i32,
}

impl Probe {
    /// +1, 0 or -1: the result of the whole game for the mover with perfect play.
    pub fn result(&self) -> f32 {
        self.final_margin.signum() as f32
    }

    /// The mover's final margin in the whole game after `action` (one of `legal`) and perfect
    /// play from there: the score difference now plus the move's value.
    pub fn move_margin(&self, action: Action) -> i32 {
        self.final_margin - i32::from(self.value) + i32::from(self.move_values[usize::from(action)])
    }

    /// Writes a policy uniform over the best moves into `out` (one entry an action, zero
    /// elsewhere): what the database answers a search and teaches the network.
    pub fn best_policy(&self, out: &mut [f32]) {
        out.fill(0.0);
        let share = 1.0 / self.best.len().max(1) as f32;
        for action in self.best {
            out[usize::from(action)] = share;
        }
    }
}

impl Tablebase {
    /// Builds the database of `game` up to `max_seeds` seeds on the board; `progress` is
    /// called from worker threads as layers advance.
    ///
    /// # Errors
    /// [`TablebaseError::Unsupported`] for a game other than Oware or Kalah (or an Oware
    /// variant whose positions carry more than board, scores and side),
    /// [`TablebaseError::TooLarge`] for a database that needs more than
    /// [`build::DEFAULT_MEMORY_LIMIT`] to build, and as [`build::build`].
    pub fn build(
        game: &AnyGame,
        max_seeds: usize,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<(Tablebase, BuildStats), TablebaseError> {
        Tablebase::build_within(game, max_seeds, build::DEFAULT_MEMORY_LIMIT, progress)
    }

    /// As [`Tablebase::build`], refusing a database whose build needs more than
    /// `memory_limit` bytes ([`build::memory_needed`]) instead of the default 16 GiB.
    ///
    /// # Errors
    /// As [`Tablebase::build`].
    pub fn build_within(
        game: &AnyGame,
        max_seeds: usize,
        memory_limit: u64,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<(Tablebase, BuildStats), TablebaseError> {
        check_supported(game)?;
        match game {
            // The concrete games skip AnyGame's dispatch in the inner loop.
            AnyGame::Oware(g) => build::build_within(g, max_seeds, memory_limit, progress),
            AnyGame::Kalah(g) => build::build_within(g, max_seeds, memory_limit, progress),
            AnyGame::Described(g) => build::build_within(g, max_seeds, memory_limit, progress),
            // Ba-awa and Owela are refused by check_supported; were that to change, the
            // generic path is still right.
            other => build::build_within(other, max_seeds, memory_limit, progress),
        }
    }

    pub(crate) fn from_parts(rules: String, indexer: Indexer, values: Vec<i8>) -> Self {
        debug_assert_eq!(values.len() as u64, indexer.slots());
        Tablebase { rules, indexer, values }
    }

    /// Reads a database file.
    ///
    /// # Errors
    /// [`TablebaseError`] naming the file and why it is refused (I/O, not a tablebase,
    /// version, old format, truncation, checksum, header).
    pub fn read(path: &Path) -> Result<Tablebase, TablebaseError> {
        format::read(path)
    }

    /// Writes the database to `path` (atomically: a temporary file renamed into place).
    ///
    /// # Errors
    /// [`TablebaseError::File`] naming the path.
    pub fn write(&self, path: &Path) -> Result<(), TablebaseError> {
        format::write(self, path)
    }

    /// The canonical rules string of the game the database is for.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    pub fn pits(&self) -> usize {
        self.indexer.pits()
    }

    pub fn max_seeds(&self) -> usize {
        self.indexer.max_seeds()
    }

    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// Every value, in slot order.
    pub fn values(&self) -> &[i8] {
        &self.values
    }

    /// Refuses a game the database was not built for.
    ///
    /// # Errors
    /// [`TablebaseError::WrongGame`] naming both rules.
    pub fn check_game<G: Game>(&self, game: &G) -> Result<(), TablebaseError> {
        let rules = game.rules_string();
        if rules != self.rules {
            return Err(TablebaseError::WrongGame { database: self.rules.clone(), game: rules });
        }
        Ok(())
    }

    /// The value of `board` with `side` to move, or `None` when it holds more seeds than the
    /// database (or has another pit count). O(pits), no allocation.
    #[inline]
    pub fn value(&self, board: &[u8], side: Player) -> Option<i8> {
        self.indexer.slot(board, side).map(|s| self.values[s as usize])
    }

    /// Whether `pos` is inside the database.
    pub fn contains<G: Game>(&self, game: &G, pos: &G::Position) -> bool {
        self.indexer.slot(game.pits(pos), game.side_to_move(pos)).is_some()
    }

    /// The value of `pos`, the value of each legal move and the best moves, or `None` when
    /// `pos` is outside the database. A finished game has no moves and the value its end
    /// gave. `game` must be the database's game (see [`Tablebase::check_game`]).
    pub fn probe<G: Game>(&self, game: &G, pos: &G::Position) -> Option<Probe> {
        // Played out: a position's value is its board's, whether or not the game stopped there.
        probe_by(game, pos, |p| self.value(game.pits(p), game.side_to_move(p)).map(i32::from))
    }
}

/// The probe of `pos` given `value_beyond`, the value of an unfinished position for its mover
/// beyond its scores (`None` outside the database): a finished game has no moves and the
/// value its end gave; otherwise each legal move is worth what it gains plus the value after
/// it, and the best moves are those worth most. Shared by the database and the scored one.
pub(crate) fn probe_by<G: Game>(
    game: &G,
    pos: &G::Position,
    value_beyond: impl Fn(&G::Position) -> Option<i32>,
) -> Option<Probe> {
    let me = game.side_to_move(pos);
    let scores = game.scores(pos);
    let already = i32::from(scores[me]) - i32::from(scores[!me]);
    let mut probe = Probe {
        value: 0,
        move_values: [0; MAX_ACTIONS],
        legal: MoveMask::EMPTY,
        best: MoveMask::EMPTY,
        final_margin: 0,
    };
    if let Some(outcome) = game.status(pos).outcome() {
        let margin = outcome.margin_for(me);
        probe.value = (margin - already) as i8;
        probe.final_margin = margin;
        return Some(probe);
    }
    let value = value_beyond(pos)?;
    probe.value = value as i8;
    probe.final_margin = already + value;
    probe.legal = game.legal_moves(pos);
    let mut best = i32::MIN;
    for action in probe.legal {
        let mut next = *pos;
        game.play_unchecked(&mut next, action);
        let after = game.scores(&next);
        let gained = (i32::from(after[me]) - i32::from(scores[me])) - (i32::from(after[!me]) - i32::from(scores[!me]));
        let v = value_beyond(&next).expect("sowing never adds seeds to the board");
        let value = gained + if game.side_to_move(&next) == me { v } else { -v };
        probe.move_values[usize::from(action)] = value as i8;
        if value > best {
            best = value;
            probe.best = MoveMask::EMPTY;
        }
        if value == best {
            probe.best.insert(action);
        }
    }
    Some(probe)
}

/// Refuses games the database cannot describe.
///
/// # Errors
/// [`TablebaseError::Unsupported`] naming the rules and why.
pub fn check_supported(game: &AnyGame) -> Result<(), TablebaseError> {
    game.endgame_database().map_err(|reason| TablebaseError::Unsupported { rules: game.rules_string(), reason })
}
