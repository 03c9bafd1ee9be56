//! The search tree: a preallocated struct of arrays indexed by [`NodeId`] (as in mctx), so a
//! search allocates only when the tree outgrows its capacity.

use mancala_rules::{Action, Game, Player};

/// Index of a node in the [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root is always the first node.
    pub const ROOT: NodeId = NodeId(0);
    /// "No child yet".
    pub const UNSET: u32 = u32::MAX;

    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Created by its parent's expansion; its position is not computed yet.
    Fresh,
    /// Position known, waiting to be handed to the evaluator.
    Unevaluated,
    /// Handed to the evaluator, answer not applied yet.
    Pending,
    /// Evaluated; children created.
    Expanded,
    /// The game is over here; `terminal_value` is exact.
    Terminal,
}

/// Struct of arrays; node `i` is described by element `i` of every array.
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    pub pos: Vec<G::Position>,
    pub hash: Vec<u64>,
    pub state: Vec<NodeState>,
    /// The player who chose the action into this node; `value_sum` is from this view.
    pub mover: Vec<Player>,
    /// The player to move at this node (valid once the position is computed).
    pub side: Vec<Player>,
    pub action: Vec<Action>,
    /// Whether the move into this node was irreversible (clears the repetition window).
    pub irreversible: Vec<bool>,
    pub prior: Vec<f32>,
    pub visits: Vec<u32>,
    pub value_sum: Vec<f32>,
    pub in_flight: Vec<u32>,
    pub first_child: Vec<u32>,
    pub num_children: Vec<u8>,
    /// Exact value for the player to move, at terminal nodes.
    pub terminal_value: Vec<f32>,
    /// The evaluator's value for the player to move, once evaluated (Gumbel's v_mix needs the
    /// root's own evaluation, also after the root moved down by tree reuse).
    pub raw_value: Vec<f32>,
}

impl<G: Game> Tree<G> {
    pub fn with_capacity(n: usize) -> Self {
        Tree {
            pos: Vec::with_capacity(n),
            hash: Vec::with_capacity(n),
            state: Vec::with_capacity(n),
            mover: Vec::with_capacity(n),
            side: Vec::with_capacity(n),
            action: Vec::with_capacity(n),
            irreversible: Vec::with_capacity(n),
            prior: Vec::with_capacity(n),
            visits: Vec::with_capacity(n),
            value_sum: Vec::with_capacity(n),
            in_flight: Vec::with_capacity(n),
            first_child: Vec::with_capacity(n),
            num_children: Vec::with_capacity(n),
            terminal_value: Vec::with_capacity(n),
            raw_value: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    pub fn clear(&mut self) {
        self.pos.clear();
        self.hash.clear();
        self.state.clear();
        self.mover.clear();
        self.side.clear();
        self.action.clear();
        self.irreversible.clear();
        self.prior.clear();
        self.visits.clear();
        self.value_sum.clear();
        self.in_flight.clear();
        self.first_child.clear();
        self.num_children.clear();
        self.terminal_value.clear();
        self.raw_value.clear();
    }

    /// Appends a node and returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn push(&mut self, pos: G::Position, state: NodeState, mover: Player, side: Player, action: Action, prior: f32) -> NodeId {
        let id = NodeId(self.state.len() as u32);
        self.pos.push(pos);
        self.hash.push(0);
        self.state.push(state);
        self.mover.push(mover);
        self.side.push(side);
        self.action.push(action);
        self.irreversible.push(false);
        self.prior.push(prior);
        self.visits.push(0);
        self.value_sum.push(0.0);
        self.in_flight.push(0);
        self.first_child.push(NodeId::UNSET);
        self.num_children.push(0);
        self.terminal_value.push(0.0);
        self.raw_value.push(0.0);
        id
    }

    /// Copies node `from` of `other` (without its children links).
    pub fn push_copy(&mut self, other: &Tree<G>, from: usize) -> NodeId {
        let id = NodeId(self.state.len() as u32);
        self.pos.push(other.pos[from]);
        self.hash.push(other.hash[from]);
        self.state.push(other.state[from]);
        self.mover.push(other.mover[from]);
        self.side.push(other.side[from]);
        self.action.push(other.action[from]);
        self.irreversible.push(other.irreversible[from]);
        self.prior.push(other.prior[from]);
        self.visits.push(other.visits[from]);
        self.value_sum.push(other.value_sum[from]);
        self.in_flight.push(0);
        self.first_child.push(NodeId::UNSET);
        self.num_children.push(0);
        self.terminal_value.push(other.terminal_value[from]);
        self.raw_value.push(other.raw_value[from]);
        id
    }

    /// The children of `node` as a range of ids.
    #[inline]
    pub fn children(&self, node: NodeId) -> std::ops::Range<usize> {
        let first = self.first_child[node.idx()];
        if first == NodeId::UNSET {
            0..0
        } else {
            let f = first as usize;
            f..f + usize::from(self.num_children[node.idx()])
        }
    }

    /// Mean value of `node` from the view of the player to move there.
    #[inline]
    pub fn value_for_side(&self, node: NodeId) -> Option<f32> {
        let i = node.idx();
        if self.visits[i] == 0 {
            return None;
        }
        let q = self.value_sum[i] / self.visits[i] as f32;
        Some(if self.side[i] == self.mover[i] { q } else { -q })
    }
}
