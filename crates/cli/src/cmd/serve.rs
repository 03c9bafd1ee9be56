//! `mancala-zero serve`: the browser page and its JSON API (crates/web).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use mancala_web::{SearchLimits, ServerConfig};

/// Arguments of `mancala-zero serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on; the default keeps the server to this machine.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The game a new page starts with (a rules string); the page can pick any other.
    #[arg(long, default_value = "oware", value_name = "PRESET")]
    pub game: String,
    /// A trained network for its own game (other games: the shipped network or rollouts).
    #[arg(long, value_name = "FILE", conflicts_with = "no_model")]
    pub model: Option<PathBuf>,
    /// Search with random rollouts only, even where a shipped network exists.
    #[arg(long)]
    pub no_model: bool,
    /// An endgame database (`tablebase build`): exact values in the analysis.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// A store whose folders are training runs (a directory such as `checkpoints`, or
    /// `s3://BUCKET/PREFIX`): their curves, and games against their checkpoints.
    #[arg(long, value_name = "URL", alias = "checkpoints")]
    pub runs: Option<String>,
    /// A folder of game descriptions (`*.toml`) the page offers beside the built-in catalogue
    /// (a file of a built-in game's name replaces it); read at every listing.
    #[arg(long, value_name = "DIR", default_value = "games")]
    pub games: PathBuf,
    /// Games kept at once; past this a new game drops the one idle longest.
    #[arg(long, default_value_t = 1000)]
    pub max_games: usize,
    /// Minutes without a request after which a game is dropped.
    #[arg(long, default_value_t = 30)]
    pub idle_minutes: u64,
    /// The longest the engine may think for one request, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub max_think_ms: u64,
    /// The most simulations one request may ask for.
    #[arg(long, default_value_t = 50_000)]
    pub max_simulations: u32,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(url) = &args.runs {
        // A bad URL is refused now, not at the page's first request.
        mancala_store::Store::open(url).with_context(|| format!("--runs {url}"))?;
    }
    let defaults = ServerConfig::default();
    let config = ServerConfig {
        default_rules: args.game,
        model: args.model,
        db: args.db,
        runs: args.runs,
        catalogue: Some(args.games),
        shipped: if args.no_model { None } else { Some(crate::shipped::shipped_model) },
        max_games: args.max_games,
        idle: Duration::from_secs(args.idle_minutes * 60),
        limits: SearchLimits {
            max_simulations: args.max_simulations.max(1),
            max_think: Duration::from_millis(args.max_think_ms.max(1)),
        },
        ..defaults
    };
    let addr = format!("{}:{}", args.host, args.port);
    mancala_web::run(config, &addr, |bound| {
        eprintln!("mancala-zero {}: open http://{bound}/ (Ctrl-C stops)", env!("CARGO_PKG_VERSION"))
    })
    .with_context(|| format!("serve on {addr}"))
}
