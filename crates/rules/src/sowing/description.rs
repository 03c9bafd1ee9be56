//! The sowing-game description: a TOML document that states a game's rules as data, in the
//! literature's own terms (docs/rules.md, "Describing a game"), and its resolution into the
//! compact [`Rules`] the engine branches on.
//!
//! Every key has a default, so a description names only what its game does differently from
//! a plain two-rank game with one lap of sowing and no capture. A description is validated
//! as a whole by [`Description::resolve`]; the error names the key and the reason.

use serde::{Deserialize, Serialize};

use crate::error::RulesError;

/// The description format this build reads and writes.
pub const FORMAT: u32 = 1;

/// The most houses a board may have (all ranks): a position keeps them in one 64-byte array
/// and a mover's actions fit one 64-bit mask.
pub const MAX_PITS: usize = 64;

/// The most seeds a game may have: every count, store and capture fits the position line's
/// numbers and a house's byte.
pub const MAX_SEEDS: u32 = 255;

/// The most relays one move may make (a guard against sowings that never end).
pub const MAX_RELAY_LIMIT: u32 = 1_000_000;

/// A game's rules as data. `deny_unknown_fields` everywhere: a misspelt key is an error
/// naming it, never a silently different game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// The format version ([`FORMAT`]).
    pub format: u32,
    /// A short name: lower-case letters, digits and `-` (`toguz-kumalak`).
    pub name: String,
    /// The game's full name, for lists and pages (not part of the rules).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Where the game is played (not part of the rules).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin: String,
    /// One line on the game (not part of the rules).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
    /// Books, papers or pages the rules were taken from (not part of the rules).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    pub board: BoardDesc,
    #[serde(default, rename = "move")]
    pub moves: MoveDesc,
    #[serde(default)]
    pub sowing: SowingDesc,
    #[serde(default)]
    pub capture: CaptureDesc,
    #[serde(default)]
    pub end: EndDesc,
    /// Named special rules, for what the keys cannot say (each a small hook in the engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special: Vec<String>,
}

/// `[board]`: ranks, houses, stores and the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardDesc {
    /// 2 (each player one row) or 4 (each player an outer and an inner row, Owela, Bao).
    #[serde(default = "two")]
    pub ranks: u8,
    /// Houses a rank.
    pub houses: u8,
    /// Seeds in every house at the start (or give `start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u8>,
    /// Seeds in each of a player's houses at the start, in the player's sowing order (both
    /// players alike): Owela's `[2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Vec<u8>>,
    /// A store for each player at the end of their row (Kalah): seeds sown into it are theirs.
    #[serde(default)]
    pub stores: bool,
}

fn two() -> u8 {
    2
}

/// `[move]`: which houses a player may sow from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveDesc {
    /// Seeds a house must hold to be sown (Owela: 2).
    #[serde(default = "one")]
    pub min_seeds: u8,
    /// `free`, or `restricted`: a lone seed may not be sown while another house holds more
    /// (Ouril).
    #[serde(default)]
    pub singletons: Singletons,
    /// When the opponent has no seed, only a move that gives them one is legal (Oware).
    #[serde(default)]
    pub must_feed: bool,
    /// `own`: the houses of one's own rows; `controlled`: the houses one controls, on either
    /// side (Ba-awa: control passes with match play).
    #[serde(default)]
    pub from: SowFrom,
}

fn one() -> u8 {
    1
}

impl Default for MoveDesc {
    fn default() -> Self {
        MoveDesc { min_seeds: 1, singletons: Singletons::Free, must_feed: false, from: SowFrom::Own }
    }
}

/// `[sowing]`: direction, laps and relays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SowingDesc {
    /// `counter-clockwise` (houses in index order), `clockwise`, or `either` (the mover
    /// chooses; the actions double).
    #[serde(default)]
    pub direction: Direction,
    /// `sow`: the first seed goes into the next house and a lap passes the origin like any
    /// house (Kalah); `skip`: the origin is skipped on every lap (Oware); `first`: the first
    /// seed goes back into the origin, and a lone seed moves on to the next house (Toguz
    /// Kumalak).
    #[serde(default)]
    pub origin: Origin,
    /// Relay sowing: when the last seed falls into an occupied house, its seeds are lifted
    /// and sown on, until a seed falls into an empty house or a capture ends the move
    /// (Ba-awa, Owela).
    #[serde(default)]
    pub relay: bool,
    /// The most relays one move makes (a guard; the move ends where the next relay would
    /// start).
    #[serde(default = "relay_limit")]
    pub relay_limit: u32,
    /// A last seed in one's own store gives another move (Kalah).
    #[serde(default)]
    pub extra_turn: bool,
}

