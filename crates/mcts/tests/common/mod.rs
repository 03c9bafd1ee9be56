//! Shared test helpers: a tiny table-driven game whose tree and values are known by heart, a
//! deterministic evaluator for it and for real games, and a naive negamax.
#![allow(dead_code)]

use std::sync::Arc;

use mancala_mcts::{Evaluator, NodeState, Search};
use mancala_rules::{
    Action, ByPlayer, Game, MoveMask, MoveParseError, Outcome, Player, Setup, SetupError, Sowing, Status,
};

/// One position of a [`ToyGame`]: who moves, the positions each action leads to, and what a
/// test evaluator says about it (`prior`, `value` for the side to move), or how it ended.
#[derive(Clone, Debug)]
pub struct ToyNode {
    pub side: Player,
    pub kids: Vec<u16>,
    pub prior: Vec<f32>,
    pub value: f32,
    pub outcome: Option<Outcome>,
}

impl ToyNode {
    pub fn inner(side: Player, kids: &[u16], prior: &[f32], value: f32) -> ToyNode {
        assert_eq!(kids.len(), prior.len());
        ToyNode { side, kids: kids.to_vec(), prior: prior.to_vec(), value, outcome: None }
    }

    /// A finished game; `side` is who would move.
    pub fn end(side: Player, winner: Option<Player>) -> ToyNode {
        ToyNode {
            side,
            kids: Vec::new(),
            prior: Vec::new(),
            value: 0.0,
            outcome: Some(Outcome { winner, margin: u16::from(winner.is_some()) }),
        }
    }
}

/// A game given as a table of positions; position 0 is the start. The "board" is one pit
/// holding nothing, so the trait's board methods have something to return.
#[derive(Clone, Debug)]
pub struct ToyGame {
    pub nodes: Arc<Vec<ToyNode>>,
    pub actions: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToyPos {
    pub node: u16,
    pits: [u8; 1],
}

impl ToyPos {
    pub fn at(node: u16) -> ToyPos {
        ToyPos { node, pits: [0] }
    }
}

impl ToyGame {
    pub fn new(nodes: Vec<ToyNode>) -> ToyGame {
        let actions = nodes.iter().map(|n| n.kids.len()).max().unwrap_or(1).max(1);
        for (i, n) in nodes.iter().enumerate() {
            for &k in &n.kids {
                assert!((k as usize) < nodes.len(), "node {i} points at missing node {k}");
            }
            assert!(n.outcome.is_some() || !n.kids.is_empty(), "node {i} is neither finished nor has moves");
        }
        ToyGame { nodes: Arc::new(nodes), actions }
    }

    pub fn node(&self, pos: &ToyPos) -> &ToyNode {
        &self.nodes[pos.node as usize]
    }
}

impl Game for ToyGame {
    type Position = ToyPos;

