//! `mancala-zero engine`: the text protocol of docs/protocol.md on stdin/stdout.
//!
//! - `protocol.rs`: framing (`[id] name [args]`, `=`/`?` answers) and the read loop.
//! - `commands.rs`: the [`Engine`] and what every command does.
//! - `settings.rs`: the search settings that `set KEY VALUE` changes, with their checks.
//! - `clock.rs`: time controls (a fixed time a move, a clock with an increment).
//! - `guides.rs`: what guides the search in each game ([`Guides`]); the player itself is
//!   built by `mancala_agents::build_player`, as in every other front-end.

mod clock;
mod commands;
mod guides;
mod protocol;
mod settings;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

pub use commands::Engine;
pub use guides::Guides;
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
or with random rollouts (other rules, or --no-model), built as the `net` and `mcts` agents are.
`set` changes, for the next genmove or analyze: simulations N (default 1000, at most the cap
MAX_SIMULATIONS = 1000000), movetime MS (a fixed time a move instead; 0: off), temperature T
(default 0: the best move: with a network the best-valued of the well-visited moves, with
rollouts the most visited; else 0.05 to 100, sampling by visits^(1/T)), seed N (default 0: the
same seed and commands give the same moves), threads N (1 to 256: threads that evaluate each
batch of leaves). `time_settings MAIN_MS INC_MS` starts a clock with an increment,
`time_left SIDE MS` corrects it; `position LINE` sets a position in the format it prints.";

pub fn run(args: Args) -> anyhow::Result<()> {
    let guides = Guides::new(args.model.as_deref(), args.no_model)?;
    let game = mancala_rules::parse_rules(&args.game).with_context(|| format!("bad --game '{}'", args.game))?;
    let engine = Engine::new(game, guides)?;
    // The protocol owns stdout; a one-line greeting on stderr tells a human what is running.
    eprintln!("mancala-zero {} engine: {}", env!("CARGO_PKG_VERSION"), engine.describe());
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    serve(engine, stdin, &mut stdout)?;
    stdout.flush()?;
    Ok(())
}
