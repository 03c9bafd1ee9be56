//! The search tree: preallocated arrays (as in mctx), so a search allocates only when the
//! tree outgrows its capacity: one hot record a [`NodeId`], and the position, hash and cold
//! record of each node that has been materialized. The arrays are private: other crates read
//! a node through methods, and only the search in this crate changes one.

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

/// What selection, expansion and backup read and write of a node, kept together so that a
/// step down the tree touches one record per node, and a node's children, which are
/// consecutive, lie in a few cache lines (a struct of arrays spread a node over a line an
/// array, and the descent waited on memory).
#[derive(Clone, Copy, Debug)]
struct Node {
    visits: u32,
    /// Leaves below the node handed to the evaluator and not applied yet.
    in_flight: u32,
    /// Sum of the values backed up through the node, from its mover's view.
    value_sum: f32,
    prior: f32,
    /// The children are `first_child .. first_child + num_children`; a node that is not
    /// expanded has none (`num_children` 0, whatever `first_child` says).
    first_child: u32,
    num_children: u8,
    state: NodeState,
    /// The player who chose the action into this node; `value_sum` is from this view.
    mover: Player,
    /// The player to move at this node (valid once the position is computed).
    side: Player,
    action: Action,
    /// Whether the move into this node was irreversible (clears the repetition window).
    irreversible: bool,
    /// Where the node's position, hash and [`Exact`] record are, once it is materialized;
    /// [`NO_SLOT`] while it is fresh.
    slot: u32,
}

// A node record is 32 bytes, two to a 64-byte line: a field added here costs every step
// down a tree.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// The slot of a fresh node: most nodes of a tree are children never visited, and they hold
/// no position, hash or exact record, so that expanding a node writes only its children's
/// hot records and tree reuse copies only those.
const NO_SLOT: u32 = u32::MAX;

/// What only finished games, the solver, implicit minimax and Gumbel's root read.
#[derive(Clone, Copy, Debug)]
struct Exact {
    /// Exact value for the player to move, at terminal nodes.
    terminal_value: f32,
    /// The evaluator's value for the player to move, once evaluated (Gumbel's v_mix needs the
    /// root's own evaluation, also after the root moved down by tree reuse).
    raw_value: f32,
    /// Proven bounds on the node's utility under best play, from its mover's view (as
    /// `value_sum`): [`UNKNOWN`] until the solver narrows them, equal once solved.
    lower: f32,
    upper: f32,
    /// The minimax of the evaluations below the node (its own until a child has one), from its
    /// mover's view; NaN before the node is evaluated (implicit minimax backups).
    minimax: f32,
}

impl Exact {
    const NEW: Exact =
        Exact { terminal_value: 0.0, raw_value: 0.0, lower: UNKNOWN.0, upper: UNKNOWN.1, minimax: f32::NAN };
}

/// Node `i` is element `i` of `node`, its hot record; a materialized node's position, hash
/// and cold record are element `slot` of the other three (positions are large and read only
/// where a node is materialized or evaluated, and most nodes never are).
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    node: Vec<Node>,
    exact: Vec<Exact>,
    pos: Vec<G::Position>,
    hash: Vec<u64>,
}

/// The bounds of a node nothing is proven about: every utility lies in [-1, 1].
pub const UNKNOWN: (f32, f32) = (-1.0, 1.0);

