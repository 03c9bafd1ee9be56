//! The routes. Each handler reads its input, calls the library and answers JSON; every
//! refusal is a 4xx with `{"error": "..."}` (see [`WebError`]).
//!
//! | route | does |
//! |---|---|
//! | `GET /api/info` | presets, the catalogue of described games, limits, what the server was started with |
//! | `POST /api/games` | a new game: `{rules?, description?, engine_side?, strength?, run?, model?}` |
//! | `GET /api/games/{id}` | the game |
//! | `DELETE /api/games/{id}` | ends it |
//! | `POST /api/games/{id}/move` | a person's move: `{house}` |
//! | `POST /api/games/{id}/engine-move` | the engine moves for the side to move |
//! | `POST /api/games/{id}/undo` | `{plies?}` or `{back_to: side}` |
//! | `POST /api/games/{id}/settings` | `{engine_side?, strength?}` |
//! | `POST /api/games/{id}/position` | `{line}`: a position line of the engine protocol |
//! | `POST /api/games/{id}/analysis` | search the position; exact values from `--db` |
//! | `GET /api/runs`, `GET /api/runs/{run}` | training runs and their curves |

use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mancala_rules::sowing::Description;
use mancala_rules::{
    AnyGame, Game, IllegalMove, Line, MoveParseError, PRESETS, PlayError, Player, RulesError, Setup, from_description,
    parse_rules_text,
};
use serde::{Deserialize, Serialize};

use crate::engine::{Exact, Opponent, Strength, Thought, browser_threads, exact, think};
use crate::error::WebError;
use crate::games::Session;
use crate::view::{GameView, view};
use crate::{App, assets, runs};

type AppState = State<Arc<App>>;
type Body<T> = Result<Json<T>, JsonRejection>;

