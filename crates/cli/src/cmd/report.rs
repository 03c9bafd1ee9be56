//! `mancala-zero report`: what a game designer or player asks of a game, measured with a
//! trained player: how often the first player wins under strong play, how long games last,
//! how often the side decides a pair of games, how often a player has a single move, and how
//! the player scores against the reference agents, per side.
//!
//! The player is a model file (`--model`), the best model of a run (`--run`), or one trained
//! for `--minutes` on the game's embedded defaults first (a run under `--checkpoints`).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Parser;
use mancala_arena::{GameRecord, MatchConfig, MatchResult, play_match};
use mancala_mcts::Agent;
use mancala_rules::{AnyGame, Game, Line, parse_rules};
use mancala_store::Store;

/// Arguments of `mancala-zero report`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game: a preset, a catalogue name, a description file or a rules string.
    #[arg(long)]
    game: String,
    /// The player's model file.
    #[arg(long, conflicts_with_all = ["run", "minutes"])]
    model: Option<PathBuf>,
    /// A training run (a directory or store URL) whose best model plays.
    #[arg(long, conflicts_with = "minutes")]
    run: Option<String>,
    /// Train for this many minutes on the game's embedded defaults first (the default when
    /// neither --model nor --run is given: 10).
    #[arg(long)]
    minutes: Option<f64>,
    /// Where a run trained by --minutes is written.
    #[arg(long, default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Simulations a move of the trained player.
    #[arg(long, default_value_t = 200)]
    sims: u32,
    /// Games of each match (even: pairs from one opening with the colours swapped).
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// The reference agents, comma-separated.
    #[arg(long, default_value = "random,greedy,alphabeta:depth=4,mcts:sims=1000")]
    references: String,
    /// Random plies each pair of games opens with.
    #[arg(long, default_value_t = 4)]
    opening_plies: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Append the report as one row of a Markdown table to this file (the catalogue report);
    /// the header is written first when the file is new.
    #[arg(long)]
    row: Option<PathBuf>,
}

/// `train`'s own arguments, read the way its command line reads them.
#[derive(Parser, Debug)]
struct TrainCommand {
    #[command(flatten)]
    args: super::train::Args,
}

/// What self-play of the trained player says about the game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Balance {
    pub games: u32,
    /// Games won by the first player (South), drawn, won by the second.
    pub first_wins: u32,
    pub draws: u32,
    pub second_wins: u32,
    pub average_plies: f64,
    pub longest: usize,
    /// Pairs (one opening, colours swapped) where the same side won both games: the side decided.
    pub side_decided: u32,
    pub pairs: u32,
    /// Positions met with exactly one legal move, of all positions a player moved in.
    pub single_move: u64,
    pub positions: u64,
}

/// Reads the balance figures from the records of a self-play match.
///
/// # Errors
/// A record that does not replay under the game's rules.
pub fn balance(game: &AnyGame, result: &MatchResult) -> anyhow::Result<Balance> {
    let mut b = Balance { games: result.games(), pairs: result.pairs.count(), ..Balance::default() };
    b.side_decided = result.pairs.split;
    let mut plies = 0usize;
    for record in &result.records {
        match record.result.split('+').next() {
            Some("south") => b.first_wins += 1,
            Some("north") => b.second_wins += 1,
            _ => b.draws += 1,
        }
        plies += record.plies;
        b.longest = b.longest.max(record.plies);
        count_single_moves(game, record, &mut b)?;
    }
    b.average_plies = plies as f64 / f64::from(b.games.max(1));
    Ok(b)
}

fn count_single_moves(game: &AnyGame, record: &GameRecord, b: &mut Balance) -> anyhow::Result<()> {
    // The moves start with the opening's random plies, which no player chose.
    let mut line = Line::new(game.clone());
    for (ply, label) in record.moves.iter().enumerate() {
        if ply >= record.opening.len() {
            b.positions += 1;
            if line.legal_moves().len() == 1 {
                b.single_move += 1;
            }
        }
        line.play_label(label).with_context(|| format!("replaying move {label}"))?;
    }
    Ok(())
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let game = parse_rules(&args.game).with_context(|| format!("--game '{}'", args.game))?;
    if args.games == 0 || !args.games.is_multiple_of(2) {
        bail!("--games must be even and at least 2 (pairs of games), got {}", args.games);
    }
    if args.sims == 0 {
        bail!("--sims must be at least 1");
    }
    let model = player_model(&args, &game)?;
    let player = format!("net:{},sims={}", model.display(), args.sims);
    let factory = |text: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, mancala_agents::SpecError> {
        mancala_agents::build(&game, text, seed)
    };
    let config = MatchConfig {
        games: args.games,
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: args.threads,
        ..MatchConfig::default()
    };
    let quiet = |_: &GameRecord| Ok(());
    let selfplay = play_match(&game, &player, &player, &factory, &config, &mut { quiet })?;
    let b = balance(&game, &selfplay)?;
    let mut text = String::new();
    let _ = writeln!(text, "game: {} ({})", game.name(), game.rules_string());
    let _ = writeln!(text, "player: {player}");
    let g = u64::from(b.games);
    let _ = writeln!(
        text,
        "self-play, {} games: first player (South) wins {:.1}%, draws {:.1}%, second player wins {:.1}%",
        b.games,
        percent(u64::from(b.first_wins), g),
        percent(u64::from(b.draws), g),
        percent(u64::from(b.second_wins), g)
    );
    let _ = writeln!(text, "game length: {:.1} plies on average, {} the longest", b.average_plies, b.longest);
    let _ = writeln!(
        text,
        "the side decided {} of {} pairs ({:.1}%): the same side won both games of the pair",
        b.side_decided,
        b.pairs,
        percent(u64::from(b.side_decided), u64::from(b.pairs))
    );
    let _ = writeln!(
        text,
        "a single legal move in {:.1}% of {} positions played",
        percent(b.single_move, b.positions),
        b.positions
    );
    let mut scores = Vec::new();
    for reference in args.references.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let result = play_match(&game, &player, reference, &factory, &config, &mut { quiet })
            .with_context(|| format!("against {reference}"))?;
        let _ = writeln!(
            text,
            "against {reference}: {:.1}% ({} games; as South {:.1}%, as North {:.1}%; pairs the side decided {})",
            100.0 * result.score(),
            result.games(),
            100.0 * result.a_south.score(),
            100.0 * result.a_north.score(),
            result.pairs.split
        );
        scores.push((reference.to_string(), result));
    }
    print!("{text}");
    if let Some(path) = &args.row {
        append_row(path, &args.game, &game, &player_label(&args, &model), &b, &scores)
            .with_context(|| format!("--row {}", path.display()))?;
    }
    Ok(())
}

