//! Move sets as a fixed-size bit mask: no allocation in the hot path.

use std::fmt;

/// An action: an index in the game's action space, counted from the mover's side
/// (action 0 is the mover's first pit). See [`crate::Game::action_space`].
pub type Action = u8;

/// The most actions any game here has (Owela with 16 columns: 32 own pits).
pub const MAX_ACTIONS: usize = 64;

/// A set of actions as a 64-bit mask; bit `a` set means action `a` is in the set.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MoveMask(pub u64);

impl MoveMask {
    pub const EMPTY: MoveMask = MoveMask(0);

    /// The set `{0, .., n-1}`.
    #[inline]
    pub const fn first(n: usize) -> MoveMask {
        if n >= 64 { MoveMask(u64::MAX) } else { MoveMask((1u64 << n) - 1) }
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    #[inline]
    pub const fn contains(self, action: Action) -> bool {
        (action as usize) < 64 && self.0 & (1u64 << action) != 0
    }

    #[inline]
    pub fn insert(&mut self, action: Action) {
        self.0 |= 1u64 << action;
    }

    #[inline]
    pub fn remove(&mut self, action: Action) {
        self.0 &= !(1u64 << action);
    }

    /// The `n`-th smallest action in the set (`n < len`), for picking a move at random.
    #[inline]
    pub fn nth(self, n: usize) -> Option<Action> {
        let mut bits = self.0;
        for _ in 0..n {
            if bits == 0 {
                return None;
            }
            bits &= bits - 1;
        }
        if bits == 0 { None } else { Some(bits.trailing_zeros() as Action) }
    }

    /// The actions in increasing order.
    #[inline]
    pub fn iter(self) -> MoveIter {
        MoveIter(self.0)
    }
}

impl IntoIterator for MoveMask {
    type Item = Action;
    type IntoIter = MoveIter;
    fn into_iter(self) -> MoveIter {
        self.iter()
    }
}

impl FromIterator<Action> for MoveMask {
    fn from_iter<I: IntoIterator<Item = Action>>(iter: I) -> Self {
        let mut mask = MoveMask::EMPTY;
        for a in iter {
            mask.insert(a);
        }
        mask
    }
}

impl fmt::Debug for MoveMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterator over the actions of a [`MoveMask`], smallest first.
#[derive(Clone, Copy, Debug)]
pub struct MoveIter(u64);

impl Iterator for MoveIter {
    type Item = Action;
    #[inline]
    fn next(&mut self) -> Option<Action> {
        if self.0 == 0 {
            return None;
        }
        let a = self.0.trailing_zeros() as Action;
        self.0 &= self.0 - 1;
        Some(a)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveIter {}
