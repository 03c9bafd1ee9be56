//! `mancala-zero`: a thin binary over the crates. Each subcommand parses its arguments,
//! builds the settings, calls a library and reports; errors print their whole cause chain.

mod cmd;
mod shipped;

use clap::{Parser, Subcommand};

/// Self-play reinforcement learning for sowing games (Oware, Kalah, Ba-awa, Owela).
#[derive(Parser, Debug)]
#[command(name = "mancala-zero", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a player by self-play (no arguments: Oware on the embedded defaults).
    Train(cmd::train::Args),
    /// Run a self-play worker for a run in a store (another machine, or more processes).
    Worker(cmd::worker::Args),
    /// Show what a run is doing: candidates, best model and Elo, workers, ingest rate.
    Status(cmd::status::Args),
    /// Play against the engine in the terminal.
    Play(cmd::play::Args),
    /// Speak the engine text protocol on stdin/stdout.
    Engine(cmd::engine::Args),
    /// Play a match between two agents and rate them.
    Arena(cmd::arena::Args),
    /// Judge a model's value head on recorded games, by game phase.
    Calibrate(cmd::calibrate::Args),
    /// Measure speed: rules, search or network.
    Bench(cmd::bench::Args),
    /// Build or probe endgame databases.
    Tablebase(cmd::tablebase::Args),
    /// Write a run's best model as one self-describing file.
    Export(cmd::export::Args),
    /// List the games `--game NAME` takes: presets and the described catalogue.
    Games(cmd::games::Args),
    /// Balance report of a game: first-player wins, game length, single moves and scores
    /// against the references, measured with a trained player.
    Report(cmd::report::Args),
    /// Draw a run's Elo and loss curves to a PNG.
    Plot(cmd::plot::Args),
    /// Play and analyse in a browser: serve the page and its JSON API.
    Serve(cmd::serve::Args),
}

fn main() {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(a) => cmd::train::run(a),
        Command::Worker(a) => cmd::worker::run(a),
        Command::Status(a) => cmd::status::run(a),
        Command::Play(a) => cmd::play::run(a),
        Command::Engine(a) => cmd::engine::run(a),
        Command::Arena(a) => cmd::arena::run(a),
        Command::Calibrate(a) => cmd::calibrate::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Tablebase(a) => cmd::tablebase::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Games(a) => cmd::games::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Plot(a) => cmd::plot::run(a),
        Command::Serve(a) => cmd::serve::run(a),
    };
    if let Err(e) = result {
        let mut lines = error_lines(&e).into_iter();
        if let Some(first) = lines.next() {
            eprintln!("error: {first}");
        }
        for cause in lines {
            eprintln!("  caused by: {cause}");
        }
        std::process::exit(1);
    }
}

/// The messages of an error and its causes, less any cause whose text an earlier message
/// already holds: many errors name their cause in their own message (`model X: X is
/// truncated`), and the cause printed again under it only repeats it.
fn error_lines(e: &anyhow::Error) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !lines.iter().any(|line| line.contains(&text)) {
            lines.push(text);
        }
    }
    lines
}

/// A closed stdout (`mancala-zero games | head`) ends the process quietly, with the shell's
/// status for a SIGPIPE (141), as a C tool's does. Rust ignores SIGPIPE, so `println!` panics
/// on the broken pipe, and that printed a panic and a backtrace after the reader had all it
/// wanted. Every other panic keeps the default report.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.starts_with("failed printing to stdout")
            && (text.contains("Broken pipe") || text.contains("os error 32"))
        {
            std::process::exit(141);
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::error_lines;

    #[test]
    fn a_cause_already_in_the_message_is_not_printed_again() {
        let inner = anyhow::anyhow!("x.mzm is truncated: the payload needs 9 bytes, the file has 1");
        let middle = inner.context("model x.mzm: x.mzm is truncated: the payload needs 9 bytes, the file has 1");
        let outer = middle
            .context("agent 'net:x.mzm': model x.mzm: x.mzm is truncated: the payload needs 9 bytes, the file has 1");
        assert_eq!(
            error_lines(&outer),
            ["agent 'net:x.mzm': model x.mzm: x.mzm is truncated: the payload needs 9 bytes, the file has 1"]
        );
    }

    #[test]
    fn a_cause_the_message_does_not_hold_is_printed() {
        let e = anyhow::anyhow!("x.tb is not a tablebase file: it is a model").context("reading x.tb");
        assert_eq!(error_lines(&e), ["reading x.tb", "x.tb is not a tablebase file: it is a model"]);
    }
}
