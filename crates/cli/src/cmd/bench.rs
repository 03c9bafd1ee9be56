//! `mancala-zero bench` (not built yet).

/// Arguments of `mancala-zero bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero bench' is not available in this build yet")
}
