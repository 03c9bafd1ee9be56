//! Move sets as a fixed-size bit mask: no allocation in the hot path.

use std::fmt;

/// An action: an index in the game's action space, counted from the mover's side
/// (action 0 is the mover's first pit). See [`crate::Game::action_space`].
pub type Action = u8;

/// The most actions any game here has (Owela with 16 columns: 32 own pits).
pub const MAX_ACTIONS: usize = 64;

/// The size and members of every mask of 8 bits, for [`MoveMask::len`] and
/// [`MoveMask::nth`] in the hot loop of a playout (one load instead of a bit count and a
/// loop).
struct SmallMask {
    len: u8,
    nth: [Action; 8],
}

static SMALL: [SmallMask; 256] = {
    let mut table = [const { SmallMask { len: 0, nth: [0; 8] } }; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut bit = 0;
        while bit < 8 {
            if mask & (1 << bit) != 0 {
                let k = table[mask].len as usize;
                table[mask].nth[k] = bit as Action;
                table[mask].len += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

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
        // Without a popcnt instruction (the baseline x86-64 target has none) `count_ones` is
        // a dozen instructions; the masks of games with at most 8 actions are one table load.
        if self.0 < 256 { SMALL[self.0 as usize].len as usize } else { self.0.count_ones() as usize }
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
        if self.0 < 256 {
            let small = &SMALL[self.0 as usize];
            return (n < small.len as usize).then(|| small.nth[n]);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The table path (masks below 256) and the bit loop agree with the members listed in
    /// order, for every small mask and some wide ones.
    #[test]
    fn len_and_nth_match_the_members() {
        let wide = [1u64 << 63, 0x8000_0000_0000_0101, u64::MAX, 0x0123_4567_89ab_cdef];
        for bits in (0..256u64).chain(wide) {
            let mask = MoveMask(bits);
            let members: Vec<Action> = (0..64).filter(|&a| bits & (1 << a) != 0).collect();
            assert_eq!(mask.len(), members.len(), "{bits:#x}");
            for (n, &a) in members.iter().enumerate() {
                assert_eq!(mask.nth(n), Some(a), "{bits:#x} nth {n}");
            }
            assert_eq!(mask.nth(members.len()), None, "{bits:#x}");
            assert_eq!(mask.iter().collect::<Vec<_>>(), members);
        }
    }
}
