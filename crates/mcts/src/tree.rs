//! The search tree: a preallocated struct of arrays indexed by [`NodeId`] (as in mctx), so a
//! search allocates only when the tree outgrows its capacity. The arrays are private: other
//! crates read a node through methods, and only the search in this crate changes one.

use mancala_rules::{Action, Game, Player};

/// Index of a node in the [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl NodeId {
    /// The root is always the first node.
    pub const ROOT: NodeId = NodeId(0);

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

/// The children of one node: consecutive ids, as an iterator of [`NodeId`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Children {
    next: u32,
    end: u32,
}

impl Children {
    /// Whether no child is left.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.next >= self.end
    }

    /// The `k`-th remaining child, if there is one.
    #[inline]
    pub fn get(&self, k: usize) -> Option<NodeId> {
        let id = self.next as usize + k;
        (id < self.end as usize).then_some(NodeId(id as u32))
    }
}

impl Iterator for Children {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.next < self.end {
            self.next += 1;
            Some(NodeId(self.next - 1))
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Children {
    #[inline]
    fn next_back(&mut self) -> Option<NodeId> {
        (self.next < self.end).then(|| {
            self.end -= 1;
            NodeId(self.end)
        })
    }
}

impl ExactSizeIterator for Children {}

/// Struct of arrays; node `i` is described by element `i` of every array.
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    pos: Vec<G::Position>,
    hash: Vec<u64>,
    state: Vec<NodeState>,
    /// The player who chose the action into this node; `value_sum` is from this view.
    mover: Vec<Player>,
    /// The player to move at this node (valid once the position is computed).
    side: Vec<Player>,
    action: Vec<Action>,
    /// Whether the move into this node was irreversible (clears the repetition window).
    irreversible: Vec<bool>,
    prior: Vec<f32>,
    visits: Vec<u32>,
    value_sum: Vec<f32>,
    in_flight: Vec<u32>,
    /// The children of node `i` are `first_child[i] .. first_child[i] + num_children[i]`; a
    /// node that is not expanded has none (`num_children` 0, whatever `first_child` says).
    first_child: Vec<u32>,
    num_children: Vec<u8>,
    /// Exact value for the player to move, at terminal nodes.
    terminal_value: Vec<f32>,
    /// The evaluator's value for the player to move, once evaluated (Gumbel's v_mix needs the
    /// root's own evaluation, also after the root moved down by tree reuse).
    raw_value: Vec<f32>,
    /// Proven bounds on the node's utility under best play, from its mover's view (as
    /// `value_sum`): [`UNKNOWN`] until the solver narrows them, equal once solved.
    lower: Vec<f32>,
    upper: Vec<f32>,
    /// The minimax of the evaluations below the node (its own until a child has one), from its
    /// mover's view; NaN before the node is evaluated (implicit minimax backups).
    minimax: Vec<f32>,
}

/// The bounds of a node nothing is proven about: every utility lies in [-1, 1].
pub const UNKNOWN: (f32, f32) = (-1.0, 1.0);

/// Reading a node.
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
            lower: Vec::with_capacity(n),
            upper: Vec::with_capacity(n),
            minimax: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    /// Every node, the root first.
    pub fn node_ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + Clone {
        (0..self.len() as u32).map(NodeId)
    }

    /// The position at `node` (once its state is no longer [`NodeState::Fresh`]).
    #[inline]
    pub fn position(&self, node: NodeId) -> &G::Position {
        &self.pos[node.idx()]
    }

    #[inline]
    pub fn hash(&self, node: NodeId) -> u64 {
        self.hash[node.idx()]
    }

    #[inline]
    pub fn state(&self, node: NodeId) -> NodeState {
        self.state[node.idx()]
    }

    /// The player who chose the action into `node`; [`Tree::value_sum`] is from this view.
    #[inline]
    pub fn mover(&self, node: NodeId) -> Player {
        self.mover[node.idx()]
    }

    /// The player to move at `node` (once its position is computed).
    #[inline]
    pub fn side(&self, node: NodeId) -> Player {
        self.side[node.idx()]
    }

    /// The action that leads into `node` (0 at a root).
    #[inline]
    pub fn action(&self, node: NodeId) -> Action {
        self.action[node.idx()]
    }

