//! `mancala-zero play`: a game against the engine in the terminal (or through a pipe: no
//! terminal tricks, one prompt a line, so it can be scripted and tested).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mancala_mcts::{Evaluator, Search, SearchConfig};
use mancala_rules::{AnyGame, Game, Line, Player, parse_rules};

use crate::cmd::engine::evaluator_source;

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
    /// Seed of the engine's search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

struct Opponent {
    search: Search<AnyGame>,
    evaluator: Box<dyn Evaluator<AnyGame>>,
    time: Option<Duration>,
}

impl Opponent {
    /// Searches the current position (by simulations, or for a time).
    fn think(&mut self, line: &Line<AnyGame>) -> &Search<AnyGame> {
        self.search.set_root_line(line);
        match self.time {
            None => self.search.run(&mut self.evaluator),
            Some(t) => {
                let start = Instant::now();
                let step = 64;
                self.search.config_mut().simulations = step;
                self.search.run(&mut self.evaluator);
                while start.elapsed() < t {
                    self.search.config_mut().simulations += step;
                    self.search.run(&mut self.evaluator);
                }
            }
        }
        &self.search
    }
}

const HELP: &str = "Type a pit label to sow it (e.g. D), or: undo, hint, board, help, quit.";

pub fn run(args: Args) -> anyhow::Result<()> {
    let game = parse_rules(&args.game).with_context(|| format!("bad --game '{}'", args.game))?;
    let human =
        Player::parse(&args.side).with_context(|| format!("--side '{}': expected south or north", args.side))?;
    if args.simulations == 0 {
        bail!("--simulations must be at least 1");
    }
    let mut source = evaluator_source(args.model.as_deref(), args.no_model)?;
    let evaluator = source.for_game(&game, args.seed)?;
    let config =
        SearchConfig { simulations: args.simulations, leaves_per_gather: 8, ..SearchConfig::in_play(source.network()) };
    let mut engine = Opponent {
        search: Search::new(game.clone(), config, args.seed),
        evaluator,
        time: args.ms.map(Duration::from_millis),
    };
    let interactive = std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} against {}. You play {human}. {HELP}", game.rules_string(), source.describe())?;
    let mut line = Line::new(game.clone());
    writeln!(out, "{}", game.display(line.position()))?;
    loop {
        if let Some(outcome) = line.status().outcome() {
            let verdict = match outcome.winner {
                None => "a draw".to_string(),
                Some(p) if p == human => format!("you win by {}", outcome.margin),
                Some(_) => format!("the engine wins by {}", outcome.margin),
            };
            writeln!(out, "game over: {outcome} ({verdict})")?;
            return Ok(());
        }
        if line.side_to_move() != human {
            let action = engine.think(&line).root_children().iter().max_by_key(|c| c.visits).map(|c| c.action);
            let action = action.context("the engine found no move")?;
            let label = game.move_label(line.side_to_move(), action);
            line.play(action).context("the engine's move")?;
            writeln!(out, "engine plays {label}")?;
            writeln!(out, "{}", game.display(line.position()))?;
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
        match text.trim() {
            "" => {}
            "quit" | "exit" => {
                writeln!(out, "bye")?;
                return Ok(());
            }
            "help" => writeln!(out, "{HELP}")?,
            "board" => writeln!(out, "{}", game.display(line.position()))?,
            "undo" => {
                // Take back the engine's reply and your move, so it is your turn again.
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
                    writeln!(out, "{}", game.display(line.position()))?;
                }
            }
            "hint" => {
                let search = engine.think(&line);
                let value = search.root_value();
                match search.root_children().iter().max_by_key(|c| c.visits) {
                    Some(best) => {
                        writeln!(out, "hint: {} (value {value:+.2} for you)", game.move_label(human, best.action))?
                    }
                    None => writeln!(out, "hint: no move")?,
                }
            }
            label => match line.play_label(label) {
                Ok(_) => writeln!(out, "{}", game.display(line.position()))?,
                Err(e) => writeln!(out, "not a move: {e}. Legal: {}", legal_labels(&line).join(" "))?,
            },
        }
    }
}

fn legal_labels(line: &Line<AnyGame>) -> Vec<String> {
    let side = line.side_to_move();
    line.legal_moves().iter().map(|a| line.game().move_label(side, a)).collect()
}