/// The trained player's model: `--model`, the best model of `--run`, or a run trained now.
fn player_model(args: &Args, game: &AnyGame) -> anyhow::Result<PathBuf> {
    if let Some(model) = &args.model {
        if !model.is_file() {
            bail!("--model {}: no such file", model.display());
        }
        return Ok(model.clone());
    }
    let url = match &args.run {
        Some(url) => url.clone(),
        None => {
            let minutes = args.minutes.unwrap_or(10.0);
            if !(minutes > 0.0 && minutes.is_finite()) {
                bail!("--minutes must be more than 0, got {minutes}");
            }
            let name = format!("report-{}-{}", game.name(), std::process::id());
            let dir = args.checkpoints.join(&name);
            let minutes = minutes.to_string();
            let checkpoints = args.checkpoints.display().to_string();
            let command = TrainCommand::try_parse_from([
                "train",
                "--game",
                args.game.as_str(),
                "--minutes",
                minutes.as_str(),
                "--run",
                name.as_str(),
                "--checkpoints",
                checkpoints.as_str(),
                "--quiet",
            ])?;
            super::train::run(command.args)?;
            dir.display().to_string()
        }
    };
    let store = Store::open(&url).with_context(|| format!("run {url}"))?;
    let best = mancala_train::Run::open(store.clone()).with_context(|| format!("run {url}"))?.best()?;
    let Some(dir) = store.local_dir() else {
        bail!("run {url}: the report reads the best model from a run in a local directory");
    };
    Ok(dir.join(&best.model))
}

const ROW_HEADER: &str =
    "| game | board | player | first wins | draws | second wins | plies (avg / max) | side decided | single move | ";

/// The catalogue report's "player" column: what played, so that rows of players trained for
/// different times, or shipped, can share one table.
fn player_label(args: &Args, model: &std::path::Path) -> String {
    if args.model.is_some() {
        let file = model.file_name().map_or_else(|| model.display().to_string(), |f| f.to_string_lossy().into_owned());
        format!("model {file}, {} sims", args.sims)
    } else if let Some(run) = &args.run {
        format!("run {run}, {} sims", args.sims)
    } else {
        format!("trained {} min, {} sims", args.minutes.unwrap_or(10.0), args.sims)
    }
}

fn append_row(
    path: &PathBuf,
    name: &str,
    game: &AnyGame,
    player: &str,
    b: &Balance,
    scores: &[(String, MatchResult)],
) -> anyhow::Result<()> {
    // The table's header goes first wherever the file holds no table yet: a new file, or one
    // that so far has only the report's introduction (as the catalogue script writes it).
    let has_table = match std::fs::read_to_string(path) {
        Ok(text) => text.lines().any(|line| line.starts_with("| game |")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(e.into()),
    };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    if !has_table {
        let names: Vec<String> = scores.iter().map(|(r, _)| format!("vs {r}")).collect();
        writeln!(file, "{ROW_HEADER}{} |", names.join(" | "))?;
        writeln!(file, "|{}", "---|".repeat(9 + scores.len()))?;
    }
    let start = game.start();
    let pits = game.pits(&start).len();
    let ranks = if game.description().board.ranks == 4 { 4 } else { 2 };
    let g = u64::from(b.games);
    let mut row = format!(
        "| {} | {}x{}, {} seeds | {} | {:.0}% | {:.0}% | {:.0}% | {:.0} / {} | {:.0}% | {:.0}% | ",
        name.trim(),
        ranks,
        pits / ranks,
        game.total_seeds(),
        player.replace('|', "/"),
        percent(u64::from(b.first_wins), g),
        percent(u64::from(b.draws), g),
        percent(u64::from(b.second_wins), g),
        b.average_plies,
        b.longest,
        percent(u64::from(b.side_decided), u64::from(b.pairs)),
        percent(b.single_move, b.positions)
    );
    for (_, result) in scores {
        let _ = write!(
            row,
            "{:.0}% ({:.0} / {:.0}) | ",
            100.0 * result.score(),
            100.0 * result.a_south.score(),
            100.0 * result.a_north.score()
        );
    }
    writeln!(file, "{}", row.trim_end())?;
    Ok(())
}