    fn rules_string(&self) -> String {
        "toy".into()
    }
    fn start(&self) -> ToyPos {
        ToyPos::at(0)
    }
    fn action_space(&self) -> usize {
        self.actions
    }
    fn total_seeds(&self) -> u16 {
        0
    }
    fn side_to_move(&self, pos: &ToyPos) -> Player {
        self.node(pos).side
    }
    fn legal_moves(&self, pos: &ToyPos) -> MoveMask {
        let n = self.node(pos);
        if n.outcome.is_some() { MoveMask::EMPTY } else { MoveMask::first(n.kids.len()) }
    }
    fn play_unchecked(&self, pos: &mut ToyPos, action: Action) -> Sowing {
        pos.node = self.node(pos).kids[usize::from(action)];
        Sowing::default()
    }
    fn why_illegal(&self, _pos: &ToyPos, action: Action) -> String {
        format!("no move {action} here")
    }
    fn status(&self, pos: &ToyPos) -> Status {
        match self.node(pos).outcome {
            Some(o) => Status::Over(o),
            None => Status::Ongoing,
        }
    }
    fn hash(&self, pos: &ToyPos) -> u64 {
        (u64::from(pos.node) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn scores(&self, _pos: &ToyPos) -> ByPlayer<u16> {
        ByPlayer::new(0, 0)
    }
    fn pits<'a>(&self, pos: &'a ToyPos) -> &'a [u8] {
        &pos.pits
    }
    fn controller(&self, _pos: &ToyPos, _pit: usize) -> Player {
        Player::South
    }
    fn action_pit(&self, _side: Player, action: Action) -> usize {
        usize::from(action)
    }
    fn move_label(&self, _side: Player, action: Action) -> String {
        action.to_string()
    }
    fn parse_move(&self, _pos: &ToyPos, text: &str) -> Result<Action, MoveParseError> {
        text.parse().map_err(|_| MoveParseError::Unknown { text: text.into(), allowed: "a number".into() })
    }
    fn to_setup(&self, pos: &ToyPos) -> Setup {
        Setup {
            side: self.node(pos).side,
            scores: ByPlayer::new(pos.node, 0),
            pits: vec![0],
            controllers: None,
            status: "ongoing".into(),
            ..Setup::default()
        }
    }
    fn from_setup(&self, setup: &Setup) -> Result<ToyPos, SetupError> {
        Ok(ToyPos::at(setup.scores.south))
    }
    fn display(&self, pos: &ToyPos) -> String {
        format!("toy node {}", pos.node)
    }
}

/// Answers from the toy table, and remembers every batch it was handed.
#[derive(Clone, Debug, Default)]
pub struct ToyEvaluator {
    pub batches: Vec<Vec<u16>>,
}

impl Evaluator<ToyGame> for ToyEvaluator {
    fn evaluate(&mut self, game: &ToyGame, positions: &[ToyPos], policies: &mut [f32], values: &mut [f32]) {
        let a = game.action_space();
        assert_eq!(policies.len(), positions.len() * a);
        assert_eq!(values.len(), positions.len());
        for (i, pos) in positions.iter().enumerate() {
            let n = game.node(pos);
            assert!(n.outcome.is_none(), "a finished position (toy node {}) was sent to the evaluator", pos.node);
            let out = &mut policies[i * a..(i + 1) * a];
            out.fill(0.0);
            out[..n.prior.len()].copy_from_slice(&n.prior);
            values[i] = n.value;
        }
        self.batches.push(positions.iter().map(|p| p.node).collect());
    }
}

/// A deterministic evaluator for any game: the policy and value are drawn from the position's
/// hash, so the same position always gets the same answer and different ones differ.
#[derive(Clone, Debug, Default)]
pub struct HashEvaluator {
    pub calls: u64,
    pub positions: u64,
}

/// splitmix64: a well-mixed function of the hash.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl<G: Game> Evaluator<G> for HashEvaluator {
    fn evaluate(&mut self, game: &G, positions: &[G::Position], policies: &mut [f32], values: &mut [f32]) {
        self.calls += 1;
        let a = game.action_space();
        for (i, pos) in positions.iter().enumerate() {
            self.positions += 1;
            let mut h = game.hash(pos);
            let out = &mut policies[i * a..(i + 1) * a];
            out.fill(0.0);
            let legal = game.legal_moves(pos);
            let mut sum = 0.0;
            for m in legal {
                h = mix(h);
                let w = 0.1 + (h >> 40) as f32 / (1u64 << 24) as f32;
                out[usize::from(m)] = w;
                sum += w;
            }
            out.iter_mut().for_each(|p| *p /= sum);
            values[i] = (mix(h ^ 0xABCD) >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
        }
    }
}

/// Plain negamax to `depth` plies (every move is a ply, extra turns included) with the same
/// static score as the alpha-beta searcher; the sign flips only when the player changes.
pub fn negamax<G: Game>(game: &G, pos: &G::Position, depth: u32, score: &impl Fn(&G::Position) -> i32) -> i32 {
    if depth == 0 || game.status(pos).is_over() {
        return score(pos);
    }
    let side = game.side_to_move(pos);
    let mut best = i32::MIN;
    for a in game.legal_moves(pos) {
        let mut next = *pos;
        game.play_unchecked(&mut next, a);
        let v = negamax(game, &next, depth - 1, score);
        let v = if game.side_to_move(&next) == side { v } else { -v };
        best = best.max(v);
    }
    best
}

/// The game of `rules` a few plies in (moves 2, 3, 1 where legal), so that extra turns and
/// captures are near the root of a search.
pub fn a_few_plies_in(rules: &str) -> mancala_rules::Line<mancala_rules::AnyGame> {
    let game = mancala_rules::parse_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    let mut line = mancala_rules::Line::new(game);
    for a in [2, 3, 1] {
        if line.legal_moves().contains(a) {
            line.play(a).unwrap();
        }
    }
    line
}

/// Parses a rules string and a protocol position line.
pub fn position(rules: &str, line: &str) -> (mancala_rules::AnyGame, mancala_rules::AnyPosition) {
    let game = mancala_rules::parse_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    let setup: Setup = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
    let pos = game.from_setup(&setup).unwrap_or_else(|e| panic!("{line}: {e}"));
    (game, pos)
}

/// Every node's statistics are the sum of what passed through it: its own evaluation (or its
/// exact result) plus its children's sums, each signed by whether the child's mover is the
/// same player; nothing is left pending. Kalah trees must contain extra turns.
pub fn check_sums<G: Game>(search: &Search<G>, rules: &str) {
    let t = search.tree();
    let mut extra_turns = 0;
    for i in t.node_ids() {
        let sign = |from: Player| if from == t.mover(i) { 1.0 } else { -1.0 };
        match t.state(i) {
            NodeState::Expanded => {
                let mut n = 1;
                let mut w = sign(t.side(i)) * t.raw_value(i);
                for c in t.children(i) {
                    assert_eq!(t.mover(c), t.side(i), "{rules}: a child's mover is its parent's player to move");
                    n += t.visits(c);
                    w += sign(t.mover(c)) * t.value_sum(c);
                    if t.state(c) != NodeState::Fresh && t.side(c) == t.mover(c) {
                        extra_turns += 1;
                    }
                }
                assert_eq!(t.visits(i), n, "{rules}: visits of node {i}");
                assert!((t.value_sum(i) - w).abs() < 1e-3, "{rules}: node {i}: value sum {} != {w}", t.value_sum(i));
            }
            NodeState::Terminal => {
                let w = sign(t.side(i)) * t.terminal_value(i) * t.visits(i) as f32;
                assert!((t.value_sum(i) - w).abs() < 1e-3, "{rules}: terminal node {i}");
            }
            NodeState::Fresh | NodeState::Unevaluated => {
                assert_eq!(t.visits(i), 0, "{rules}: node {i}")
            }
            NodeState::Pending => panic!("{rules}: node {i} still pending after the search"),
        }
        assert_eq!(t.in_flight(i), 0, "{rules}: node {i} still has a pending leaf below it");
    }
    if rules.starts_with("kalah") {
        assert!(extra_turns > 0, "{rules}: the tree should contain extra turns");
    }
}
