//! `bench fleet`: how many workers one trainer can serve. Simulated workers (threads) upload
//! realistic shards to a store as fast as they can, bounded in count, while the trainer's
//! own ingest stage takes them in; the figure is the ingest rate in training rows a second,
//! set beside what one real worker produces.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use burn::prelude::Device;
use mancala_store::Store;
use mancala_train::roles::{trainer, worker};
use mancala_train::{Ctl, Quiet, Run, RunConfig};

/// Arguments of `mancala-zero bench fleet`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An empty store for the simulated run: a directory, s3://BUCKET/PREFIX or memory://NAME.
    #[arg(long)]
    store: String,
    /// A shipped config whose shards are simulated.
    #[arg(long, default_value = "oware")]
    config: String,
    /// Simulated workers, each a thread uploading shards.
    #[arg(long, default_value = "64")]
    workers: usize,
    /// Shards each simulated worker uploads.
    #[arg(long, default_value = "4")]
    shards: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.workers == 0 || args.shards == 0 || args.workers * args.shards as usize > 100_000 {
        bail!("--workers and --shards must be at least 1, and their product at most 100000");
    }
    let text = RunConfig::shipped(&args.config)?;
    // A cheap search: the shard's size and row count follow the game, not the budget.
    let mut config = RunConfig::parse(text)?;
    config.selfplay.simulations = 16;
    config.selfplay.fast_simulations = 4;
    config.run.iterations = 1_000_000;
    let run = Run::create(Store::open(&args.store)?, &toml::to_string(&config)?)?;
    let model = run.load_best(&Device::flex())?;
    let shard =
        worker::play_shard(&run, &model, None, 2, 1, &AtomicBool::new(false))?.context("playing the sample shard")?;
    let (_, rows) = mancala_selfplay::parse_shard(std::path::Path::new("sample"), &shard.bytes, None)?;
    println!(
        "sample shard: {} games, {} positions, {} rows, {} bytes",
        shard.games,
        shard.positions,
        rows.len(),
        shard.bytes.len()
    );
    let total = args.workers as u64 * args.shards;
    let uploaded = AtomicBool::new(false);
    let ctl = Ctl::new(&Quiet);
    let mut state = trainer::restore(&run, &ctl)?;
    let (mut ingested, mut ingest_busy) = (0u64, 0.0f64);
    let begin = Instant::now();
    let upload_seconds = std::thread::scope(|s| -> anyhow::Result<f64> {
        let uploads = s.spawn(|| -> anyhow::Result<f64> {
            let t = Instant::now();
            std::thread::scope(|inner| -> anyhow::Result<()> {
                let handles: Vec<_> = (0..args.workers)
                    .map(|w| {
                        let (run, bytes) = (&run, &shard.bytes);
                        inner.spawn(move || -> anyhow::Result<()> {
                            for seq in 1..=args.shards {
                                worker::upload_shard(run, &format!("sim-{w:03}"), seq, bytes)?;
                            }
                            Ok(())
                        })
                    })
                    .collect();
                for h in handles {
                    h.join().expect("an uploader does not panic")?;
                }
                Ok(())
            })?;
            uploaded.store(true, Ordering::Relaxed);
            Ok(t.elapsed().as_secs_f64())
        });
        while ingested < total {
            let t = Instant::now();
            let found = trainer::ingest(&run, &mut state)?;
            if found.shards > 0 {
                ingest_busy += t.elapsed().as_secs_f64();
            }
            ingested += found.shards as u64;
            if !found.skipped.is_empty() {
                bail!("shards skipped: {:?}", found.skipped);
            }
            if found.shards == 0 && uploaded.load(Ordering::Relaxed) && ingested < total {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        uploads.join().expect("the uploads do not panic")
    })?;
    let wall = begin.elapsed().as_secs_f64();
    let rows_total = state.rows_ingested as f64;
    let upload_rate = total as f64 / upload_seconds;
    let ingest_rate = rows_total / ingest_busy.max(1e-9);
    println!(
        "{} simulated workers x {} shards: uploaded in {upload_seconds:.2} s ({upload_rate:.0} shards/s), all ingested after {wall:.2} s",
        args.workers, args.shards
    );
    println!(
        "trainer ingest: {:.0} rows/s while busy ({:.0} positions/s of self-play), {:.0} rows/s over the whole wall time",
        ingest_rate,
        ingest_rate * shard.positions as f64 / rows.len() as f64,
        rows_total / wall
    );
    println!(
        "divide the positions/s by one worker's (`bench selfplay`, or `status` of a run) for the workers one trainer can take in"
    );
    println!("ingest rows/s: {ingest_rate:.0}");
    Ok(())
}