fn relay_limit() -> u32 {
    1000
}

impl Default for SowingDesc {
    fn default() -> Self {
        SowingDesc {
            direction: Direction::CounterClockwise,
            origin: Origin::Sow,
            relay: false,
            relay_limit: 1000,
            extra_turn: false,
        }
    }
}

/// `[capture]`: on which counts, when, from where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureDesc {
    /// The counts a house must reach to be captured (`[2, 3]` in Oware, `[4]` in Ba-awa);
    /// empty for none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<u8>,
    /// Also every even count (Toguz Kumalak), beside `counts`.
    #[serde(default)]
    pub evens: bool,
    /// `last`: the house of the last seed; `run`: that house and the houses before it while
    /// they hold a capturing count (Oware); `sowing`: any house a seed brings to a capturing
    /// count, during the sowing (Ba-awa's fours; the last seed's ends the move).
    #[serde(default)]
    pub on: CaptureOn,
    /// Whose houses are captured: `opponent`, `own` or `any`.
    #[serde(default)]
    pub from: CaptureFrom,
    /// For `on = "sowing"`: who takes a count made by a seed other than the last,
    /// `controller` (of the house) or `mover`.
    #[serde(default)]
    pub sowing_to: SowingTo,
    /// Cross capture (Kalah): a last seed in one's own empty house takes the opposite house,
    /// `none`, `occupied` (only when it holds seeds) or `always`.
    #[serde(default)]
    pub cross: Cross,
    /// What becomes of the seed that makes a cross capture: `taken` with the opposite house
    /// (Kalah, Congkak) or `left` in its house (J'odu, Foji, Galatjang).
    #[serde(default, skip_serializing_if = "CrossSeed::is_taken")]
    pub cross_seed: CrossSeed,
    /// Where the last seed's empty house may be for a cross capture: `own` row (Kalah) or
    /// `any` row (French Wari, Chonka: ending in the opponent's row takes one's own house).
    #[serde(default, skip_serializing_if = "CrossFrom::is_own")]
    pub cross_from: CrossFrom,
    /// Four-rank capture (Owela): a last seed in one's own inner house that held seeds takes
    /// the opponent's two houses of that column when both hold seeds, and sows them on.
    #[serde(default)]
    pub four_rank: bool,
    /// A capture that would take every seed of the opponent: `capture-all`, `no-capture`
    /// (the move captures nothing, Abapa), `forbidden` (illegal unless every move is one;
    /// then the mover loses) or `extra-turn` (captured, then the mover moves again and must
    /// leave the opponent a seed, Ouril).
    #[serde(default)]
    pub grand_slam: GrandSlam,
}

impl Default for CaptureDesc {
    fn default() -> Self {
        CaptureDesc {
            counts: Vec::new(),
            evens: false,
            on: CaptureOn::Last,
            from: CaptureFrom::Opponent,
            sowing_to: SowingTo::Controller,
            cross: Cross::None,
            cross_seed: CrossSeed::Taken,
            cross_from: CrossFrom::Own,
            four_rank: false,
            grand_slam: GrandSlam::CaptureAll,
        }
    }
}

