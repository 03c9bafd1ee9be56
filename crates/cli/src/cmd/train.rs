//! `mancala-zero train`: starts or resumes a self-play training run.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_train::{default_run_name, resume, start, Reporter, RunConfig, SHIPPED};

/// Arguments of `mancala-zero train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run config (TOML). Without it and without --game: Oware on the embedded defaults.
    #[arg(long, conflicts_with = "game")]
    pub config: Option<PathBuf>,
    /// A shipped config by name: oware, ouril, awale, kalah, ba-awa, owela, tiny.
    #[arg(long)]
    pub game: Option<String>,
    /// Name of the run directory under --checkpoints (default: GAME-DATE-TIME).
    #[arg(long)]
    pub run: Option<String>,
    /// Continue the run in this directory after a crash or kill.
    #[arg(long, conflicts_with_all = ["config", "game", "run"])]
    pub resume: Option<PathBuf>,
    /// Where runs are written.
    #[arg(long, default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// Override run.iterations.
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Override run.max_minutes.
    #[arg(long)]
    pub minutes: Option<f64>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// Progress bars on stderr (only on a terminal), summary lines on stdout.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    show: bool,
}

impl Reporter for Bars {
    fn phase(&self, name: &str, total: u64) {
        let mut bar = self.bar.lock().expect("progress bar lock");
        if let Some(b) = bar.take() {
            b.finish_and_clear();
        }
        if self.show {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{msg:32} [{bar:30}] {pos}/{len} {elapsed_precise}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            b.set_message(name.to_string());
            *bar = Some(b);
        }
    }

    fn advance(&self, done: u64) {
        if let Some(b) = self.bar.lock().expect("progress bar lock").as_ref() {
            b.set_position(done);
        }
    }

    fn line(&self, text: &str) {
        let bar = self.bar.lock().expect("progress bar lock");
        match bar.as_ref() {
            Some(b) => b.suspend(|| println!("{text}")),
            None => println!("{text}"),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bars = Bars { bar: Mutex::new(None), show: !args.quiet && std::io::stderr().is_terminal() };
    if let Some(dir) = &args.resume {
        if args.iterations.is_some() || args.minutes.is_some() {
            bail!("--iterations and --minutes cannot change a run being resumed (edit {}/config.toml)", dir.display());
        }
        let summary = resume(dir, &bars).with_context(|| format!("resuming {}", dir.display()))?;
        report(&summary, dir);
        return Ok(());
    }
    let (text, source) = match (&args.config, &args.game) {
        (Some(path), _) => (
            std::fs::read_to_string(path).with_context(|| format!("reading config {}", path.display()))?,
            path.display().to_string(),
        ),
        (None, Some(name)) => match RunConfig::shipped(name) {
            Some(t) => (t.to_string(), format!("shipped config '{name}'")),
            None => bail!(
                "no shipped config '{name}': expected one of {}",
                SHIPPED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        },
        (None, None) => (mancala_train::DEFAULT_CONFIG.to_string(), "embedded defaults (oware)".to_string()),
    };
    let mut config = RunConfig::parse(&text).with_context(|| format!("in {source}"))?;
    let text = if args.iterations.is_some() || args.minutes.is_some() {
        if let Some(n) = args.iterations {
            config.run.iterations = n;
        }
        if let Some(m) = args.minutes {
            if m < 0.0 {
                bail!("--minutes must be 0 (no limit) or more, got {m}");
            }
            config.run.max_minutes = m;
        }
        format!("# {source}, with command-line overrides\n{}", toml::to_string(&config).context("writing the config")?)
    } else {
        text
    };
    let game = config.game()?;
    let name = args.run.clone().unwrap_or_else(|| default_run_name(game.family()));
    let dir = args.checkpoints.join(&name);
    println!("run {} ({source}): {}", dir.display(), config.game.rules);
    let summary = start(&text, &dir, &bars).with_context(|| format!("training run {}", dir.display()))?;
    report(&summary, &dir);
    Ok(())
}

fn report(summary: &mancala_train::Summary, dir: &std::path::Path) {
    println!(
        "done: {} iterations, best model from iteration {} ({} promotions); run directory {}",
        summary.iterations,
        summary.best_iteration,
        summary.promotions,
        dir.display()
    );
    for (r, e) in &summary.elo {
        println!("elo vs {r}: {e:+.0}");
    }
    if let Some(a) = &summary.endgame {
        println!(
            "endgame accuracy on {} database positions: value sign {:.1}%, best move {:.1}%",
            a.positions,
            a.value_sign * 100.0,
            a.best_move * 100.0
        );
    }
}
