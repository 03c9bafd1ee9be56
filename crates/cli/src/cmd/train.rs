//! `mancala-zero train` (not built yet).

/// Arguments of `mancala-zero train`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero train' is not available in this build yet")
}
