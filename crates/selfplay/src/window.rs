//! The replay window: the most recent training rows, sampled uniformly into minibatches.

use std::collections::VecDeque;

use mancala_encoding::Batch;
use rand::RngExt;
use rand::rngs::SmallRng;

use crate::record::Row;

/// A bounded queue of rows; the oldest fall out as new ones arrive.
#[derive(Clone, Debug, Default)]
pub struct ReplayWindow {
    rows: VecDeque<Row>,
    capacity: usize,
}

impl ReplayWindow {
    pub fn new(capacity: usize) -> Self {
        ReplayWindow { rows: VecDeque::with_capacity(capacity.min(1 << 20)), capacity: capacity.max(1) }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes the size (the window grows with the run); drops the oldest rows if needed.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        while self.rows.len() > self.capacity {
            self.rows.pop_front();
        }
    }

    pub fn extend(&mut self, rows: impl IntoIterator<Item = Row>) {
        for r in rows {
            if self.rows.len() == self.capacity {
                self.rows.pop_front();
            }
            self.rows.push_back(r);
        }
    }

    /// Fills `batch` with `n` rows drawn uniformly (with replacement), their value targets
    /// taking `search_share` of the search's root value ([`Row::value_target`]).
    pub fn sample(&self, n: usize, search_share: f32, rng: &mut SmallRng, batch: &mut Batch) {
        batch.n = 0;
        batch.inputs.clear();
        batch.legal.clear();
        batch.policy.clear();
        batch.wdl.clear();
        batch.margin.clear();
        if self.rows.is_empty() {
            return;
        }
        for _ in 0..n {
            push_row(batch, &self.rows[rng.random_range(0..self.rows.len())], search_share);
        }
    }
}

/// Appends one row to `batch` (as [`ReplayWindow::sample`] does, and the trainer for rows
/// from elsewhere, such as the endgame feed).
pub fn push_row(batch: &mut Batch, r: &Row, search_share: f32) {
    batch.inputs.extend_from_slice(&r.inputs);
    for a in 0..r.policy.len() {
        batch.legal.push(if r.legal & (1u64 << a) != 0 { 1.0 } else { 0.0 });
    }
    batch.policy.extend_from_slice(&r.policy);
    batch.wdl.extend_from_slice(&r.value_target(search_share));
    batch.margin.push(r.margin);
    batch.n += 1;
}
