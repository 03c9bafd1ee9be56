//! The two players and per-player data.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// One of the two players. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// Player 0: owns the pits labelled with capitals and moves first.
    South = 0,
    /// Player 1: owns the pits labelled with lower-case letters.
    North = 1,
}

impl Player {
    /// Both players, South first.
    pub const BOTH: [Player; 2] = [Player::South, Player::North];

    /// 0 for South, 1 for North.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Player {
        match self {
            Player::South => Player::North,
            Player::North => Player::South,
        }
    }

    /// `south` or `north`, as the protocol writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Player::South => "south",
            Player::North => "north",
        }
    }

    /// Parses `south`/`north` (also `s`/`n`, any case).
    pub fn parse(text: &str) -> Option<Player> {
        match text.to_ascii_lowercase().as_str() {
            "south" | "s" => Some(Player::South),
            "north" | "n" => Some(Player::North),
            _ => None,
        }
    }
}

impl Not for Player {
    type Output = Player;
    #[inline]
    fn not(self) -> Player {
        self.opponent()
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each player, indexed by [`Player`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByPlayer<T> {
    pub south: T,
    pub north: T,
}

impl<T> ByPlayer<T> {
    pub const fn new(south: T, north: T) -> Self {
        ByPlayer { south, north }
    }

    /// Builds both values from a function of the player.
    pub fn from_fn(mut f: impl FnMut(Player) -> T) -> Self {
        ByPlayer { south: f(Player::South), north: f(Player::North) }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByPlayer<U> {
        ByPlayer { south: f(self.south), north: f(self.north) }
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, player: Player) -> &T {
        match player {
            Player::South => &self.south,
            Player::North => &self.north,
        }
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, player: Player) -> &mut T {
        match player {
            Player::South => &mut self.south,
            Player::North => &mut self.north,
        }
    }
}
