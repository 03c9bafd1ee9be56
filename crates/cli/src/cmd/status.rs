//! `mancala-zero status`: what a run is doing, from its store.

use anyhow::Context;
use mancala_store::Store;
use mancala_train::Run;

/// Arguments of `mancala-zero status`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run's store: a directory, s3://BUCKET/PREFIX (AWS_* variables) or memory://NAME.
    #[arg(long)]
    pub store: String,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let store = Store::open(&args.store)?;
    let run = Run::open(store).with_context(|| format!("opening the run in {}", args.store))?;
    let status = mancala_train::status(&run)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        print!("{status}");
    }
    Ok(())
}