/// `[end]`: how a game ends and how it is scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndDesc {
    /// A player with more than half the seeds captured wins at once (Oware).
    #[serde(default)]
    pub majority: bool,
    /// The player to move has no legal move: `owners-take` (the seeds left go to the owner
    /// of their row), `not-scored`, `opponent-takes` (Ba-awa) or `mover-loses` (Owela: the
    /// last player able to move wins).
    #[serde(default)]
    pub no_move: NoMove,
    /// After any move, an empty row (or territory) of either player ends the game and the
    /// owners take their seeds (Kalah).
    #[serde(default)]
    pub empty_row: bool,
    /// Who takes the seeds left when `empty_row` ends the game: `owners` (each player the
    /// seeds in their own houses, Kalah) or `emptied` (the player whose row is empty takes
    /// the seeds left in the other, Mangala).
    #[serde(default, skip_serializing_if = "EmptyRowTo::is_owners")]
    pub empty_row_to: EmptyRowTo,
    /// After any move, when every house holds one seed or none the game ends; the seeds left
    /// are nobody's (Awari).
    #[serde(default, skip_serializing_if = "is_false")]
    pub all_singles: bool,
    /// A move that leaves this many seeds or fewer on the board ends the game; the player
    /// who began takes them (Ba-awa: 8). 0: no such end.
    #[serde(default)]
    pub seeds_left: u8,
    /// `none`, `repetition` (a position occurring again ends the game and the owners take
    /// their seeds, Oware) or `plies:N` (N plies without a capture do the same).
    #[serde(default)]
    pub cycle: CycleDesc,
    /// The game ends after this many plies, each player taking the seeds in the houses they
    /// control. 0: no limit.
    #[serde(default)]
    pub max_plies: u16,
    /// What a player's seeds are at the end: `captures` (captured and stored) or `board`
    /// (the seeds on their side, Owela).
    #[serde(default)]
    pub score: Score,
}

impl Default for EndDesc {
    fn default() -> Self {
        EndDesc {
            majority: false,
            no_move: NoMove::OwnersTake,
            empty_row: false,
            empty_row_to: EmptyRowTo::Owners,
            all_singles: false,
            seeds_left: 0,
            cycle: CycleDesc::None,
            max_plies: 0,
            score: Score::Captures,
        }
    }
}

macro_rules! choice {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant,)+
        }
        impl $name {
            /// The word the description uses.
            pub fn word(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
        }
    };
}

