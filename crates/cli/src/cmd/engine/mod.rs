//! `mancala-zero engine`: the text protocol of PROTOCOL.md on stdin/stdout.
//!
//! - `protocol.rs`: framing (`[id] name [args]`, `=`/`?` answers) and the read loop.
//! - `commands.rs`: the [`Engine`] and what every command does.
//! - `settings.rs`: the search settings that `set KEY VALUE` changes, with their checks.
//! - `evaluators.rs`: where the search's evaluator comes from ([`EvaluatorSource`]); the
//!   protocol code never knows whether rollouts or a network judge positions.

mod commands;
mod evaluators;
mod protocol;
mod settings;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

pub use commands::Engine;
pub use evaluators::{EvaluatorSource, RolloutSource};
pub use protocol::serve;

/// Arguments of `mancala-zero engine`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The game at start (a rules string: `oware`, `kalah:6,6`, `"oware grand_slam=capture-all"`);
    /// the `game` command changes it.
    #[arg(long, default_value = "oware", value_name = "PRESET")]
    pub game: String,
    /// A trained network to judge positions with; without one the engine searches with random
    /// rollouts.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
}

const AFTER_HELP: &str = "\
The protocol (PROTOCOL.md): one command a line, `[id] name [args]`; answers `=[id] result` or
`?[id] message`, each followed by an empty line. `list_commands` lists the commands.

Search: MCTS with random rollouts unless --model is given. `set` changes, for the next
genmove or analyze: simulations N (default 1000, at most 1000000), temperature T (default 0:
the most visited move; else 0.05 to 100, sampling by visits^(1/T)), seed N (default 0: the
same seed and commands give the same moves), threads N (accepted, 1 to 1024; the search runs
on one thread in this build).";

pub fn run(args: Args) -> anyhow::Result<()> {
    let source = evaluator_source(&args)?;
    let game = mancala_rules::parse_rules(&args.game).with_context(|| format!("bad --game '{}'", args.game))?;
    let engine = Engine::new(game, source)?;
    // The protocol owns stdout; a one-line greeting on stderr tells a human what is running.
    eprintln!("mancala-zero {} engine: {}", env!("CARGO_PKG_VERSION"), engine.describe());
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    serve(engine, stdin, &mut stdout)?;
    stdout.flush()?;
    Ok(())
}

/// The evaluator source the arguments ask for.
fn evaluator_source(args: &Args) -> anyhow::Result<Box<dyn EvaluatorSource>> {
    match &args.model {
        // The network issue fills this in: a source that loads the file once and hands out
        // evaluators over it.
        Some(path) => anyhow::bail!("models are not supported in this build yet (--model {})", path.display()),
        None => Ok(Box::new(RolloutSource)),
    }
}
