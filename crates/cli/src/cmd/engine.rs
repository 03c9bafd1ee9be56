//! `mancala-zero engine` (not built yet).

/// Arguments of `mancala-zero engine`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero engine' is not available in this build yet")
}
