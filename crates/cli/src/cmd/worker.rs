//! `mancala-zero worker`: a self-play worker for a run in a store, on this or another
//! machine. It plays with the run's best model, uploads shards, and stops when the run ends.

use anyhow::Context;
use mancala_store::Store;
use mancala_train::{Ctl, Run, WorkerOptions, run_worker};

/// Arguments of `mancala-zero worker`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run's store: a directory, s3://BUCKET/PREFIX (AWS_* variables) or memory://NAME.
    #[arg(long)]
    pub store: String,
    /// Search threads (default: the run's selfplay.threads).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Names this worker's shards; restarted under the same id it continues its sequence.
    /// Default: HOSTNAME-PID.
    #[arg(long)]
    pub id: Option<String>,
    /// Stop after storing this many shards.
    #[arg(long)]
    pub max_shards: Option<u64>,
    /// Print only warnings and the summary.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let store = Store::open(&args.store)?;
    let run = Run::open(store).with_context(|| format!("opening the run in {}", args.store))?;
    let id = args.id.unwrap_or_else(default_id);
    if let Some(0) = args.threads {
        anyhow::bail!("--threads must be at least 1");
    }
    let opts = WorkerOptions {
        id: id.clone(),
        threads: args.threads.unwrap_or(run.config.selfplay.threads),
        max_shards: args.max_shards,
    };
    let lines = super::Lines { quiet: args.quiet };
    let ctl = Ctl::new(&lines);
    let report = run_worker(&run, &opts, &ctl).with_context(|| format!("worker {id} on {}", args.store))?;
    println!(
        "worker {id}: stored {} shards ({} games, {} positions); last model generation {}",
        report.stored.len(),
        report.games,
        report.positions,
        report.model_generation
    );
    Ok(())
}

fn default_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_default();
    let host: String = host.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    format!("{}-{}", if host.is_empty() { "worker" } else { &host }, std::process::id())
}