/// Reading a node.
impl<G: Game> Tree<G> {
    pub fn with_capacity(n: usize) -> Self {
        Tree {
            node: Vec::with_capacity(n),
            exact: Vec::with_capacity(n),
            pos: Vec::with_capacity(n),
            hash: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.node.len()
    }

    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// Every node, the root first.
    pub fn node_ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + Clone {
        (0..self.len() as u32).map(NodeId)
    }

    /// The position at `node`.
    ///
    /// # Panics
    /// While `node` is [`NodeState::Fresh`]: its position is not computed yet.
    #[inline]
    pub fn position(&self, node: NodeId) -> &G::Position {
        &self.pos[self.slot(node)]
    }

    /// The hash of [`Tree::position`] (with the same panic).
    #[inline]
    pub fn hash(&self, node: NodeId) -> u64 {
        self.hash[self.slot(node)]
    }

    /// The slot of a materialized node.
    #[inline]
    fn slot(&self, node: NodeId) -> usize {
        let slot = self.node[node.idx()].slot;
        assert!(slot != NO_SLOT, "node {node} is fresh: it has no position yet");
        slot as usize
    }

    /// The cold record of `node`; a fresh node's is the one every node starts with.
    #[inline]
    fn exact(&self, node: NodeId) -> Exact {
        match self.node[node.idx()].slot {
            NO_SLOT => Exact::NEW,
            slot => self.exact[slot as usize],
        }
    }

    /// The cold record of a materialized node, to change.
    #[inline]
    fn exact_mut(&mut self, node: NodeId) -> &mut Exact {
        let slot = self.slot(node);
        &mut self.exact[slot]
    }

    #[inline]
    pub fn state(&self, node: NodeId) -> NodeState {
        self.node[node.idx()].state
    }

    /// The player who chose the action into `node`; [`Tree::value_sum`] is from this view.
    #[inline]
    pub fn mover(&self, node: NodeId) -> Player {
        self.node[node.idx()].mover
    }

    /// The player to move at `node` (once its position is computed).
    #[inline]
    pub fn side(&self, node: NodeId) -> Player {
        self.node[node.idx()].side
    }

    /// The action that leads into `node` (0 at a root).
    #[inline]
    pub fn action(&self, node: NodeId) -> Action {
        self.node[node.idx()].action
    }

    /// Whether the move into `node` was irreversible (it clears the repetition window).
    #[inline]
    pub fn irreversible(&self, node: NodeId) -> bool {
        self.node[node.idx()].irreversible
    }

    #[inline]
    pub fn prior(&self, node: NodeId) -> f32 {
        self.node[node.idx()].prior
    }

    #[inline]
    pub fn visits(&self, node: NodeId) -> u32 {
        self.node[node.idx()].visits
    }

    /// Sum of the values backed up through `node`, from its mover's view.
    #[inline]
    pub fn value_sum(&self, node: NodeId) -> f32 {
        self.node[node.idx()].value_sum
    }

    /// Leaves below `node` handed to the evaluator and not applied yet.
    #[inline]
    pub fn in_flight(&self, node: NodeId) -> u32 {
        self.node[node.idx()].in_flight
    }

    /// Exact value for the player to move, at a terminal node.
    #[inline]
    pub fn terminal_value(&self, node: NodeId) -> f32 {
        self.exact(node).terminal_value
    }

    /// The evaluator's value for the player to move, once evaluated.
    #[inline]
    pub fn raw_value(&self, node: NodeId) -> f32 {
        self.exact(node).raw_value
    }

    /// Proven bounds (lower, upper) on the utility of `node` under best play, from its
    /// mover's view, as [`Tree::value_sum`]; [`UNKNOWN`] where nothing is proven. Only a
    /// search with the solver on narrows them above terminal nodes.
    #[inline]
    pub fn bounds(&self, node: NodeId) -> (f32, f32) {
        let e = self.exact(node);
        (e.lower, e.upper)
    }

    /// [`Tree::bounds`] from the view of the player to move at `node`.
    #[inline]
    pub fn bounds_for_side(&self, node: NodeId) -> (f32, f32) {
        let (lo, hi) = self.bounds(node);
        let n = &self.node[node.idx()];
        if n.side == n.mover { (lo, hi) } else { (-hi, -lo) }
    }

    /// Whether the utility of `node` under best play is known exactly (a finished game, or
    /// every line below it decided).
    #[inline]
    pub fn is_solved(&self, node: NodeId) -> bool {
        let e = self.exact(node);
        e.lower >= e.upper
    }

    /// The minimax of the evaluations in the subtree of `node` (exact at finished games),
    /// from its mover's view, as [`Tree::value_sum`]; None before `node` is evaluated. Kept
    /// only by a search with a minimax weight.
    #[inline]
    pub fn minimax(&self, node: NodeId) -> Option<f32> {
        let v = self.exact(node).minimax;
        (!v.is_nan()).then_some(v)
    }

    /// The children of `node`, in the order of their actions.
    #[inline]
    pub fn children(&self, node: NodeId) -> Children {
        let n = &self.node[node.idx()];
        Children { next: n.first_child, end: n.first_child + u32::from(n.num_children) }
    }

    /// Mean value of `node` from the view of the player to move there.
    #[inline]
    pub fn value_for_side(&self, node: NodeId) -> Option<f32> {
        let n = &self.node[node.idx()];
        if n.visits == 0 {
            return None;
        }
        let q = n.value_sum / n.visits as f32;
        Some(if n.side == n.mover { q } else { -q })
    }
}

/// Changing the tree: only the search does.
impl<G: Game> Tree<G> {
    pub(crate) fn clear(&mut self) {
        self.node.clear();
        self.exact.clear();
        self.pos.clear();
        self.hash.clear();
    }

    /// Appends a fresh node without children and returns its id.
    fn push_fresh(&mut self, mover: Player, side: Player, action: Action, prior: f32) -> NodeId {
        let id = NodeId(self.node.len() as u32);
        self.node.push(Node {
            visits: 0,
            in_flight: 0,
            value_sum: 0.0,
            prior,
            first_child: 0,
            num_children: 0,
            state: NodeState::Fresh,
            mover,
            side,
            action,
            irreversible: false,
            slot: NO_SLOT,
        });
        id
    }

