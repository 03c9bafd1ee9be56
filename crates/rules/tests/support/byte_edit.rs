//! Random edits of a valid byte string (flip a byte, write a word, cut, insert, remove),
//! shared by the fuzz tests of the file formats (model, shard, tablebase). Included with
//! `#[path]` by the tests that use it.

use proptest::prelude::*;

/// One change to a byte string.
#[derive(Clone, Debug)]
pub enum Edit {
    /// XOR the byte at (position modulo length) with a non-zero mask.
    Flip(usize, u8),
    /// Set four bytes at a position to a little-endian u32 (lengths, counts).
    Word(usize, u32),
    /// Cut the bytes from a position on.
    Cut(usize),
    /// Insert bytes at a position.
    Insert(usize, Vec<u8>),
    /// Remove up to n bytes from a position.
    Remove(usize, usize),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), 1..=255u8).prop_map(|(at, m)| Edit::Flip(at, m)),
        2 => (any::<usize>(), prop_oneof![Just(0u32), Just(1), Just(2), Just(64), Just(127), Just(128), Just(u32::MAX), any::<u32>()])
            .prop_map(|(at, w)| Edit::Word(at, w)),
        1 => any::<usize>().prop_map(Edit::Cut),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Edit::Insert(at, b)),
        1 => (any::<usize>(), 1..16usize).prop_map(|(at, n)| Edit::Remove(at, n)),
    ]
}

pub fn apply(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for e in edits {
        let at = |k: usize, len: usize| if len == 0 { 0 } else { k % len };
        match e {
            Edit::Flip(k, m) if !out.is_empty() => {
                let i = at(*k, out.len());
                out[i] ^= m;
            }
            Edit::Word(k, w) if out.len() >= 4 => {
                let i = at(*k, out.len() - 3);
                out[i..i + 4].copy_from_slice(&w.to_le_bytes());
            }
            Edit::Cut(k) => out.truncate(at(*k, out.len() + 1)),
            Edit::Insert(k, b) => {
                let i = at(*k, out.len() + 1);
                out.splice(i..i, b.iter().copied());
            }
            Edit::Remove(k, n) if !out.is_empty() => {
                let i = at(*k, out.len());
                out.drain(i..(i + n).min(out.len()));
            }
            _ => {}
        }
    }
    out
}
