//! Tree reuse: after a move the child it leads to becomes the root and keeps its subtree
//! with all its statistics (Silver et al. 2017, AlphaGo Zero); the rest is dropped.

use mancala_rules::{Action, Game};

use super::Search;
use crate::tree::{NodeId, NodeState};

impl<G: Game> Search<G> {
    /// Moves the root to the child reached by `action`, keeping its subtree (tree reuse).
    pub fn advance(&mut self, action: Action) {
        let root = NodeId::ROOT;
        let child = self.tree.children(root).find(|&c| self.tree.action(c) == action);
        let mut history = std::mem::take(&mut self.history);
        match child {
            Some(c) if matches!(self.tree.state(c), NodeState::Expanded | NodeState::Terminal) => {
                if self.tree.irreversible(c) {
                    history.clear();
                } else {
                    history.push(self.tree.hash(root));
                }
                self.reroot(c);
                self.history = history;
                self.new_move();
            }
            _ => {
                // Not searched yet: play the move here, with the cycle rule as `Line` and
                // `materialize` apply it (the window now ends with the old root).
                let mut pos = *self.tree.position(root);
                let sowing = self.game.play_unchecked(&mut pos, action);
                if sowing.irreversible {
                    history.clear();
                } else {
                    history.push(self.tree.hash(root));
                    if self.game.repetition_ends_game()
                        && !self.game.status(&pos).is_over()
                        && history.contains(&self.game.hash(&pos))
                    {
                        self.game.settle_cycle(&mut pos);
                    }
                }
                self.set_root(pos, history);
            }
        }
    }

    /// Makes the subtree under `top` the whole tree, with `top` as root: copied breadth
    /// first into `spare`, which then becomes `tree` (both keep their capacity).
    fn reroot(&mut self, top: NodeId) {
        let Search { tree, spare, copy_queue, .. } = self;
        spare.copy_subtree(tree, top, copy_queue);
        std::mem::swap(tree, spare);
    }
}