    /// Appends a root: a node without children whose position is set next
    /// ([`Tree::set_position`]).
    pub(crate) fn push_root(&mut self, side: Player) -> NodeId {
        self.push_fresh(side, side, 0, 1.0)
    }

    /// Gives fresh `node` a slot and returns it.
    fn new_slot(&mut self, node: NodeId, pos: G::Position) -> usize {
        let slot = self.pos.len();
        self.exact.push(Exact::NEW);
        self.pos.push(pos);
        self.hash.push(0);
        self.node[node.idx()].slot = slot as u32;
        slot
    }

    /// Appends node `from` of `other`, without its children and with nothing in flight.
    fn push_copy(&mut self, other: &Tree<G>, from: NodeId) -> NodeId {
        let id = NodeId(self.node.len() as u32);
        let hot = other.node[from.idx()];
        let slot = match hot.slot {
            NO_SLOT => NO_SLOT,
            s => {
                let s = s as usize;
                self.exact.push(other.exact[s]);
                self.pos.push(other.pos[s]);
                self.hash.push(other.hash[s]);
                (self.pos.len() - 1) as u32
            }
        };
        self.node.push(Node { in_flight: 0, first_child: 0, num_children: 0, slot, ..hot });
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
                self.node[n.idx()].state = NodeState::Unevaluated;
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
            let copy = &mut self.node[n.idx()];
            copy.first_child = first;
            copy.num_children = other.node[o.idx()].num_children;
        }
    }

    #[inline]
    pub(crate) fn set_state(&mut self, node: NodeId, state: NodeState) {
        self.node[node.idx()].state = state;
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
        let slot = match self.node[node.idx()].slot {
            NO_SLOT => self.new_slot(node, pos),
            s => s as usize,
        };
        self.pos[slot] = pos;
        self.hash[slot] = hash;
        let n = &mut self.node[node.idx()];
        n.side = side;
        n.irreversible = irreversible;
        match terminal {
            Some(v) => {
                n.state = NodeState::Terminal;
                let own = if side == n.mover { v } else { -v };
                let e = &mut self.exact[slot];
                *e = Exact { terminal_value: v, lower: own, upper: own, minimax: own, ..*e };
            }
            None => n.state = NodeState::Unevaluated,
        }
    }

    /// Creates the children of `node`, one per `(action, prior)`, all fresh, and marks
    /// `node` expanded with the evaluator's `value`.
    #[inline]
    pub(crate) fn expand(&mut self, node: NodeId, value: f32, children: impl IntoIterator<Item = (Action, f32)>) {
        let i = node.idx();
        let side = self.node[i].side;
        let first = self.len();
        for (a, p) in children {
            self.push_fresh(side, side, a, p);
        }
        let count = (self.node.len() - first) as u8;
        let n = &mut self.node[i];
        n.first_child = first as u32;
        n.num_children = count;
        n.state = NodeState::Expanded;
        let own = if side == n.mover { value } else { -value };
        let e = self.exact_mut(node);
        e.raw_value = value;
        e.minimax = own;
    }

    /// Recomputes the minimax of expanded `node` from its children's (its own evaluation
    /// while no child has one); returns whether it changed.
    #[inline]
    pub(crate) fn update_minimax(&mut self, node: NodeId) -> bool {
        let i = node.idx();
        let mut best = f32::NEG_INFINITY;
        for c in self.children(node) {
            let v = self.exact(c).minimax;
            if v > best {
                best = v;
            }
        }
        let own_side = self.node[i].side == self.node[i].mover;
        let e = self.exact_mut(node);
        let side_view = if best == f32::NEG_INFINITY { e.raw_value } else { best };
        let own = if own_side { side_view } else { -side_view };
        let changed = own != e.minimax;
        e.minimax = own;
        changed
    }

    /// Sets the proven bounds of `node`, from its mover's view.
    #[inline]
    pub(crate) fn set_bounds(&mut self, node: NodeId, lower: f32, upper: f32) {
        let e = self.exact_mut(node);
        e.lower = lower;
        e.upper = upper;
    }

    #[inline]
    pub(crate) fn set_prior(&mut self, node: NodeId, prior: f32) {
        self.node[node.idx()].prior = prior;
    }

    /// One more visit through `node`, worth `value` from its mover's view.
    #[inline]
    pub(crate) fn add_visit(&mut self, node: NodeId, value: f32) {
        let n = &mut self.node[node.idx()];
        n.visits += 1;
        n.value_sum += value;
    }

    #[inline]
    pub(crate) fn add_in_flight(&mut self, node: NodeId) {
        self.node[node.idx()].in_flight += 1;
    }

    #[inline]
    pub(crate) fn remove_in_flight(&mut self, node: NodeId) {
        self.node[node.idx()].in_flight -= 1;
    }
}
