//! `mancala-zero play`: a game against the engine in the terminal (or through a pipe: no
//! terminal tricks, one prompt a line, so it can be scripted and tested). The engine is the
//! player every front-end builds (`mancala_agents::build_player`).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use mancala_agents::{Guide, MAX_SIMULATIONS, Player as Engine, PlayerSettings, build_player};
use mancala_mcts::Agent;
use mancala_rules::{AnyGame, Game, Line, Player, parse_rules};

use crate::cmd::engine::Guides;

/// Arguments of `mancala-zero play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game (a rules string); the shipped network plays Oware and Kalah.
    #[arg(long, default_value = "oware")]
    pub game: String,
    /// A trained model file to play against (for its own game).
    #[arg(long, value_name = "FILE", conflicts_with = "no_model")]
    pub model: Option<PathBuf>,
    /// Play against plain MCTS with random rollouts.
    #[arg(long)]
    pub no_model: bool,
    /// Your side: south (moves first) or north.
    #[arg(long, default_value = "south")]
    pub side: String,
    /// Engine strength: simulations a move.
    #[arg(long, default_value_t = 400)]
    pub simulations: u32,
    /// Engine strength: milliseconds a move instead of a fixed number of simulations.
    #[arg(long)]
    pub ms: Option<u64>,
    /// Threads the engine's search evaluates leaves on.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the engine's search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

const HELP: &str = "Type a pit label to sow it (e.g. D), or: undo, hint, board, help, quit.";

/// What the player's line asks for.
enum Turn {
    Go,
    Stop,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let game = parse_rules(&args.game).with_context(|| format!("bad --game '{}'", args.game))?;
    let human =
        Player::parse(&args.side).with_context(|| format!("--side '{}': expected south or north", args.side))?;
    let (mut engine, describe) = opponent(&args, &game)?;
    let interactive = std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} against {describe}. You play {human}. {HELP}", game.rules_string())?;
    let mut line = Line::new(game.clone());
    writeln!(out, "{}", game.display(line.position()))?;
    loop {
        if let Some(outcome) = line.status().outcome() {
            writeln!(out, "game over: {outcome} ({})", verdict(outcome, human))?;
            return Ok(());
        }
        if line.side_to_move() != human {
            engine_move(&mut engine, &mut line, &mut out)?;
            continue;
        }
        write!(out, "your move ({}): ", legal_labels(&line).join(" "))?;
        out.flush()?;
        let mut text = String::new();
        if input.read_line(&mut text)? == 0 {
            writeln!(out)?;
            writeln!(out, "end of input: game abandoned")?;
            return Ok(());
        }
        if !interactive {
            writeln!(out, "{}", text.trim())?;
        }
        if let Turn::Stop = human_turn(text.trim(), human, &mut engine, &mut line, &mut out)? {
            return Ok(());
        }
    }
}

/// The engine the arguments ask for, and what guides it in words.
fn opponent(args: &Args, game: &AnyGame) -> anyhow::Result<(Engine<AnyGame>, String)> {
    if args.simulations == 0 {
        bail!("--simulations must be at least 1");
    }
    let guide = match (&args.model, args.no_model) {
        // A model for another game is an error here, not a reason to play without it.
        (Some(path), false) => Guide::model_file(game, path).with_context(|| format!("--model {}", path.display()))?,
        _ => Guides::new(None, args.no_model)?.for_game(game)?,
    };
    let time = args.ms.map(Duration::from_millis);
    let settings = PlayerSettings {
        simulations: if time.is_some() { MAX_SIMULATIONS } else { args.simulations },
        time,
        threads: args.threads,
        ..PlayerSettings::for_guide(&guide)
    };
    let engine = build_player(game, &guide, None, &settings, args.seed, "engine".into())?;
    Ok((engine, guide.describe()))
}

/// The engine searches, plays its move and shows the board.
fn engine_move(engine: &mut Engine<AnyGame>, line: &mut Line<AnyGame>, out: &mut impl Write) -> anyhow::Result<()> {
    let side = line.side_to_move();
    let action = engine.choose(line);
    let label = line.game().move_label(side, action);
    line.play(action).context("the engine's move")?;
    writeln!(out, "engine plays {label}")?;
    writeln!(out, "{}", line.game().display(line.position()))?;
    Ok(())
}

/// One line from the player: a command or a move.
fn human_turn(
    text: &str,
    human: Player,
    engine: &mut Engine<AnyGame>,
    line: &mut Line<AnyGame>,
    out: &mut impl Write,
) -> anyhow::Result<Turn> {
    let game = line.game().clone();
    match text {
        "" => {}
        "quit" | "exit" => {
            writeln!(out, "bye")?;
            return Ok(Turn::Stop);
        }
        "help" => writeln!(out, "{HELP}")?,
        "board" => writeln!(out, "{}", game.display(line.position()))?,
        "undo" => undo(human, line, out)?,
        "hint" => {
            let value = engine.analyse(line).root_value();
            match engine.pick(0.0) {
                Some(best) => writeln!(out, "hint: {} (value {value:+.2} for you)", game.move_label(human, best))?,
                None => writeln!(out, "hint: no move")?,
            }
        }
        label => match line.play_label(label) {
            Ok(_) => writeln!(out, "{}", game.display(line.position()))?,
            Err(e) => writeln!(out, "not a move: {e}. Legal: {}", legal_labels(line).join(" "))?,
        },
    }
    Ok(Turn::Go)
}

/// Takes back the engine's reply and the player's move, so it is the player's turn again.
fn undo(human: Player, line: &mut Line<AnyGame>, out: &mut impl Write) -> anyhow::Result<()> {
    let mut undone = 0;
    while line.undo() {
        undone += 1;
        if line.side_to_move() == human {
            break;
        }
    }
    if undone == 0 {
        writeln!(out, "nothing to undo")?;
    } else {
        writeln!(out, "took back {undone} move(s)")?;
        writeln!(out, "{}", line.game().display(line.position()))?;
    }
    Ok(())
}

/// The result in the player's words.
fn verdict(outcome: mancala_rules::Outcome, human: Player) -> String {
    match outcome.winner {
        None => "a draw".to_string(),
        Some(p) if p == human => format!("you win by {}", outcome.margin),
        Some(_) => format!("the engine wins by {}", outcome.margin),
    }
}

fn legal_labels(line: &Line<AnyGame>) -> Vec<String> {
    let side = line.side_to_move();
    line.legal_moves().iter().map(|a| line.game().move_label(side, a)).collect()
}
