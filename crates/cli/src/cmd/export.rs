//! `mancala-zero export` (not built yet).

/// Arguments of `mancala-zero export`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero export' is not available in this build yet")
}
