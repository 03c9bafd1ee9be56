//! `mancala-zero tablebase`: build an endgame database, probe it, or time its probes.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use mancala_rules::{Game, Setup, parse_rules};
use mancala_tablebase::{
    EndgameAccuracy, EndgameJudgement, RealEndJudgement, ScoredTablebase, Tablebase, sample_positions,
};

/// Arguments of `mancala-zero tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Build the database of every position with at most SEEDS seeds on the board.
    Build(BuildArgs),
    /// Print the exact value and the best moves of a position.
    Probe(ProbeArgs),
    /// Measure probes a second on random positions inside a database.
    Bench(BenchArgs),
    /// Judge a model on database positions: its value's sign and its search's move.
    Accuracy(AccuracyArgs),
}

#[derive(clap::Args, Debug)]
struct AccuracyArgs {
    /// The database file (its rules choose the game).
    #[arg(long)]
    db: PathBuf,
    /// The model file; without it, the shipped network of the game.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Positions in the fixed sample.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Simulations of the search that picks the move.
    #[arg(long, default_value_t = 200)]
    simulations: u32,
    /// Weight of the seed margin in the value the search maximises (0 to 0.5; see
    /// `search.margin_utility` in the training config); default: the weight the model's run
    /// searched with. The value-sign figure reads the network's result alone.
    #[arg(long)]
    margin_utility: Option<f32>,
    /// The move a finished search plays: `value` or `value:S` (the best mean value among the
    /// moves with at least S of the top visits; S one half for `value`; what the `net` agent
    /// plays by default) or `visits` (the most visited).
    #[arg(long, default_value = "value")]
    pick: String,
    /// Weight of the minimax of the search's evaluations beside its mean values (0 to 1; the
    /// `net` agent's `minimax=W`, by default what it plays with).
    #[arg(long, default_value_t = mancala_mcts::SearchConfig::IN_PLAY_MINIMAX_WEIGHT)]
    minimax: f32,
    /// Exploration constant of the search (the `net` agent's `cpuct=C`, by default what it
    /// plays with).
    #[arg(long, default_value_t = mancala_agents::NET_C_PUCT)]
    cpuct: f32,
    /// Back up proven values from finished games in the search's tree (the `net` agent's
    /// `solver=true`).
    #[arg(long)]
    solver: bool,
    /// Also judge the moves by the game's own end, where Oware stops at a majority and
    /// leaves the board's seeds uncounted (the database plays to the end): builds those
    /// values in memory first, one table for every split of the captured seeds (Oware to 15
    /// seeds: about 0.8 GiB and a few minutes).
    #[arg(long)]
    real_end: bool,
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// Rules string: `oware`, `awale`, `oware-capture-all`, `kalah`, `kalah:H,S`, ...
    #[arg(long, default_value = "oware")]
    game: String,
    /// The most seeds on the board a position of the database holds.
    #[arg(long)]
    seeds: usize,
    /// Where to write the database.
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: one a core).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(clap::Args, Debug)]
struct ProbeArgs {
    /// The database file.
    #[arg(long)]
    db: PathBuf,
    /// A position line as docs/protocol.md writes it: `SIDE | S0 S1 | P0 ... Pk | STATUS`.
    #[arg(long, allow_hyphen_values = true)]
    position: String,
}

#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// The database file.
    #[arg(long)]
    db: PathBuf,
    /// Positions to probe.
    #[arg(long, default_value_t = 1_000_000)]
    probes: usize,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Build(a) => build(a),
        Command::Probe(a) => probe(a),
        Command::Bench(a) => bench(a),
        Command::Accuracy(a) => accuracy(a),
    }
}

