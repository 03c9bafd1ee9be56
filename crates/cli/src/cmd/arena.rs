//! `mancala-zero arena`: a match between two agents, or a round robin between several, with
//! a table of results on stdout, a progress bar on stderr and the games as JSON lines.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_agents::{AgentSpec, SpecError};
use mancala_arena::elo::rounded;
use mancala_arena::{GameRecord, MatchConfig, MatchResult, Sprt, play_match, round_robin, write_record};
use mancala_mcts::Agent;
use mancala_rules::{AnyGame, Game, parse_rules};

/// Arguments of `mancala-zero arena`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules string of the game: `oware`, `abapa`, `kalah`, `kalah:4,3`, `ba-awa`, `owela`,
    /// with options (`oware grand_slam=capture-all`).
    #[arg(long, default_value = "oware")]
    pub game: String,
    /// Agent A: `random`, `greedy`, `alphabeta:depth=D`, `alphabeta:ms=M`,
    /// `mcts:sims=N[,ms=T][,threads=N][,cpuct=C][,solver=B]`, `net:FILE[,sims=N][,ms=T][,threads=N][,tb=DB][,margin=W][,cpuct=C][,gather=G][,pick=P][,reuse=B][,minimax=W][,fpu=F][,solver=B][,precision=P]`, `perfect:db=FILE[,depth=D|ms=M]`.
    #[arg(long, required_unless_present = "round_robin", conflicts_with = "round_robin", requires = "b")]
    pub a: Option<String>,
    /// Agent B (same forms as --a).
    #[arg(long, required_unless_present = "round_robin", conflicts_with = "round_robin", requires = "a")]
    pub b: Option<String>,
    /// Plays every pair of these agents instead of --a/--b: `random,greedy,mcts:sims=100`.
    /// A piece `key=value` without `:` belongs to the spec before it
    /// (`mcts:sims=100,cpuct=2,random` is two agents). May be repeated.
    #[arg(long = "round-robin", value_name = "SPEC,SPEC,...")]
    pub round_robin: Vec<String>,
    /// Games in the match (even: colours swap every other game); per pair in a round robin.
    /// With --sprt, the most games before giving up.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Round robin: games for every pair that includes SPEC (`mcts:sims=10000=10`); when both
    /// agents have one, the smaller count. May be repeated.
    #[arg(long = "pair-games", value_name = "SPEC=N")]
    pub pair_games: Vec<String>,
    /// Worker threads (default: one a core). The results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of the openings and of every agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies from the start that both games of a pair begin with.
    #[arg(long = "opening-plies", default_value_t = 4)]
    pub opening_plies: usize,
    /// Write every game as one JSON line to this file.
    #[arg(long, value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,
    /// Stop early when an SPRT decides: `elo0,elo1` or `elo0,elo1,alpha,beta`
    /// (alpha = beta = 0.05 by default).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    pub sprt: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let game = parse_rules(&args.game).with_context(|| format!("--game '{}'", args.game))?;
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose().context("--sprt")?;
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    // Every spec is parsed and its files checked once, before any game, so a typo or a model
    // for another game stops the command with the spec named before any file is written.
    let named: Vec<String> = if args.round_robin.is_empty() {
        args.a.iter().chain(args.b.iter()).cloned().collect()
    } else {
        split_specs(&args.round_robin)
    };
    let mut specs = HashMap::new();
    for text in &named {
        let spec = AgentSpec::parse(text)?;
        spec.check(&game)?;
        specs.insert(text.clone(), spec);
    }
    let config = MatchConfig {
        games: args.games,
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: args.threads,
        sprt,
        ..MatchConfig::default()
    };
    let mut out = match &args.out {
        Some(path) => Some(BufWriter::new(
            File::create(path).with_context(|| format!("cannot create --out file {}", path.display()))?,
        )),
        None => None,
    };
    let factory = |text: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, SpecError> {
        match specs.get(text) {
            Some(spec) => spec.build(&game, seed),
            None => mancala_agents::build(&game, text, seed),
        }
    };

    if args.round_robin.is_empty() {
        let (a, b) = (args.a.as_deref().unwrap_or_default(), args.b.as_deref().unwrap_or_default());
        config.validate().context("--games")?;
        let bar = progress(u64::from(config.games));
        let result = play_match(&game, a, b, &factory, &config, &mut |r| on_game(&bar, out.as_mut(), r))?;
        bar.finish_and_clear();
        print!("{}", match_report(&game, &config, &result));
    } else {
        let agents = split_specs(&args.round_robin);
        let overrides = parse_pair_games(&args.pair_games, &agents)?;
        let games = |i: usize, j: usize| {
            [&agents[i], &agents[j]]
                .iter()
                .filter_map(|s| overrides.iter().find(|(spec, _)| spec == *s).map(|(_, n)| *n))
                .min()
                .unwrap_or(args.games)
        };
        let mut total = 0u64;
        for i in 0..agents.len() {
            for j in i + 1..agents.len() {
                total += u64::from(games(i, j));
            }
        }
        let bar = progress(total);
        let table = round_robin(&game, &agents, &factory, &config, &games, &mut |r| on_game(&bar, out.as_mut(), r))?;
        bar.finish_and_clear();
        println!("game: {}", game.rules_string());
        println!(
            "round robin: {} agents, openings of {} plies, seed {}",
            agents.len(),
            config.opening_plies,
            config.seed
        );
        println!();
        print!("{table}");
    }
    if let (Some(w), Some(path)) = (out.as_mut(), &args.out) {
        w.flush().with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Counts a finished game and writes its record.
fn on_game(bar: &ProgressBar, out: Option<&mut BufWriter<File>>, record: &GameRecord) -> std::io::Result<()> {
    bar.inc(1);
    if let Some(w) = out {
        write_record(w, record).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// A progress bar on stderr, hidden when stderr is not a terminal (logs, pipes, tests).
fn progress(games: u64) -> ProgressBar {
    let target =
        if std::io::stderr().is_terminal() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
    let bar = ProgressBar::with_draw_target(Some(games), target);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {elapsed_precise} (eta {eta})")
            .expect("the template is valid"),
    );
    bar
}

/// The table of a two-agent match, ending with the `score:` and `elo:` lines.
fn match_report(game: &AnyGame, config: &MatchConfig, m: &MatchResult) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "game: {}", game.rules_string());
    let _ = writeln!(s, "A: {}", m.a);
    let _ = writeln!(s, "B: {}", m.b);
    let _ = writeln!(
        s,
        "{} games ({} pairs, openings of {} plies), seed {}",
        m.games(),
        m.games() / 2,
        config.opening_plies,
        config.seed
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "{:<12}{:>6}{:>6}{:>7}{:>8}{:>8}", "", "games", "wins", "draws", "losses", "score");
    for (label, wdl) in [("A as south", m.a_south), ("A as north", m.a_north), ("total", m.total)] {
        let _ = writeln!(
            s,
            "{:<12}{:>6}{:>6}{:>7}{:>8}{:>7.1}%",
            label,
            wdl.games(),
            wdl.wins,
            wdl.draws,
            wdl.losses,
            100.0 * wdl.score()
        );
    }
    let p = m.pairs;
    let _ = writeln!(
        s,
        "pairs by A's points: 2: {}, 1.5: {}, 1: {} split by colour + {} both drawn, 0.5: {}, 0: {}",
        p.won_both, p.won_drew, p.split, p.drew_both, p.drew_lost, p.lost_both
    );
    if p.count() > 0 {
        let _ = writeln!(
            s,
            "each colour won its game in {} of {} pairs ({:.1}%): the side, not the player, decided those",
            p.split,
            p.count(),
            100.0 * f64::from(p.split) / f64::from(p.count())
        );
    }
    let _ = writeln!(s);
    if let Some(r) = &m.sprt {
        let (lower, upper) = r.sprt.bounds();
        let _ = writeln!(s, "sprt: {} (llr {:.2}, bounds [{:.2}, {:.2}]; {})", r.decision, r.llr, lower, upper, r.sprt);
    }
    let (elo, lo, hi) = m.elo();
    let (elo, lo, hi) = (rounded(elo), rounded(lo), rounded(hi));
    let _ = writeln!(s, "score: {:.1}%", 100.0 * m.score());
    let _ = writeln!(s, "elo: {elo:+.0} [{lo:+.0}, {hi:+.0}]");
    s
}

