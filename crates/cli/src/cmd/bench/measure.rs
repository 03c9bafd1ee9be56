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

/// Time the calling thread has spent on a CPU, where the system says (Linux:
/// `/proc/thread-self/schedstat`, whose first field is nanoseconds on the CPU).
///
/// On a shared machine a wall-clock rate falls whenever other work takes the core; the
/// thread's share of the wall time tells a reader how much to trust a figure.
pub fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Measures the calling thread's share of a stretch of wall time.
pub struct CpuShare {
    wall: Instant,
    cpu: Option<Duration>,
}

impl CpuShare {
    pub fn start() -> Self {
        CpuShare { wall: Instant::now(), cpu: thread_cpu_time() }
    }

    /// The line `cpu share: N% of the wall time`, or nothing where the system does not say.
    pub fn report(&self) -> Option<String> {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = thread_cpu_time()?.checked_sub(self.cpu?)?.as_secs_f64();
        (wall > 0.0)
            .then(|| format!("cpu share: {:.0}% of the wall time (other load slows the figures)", 100.0 * cpu / wall))
    }
}

/// `count / elapsed`, rounded down; 0 for an empty interval.
pub fn per_second(count: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { (count as f64 / secs) as u64 } else { 0 }
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
    fn the_cpu_share_of_a_busy_thread_is_a_percentage() {
        let share = CpuShare::start();
        let mut x = 0u64;
        let until = Instant::now() + Duration::from_millis(30);
        while Instant::now() < until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        // Where /proc is missing there is no line; where it is there, a percentage.
        if let Some(line) = share.report() {
            let pct: f64 = line.strip_prefix("cpu share: ").unwrap().split('%').next().unwrap().parse().unwrap();
            assert!((0.0..=101.0).contains(&pct), "{line}");
        }
    }

    #[test]
    fn per_second_divides_by_the_interval() {
        assert_eq!(per_second(300, Duration::from_millis(1500)), 200);
        assert_eq!(per_second(7, Duration::ZERO), 0);
    }
}
