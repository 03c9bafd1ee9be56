//! `mancala-zero play` (not built yet).

/// Arguments of `mancala-zero play`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("'mancala-zero play' is not available in this build yet")
}