/// Splits `--round-robin` values into specs: a comma starts a new spec unless the piece after
/// it is a bare `key=value` (then it is another parameter of the spec before).
fn split_specs(values: &[String]) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    for value in values {
        let mut current: Option<String> = None;
        for piece in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match current.as_mut() {
                Some(spec) if piece.contains('=') && !piece.contains(':') => {
                    spec.push(',');
                    spec.push_str(piece);
                }
                _ => specs.extend(current.replace(piece.to_string())),
            }
        }
        specs.extend(current);
    }
    specs
}

/// Reads `--pair-games SPEC=N` (split at the last `=`; specs have `=` of their own).
fn parse_pair_games(values: &[String], agents: &[String]) -> anyhow::Result<Vec<(String, u32)>> {
    values
        .iter()
        .map(|v| {
            let (spec, n) = v.rsplit_once('=').with_context(|| format!("--pair-games '{v}': expected SPEC=N"))?;
            let n: u32 = n.trim().parse().with_context(|| format!("--pair-games '{v}': '{n}' is not a game count"))?;
            let spec = spec.trim().to_string();
            if !agents.contains(&spec) {
                bail!("--pair-games '{v}': '{spec}' is not one of the --round-robin agents ({})", agents.join(", "));
            }
            Ok((spec, n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_commas_but_keep_their_parameters() {
        let v = vec!["random,mcts:sims=100,cpuct=2, alphabeta:depth=4".to_string(), "greedy".to_string()];
        assert_eq!(split_specs(&v), ["random", "mcts:sims=100,cpuct=2", "alphabeta:depth=4", "greedy"]);
    }

    #[test]
    fn pair_games_name_a_known_agent() {
        let agents = split_specs(&["random,mcts:sims=10000".to_string()]);
        assert_eq!(
            parse_pair_games(&["mcts:sims=10000=10".into()], &agents).unwrap(),
            [("mcts:sims=10000".into(), 10)]
        );
        let err = parse_pair_games(&["greedy=4".into()], &agents).unwrap_err().to_string();
        assert!(err.contains("'greedy' is not one of"), "{err}");
        assert!(parse_pair_games(&["random=x".into()], &agents).is_err());
    }
}