fn accuracy(args: AccuracyArgs) -> anyhow::Result<()> {
    use mancala_mcts::{Agent, Evaluator};
    let tb = Tablebase::read(&args.db).with_context(|| format!("reading {}", args.db.display()))?;
    let game = parse_rules(tb.rules()).with_context(|| format!("{}: rules", args.db.display()))?;
    let (meta, net) = crate::shipped::given_or_shipped(&game, args.model.as_deref())?;
    // The model's own input encoding version (shipped networks are of version 1 or 2).
    let layout = mancala_encoding::layout_for(&game, meta.encoding_version)?;
    // The network's own value, before any search, for the value-sign figure.
    let mut evaluator =
        mancala_nn::NeuralEvaluator::with_layout(&game, layout, net.clone(), burn::prelude::Device::flex());
    let margin_utility = args.margin_utility.unwrap_or(meta.margin_utility());
    if !mancala_mcts::valid_margin_utility(margin_utility) {
        bail!("--margin-utility {margin_utility} is outside 0 to 0.5");
    }
    if !(0.0..=1.0).contains(&args.minimax) {
        bail!("--minimax {} is outside 0 to 1", args.minimax);
    }
    if !(args.cpuct.is_finite() && args.cpuct >= 0.0) {
        bail!("--cpuct {} is not a number of at least 0", args.cpuct);
    }
    let Some(final_pick) = mancala_mcts::FinalPick::parse(&args.pick) else {
        bail!("--pick {}: expected {}", args.pick, mancala_mcts::FinalPick::FORMS);
    };
    // The player `net:FILE` would be, with this command's settings; each position is a game
    // of its own, so there is no tree to reuse.
    let settings = mancala_agents::PlayerSettings {
        simulations: args.simulations.max(1),
        margin: Some(margin_utility),
        pick: final_pick,
        minimax: args.minimax,
        c_puct: args.cpuct,
        solver: args.solver,
        reuse: false,
        ..mancala_agents::PlayerSettings::network()
    };
    let guide = mancala_agents::Guide::network(meta, net, "net");
    let mut agent = mancala_agents::build_player(&game, &guide, None, &settings, 1, "net".into())?;
    // Built before the search, so a database too large for the machine is refused at once.
    let scored = if args.real_end { Some(build_scored(&game, tb.max_seeds())?) } else { None };
    let sample = sample_positions(&game, &tb, args.positions, 0xe4d9);
    let a = game.action_space();
    let (mut policy, mut value) = (vec![0.0; a], [0.0f32]);
    let mut played = Vec::with_capacity(sample.len());
    let judged = mancala_tablebase::endgame_judgements(&game, &tb, &sample, |pos| {
        evaluator.evaluate(&game, std::slice::from_ref(pos), &mut policy, &mut value);
        let action = agent.choose(&mancala_rules::Line::from_position(game.clone(), *pos));
        played.push((*pos, action));
        (value[0], action)
    });
    let acc = EndgameAccuracy::of(&judged);
    println!("positions: {} with at most {} seeds on the board", acc.positions, tb.max_seeds());
    println!("value sign right: {:.1}%", acc.value_sign * 100.0);
    println!("best move ({} simulations, pick {final_pick}): {:.1}%", args.simulations, acc.best_move * 100.0);
    println!(
        "result kept (a move of perfect play's result, any margin): {:.1}%; seeds given away a move: {:.2}",
        acc.result_kept * 100.0,
        acc.seeds_given
    );
    println!(
        "for comparison, knowing every move's result but not its margin: {:.1}%",
        mancala_tablebase::result_only_best_move(&game, &tb, &sample) * 100.0
    );
    print_breakdown(&judged, tb.max_seeds());
    if let Some(scored) = scored {
        let real = mancala_tablebase::real_end_judgements(&game, &tb, &scored, &played);
        print_real_end(&real, tb.max_seeds());
    }
    Ok(())
}

/// A progress bar for a build, layer by layer.
fn layer_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{elapsed_precise}] {wide_bar} {pos}/{len} positions ({eta})")
            .expect("a valid template"),
    );
    bar
}

fn show_layer(bar: &ProgressBar, p: mancala_tablebase::Progress) {
    bar.set_length(p.total);
    bar.set_position(p.done);
    bar.set_message(format!("{} seeds", p.seeds));
}

