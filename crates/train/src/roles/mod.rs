//! The roles of a run, each a loop over small stage functions that talk only through the
//! store: self-play workers, the trainer, the gatekeeper and the evaluator. A role killed
//! between any two lines loses at most the piece of work in hand.

pub mod evaluator;
pub mod gatekeeper;
pub mod trainer;
pub mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::TrainError;

/// Where roles report: one line at a time, from any thread.
pub trait Reporter: Send + Sync {
    fn line(&self, text: &str);
}

/// Reports nothing.
pub struct Quiet;

impl Reporter for Quiet {
    fn line(&self, _: &str) {}
}

/// What a role is told while it runs: stop now, or finish the work in hand and stop
/// (drain), and where to report.
pub struct Ctl<'a> {
    pub stop: AtomicBool,
    pub drain: AtomicBool,
    pub reporter: &'a dyn Reporter,
    /// How long an idle role waits before it looks at the store again.
    pub poll: Duration,
}

impl<'a> Ctl<'a> {
    pub fn new(reporter: &'a dyn Reporter) -> Self {
        Ctl { stop: AtomicBool::new(false), drain: AtomicBool::new(false), reporter, poll: Duration::from_millis(500) }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn draining(&self) -> bool {
        self.drain.load(Ordering::Relaxed)
    }

    /// Waits one poll interval, waking early when told to stop.
    pub fn idle(&self) {
        let step = Duration::from_millis(50);
        let mut waited = Duration::ZERO;
        while waited < self.poll && !self.stopped() {
            std::thread::sleep(step);
            waited += step;
        }
    }

    /// Runs a store step again while it fails for a reason that may pass (the service is
    /// briefly unreachable), waiting 1 s doubling to 30 s; anything else is returned.
    ///
    /// # Errors
    /// The first error a retry cannot mend, or the last one when the role is stopped.
    pub fn retry<T>(&self, role: &str, mut op: impl FnMut() -> Result<T, TrainError>) -> Result<T, TrainError> {
        let mut wait = Duration::from_secs(1);
        loop {
            match op() {
                Err(e) if e.is_transient() && !self.stopped() => {
                    self.reporter.line(&format!("warning: {role}: {e}; retrying in {} s", wait.as_secs()));
                    let until = std::time::Instant::now() + wait;
                    while std::time::Instant::now() < until && !self.stopped() {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    wait = (wait * 2).min(Duration::from_secs(30));
                }
                other => return other,
            }
        }
    }
}