    /// Whether the move into `node` was irreversible (it clears the repetition window).
    #[inline]
    pub fn irreversible(&self, node: NodeId) -> bool {
        self.irreversible[node.idx()]
    }

    #[inline]
    pub fn prior(&self, node: NodeId) -> f32 {
        self.prior[node.idx()]
    }

    #[inline]
    pub fn visits(&self, node: NodeId) -> u32 {
        self.visits[node.idx()]
    }

    /// Sum of the values backed up through `node`, from its mover's view.
    #[inline]
    pub fn value_sum(&self, node: NodeId) -> f32 {
        self.value_sum[node.idx()]
    }

    /// Leaves below `node` handed to the evaluator and not applied yet.
    #[inline]
    pub fn in_flight(&self, node: NodeId) -> u32 {
        self.in_flight[node.idx()]
    }

    /// Exact value for the player to move, at a terminal node.
    #[inline]
    pub fn terminal_value(&self, node: NodeId) -> f32 {
        self.terminal_value[node.idx()]
    }

    /// The evaluator's value for the player to move, once evaluated.
    #[inline]
    pub fn raw_value(&self, node: NodeId) -> f32 {
        self.raw_value[node.idx()]
    }

    /// Proven bounds (lower, upper) on the utility of `node` under best play, from its
    /// mover's view, as [`Tree::value_sum`]; [`UNKNOWN`] where nothing is proven. Only a
    /// search with the solver on narrows them above terminal nodes.
    #[inline]
    pub fn bounds(&self, node: NodeId) -> (f32, f32) {
        (self.lower[node.idx()], self.upper[node.idx()])
    }

    /// [`Tree::bounds`] from the view of the player to move at `node`.
    #[inline]
    pub fn bounds_for_side(&self, node: NodeId) -> (f32, f32) {
        let (lo, hi) = self.bounds(node);
        if self.side[node.idx()] == self.mover[node.idx()] { (lo, hi) } else { (-hi, -lo) }
    }

    /// Whether the utility of `node` under best play is known exactly (a finished game, or
    /// every line below it decided).
    #[inline]
    pub fn is_solved(&self, node: NodeId) -> bool {
        self.lower[node.idx()] >= self.upper[node.idx()]
    }

    /// The minimax of the evaluations in the subtree of `node` (exact at finished games),
    /// from its mover's view, as [`Tree::value_sum`]; None before `node` is evaluated. Kept
    /// only by a search with a minimax weight.
    #[inline]
    pub fn minimax(&self, node: NodeId) -> Option<f32> {
        let v = self.minimax[node.idx()];
        (!v.is_nan()).then_some(v)
    }

