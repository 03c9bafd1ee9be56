//! Alpha-beta (negamax) with iterative deepening, a transposition table and move ordering.
//! The evaluation is the seed margin (captures or stores, mover minus opponent); a finished
//! game scores far above any margin so wins come first.

use std::time::{Duration, Instant};

use mancala_rules::{Action, Game, MoveMask, Player};

/// Score of a won game before its margin is added.
pub const WIN: i32 = 100_000;

#[derive(Clone, Copy, Debug, Default)]
struct TtEntry {
    hash: u64,
    depth: u8,
    bound: Bound,
    value: i32,
    best: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Empty,
    Exact,
    Lower,
    Upper,
}

/// How deep or how long to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Depth(u32),
    Time(Duration),
}

/// The result of a search: the best move and its score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaResult {
    pub best: Option<Action>,
    pub value: i32,
    /// The deepest iteration that finished.
    pub depth: u32,
    pub nodes: u64,
}

/// A reusable alpha-beta searcher for one game.
pub struct AlphaBeta<G: Game> {
    game: G,
    table: Vec<TtEntry>,
    mask: u64,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl<G: Game> AlphaBeta<G> {
    /// A searcher with a transposition table of `2^log2_entries` entries.
    pub fn new(game: G, log2_entries: u32) -> Self {
        let n = 1usize << log2_entries;
        AlphaBeta {
            game,
            table: vec![TtEntry::default(); n],
            mask: (n - 1) as u64,
            nodes: 0,
            deadline: None,
            aborted: false,
        }
    }

    /// Static score of `pos` for the player to move.
    pub fn evaluate(&self, pos: &G::Position) -> i32 {
        let side = self.game.side_to_move(pos);
        if let Some(o) = self.game.status(pos).outcome() {
            return match o.winner {
                None => 0,
                Some(w) if w == side => WIN + i32::from(o.margin),
                Some(_) => -WIN - i32::from(o.margin),
            };
        }
        let s = self.game.scores(pos);
        i32::from(s[side]) - i32::from(s[side.opponent()])
    }

    /// Searches `pos` to the limit by iterative deepening.
    pub fn search(&mut self, pos: &G::Position, limit: Limit) -> AlphaBetaResult {
        self.nodes = 0;
        self.aborted = false;
        let (max_depth, deadline) = match limit {
            Limit::Depth(d) => (d.max(1), None),
            Limit::Time(t) => (64, Some(Instant::now() + t)),
        };
        self.deadline = deadline;
        let mut result = AlphaBetaResult { best: None, value: self.evaluate(pos), depth: 0, nodes: 0 };
        let legal = self.game.legal_moves(pos);
        if legal.is_empty() {
            return result;
        }
        result.best = legal.iter().next();
        for depth in 1..=max_depth {
            let (value, best) = self.root(pos, depth);
            if self.aborted {
                break;
            }
            result = AlphaBetaResult { best, value, depth, nodes: self.nodes };
            if value.abs() >= WIN {
                break; // solved
            }
        }
        result.nodes = self.nodes;
        result
    }

    fn root(&mut self, pos: &G::Position, depth: u32) -> (i32, Option<Action>) {
        let side = self.game.side_to_move(pos);
        let mut alpha = -i32::MAX;
        let mut best = None;
        for a in self.ordered(pos, self.game.legal_moves(pos)) {
            // The root's own window: (best so far, +inf), from its player's view.
            let v = self.child_value(pos, a, side, depth, alpha, i32::MAX);
            if self.aborted {
                break;
            }
            if v > alpha || best.is_none() {
                alpha = v;
                best = Some(a);
            }
        }
        (alpha, best)
    }

    /// Value of playing `a` for `side`: negated only when the turn passes. A game that ends on
    /// an extra turn (Kalah) still has the mover to move, and `evaluate` scores it for them.
    fn child_value(&mut self, pos: &G::Position, a: Action, side: Player, depth: u32, alpha: i32, beta: i32) -> i32 {
        let mut next = *pos;
        self.game.play_unchecked(&mut next, a);
        if self.game.side_to_move(&next) == side {
            self.negamax(&next, depth - 1, alpha, beta)
        } else {
            -self.negamax(&next, depth - 1, -beta, -alpha)
        }
    }

    fn negamax(&mut self, pos: &G::Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0
            && let Some(d) = self.deadline
            && Instant::now() >= d
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if depth == 0 || self.game.status(pos).is_over() {
            return self.evaluate(pos);
        }
        let hash = self.game.hash(pos);
        let slot = (hash & self.mask) as usize;
        let entry = self.table[slot];
        let mut tt_move = None;
        if entry.hash == hash && entry.bound != Bound::Empty {
            tt_move = Some(entry.best);
            if u32::from(entry.depth) >= depth {
                match entry.bound {
                    Bound::Exact => return entry.value,
                    Bound::Lower if entry.value >= beta => return entry.value,
                    Bound::Upper if entry.value <= alpha => return entry.value,
                    _ => {}
                }
            }
        }
        let alpha0 = alpha;
        let side = self.game.side_to_move(pos);
        let legal = self.game.legal_moves(pos);
        let mut best_value = -i32::MAX;
        let mut best_move = 0u8;
        let mut order = self.ordered(pos, legal);
        if let Some(m) = tt_move
            && legal.contains(m)
        {
            order.promote(m);
        }
        for a in order {
            let v = self.child_value(pos, a, side, depth, alpha, beta);
            if v > best_value {
                best_value = v;
                best_move = a;
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        if !self.aborted {
            let bound = if best_value <= alpha0 {
                Bound::Upper
            } else if best_value >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.table[slot] = TtEntry { hash, depth: depth.min(255) as u8, bound, value: best_value, best: best_move };
        }
        best_value
    }

    /// Moves ordered by immediate gain for the mover (captures and extra turns first).
    fn ordered(&self, pos: &G::Position, legal: MoveMask) -> Ordered {
        let side = self.game.side_to_move(pos);
        let before = self.game.scores(pos)[side];
        let mut o = Ordered { moves: [0; 64], keys: [0; 64], len: 0, next: 0 };
        for a in legal {
            let mut next = *pos;
            self.game.play_unchecked(&mut next, a);
            let gain = i32::from(self.game.scores(&next)[side]) - i32::from(before);
            let again = i32::from(self.game.side_to_move(&next) == side);
            o.moves[o.len] = a;
            o.keys[o.len] = gain * 2 + again;
            o.len += 1;
        }
        // insertion sort by key, descending: at most a few dozen moves
        for i in 1..o.len {
            let mut j = i;
            while j > 0 && o.keys[j - 1] < o.keys[j] {
                o.keys.swap(j - 1, j);
                o.moves.swap(j - 1, j);
                j -= 1;
            }
        }
        o
    }
}

/// A move list in search order, on the stack.
struct Ordered {
    moves: [Action; 64],
    keys: [i32; 64],
    len: usize,
    next: usize,
}

impl Ordered {
    /// Moves `m` to the front (the transposition table's best move).
    fn promote(&mut self, m: Action) {
        if let Some(i) = self.moves[..self.len].iter().position(|&x| x == m) {
            self.moves[..=i].rotate_right(1);
        }
    }
}

impl Iterator for Ordered {
    type Item = Action;
    fn next(&mut self) -> Option<Action> {
        if self.next < self.len {
            self.next += 1;
            Some(self.moves[self.next - 1])
        } else {
            None
        }
    }
}
