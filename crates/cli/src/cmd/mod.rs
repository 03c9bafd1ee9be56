//! One module a subcommand, each with its own `Args` and `run`.

pub mod arena;
pub mod bench;
pub mod calibrate;
pub mod engine;
pub mod export;
pub mod games;
pub mod play;
pub mod plot;
pub mod report;
pub mod serve;
pub mod status;
pub mod tablebase;
pub mod train;
pub mod worker;

/// Role lines of `train` and `worker` on stdout; with `quiet`, only warnings.
pub struct Lines {
    pub quiet: bool,
}

impl mancala_train::Reporter for Lines {
    fn line(&self, text: &str) {
        if !self.quiet || text.starts_with("warning") {
            println!("{text}");
        }
    }
}
