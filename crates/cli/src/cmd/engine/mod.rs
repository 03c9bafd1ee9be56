//! `mancala-zero engine`: the text protocol of docs/protocol.md on stdin/stdout.
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
pub use evaluators::{EvaluatorSource, ModelSource, RolloutSource};
pub use protocol::serve;

/// Arguments of `mancala-zero engine`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The game at start (a rules string: `oware`, `kalah:6,6`, `"oware grand_slam=capture-all"`);
    /// the `game` command changes it.
    #[arg(long, default_value = "oware", value_name = "PRESET")]
    pub game: String,
    /// A trained network to judge positions with (for its own game). Without one the engine
    /// uses the shipped network of the game (Oware, Kalah) or else random rollouts.
    #[arg(long, value_name = "FILE", conflicts_with = "no_model")]
    pub model: Option<PathBuf>,
    /// Search with random rollouts only, even where a shipped network exists.
    #[arg(long)]
    pub no_model: bool,
}

const AFTER_HELP: &str = "\
The protocol (docs/protocol.md): one command a line, `[id] name [args]`; answers `=[id] result` or
`?[id] message`, each followed by an empty line. `list_commands` lists the commands.

Search: MCTS guided by --model, or by the shipped network of the game (every preset has one),
or with random rollouts (other rules, or --no-model). `set` changes, for the next
genmove or analyze: simulations N (default 1000, at most 1000000), temperature T (default 0:
the best move: with a network the best-valued of the well-visited moves, with rollouts the
most visited; else 0.05 to 100, sampling by visits^(1/T)), seed N (default 0: the
same seed and commands give the same moves), threads N (accepted, 1 to 1024; the search runs
on one thread in this build).";

pub fn run(args: Args) -> anyhow::Result<()> {
    let source = evaluator_source(args.model.as_deref(), args.no_model)?;
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
pub fn evaluator_source(model: Option<&std::path::Path>, no_model: bool) -> anyhow::Result<Box<dyn EvaluatorSource>> {
    if no_model {
        return Ok(Box::new(RolloutSource));
    }
    if let Some(path) = model {
        // Read it now, so a bad file is reported before the protocol starts.
        mancala_nn::read_model_file(path).with_context(|| format!("--model {}", path.display()))?;
    }
    Ok(Box::new(ModelSource::new(model.map(std::path::Path::to_path_buf))))
}
