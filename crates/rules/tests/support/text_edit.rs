//! Random edits of a valid text (insert or replace a piece, remove a run, repeat a token,
//! change a number), shared by the fuzz tests of bad input: each gives its own pieces, the
//! fragments its format is made of. Included with `#[path]` by the tests that use it.

use proptest::prelude::*;

/// One change to a text.
#[derive(Clone, Debug)]
pub enum TextEdit {
    /// Put a piece at a char position.
    Insert(usize, usize),
    /// Replace the char at a position by a piece.
    Replace(usize, usize),
    /// Remove a run of chars.
    Remove(usize, usize),
    /// Duplicate a whitespace-separated token.
    Repeat(usize),
    /// Replace a number by another.
    Number(usize, u64),
}

pub fn text_edit(pieces: usize) -> impl Strategy<Value = TextEdit> {
    let piece = 0..pieces;
    prop_oneof![
        3 => (any::<usize>(), piece.clone()).prop_map(|(a, p)| TextEdit::Insert(a, p)),
        3 => (any::<usize>(), piece).prop_map(|(a, p)| TextEdit::Replace(a, p)),
        2 => (any::<usize>(), 1..6usize).prop_map(|(a, n)| TextEdit::Remove(a, n)),
        1 => any::<usize>().prop_map(TextEdit::Repeat),
        3 => (any::<usize>(), prop_oneof![0..300u64, Just(u16::MAX as u64), Just(u16::MAX as u64 + 1), Just(u64::MAX)])
            .prop_map(|(a, n)| TextEdit::Number(a, n)),
    ]
}

pub fn apply_text(text: &str, edits: &[TextEdit], pieces: &[&str]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let at = |k: usize, len: usize| if len == 0 { 0 } else { k % len };
        match e {
            TextEdit::Insert(k, p) => {
                let i = at(*k, chars.len() + 1);
                chars.splice(i..i, pieces[*p].chars());
            }
            TextEdit::Replace(k, p) if !chars.is_empty() => {
                let i = at(*k, chars.len());
                chars.splice(i..i + 1, pieces[*p].chars());
            }
            TextEdit::Remove(k, n) if !chars.is_empty() => {
                let i = at(*k, chars.len());
                chars.drain(i..(i + n).min(chars.len()));
            }
            TextEdit::Repeat(k) => {
                let s: String = chars.iter().collect();
                let tokens: Vec<&str> = s.split(' ').collect();
                let i = at(*k, tokens.len());
                let mut out = tokens.clone();
                out.insert(i, tokens[i]);
                chars = out.join(" ").chars().collect();
            }
            TextEdit::Number(k, n) => {
                // The k-th run of digits becomes n.
                let s: String = chars.iter().collect();
                let runs: Vec<(usize, usize)> = digit_runs(&chars);
                if !runs.is_empty() {
                    let (a, b) = runs[at(*k, runs.len())];
                    let mut out: Vec<char> = s.chars().collect();
                    out.splice(a..b, n.to_string().chars());
                    chars = out;
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn digit_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in chars.iter().enumerate() {
        match (c.is_ascii_digit(), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                runs.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        runs.push((a, chars.len()));
    }
    runs
}