choice!(
    /// `[move] singletons`.
    Singletons { #[default] Free = "free", Restricted = "restricted" }
);
choice!(
    /// `[move] from`.
    SowFrom { #[default] Own = "own", Controlled = "controlled" }
);
choice!(
    /// `[sowing] direction`.
    Direction { #[default] CounterClockwise = "counter-clockwise", Clockwise = "clockwise", Either = "either" }
);
choice!(
    /// `[sowing] origin`.
    Origin { #[default] Sow = "sow", Skip = "skip", First = "first" }
);
choice!(
    /// `[capture] on`.
    CaptureOn { #[default] Last = "last", Run = "run", Sowing = "sowing" }
);
choice!(
    /// `[capture] from`.
    CaptureFrom { #[default] Opponent = "opponent", Own = "own", Any = "any" }
);
choice!(
    /// `[capture] sowing_to`.
    SowingTo { #[default] Controller = "controller", Mover = "mover" }
);
choice!(
    /// `[capture] cross`.
    Cross { #[default] None = "none", Occupied = "occupied", Always = "always" }
);
choice!(
    /// `[capture] cross_seed`.
    CrossSeed { #[default] Taken = "taken", Left = "left" }
);

choice!(
    /// `[capture] cross_from`.
    CrossFrom { #[default] Own = "own", Any = "any" }
);

impl CrossFrom {
    /// Whether the key keeps its default (left out of a written description, as `cross_seed`).
    fn is_own(&self) -> bool {
        *self == CrossFrom::Own
    }
}

impl CrossSeed {
    /// Whether the key keeps its default (it is then left out of a written description, so
    /// the canonical rules of every game written before the key stay as they were).
    fn is_taken(&self) -> bool {
        *self == CrossSeed::Taken
    }
}
choice!(
    /// `[capture] grand_slam`.
    GrandSlam { #[default] CaptureAll = "capture-all", NoCapture = "no-capture", Forbidden = "forbidden", ExtraTurn = "extra-turn" }
);
choice!(
    /// `[end] no_move`.
    NoMove { #[default] OwnersTake = "owners-take", NotScored = "not-scored", OpponentTakes = "opponent-takes", MoverLoses = "mover-loses" }
);
choice!(
    /// `[end] empty_row_to`.
    EmptyRowTo { #[default] Owners = "owners", Emptied = "emptied" }
);

impl EmptyRowTo {
    /// Whether the key keeps its default (left out of a written description, so the
    /// canonical rules of every game written before the key stay as they were).
    fn is_owners(&self) -> bool {
        *self == EmptyRowTo::Owners
    }
}

/// Whether a flag keeps its default `false` (left out of a written description, as above).
fn is_false(flag: &bool) -> bool {
    !*flag
}

choice!(
    /// `[end] score`.
    Score { #[default] Captures = "captures", Board = "board" }
);

/// `[end] cycle`: `none`, `repetition` or `plies:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CycleDesc {
    #[default]
    None,
    Repetition,
    Plies(u16),
}

impl Serialize for CycleDesc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CycleDesc::None => s.serialize_str("none"),
            CycleDesc::Repetition => s.serialize_str("repetition"),
            CycleDesc::Plies(n) => s.serialize_str(&format!("plies:{n}")),
        }
    }
}

impl<'de> Deserialize<'de> for CycleDesc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "none" => Ok(CycleDesc::None),
            "repetition" => Ok(CycleDesc::Repetition),
            other => other
                .strip_prefix("plies:")
                .and_then(|n| n.parse::<u16>().ok())
                .filter(|&n| n > 0)
                .map(CycleDesc::Plies)
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "'{text}' is not a cycle rule: expected none, repetition or plies:N (N from 1 to 65535)"
                    ))
                }),
        }
    }
}

/// The special rules this build knows, each a hook in the engine (docs/rules.md, "Special
/// rules"); any other name is refused, so a description that needs one is never played
/// without it.
/// - `tuzdyk` (Toguz Kumalak): a last seed that makes an opponent's house hold exactly 3
///   captures them and claims the house for the mover for the rest of the game, unless the
///   mover already has one, it is the opponent's last house, or it mirrors the opponent's
///   own claim; every seed later sown into a claimed house goes to its owner.
pub const SPECIALS: &[&str] = &["tuzdyk"];

/// A description's rules resolved into plain values the engine branches on: no strings, no
/// maps, the tables worked out once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub ranks: usize,
    /// Houses a player owns (a rank on two-rank boards, two ranks on four-rank boards), in
    /// the player's sowing order from index `territory * side`.
    pub territory: usize,
    /// Houses on the board.
    pub pits: usize,
    /// Seeds in each own house at the start, in sowing order (both players alike).
    pub start: Vec<u8>,
    pub total: u16,
    pub stores: bool,
    pub min_seeds: u8,
    pub singletons: Singletons,
    pub must_feed: bool,
    pub from: SowFrom,
    pub direction: Direction,
    pub origin: Origin,
    pub relay: bool,
    pub relay_limit: u32,
    pub extra_turn: bool,
    /// Bit `n` set when a house reaching `n` seeds is captured (`counts` and `evens`).
    pub capture_counts: u64,
    pub capture_on: CaptureOn,
    pub capture_from: CaptureFrom,
    pub sowing_to: SowingTo,
    pub cross: Cross,
    pub cross_seed: CrossSeed,
    pub cross_from: CrossFrom,
    pub four_rank: bool,
    pub grand_slam: GrandSlam,
    pub majority: bool,
    pub no_move: NoMove,
    pub empty_row: bool,
    pub empty_row_to: EmptyRowTo,
    pub all_singles: bool,
    pub seeds_left: u8,
    pub cycle: CycleDesc,
    pub max_plies: u16,
    pub score: Score,
    /// The `tuzdyk` special rule: a player may claim one opponent's house ([`SPECIALS`]).
    pub tuzdyk: bool,
}

impl Rules {
    /// The actions of one direction: own houses, or every house for `from = "controlled"`.
    #[inline(always)]
    pub fn houses_per_action_set(&self) -> usize {
        match self.from {
            SowFrom::Own => self.territory,
            SowFrom::Controlled => self.pits,
        }
    }

    /// The size of the action space (twice the houses when the mover picks the direction).
    pub fn action_space(&self) -> usize {
        let n = self.houses_per_action_set();
        if self.direction == Direction::Either { 2 * n } else { n }
    }

    /// Whether a house holding `count` seeds is captured.
    #[inline(always)]
    pub fn captures_count(&self, count: u8) -> bool {
        count < 64 && self.capture_counts >> count & 1 == 1
    }
}

fn bad(key: &str, reason: impl Into<String>) -> RulesError {
    RulesError::Description { key: key.to_string(), reason: reason.into() }
}

/// The board of a description, checked: what the other keys are judged against.
struct ResolvedBoard {
    ranks: usize,
    houses: usize,
    pits: usize,
    /// Seeds a house of each player at the start.
    start: Vec<u8>,
    /// Seeds on the board, both players.
    total: u32,
}

impl Description {
    /// Reads a description from TOML text.
    ///
    /// # Errors
    /// [`RulesError::DescriptionSyntax`] naming the line and key (an unknown key, a wrong
    /// type, a missing table), or [`RulesError::Description`] from [`Description::resolve`].
    pub fn from_toml(text: &str) -> Result<Description, RulesError> {
        let description: Description =
            toml::from_str(text).map_err(|e| RulesError::DescriptionSyntax { reason: e.to_string() })?;
        description.resolve()?;
        Ok(description)
    }

    /// The description as a TOML document.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a description always serializes")
    }

    /// The rules alone (no title, origin, notes or sources) as one line without spaces: the
    /// canonical form a rules string, a model file and a shard carry.
    pub fn canonical(&self) -> String {
        let rules = Description {
            title: String::new(),
            origin: String::new(),
            about: String::new(),
            sources: Vec::new(),
            ..self.clone()
        };
        serde_json::to_string(&rules).expect("a description always serializes")
    }

    /// Reads the canonical one-line form ([`Description::canonical`]).
    ///
    /// # Errors
    /// [`RulesError::DescriptionSyntax`] or [`RulesError::Description`].
    pub fn from_canonical(text: &str) -> Result<Description, RulesError> {
        let description: Description =
            serde_json::from_str(text).map_err(|e| RulesError::DescriptionSyntax { reason: e.to_string() })?;
        description.resolve()?;
        Ok(description)
    }

    /// Checks the description as a whole and resolves it into [`Rules`].
    ///
    /// # Errors
    /// [`RulesError::Description`] naming the key and why: a format this build does not
    /// read, no houses, more than [`MAX_PITS`] houses or 64 actions, more than
    /// [`MAX_SEEDS`] seeds, a capture count no house can reach, an unknown special rule, a
    /// game that could go on forever (no cycle rule and no ply cap where seeds can
    /// circulate), or keys that contradict each other.
    pub fn resolve(&self) -> Result<Rules, RulesError> {
        self.check_name()?;
        let board = self.resolve_board()?;
        self.check_moves(&board)?;
        self.check_sowing()?;
        let capture_counts = self.capture_counts(board.total)?;
        self.check_end(&board, capture_counts)?;
        let tuzdyk = self.check_specials(board.ranks, board.houses)?;
        let (moves, sowing, capture, end) = (&self.moves, &self.sowing, &self.capture, &self.end);
        let rules = Rules {
            ranks: board.ranks,
            territory: board.pits / 2,
            pits: board.pits,
            total: board.total as u16,
            start: board.start,
            stores: self.board.stores,
            min_seeds: moves.min_seeds,
            singletons: moves.singletons,
            must_feed: moves.must_feed,
            from: moves.from,
            direction: sowing.direction,
            origin: sowing.origin,
            relay: sowing.relay,
            relay_limit: sowing.relay_limit,
            extra_turn: sowing.extra_turn,
            capture_counts,
            capture_on: capture.on,
            capture_from: capture.from,
            sowing_to: capture.sowing_to,
            cross: capture.cross,
            cross_seed: capture.cross_seed,
            cross_from: capture.cross_from,
            four_rank: capture.four_rank,
            grand_slam: capture.grand_slam,
            majority: end.majority,
            no_move: end.no_move,
            empty_row: end.empty_row,
            empty_row_to: end.empty_row_to,
            all_singles: end.all_singles,
            seeds_left: end.seeds_left,
            cycle: end.cycle,
            max_plies: end.max_plies,
            score: end.score,
            tuzdyk,
        };
        if rules.action_space() > crate::MAX_ACTIONS {
            return Err(bad(
                "board.houses",
                format!("{} actions; at most {} are supported", rules.action_space(), crate::MAX_ACTIONS),
            ));
        }
        Ok(rules)
    }

    /// The format version and the name.
    fn check_name(&self) -> Result<(), RulesError> {
        if self.format != FORMAT {
            return Err(bad("format", format!("this build reads format {FORMAT}, not {}", self.format)));
        }
        if self.name.is_empty()
            || self.name.len() > 40
            || !self.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(bad("name", format!("'{}' must be 1 to 40 lower-case letters, digits or '-'", self.name)));
        }
        Ok(())
    }

    /// The board's size, start and seed count.
    fn resolve_board(&self) -> Result<ResolvedBoard, RulesError> {
        let board = &self.board;
        let ranks = usize::from(board.ranks);
        if ranks != 2 && ranks != 4 {
            return Err(bad("board.ranks", format!("{} ranks: a board has 2 or 4", board.ranks)));
        }
        let houses = usize::from(board.houses);
        if houses == 0 {
            return Err(bad("board.houses", "a rank needs at least one house"));
        }
        let pits = ranks * houses;
        if pits > MAX_PITS {
            return Err(bad(
                "board.houses",
                format!("{ranks} ranks of {houses} houses make {pits} houses; at most {MAX_PITS} are supported"),
            ));
        }
        let territory = pits / 2;
        let start = match (&board.seeds, &board.start) {
            (Some(_), Some(_)) => return Err(bad("board.start", "give board.seeds or board.start, not both")),
            (None, None) => return Err(bad("board.seeds", "say how many seeds a house holds at the start")),
            (Some(s), None) => vec![*s; territory],
            (None, Some(start)) => {
                if start.len() != territory {
                    return Err(bad(
                        "board.start",
                        format!("{} counts for {territory} houses a player: give one a house", start.len()),
                    ));
                }
                start.clone()
            }
        };
        let total: u32 = 2 * start.iter().map(|&s| u32::from(s)).sum::<u32>();
        if total == 0 {
            return Err(bad("board.seeds", "the board holds no seed"));
        }
        if total > MAX_SEEDS {
            return Err(bad("board.seeds", format!("{total} seeds in all; at most {MAX_SEEDS} are supported")));
        }
        if board.stores && ranks != 2 {
            return Err(bad("board.stores", "stores sit at the ends of the rows of a two-rank board"));
        }
        Ok(ResolvedBoard { ranks, houses, pits, start, total })
    }

    /// The move keys against the board.
    fn check_moves(&self, b: &ResolvedBoard) -> Result<(), RulesError> {
        let (start, ranks) = (&b.start, b.ranks);
        let moves = &self.moves;
        if moves.min_seeds == 0 {
            return Err(bad("move.min_seeds", "at least 1: an empty house cannot be sown"));
        }
        if !start.iter().any(|&s| s >= moves.min_seeds) {
            return Err(bad(
                "move.min_seeds",
                format!("no house holds {} seeds at the start: the first player could not move", moves.min_seeds),
            ));
        }
        if moves.from == SowFrom::Controlled && ranks == 4 {
            return Err(bad("move.from", "a four-rank player sows only their own territory's circuit"));
        }
        Ok(())
    }

    /// The sowing keys against the board.
    fn check_sowing(&self) -> Result<(), RulesError> {
        let board = &self.board;
        let sowing = &self.sowing;
        if sowing.extra_turn && !board.stores {
            return Err(bad("sowing.extra_turn", "an extra turn for a last seed in one's store needs board.stores"));
        }
        if board.stores && sowing.direction == Direction::Either {
            return Err(bad("sowing.direction", "either direction with stores: a store sits at one end of a row"));
        }
        if sowing.relay_limit > MAX_RELAY_LIMIT {
            return Err(bad("sowing.relay_limit", format!("at most {MAX_RELAY_LIMIT}")));
        }
        Ok(())
    }

    /// The capture keys; returns the counts a house is captured on, as a set (bit `c`).
    fn capture_counts(&self, total: u32) -> Result<u64, RulesError> {
        let (ranks, sowing) = (usize::from(self.board.ranks), &self.sowing);
        let capture = &self.capture;
        let mut capture_counts = 0u64;
        for &c in &capture.counts {
            if c == 0 || u32::from(c) > total {
                return Err(bad(
                    "capture.counts",
                    format!("no house can be captured holding {c}: counts run from 1 to the {total} seeds in play"),
                ));
            }
            if c >= 64 {
                return Err(bad("capture.counts", format!("{c}: counts up to 63 are supported")));
            }
            capture_counts |= 1 << c;
        }
        if capture.evens {
            for c in (2..64).step_by(2) {
                if c <= total {
                    capture_counts |= 1 << c;
                }
            }
        }
        if capture.on == CaptureOn::Sowing && capture_counts == 0 {
            return Err(bad("capture.on", "capturing during the sowing needs capture.counts"));
        }
        if capture.cross == Cross::None && capture.cross_seed != CrossSeed::Taken {
            return Err(bad("capture.cross_seed", "says what a cross capture leaves, but capture.cross is \"none\""));
        }
        if capture.cross == Cross::None && capture.cross_from != CrossFrom::Own {
            return Err(bad("capture.cross_from", "says where a cross capture is made, but capture.cross is \"none\""));
        }
        if capture.cross != Cross::None && ranks != 2 {
            return Err(bad("capture.cross", "a cross capture takes the opposite house of a two-rank board"));
        }
        if capture.four_rank && ranks != 4 {
            return Err(bad("capture.four_rank", "needs a four-rank board"));
        }
        if capture.four_rank && !sowing.relay {
            return Err(bad("capture.four_rank", "the captured seeds are sown on: needs sowing.relay"));
        }
        Ok(capture_counts)
    }

    /// The end keys: each refused where it cannot apply, and a game that could go on for ever.
    fn check_end(&self, b: &ResolvedBoard, capture_counts: u64) -> Result<(), RulesError> {
        let (board, sowing, capture, start, total) = (&self.board, &self.sowing, &self.capture, &b.start, b.total);
        let end = &self.end;
        if end.score == Score::Board && (capture_counts != 0 || capture.cross != Cross::None || board.stores) {
            return Err(bad(
                "end.score",
                "'board' counts the seeds on each side: a game that captures scores captures",
            ));
        }
        if end.majority && end.score == Score::Board {
            return Err(bad("end.majority", "a majority of captures needs end.score = \"captures\""));
        }
        if u32::from(end.seeds_left) >= total {
            return Err(bad(
                "end.seeds_left",
                format!("{} would end the game before it starts ({total} seeds)", end.seeds_left),
            ));
        }
        if end.empty_row_to != EmptyRowTo::Owners && !end.empty_row {
            return Err(bad(
                "end.empty_row_to",
                "says who takes the seeds left when a row empties, but end.empty_row is false",
            ));
        }
        if end.empty_row_to != EmptyRowTo::Owners && end.score == Score::Board {
            return Err(bad(
                "end.empty_row_to",
                "hands the seeds left to a player, but end.score = \"board\" leaves them on the board",
            ));
        }
        if end.all_singles && start.iter().all(|&s| s <= 1) {
            return Err(bad(
                "end.all_singles",
                "every house holds one seed or none at the start: the game would end before the first move",
            ));
        }
        // A game ends when seeds leave the board for good. Without stores and single laps,
        // seeds can circulate for ever: such a game needs a cycle rule or a ply cap.
        let always_ends = board.stores && !sowing.relay && sowing.direction != Direction::Either;
        if !always_ends && end.cycle == CycleDesc::None && end.max_plies == 0 {
            return Err(bad(
                "end.max_plies",
                "this game can go on for ever: give end.cycle (repetition or plies:N) or end.max_plies",
            ));
        }
        Ok(())
    }

    /// The special rules: known ones only, each where it can be judged. Returns whether
    /// `tuzdyk` is on.
    fn check_specials(&self, ranks: usize, houses: usize) -> Result<bool, RulesError> {
        let (moves, sowing, capture) = (&self.moves, &self.sowing, &self.capture);
        if let Some(other) = self.special.iter().find(|s| !SPECIALS.contains(&s.as_str())) {
            let known = if SPECIALS.is_empty() { "none yet".to_string() } else { SPECIALS.join(", ") };
            return Err(bad("special", format!("unknown special rule '{other}': this build knows {known}")));
        }
        let tuzdyk = self.special.iter().any(|s| s == "tuzdyk");
        if tuzdyk {
            // The claim is judged on the last seed of a single lap from one's own row, on a
            // board where every house has a mirror in the other row.
            let refuse = |why: &str| Err(bad("special", format!("tuzdyk {why}")));
            if ranks != 2 {
                return refuse("claims a house of the opponent's row: needs board.ranks = 2");
            }
            if houses < 2 {
                return refuse("cannot claim the opponent's last house: needs at least 2 houses a row");
            }
            if sowing.relay {
                return refuse("is judged where the last seed falls: sowing.relay cannot go on from there");
            }
            if capture.on == CaptureOn::Sowing {
                return refuse("is judged on the last seed: capture.on = \"sowing\" takes houses before it");
            }
            if moves.from != SowFrom::Own {
                return refuse("claims a house for good: move.from = \"controlled\" moves houses between players");
            }
            if capture.counts.contains(&3) {
                return refuse("claims a house holding 3: capture.counts cannot also take a house of 3");
            }
        }
        Ok(tuzdyk)
    }
}