/// The scored database of the game's own end, with a progress bar.
fn build_scored(game: &mancala_rules::AnyGame, seeds: usize) -> anyhow::Result<ScoredTablebase> {
    let bar = layer_bar();
    let (scored, _) =
        ScoredTablebase::build_within(game, seeds, mancala_tablebase::DEFAULT_MEMORY_LIMIT, &|p| show_layer(&bar, p))
            .context("building the values of the game's own end (--real-end)")?;
    bar.finish_and_clear();
    Ok(scored)
}

/// The moves judged by the game's own end, beside what a player perfect there scores on the
/// database's best moves (the ceiling the figure above has for a player of the real game).
fn print_real_end(real: &[RealEndJudgement], max_seeds: usize) {
    let third = (max_seeds / 3).max(1);
    let share = |part: &[&RealEndJudgement]| {
        let n = part.len().max(1) as f64;
        (
            part.len(),
            100.0 * RealEndJudgement::best_move(part.iter().copied()),
            100.0 * part.iter().map(|j| j.perfect_on_database).sum::<f64>() / n,
        )
    };
    let all: Vec<&RealEndJudgement> = real.iter().collect();
    let (n, right, perfect) = share(&all);
    println!("judged by the game's own end, not played out ({n} positions; Oware stops at a majority):");
    println!("best move by the game's own end: {right:.1}%");
    println!("a player perfect by the game's own end, judged by the database's best moves: {perfect:.1}%");
    println!("{:<28} {:>9} {:>10} {:>22}", "", "positions", "best move", "perfect, on database");
    for (lo, hi) in [(1, third), (third + 1, 2 * third), (2 * third + 1, max_seeds)].into_iter().filter(|(l, h)| l <= h)
    {
        let part: Vec<&RealEndJudgement> = real.iter().filter(|j| (lo..=hi).contains(&usize::from(j.seeds))).collect();
        let (n, right, perfect) = share(&part);
        println!("{:<28} {n:>9} {right:>9.1}% {perfect:>21.1}%", format!("{lo}-{hi} seeds on the board"));
    }
}

/// The figures split by seeds on the board (thirds of the database's range) and by how
/// close perfect play's result is, so a weak figure says where it is weak: a value that
/// misses only the knife-edge positions (a margin of a seed or two) is a different problem
/// from one that misreads clear wins.
fn print_breakdown(judged: &[EndgameJudgement], max_seeds: usize) {
    let third = (max_seeds / 3).max(1);
    let seed_ranges = [(1, third), (third + 1, 2 * third), (2 * third + 1, max_seeds)];
    let margin_ranges = [(0, 0), (1, 2), (3, 6), (7, i32::MAX)];
    println!(
        "{:<28} {:>9} {:>11} {:>10} {:>12} {:>12}",
        "", "positions", "value sign", "best move", "result kept", "seeds given"
    );
    let row = |label: String, part: Vec<EndgameJudgement>| {
        let a = EndgameAccuracy::of(&part);
        println!(
            "{label:<28} {:>9} {:>10.1}% {:>9.1}% {:>11.1}% {:>12.2}",
            a.positions,
            a.value_sign * 100.0,
            a.best_move * 100.0,
            a.result_kept * 100.0,
            a.seeds_given
        );
    };
    for (lo, hi) in seed_ranges.into_iter().filter(|(lo, hi)| lo <= hi) {
        let part = judged.iter().filter(|j| (lo..=hi).contains(&usize::from(j.seeds))).copied().collect();
        row(format!("{lo}-{hi} seeds on the board"), part);
    }
    for (lo, hi) in margin_ranges {
        let part = judged.iter().filter(|j| (lo..=hi).contains(&j.final_margin.abs())).copied().collect();
        let label = match (lo, hi) {
            (0, 0) => "drawn with perfect play".to_string(),
            (lo, i32::MAX) => format!("decided by {lo}+ seeds"),
            (lo, hi) => format!("decided by {lo}-{hi} seeds"),
        };
        row(label, part);
    }
}

