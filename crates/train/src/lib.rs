//! The training roles of mancala-zero over a run's store: self-play workers, the trainer,
//! the gatekeeper and the evaluator, each a restartable loop over small stage functions that
//! talk only through the store (a local directory, S3 or memory); `train` runs them all as
//! threads of one process, and `status` reads what a run is doing.

pub mod config;
pub mod endgame;
pub mod error;
pub mod layout;
pub mod local;
pub mod metrics;
pub mod roles;
pub mod run;
pub mod status;

pub use config::{BASE_CONFIG, DEFAULT_SHIPPED, RunConfig, SHIPPED};
pub use error::TrainError;
pub use layout::{BestPointer, RunInfo};
pub use local::{Extend, Summary, TrainOptions, resume, start, summarise, train};
pub use roles::worker::{WorkerOptions, WorkerReport, run_worker};
pub use roles::{Ctl, Quiet, Reporter};
pub use run::Run;
pub use status::{Status, status};

/// A default run name: `<game>-<UTC date and time>`.
pub fn default_run_name(game: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{game}-{y:04}{m:02}{d:02}-{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 to a Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
