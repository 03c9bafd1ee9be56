//! `mancala-zero tablebase` (not built yet).

/// Arguments of `mancala-zero tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero tablebase' is not available in this build yet")
}
