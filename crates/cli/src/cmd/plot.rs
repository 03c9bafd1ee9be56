//! `mancala-zero plot` (not built yet).

/// Arguments of `mancala-zero plot`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero plot' is not available in this build yet")
}