fn build(args: BuildArgs) -> anyhow::Result<()> {
    let game = parse_rules(&args.game).with_context(|| format!("bad --game '{}'", args.game))?;
    if let Some(threads) = args.threads {
        if threads == 0 {
            bail!("--threads must be at least 1");
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    let bar = layer_bar();
    let started = Instant::now();
    let (tb, stats) = Tablebase::build(&game, args.seeds, &|p| show_layer(&bar, p))?;
    bar.finish_and_clear();
    let built = started.elapsed();
    tb.write(&args.out)?;
    let size = std::fs::metadata(&args.out).with_context(|| format!("cannot read back {}", args.out.display()))?.len();
    println!("database  {}", args.out.display());
    println!("rules     {}", tb.rules());
    println!("seeds     0 to {} on the board", tb.max_seeds());
    println!("positions {} ({} already over, {} scored by the cycle rule)", stats.slots, stats.terminal, stats.cyclic);
    println!("cycles    {:?} scored by the cycle rule, by seeds on the board", stats.cyclic_by_seeds);
    println!("passes    {} at most in a layer", stats.max_passes);
    println!("time      {:.1} s to build, {:.1} s with writing", built.as_secs_f64(), started.elapsed().as_secs_f64());
    println!("size      {size} bytes ({:.1} MB)", size as f64 / 1e6);
    Ok(())
}

fn probe(args: ProbeArgs) -> anyhow::Result<()> {
    let tb = Tablebase::read(&args.db)?;
    let game = parse_rules(tb.rules()).with_context(|| format!("the database names unknown rules '{}'", tb.rules()))?;
    let setup: Setup = args.position.parse()?;
    let pos = game.from_setup(&setup).with_context(|| format!("position is not valid for {}", tb.rules()))?;
    let on_board: usize = game.pits(&pos).iter().map(|&c| usize::from(c)).sum();
    let Some(probe) = tb.probe(&game, &pos) else {
        bail!("the position has {on_board} seeds on the board; the database holds {} at most", tb.max_seeds());
    };
    let me = game.side_to_move(&pos);
    println!("position  {}", game.to_setup(&pos));
    if let Some(outcome) = game.status(&pos).outcome() {
        println!("result    {outcome} (the game is over)");
        return Ok(());
    }
    println!("value     {:+} for {me} (seeds still on the board, {me} minus opponent)", probe.value);
    let result = match probe.final_margin {
        0 => "draw".to_string(),
        m if m > 0 => format!("{me} wins by {m}"),
        m => format!("{} wins by {}", !me, -m),
    };
    println!("result    {result} with perfect play");
    let labels =
        |mask: mancala_rules::MoveMask| mask.iter().map(|a| game.move_label(me, a)).collect::<Vec<_>>().join(" ");
    println!("best      {}", labels(probe.best));
    let moves: Vec<String> = probe
        .legal
        .iter()
        .map(|a| format!("{}={:+}", game.move_label(me, a), probe.move_values[usize::from(a)]))
        .collect();
    println!("moves     {}", moves.join(" "));
    Ok(())
}

fn bench(args: BenchArgs) -> anyhow::Result<()> {
    if args.probes == 0 {
        bail!("--probes must be at least 1");
    }
    let tb = Tablebase::read(&args.db)?;
    let game = parse_rules(tb.rules()).with_context(|| format!("the database names unknown rules '{}'", tb.rules()))?;
    let sample = sample_positions(&game, &tb, args.probes.min(100_000), 1);
    if sample.is_empty() {
        bail!("the database holds no ongoing position to probe");
    }
    let mut checksum = 0i64;
    let started = Instant::now();
    for i in 0..args.probes {
        let pos = &sample[i % sample.len()];
        checksum += i64::from(tb.value(game.pits(pos), game.side_to_move(pos)).expect("sampled inside"));
    }
    let lookups = args.probes as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    for i in 0..args.probes {
        let probe = tb.probe(&game, &sample[i % sample.len()]).expect("sampled inside");
        checksum += i64::from(probe.best.len() as u8);
    }
    let full = args.probes as f64 / started.elapsed().as_secs_f64();
    println!("value lookups  {lookups:.0} a second (board and side to value)");
    println!("full probes    {full:.0} a second (value, every move's value, best moves)");
    println!("(checksum {checksum}, {} distinct positions)", sample.len());
    Ok(())
}
