//! Play and analyse sowing games in a browser: `mancala-zero serve`.
//!
//! One process serves the page (its files are built into the binary, see [`assets`]) and a
//! JSON API over the same library calls the CLI makes: the rules crate decides every move,
//! the search crate thinks, the network and endgame-database crates judge positions.
//!
//! - [`api`]: the routes, thin handlers over the modules below.
//! - [`games`]: the games in progress, bounded in number and idle time.
//! - [`engine`]: who plays for the engine, and one search capped in simulations and time.
//! - [`view`], [`board`], [`course`]: what the page is told about a game: the board's
//!   layout from the game's description, and every move's course from the engine's trace.
//! - [`catalogue`]: the described games the page offers beside the presets (built in, and a folder's).
//! - [`runs`]: training runs in the store `--runs` names, read through the run layout.
//!
//! ```no_run
//! let config = mancala_web::ServerConfig::default();
//! mancala_web::run(config, "127.0.0.1:8080", |addr| println!("http://{addr}/")).unwrap();
//! ```

pub mod api;
pub mod assets;
pub mod board;
pub mod catalogue;
pub mod course;
pub mod engine;
pub mod error;
pub mod games;
pub mod runs;
pub mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

pub use engine::{Brains, Opponent, SearchLimits, ShippedModels, Strength};
pub use error::WebError;
pub use games::{GameStore, Session};

/// Everything `serve` is started with.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The rules string a new game gets when the page names none.
    pub default_rules: String,
    /// A model file that plays its own game (other games: shipped network or rollouts).
    pub model: Option<PathBuf>,
    /// An endgame database for exact values in the analysis.
    pub db: Option<PathBuf>,
    /// A store whose folders are training runs (a directory, `s3://BUCKET/PREFIX`, ...).
    pub runs: Option<String>,
    /// A folder of game descriptions (`*.toml`) the page offers beside the presets and the
    /// built-in catalogue (which it always offers).
    pub catalogue: Option<PathBuf>,
    pub shipped: Option<ShippedModels>,
    /// Games kept at once; a new one past this drops the game idle longest.
    pub max_games: usize,
    /// A game without a request for this long is dropped.
    pub idle: Duration,
    /// Searches running at once (each on its own thread); more wait their turn.
    pub engine_threads: usize,
    /// Requests waiting for a search beyond which the server answers 503 at once.
    pub engine_queue: usize,
    pub limits: SearchLimits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            default_rules: "oware".into(),
            model: None,
            db: None,
            runs: None,
            catalogue: Some(PathBuf::from("games")),
            shipped: None,
            max_games: 1000,
            idle: Duration::from_secs(30 * 60),
            engine_threads: std::thread::available_parallelism().map_or(2, usize::from),
            engine_queue: 256,
            limits: SearchLimits { max_simulations: 50_000, max_think: Duration::from_secs(10) },
        }
    }
}

/// The server's shared state.
pub struct App {
    pub config: ServerConfig,
    pub games: GameStore,
    pub brains: Brains,
    engine_slots: Semaphore,
    waiting: AtomicUsize,
}

impl App {
    /// Loads the model and database files the config names.
    ///
    /// # Errors
    /// A bad `--game`, model or database file.
    pub fn new(config: ServerConfig) -> Result<Arc<App>, WebError> {
        mancala_rules::parse_rules(&config.default_rules)
            .map_err(|e| WebError::BadRequest(format!("--game '{}': {e}", config.default_rules)))?;
        let brains = Brains::new(config.model.as_deref(), config.db.as_deref(), config.shipped)?;
        Ok(Arc::new(App {
            games: GameStore::new(config.max_games, config.idle),
            engine_slots: Semaphore::new(config.engine_threads.max(1)),
            waiting: AtomicUsize::new(0),
            brains,
            config,
        }))
    }

    /// Runs `work` (a search) on a blocking thread once an engine slot is free.
    ///
    /// # Errors
    /// [`WebError::Busy`] when too many requests already wait; the work's own error; a
    /// panic in it as [`WebError::Internal`].
    pub async fn on_engine<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&App) -> Result<T, WebError> + Send + 'static,
    ) -> Result<T, WebError> {
        let waiting = self.waiting.fetch_add(1, Ordering::SeqCst);
        if waiting >= self.config.engine_queue {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(WebError::Busy(waiting));
        }
        let permit = self.engine_slots.acquire().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let _permit = permit.map_err(|_| WebError::Internal("the engine has shut down".into()))?;
        let app = self.clone();
        tokio::task::spawn_blocking(move || work(&app))
            .await
            .map_err(|e| WebError::Internal(format!("the engine failed: {e}")))?
    }
}

/// Serves `app` on `listener` until Ctrl-C, dropping idle games once a minute.
///
/// # Errors
/// The listener failing.
pub async fn serve(listener: tokio::net::TcpListener, app: Arc<App>) -> std::io::Result<()> {
    serve_until(listener, app, async {
        // Without a signal handler (some sandboxes) the server simply runs until killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
    .await
}

/// Serves `app` on `listener` until `shutdown` completes.
///
/// # Errors
/// The listener failing.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = {
        let app = app.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                app.games.sweep();
            }
        })
    };
    let served = axum::serve(listener, api::router(app)).with_graceful_shutdown(shutdown).await;
    sweeper.abort();
    served
}

/// Loads what `config` names, listens on `addr` (`host:port`), calls `ready` with the
/// address bound, and serves until Ctrl-C.
///
/// # Errors
/// A bad model, database or rules string; an address that cannot be listened on.
pub fn run(config: ServerConfig, addr: &str, ready: impl FnOnce(SocketAddr)) -> Result<(), WebError> {
    let app = App::new(config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| WebError::Internal(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let listen_error = |e: std::io::Error| WebError::Internal(format!("cannot listen on {addr}: {e}"));
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(listen_error)?;
        ready(listener.local_addr().map_err(listen_error)?);
        serve(listener, app).await.map_err(|e| WebError::Internal(format!("serving on {addr}: {e}")))
    })
}