    /// The children of `node`, in the order of their actions.
    #[inline]
    pub fn children(&self, node: NodeId) -> Children {
        let i = node.idx();
        let next = self.first_child[i];
        Children { next, end: next + u32::from(self.num_children[i]) }
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

/// Changing the tree: only the search does.
impl<G: Game> Tree<G> {
    pub(crate) fn clear(&mut self) {
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
        self.lower.clear();
        self.upper.clear();
        self.minimax.clear();
    }

    /// Appends a node without children and returns its id.
    pub(crate) fn push(
        &mut self,
        pos: G::Position,
        state: NodeState,
        mover: Player,
        side: Player,
        action: Action,
        prior: f32,
    ) -> NodeId {
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
        self.first_child.push(0);
        self.num_children.push(0);
        self.terminal_value.push(0.0);
        self.raw_value.push(0.0);
        self.lower.push(UNKNOWN.0);
        self.upper.push(UNKNOWN.1);
        self.minimax.push(f32::NAN);
        id
    }

    /// Appends node `from` of `other`, without its children and with nothing in flight.
    fn push_copy(&mut self, other: &Tree<G>, from: NodeId) -> NodeId {
        let id = NodeId(self.state.len() as u32);
        let from = from.idx();
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
        self.first_child.push(0);
        self.num_children.push(0);
        self.terminal_value.push(other.terminal_value[from]);
        self.raw_value.push(other.raw_value[from]);
        self.lower.push(other.lower[from]);
        self.upper.push(other.upper[from]);
        self.minimax.push(other.minimax[from]);
        id
    }

    /// Replaces this tree by the subtree of `other` under `top`, copied breadth first with
    /// `top` as root; a leaf that was pending in `other` waits for its evaluation again.
    /// `queue` is scratch space: (node in `other`, its copy here).
    pub(crate) fn copy_subtree(&mut self, other: &Tree<G>, top: NodeId, queue: &mut Vec<(NodeId, NodeId)>) {
        self.clear();
        queue.clear();
        let root = self.push_copy(other, top);
        queue.push((top, root));
        let mut head = 0;
        while head < queue.len() {
            let (o, n) = queue[head];
            head += 1;
            if self.state(n) == NodeState::Pending {
                self.state[n.idx()] = NodeState::Unevaluated;
            }
            let kids = other.children(o);
            if kids.is_empty() {
                continue;
            }
            let first = self.len() as u32;
            for oc in kids {
                let id = self.push_copy(other, oc);
                queue.push((oc, id));
            }
            self.first_child[n.idx()] = first;
            self.num_children[n.idx()] = other.num_children[o.idx()];
        }
    }

    #[inline]
    pub(crate) fn set_state(&mut self, node: NodeId, state: NodeState) {
        self.state[node.idx()] = state;
    }

    /// Records the position a node stands for (computed from its parent, or a new root):
    /// exact `terminal` value for the player to move if the game is over there.
    pub(crate) fn set_position(
        &mut self,
        node: NodeId,
        pos: G::Position,
        hash: u64,
        side: Player,
        irreversible: bool,
        terminal: Option<f32>,
    ) {
        let i = node.idx();
        self.pos[i] = pos;
        self.hash[i] = hash;
        self.side[i] = side;
        self.irreversible[i] = irreversible;
        match terminal {
            Some(v) => {
                self.state[i] = NodeState::Terminal;
                self.terminal_value[i] = v;
                let own = if side == self.mover[i] { v } else { -v };
                self.lower[i] = own;
                self.upper[i] = own;
                self.minimax[i] = own;
            }
            None => self.state[i] = NodeState::Unevaluated,
        }
    }

    /// Creates the children of `node`, one per `(action, prior)`, all fresh, and marks
    /// `node` expanded with the evaluator's `value`.
    #[inline]
    pub(crate) fn expand(&mut self, node: NodeId, value: f32, children: impl IntoIterator<Item = (Action, f32)>) {
        let i = node.idx();
        let pos = self.pos[i];
        let side = self.side[i];
        let first = self.len();
        for (a, p) in children {
            self.push(pos, NodeState::Fresh, side, side, a, p);
        }
        self.first_child[i] = first as u32;
        self.num_children[i] = (self.len() - first) as u8;
        self.state[i] = NodeState::Expanded;
        self.raw_value[i] = value;
        self.minimax[i] = if side == self.mover[i] { value } else { -value };
    }

    /// Recomputes the minimax of expanded `node` from its children's (its own evaluation
    /// while no child has one); returns whether it changed.
    #[inline]
    pub(crate) fn update_minimax(&mut self, node: NodeId) -> bool {
        let i = node.idx();
        let mut best = f32::NEG_INFINITY;
        for c in self.children(node) {
            let v = self.minimax[c.idx()];
            if v > best {
                best = v;
            }
        }
        let side_view = if best == f32::NEG_INFINITY { self.raw_value[i] } else { best };
        let own = if self.side[i] == self.mover[i] { side_view } else { -side_view };
        let changed = own != self.minimax[i];
        self.minimax[i] = own;
        changed
    }

    /// Sets the proven bounds of `node`, from its mover's view.
    #[inline]
    pub(crate) fn set_bounds(&mut self, node: NodeId, lower: f32, upper: f32) {
        self.lower[node.idx()] = lower;
        self.upper[node.idx()] = upper;
    }

    #[inline]
    pub(crate) fn set_prior(&mut self, node: NodeId, prior: f32) {
        self.prior[node.idx()] = prior;
    }

    /// One more visit through `node`, worth `value` from its mover's view.
    #[inline]
    pub(crate) fn add_visit(&mut self, node: NodeId, value: f32) {
        self.visits[node.idx()] += 1;
        self.value_sum[node.idx()] += value;
    }

    #[inline]
    pub(crate) fn add_in_flight(&mut self, node: NodeId) {
        self.in_flight[node.idx()] += 1;
    }

    #[inline]
    pub(crate) fn remove_in_flight(&mut self, node: NodeId) {
        self.in_flight[node.idx()] -= 1;
    }
}
