//! `mancala-zero train`: starts or resumes a run and runs its roles on this machine.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use mancala_store::Store;
use mancala_train::{DEFAULT_SHIPPED, Extend, RunConfig, TrainOptions, default_run_name, resume, start};

/// Arguments of `mancala-zero train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run config (TOML). Without it and without --game: Oware on the embedded defaults.
    #[arg(long, conflicts_with = "game")]
    pub config: Option<PathBuf>,
    /// A shipped config by name (oware, ouril, awale, oware-capture-all, kalah, ba-awa, owela,
    /// tiny), or any game on the embedded defaults: a description file (`my-game.toml`) or
    /// a rules string.
    #[arg(long)]
    pub game: Option<String>,
    /// Name of the run directory under --checkpoints (default: GAME-DATE-TIME).
    #[arg(long, conflicts_with = "store")]
    pub run: Option<String>,
    /// Where the run lives instead of --checkpoints/RUN: a directory, s3://BUCKET/PREFIX
    /// (configured by the AWS_* environment variables) or memory://NAME.
    #[arg(long)]
    pub store: Option<String>,
    /// Continue the run in this directory or store after a crash or kill.
    #[arg(long, conflicts_with_all = ["config", "game", "run", "store"])]
    pub resume: Option<String>,
    /// Where runs are written.
    #[arg(long, default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// Self-play worker threads in this process (default: selfplay.threads); 0 runs only
    /// the trainer, gatekeeper and evaluator, for remote `mancala-zero worker`s.
    #[arg(long)]
    pub workers: Option<usize>,
    /// Override run.iterations (candidates); on --resume, this many more.
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Override run.max_minutes; on --resume, this many more minutes.
    #[arg(long)]
    pub minutes: Option<f64>,
    /// Start from this model's weights instead of random ones (run.init_model): a model file
    /// of the same game and network, such as a shipped model to train further.
    #[arg(long, value_name = "MODEL", conflicts_with = "resume")]
    pub init: Option<PathBuf>,
    /// TensorBoard event folder (default: RUN/tb for a run in a directory; none otherwise).
    #[arg(long)]
    pub tensorboard: Option<PathBuf>,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// The config `--game NAME` names: a shipped config, or else the embedded defaults playing a
