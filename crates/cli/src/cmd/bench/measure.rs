//! Repeating a piece of work for a time budget, and printing rates.

use std::time::{Duration, Instant};

/// Calls `work` until `budget` has passed and it ran at least `min_calls` times; returns the
/// number of calls and the time they took. `work` runs once more beforehand, untimed, so
/// first-call costs (allocation, caches, lazy set-up in burn) stay out of the figure.
pub fn repeat_for(budget: Duration, min_calls: u64, mut work: impl FnMut()) -> (u64, Duration) {
    work();
    let start = Instant::now();
    let mut calls = 0;
    loop {
        work();
        calls += 1;
        let elapsed = start.elapsed();
        if calls >= min_calls && elapsed >= budget {
            return (calls, elapsed);
        }
    }
}

/// `count / elapsed`, rounded down; 0 for an empty interval.
pub fn per_second(count: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        (count as f64 / secs) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_for_runs_the_minimum_and_warms_up_once() {
        let mut runs = 0;
        let (calls, _) = repeat_for(Duration::ZERO, 5, || runs += 1);
        assert_eq!(calls, 5);
        assert_eq!(runs, 6);
    }

    #[test]
    fn per_second_divides_by_the_interval() {
        assert_eq!(per_second(300, Duration::from_millis(1500)), 200);
        assert_eq!(per_second(7, Duration::ZERO), 0);
    }
}
