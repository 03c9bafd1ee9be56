//! `mancala-zero arena` (not built yet).

/// Arguments of `mancala-zero arena`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero arena' is not available in this build yet")
}