/// The router over `app`.
pub fn router(app: Arc<App>) -> Router {
    let mut router = Router::new()
        .route("/api/info", get(info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(get_game).delete(end_game))
        .route("/api/games/{id}/move", post(person_move))
        .route("/api/games/{id}/engine-move", post(engine_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/settings", post(settings))
        .route("/api/games/{id}/position", post(set_position))
        .route("/api/games/{id}/analysis", post(analysis))
        .route("/api/runs", get(list_runs))
        .route("/api/runs/{run}", get(run_detail));
    for &(path, content_type, body) in assets::FILES {
        router = router.route(path, get(move || async move { ([(header::CONTENT_TYPE, content_type)], body) }));
    }
    router.fallback(not_found).layer(axum::middleware::map_response(json_errors)).with_state(app)
}

/// Refusals that axum writes itself (a method a route does not take, a path that is not
/// UTF-8) come as plain text or nothing; they get the same JSON shape as the handlers' own.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 64 * 1024).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("refused").to_lowercase() } else { text };
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

async fn not_found(uri: Uri) -> WebError {
    WebError::NotFound(format!("no route {}", uri.path()))
}

fn body<T>(b: Body<T>) -> Result<T, WebError> {
    Ok(b?.0)
}

/// Like `body`, but an empty body reads as `{}`.
fn optional_body<T: Default>(b: Body<T>) -> Result<T, WebError> {
    match b {
        Ok(Json(t)) => Ok(t),
        Err(JsonRejection::MissingJsonContentType(_)) => Ok(T::default()),
        Err(e) => Err(e.into()),
    }
}

fn lock(session: &Mutex<Session>) -> MutexGuard<'_, Session> {
    // A panic while holding the lock cannot leave a session half changed: every change is
    // one call on the line, so the poisoned value is still whole.
    session.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn game_view(app: &App, id: &str, session: &Session) -> Result<GameView, WebError> {
    let engine = app.brains.describe(session.line.game(), &session.opponent)?;
    Ok(view(id, session, engine))
}

fn parse_side(text: &str) -> Result<Option<Player>, WebError> {
    match text {
        "none" => Ok(None),
        _ => Player::parse(text)
            .map(Some)
            .ok_or_else(|| WebError::BadRequest(format!("engine_side '{text}': expected south, north or none"))),
    }
}

#[derive(Serialize)]
struct Info {
    version: &'static str,
    presets: &'static [&'static str],
    catalogue: crate::catalogue::Catalogue,
    default_rules: String,
    max_simulations: u32,
    max_milliseconds: u128,
    idle_minutes: u64,
    database: Option<String>,
    runs: bool,
}

async fn info(State(app): AppState) -> Json<Info> {
    Json(Info {
        version: env!("CARGO_PKG_VERSION"),
        presets: PRESETS,
        catalogue: crate::catalogue::read(app.config.catalogue.as_deref()),
        default_rules: app.config.default_rules.clone(),
        max_simulations: app.config.limits.max_simulations,
        max_milliseconds: app.config.limits.max_think.as_millis(),
        idle_minutes: app.config.idle.as_secs() / 60,
        database: app.brains.tablebase.as_ref().map(|tb| tb.rules().to_string()),
        runs: app.config.runs.is_some(),
    })
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NewGame {
    rules: Option<String>,
    /// A game description's TOML text (instead of `rules`).
    description: Option<String>,
    engine_side: Option<String>,
    strength: Option<Strength>,
    /// With `model`: play against a checkpoint of this run (its game, whatever `rules` says).
    run: Option<String>,
    model: Option<String>,
}

async fn new_game(State(app): AppState, b: Body<NewGame>) -> Result<(StatusCode, Json<GameView>), WebError> {
    let req = optional_body(b)?;
    let (game, opponent) = match (&req.run, &req.model) {
        (Some(run), Some(model)) => {
            let store = runs_store(&app)
                .map_err(|_| WebError::BadRequest("this server has no runs: start it with --runs URL".into()))?;
            let (app2, run2, model2) = (app.clone(), run.clone(), model.clone());
            // Finding the checkpoint asks the store, and loading a network reads a file and
            // builds it: off the async threads.
            let (game, path) = tokio::task::spawn_blocking(move || {
                let path = runs::checkpoint(&store, &run2, &model2)?;
                Ok::<_, WebError>((app2.brains.checkpoint_game(&path)?, path))
            })
            .await
            .map_err(|e| WebError::Internal(format!("loading {run}/{model}: {e}")))??;
            (game, Opponent::Checkpoint { path, name: format!("{run}/{model}") })
        }
        (None, None) => (new_rules(&app, &req)?, Opponent::Default),
        _ => return Err(WebError::BadRequest("give both run and model to play a checkpoint, or neither".into())),
    };
    let engine_side = parse_side(req.engine_side.as_deref().unwrap_or("north"))?;
    let strength = req.strength.unwrap_or_default().check(&app.config.limits)?;
    let session = Session { line: Line::new(game), engine_side, strength, opponent, seed: rand::random(), version: 0 };
    let view = game_view(&app, "", &session)?;
    let id = app.games.insert(session);
    Ok((StatusCode::CREATED, Json(GameView { id, ..view })))
}

/// The game a new game request names: a description's text, a rules string, or the
/// server's default.
fn new_rules(app: &App, req: &NewGame) -> Result<AnyGame, WebError> {
    if let Some(text) = &req.description {
        if req.rules.is_some() {
            return Err(WebError::BadRequest("give rules or description, not both".into()));
        }
        let bad = |e: RulesError| WebError::BadRequest(format!("description: {e}"));
        return from_description(Description::from_toml(text).map_err(bad)?).map_err(bad);
    }
    let rules = req.rules.as_deref().unwrap_or(&app.config.default_rules);
    // A request names no file of this machine: presets, catalogue names and `sowing {...}`.
    parse_rules_text(rules).map_err(|e| WebError::BadRequest(format!("rules '{rules}': {e}")))
}

async fn get_game(State(app): AppState, Path(id): Path<String>) -> Result<Json<GameView>, WebError> {
    let session = app.games.get(&id)?;
    let s = lock(&session).clone();
    Ok(Json(game_view(&app, &id, &s)?))
}

async fn end_game(State(app): AppState, Path(id): Path<String>) -> Result<StatusCode, WebError> {
    if app.games.remove(&id) {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(WebError::NoGame { id, idle_minutes: app.config.idle.as_secs() / 60 })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PersonMove {
    house: String,
}

async fn person_move(
    State(app): AppState,
    Path(id): Path<String>,
    b: Body<PersonMove>,
) -> Result<Json<GameView>, WebError> {
    let req = body(b)?;
    let session = app.games.get(&id)?;
    let mut s = lock(&session);
    let side = s.line.side_to_move();
    if s.engine_side == Some(side) && !s.line.status().is_over() {
        return Err(WebError::Conflict(format!("it is the engine's turn ({side}); ask it to move")));
    }
    s.line.play_label(&req.house).map_err(|e| refused(&req.house, e))?;
    s.version += 1;
    Ok(Json(game_view(&app, &id, &s)?))
}

/// The rules crate's reason for refusing a move, without its own "illegal move X" prefix.
fn refused(house: &str, e: PlayError) -> WebError {
    let reason = match e {
        PlayError::Illegal(IllegalMove::NotLegal { reason, .. }) => reason,
        PlayError::Illegal(IllegalMove::GameOver { .. }) => "the game is over".into(),
        PlayError::Parse(MoveParseError::NotOwn { owner, mover, .. }) => {
            format!("that house is {owner}'s, and {mover} is to move")
        }
        other => other.to_string(),
    };
    WebError::IllegalMove { label: house.to_string(), reason }
}

#[derive(Serialize)]
struct EngineMove {
    game: GameView,
    thought: Thought,
}

async fn engine_move(State(app): AppState, Path(id): Path<String>) -> Result<Json<EngineMove>, WebError> {
    let session = app.games.get(&id)?;
    let s = lock(&session).clone();
    if let Some(outcome) = s.line.status().outcome() {
        return Err(WebError::Conflict(format!("the game is over ({outcome})")));
    }
    let (seed, version) = (s.seed.wrapping_add(s.line.len() as u64), s.version);
    let thought = app
        .on_engine(move |app| {
            think(&app.brains, &s.opponent, &s.line, s.strength, &app.config.limits, seed, browser_threads())
        })
        .await?;
    let mut s = lock(&session);
    if s.version != version {
        return Err(WebError::Conflict("the game changed while the engine was thinking; ask it again".into()));
    }
    let action = thought.best_action.ok_or_else(|| WebError::Internal("the search found no move".into()))?;
    s.line.play(action).map_err(|e| WebError::Internal(format!("the engine chose an illegal move: {e}")))?;
    s.version += 1;
    let game = game_view(&app, &id, &s)?;
    Ok(Json(EngineMove { game, thought }))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Undo {
    plies: Option<usize>,
    /// Take back moves until this side is to move again (after at least one).
    back_to: Option<String>,
}

async fn undo(State(app): AppState, Path(id): Path<String>, b: Body<Undo>) -> Result<Json<GameView>, WebError> {
    let req = optional_body(b)?;
    let session = app.games.get(&id)?;
    let mut s = lock(&session);
    let played = s.line.len();
    let plies = match (req.plies, req.back_to.as_deref()) {
        (Some(_), Some(_)) => return Err(WebError::BadRequest("give plies or back_to, not both".into())),
        (plies, None) => plies.unwrap_or(1),
        (None, Some(side)) => {
            let side =
                parse_side(side)?.ok_or_else(|| WebError::BadRequest("back_to: expected south or north".into()))?;
            // The side to move after taking back k plies is the mover of the k-th last move.
            let movers: Vec<Player> = s.line.positions().map(|p| s.line.game().side_to_move(p)).collect();
            (1..=played)
                .find(|&k| movers[played - k] == side)
                .ok_or_else(|| WebError::Conflict(format!("{side} has not moved in this game; nothing to take back")))?
        }
    };
    if plies == 0 || plies > played {
        return Err(WebError::Conflict(format!("cannot take back {plies} moves: {played} played since the start")));
    }
    for _ in 0..plies {
        s.line.undo();
    }
    s.version += 1;
    Ok(Json(game_view(&app, &id, &s)?))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Settings {
    engine_side: Option<String>,
    strength: Option<Strength>,
}

async fn settings(State(app): AppState, Path(id): Path<String>, b: Body<Settings>) -> Result<Json<GameView>, WebError> {
    let req = body(b)?;
    // Check everything before changing anything.
    let engine_side = req.engine_side.as_deref().map(parse_side).transpose()?;
    let strength = req.strength.map(|st| st.check(&app.config.limits)).transpose()?;
    let session = app.games.get(&id)?;
    let mut s = lock(&session);
    if let Some(side) = engine_side {
        s.engine_side = side;
    }
    if let Some(strength) = strength {
        s.strength = strength;
    }
    s.version += 1;
    Ok(Json(game_view(&app, &id, &s)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetPosition {
    /// `SIDE | S0 S1 | PITS... | STATUS [| CONTROLLERS]`, as the protocol's `position` writes.
    line: String,
}

async fn set_position(
    State(app): AppState,
    Path(id): Path<String>,
    b: Body<SetPosition>,
) -> Result<Json<GameView>, WebError> {
    let req = body(b)?;
    let session = app.games.get(&id)?;
    let mut s = lock(&session);
    let game = s.line.game().clone();
    let bad = |e: &dyn std::fmt::Display| WebError::BadRequest(format!("position '{}': {e}", req.line.trim()));
    let setup: Setup = req.line.trim().parse().map_err(|e| bad(&e))?;
    let pos = game.from_setup(&setup).map_err(|e| bad(&e))?;
    s.line = Line::from_position(game, pos);
    s.version += 1;
    Ok(Json(game_view(&app, &id, &s)?))
}

#[derive(Serialize)]
struct Analysis {
    /// The position analysed, as a position line.
    position: String,
    side_to_move: &'static str,
    thought: Thought,
    /// The endgame database's exact values, when `--db` covers the position.
    exact: Option<Exact>,
}

async fn analysis(State(app): AppState, Path(id): Path<String>) -> Result<Json<Analysis>, WebError> {
    let session = app.games.get(&id)?;
    let s = lock(&session).clone();
    let seed = s.seed.wrapping_add(s.line.len() as u64);
    let analysis = app
        .on_engine(move |app| {
            let thought =
                think(&app.brains, &s.opponent, &s.line, s.strength, &app.config.limits, seed, browser_threads())?;
            Ok(Analysis {
                position: crate::view::position_line(&s.line),
                side_to_move: s.line.side_to_move().name(),
                exact: exact(&app.brains, &s.line),
                thought,
            })
        })
        .await?;
    Ok(Json(analysis))
}

/// The store of `--runs`; opening one contacts no service.
fn runs_store(app: &App) -> Result<mancala_store::Store, WebError> {
    let url = app
        .config
        .runs
        .as_deref()
        .ok_or_else(|| WebError::NotFound("this server has no runs: start it with --runs URL".into()))?;
    mancala_store::Store::open(url).map_err(|e| WebError::Internal(e.to_string()))
}

async fn list_runs(State(app): AppState) -> Result<Response, WebError> {
    let store = runs_store(&app)?;
    let list = tokio::task::spawn_blocking(move || runs::list(&store))
        .await
        .map_err(|e| WebError::Internal(format!("reading runs: {e}")))??;
    Ok(Json(list).into_response())
}

async fn run_detail(State(app): AppState, Path(run): Path<String>) -> Result<Response, WebError> {
    let store = runs_store(&app)?;
    let detail = tokio::task::spawn_blocking(move || runs::detail(&store, &run))
        .await
        .map_err(|e| WebError::Internal(format!("reading run: {e}")))??;
    Ok(Json(detail).into_response())
}