/// game the rules read (a description file, a catalogue name, a rules string).
fn shipped_or_game(name: &str) -> anyhow::Result<(String, String)> {
    match RunConfig::shipped(name) {
        Ok(text) => Ok((text.to_string(), format!("shipped config '{name}'"))),
        Err(shipped) => {
            if let Err(rules) = mancala_rules::parse_rules(name) {
                bail!("--game '{name}': {shipped}; nor is it a game: {rules}");
            }
            let rules = toml::Value::String(name.to_string());
            let text = format!("{}\n[game]\nrules = {rules}\n", mancala_train::BASE_CONFIG);
            Ok((text, format!("embedded defaults for game '{name}'")))
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let lines = super::Lines { quiet: args.quiet };
    if let Some(m) = args.minutes
        && !(m >= 0.0 && m.is_finite())
    {
        bail!("--minutes must be 0 (no limit) or more, got {m}");
    }
    if let Some(url) = &args.resume {
        let store = Store::open(url)?;
        let config = mancala_train::Run::open(store.clone()).with_context(|| format!("resuming {url}"))?.config;
        let options = options(&args, &store, &config);
        let extend = Extend { iterations: args.iterations, minutes: args.minutes };
        let summary = resume(store, extend, &options, &lines).with_context(|| format!("resuming {url}"))?;
        report(&summary, url);
        return Ok(());
    }
    let (text, source) = match (&args.config, &args.game) {
        (Some(path), _) => (
            std::fs::read_to_string(path).with_context(|| format!("reading config {}", path.display()))?,
            path.display().to_string(),
        ),
        (None, Some(name)) => shipped_or_game(name)?,
        (None, None) => {
            (RunConfig::shipped(DEFAULT_SHIPPED)?.to_string(), format!("embedded defaults ({DEFAULT_SHIPPED})"))
        }
    };
    let mut config = RunConfig::parse(&text).with_context(|| format!("in {source}"))?;
    let text = if args.iterations.is_some() || args.minutes.is_some() || args.init.is_some() {
        if let Some(n) = args.iterations {
            config.run.iterations = n;
        }
        if let Some(m) = args.minutes {
            config.run.max_minutes = m;
        }
        if let Some(path) = &args.init {
            config.run.init_model = path.display().to_string();
        }
        format!("# {source}, with command-line overrides\n{}", toml::to_string(&config).context("writing the config")?)
    } else {
        text
    };
    let game = config.game()?;
    let url = match &args.store {
        Some(url) => url.clone(),
        None => {
            let name = args.run.clone().unwrap_or_else(|| default_run_name(&run_stem(&config.game.rules, game.name())));
            args.checkpoints.join(name).display().to_string()
        }
    };
    let store = Store::open(&url)?;
    println!("run {url} ({source}): {}", config.game.rules);
    let options = options(&args, &store, &config);
    let summary = start(store, &text, &options, &lines).with_context(|| format!("training run {url}"))?;
    report(&summary, &url);
    Ok(())
}

/// The game's word for a default run name: the preset a rules string starts with (`ouril`
/// for `ouril`, `oware` for `oware:7,5` or `oware grand_slam=capture-all`), else the game's
/// own name (a described game's `name`), kept to what a directory name holds. The family
/// alone named an Ouril or Awale run `oware-...` and every described game's `sowing-...`.
fn run_stem(rules: &str, name: &str) -> String {
    let word = rules.trim().split(|c: char| c.is_whitespace() || c == ':').next().unwrap_or("");
    if let Some(preset) = mancala_rules::PRESETS.iter().find(|p| p.eq_ignore_ascii_case(word)) {
        return preset.to_string();
    }
    let own: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    if own.is_empty() { "game".to_string() } else { own }
}

fn options(args: &Args, store: &Store, config: &RunConfig) -> TrainOptions {
    let tensorboard = match &args.tensorboard {
        Some(dir) => Some(dir.clone()),
        None if config.logging.tensorboard => store.local_dir().map(|d| d.join("tb")),
        None => None,
    };
    TrainOptions {
        workers: args.workers.unwrap_or(config.selfplay.threads),
        tensorboard,
        poll: Duration::from_millis(500),
    }
}

fn report(summary: &mancala_train::Summary, url: &str) {
    println!(
        "done: {} iterations, best model from iteration {} ({} promotions){}; run {url}",
        summary.iterations,
        summary.best_iteration,
        summary.promotions,
        if summary.finished { "" } else { ", stopped before its limits" },
    );
    for (r, e) in &summary.elo {
        println!("elo vs {r}: {e:+.0}");
    }
    if let Some(a) = &summary.endgame {
        println!(
            "endgame accuracy on {} database positions: value sign {:.1}%, best move {:.1}%, result kept {:.1}%",
            a.positions,
            a.value_sign * 100.0,
            a.best_move * 100.0,
            a.result_kept * 100.0
        );
    }
    if let Some((best_move, positions)) = summary.endgame_own {
        println!("by the game's own end, on {positions} of them: best move {:.1}%", best_move * 100.0);
    }
}

#[cfg(test)]
mod tests {
    use super::run_stem;

    #[test]
    fn a_default_run_is_named_after_the_game_not_its_family() {
        assert_eq!(run_stem("ouril", "oware"), "ouril");
        assert_eq!(run_stem("awale", "oware"), "awale");
        assert_eq!(run_stem("oware:7,5", "oware"), "oware");
        assert_eq!(run_stem("oware grand_slam=capture-all", "oware"), "oware");
        assert_eq!(run_stem("toguz-kumalak", "toguz-kumalak"), "toguz-kumalak");
        assert_eq!(run_stem("games/my game.toml", "my-game"), "my-game");
        assert_eq!(run_stem("/tmp/x.toml", "?"), "game");
    }
}
