//! Every endpoint of the JSON API, driven straight into the router (no sockets): games for
//! every preset, moves checked against the rules crate, bad bodies, unknown and expired
//! games, illegal moves, undo, pasted positions, analysis with and without an endgame
//! database, and training runs.

mod common;

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use mancala_rules::{Game, Line, parse_rules};
use mancala_store::Store;
use mancala_tablebase::Tablebase;
use mancala_train::layout;
use mancala_web::ServerConfig;
use mancala_web::api::router;
use serde_json::{Value, json};
use tower::ServiceExt;

async fn call(app: &Router, method: &str, uri: &str, body: Option<&str>) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string()))).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24).await.unwrap();
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()))
    };
    (status, value)
}

async fn ok(app: &Router, method: &str, uri: &str, body: Option<Value>) -> Value {
    let text = body.map(|b| b.to_string());
    let (status, value) = call(app, method, uri, text.as_deref()).await;
    assert!(status.is_success(), "{method} {uri}: {status} {value}");
    value
}

/// The error message of a refused request, checking its status.
async fn refused(app: &Router, method: &str, uri: &str, body: Option<&str>, expected: StatusCode) -> String {
    let (status, value) = call(app, method, uri, body).await;
    assert_eq!(status, expected, "{method} {uri} {body:?}: {value}");
    value["error"].as_str().unwrap_or_else(|| panic!("no JSON error message: {value}")).to_string()
}

fn server() -> Router {
    router(common::app(common::config()))
}

async fn new_game(app: &Router, body: Value) -> Value {
    ok(app, "POST", "/api/games", Some(body)).await
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// The board the server shows must be the rules crate's after the same moves.
fn assert_matches_rules(view: &Value) {
    let game = parse_rules(view["rules"].as_str().unwrap()).unwrap();
    let mut line = Line::new(game.clone());
    for label in strings(&view["moves"]) {
        line.play_label(&label).unwrap();
    }
    let pits: Vec<u8> = view["pits"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as u8).collect();
    assert_eq!(pits, game.pits(line.position()));
    let scores = game.scores(line.position());
    assert_eq!(view["scores"], json!([scores.south, scores.north]));
    assert_eq!(view["status"], line.status().to_string());
    let legal: Vec<String> = line.legal_moves().iter().map(|a| game.move_label(line.side_to_move(), a)).collect();
    assert_eq!(strings(&view["legal"]), legal);
}

#[tokio::test]
async fn serves_the_page_and_info() {
    let app = server();
    let request = Request::builder().uri("/").body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    for asset in ["/app.js", "/board.js", "/style.css"] {
        let response = app.clone().oneshot(Request::builder().uri(asset).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
    }
    let info = ok(&app, "GET", "/api/info", None).await;
    assert!(strings(&info["presets"]).contains(&"owela".to_string()));
    assert_eq!(info["runs"], false);
    assert!(refused(&app, "GET", "/api/nothing", None, StatusCode::NOT_FOUND).await.contains("/api/nothing"));
    // What axum refuses itself is JSON too.
    refused(&app, "GET", "/api/games", None, StatusCode::METHOD_NOT_ALLOWED).await;
    refused(&app, "GET", "/api/games/%FF", None, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn every_game_plays_to_the_end_against_the_engine() {
    let app = server();
    for rules in ["oware", "ouril", "awale", "oware-capture-all", "kalah", "kalah:4,3", "ba-awa", "owela"] {
        let mut view =
            new_game(&app, json!({"rules": rules, "engine_side": "none", "strength": {"simulations": 4}})).await;
        let id = view["id"].as_str().unwrap().to_string();
        assert_eq!(view["layout"]["places"].as_array().unwrap().len(), view["pits"].as_array().unwrap().len());
        let mut plies = 0;
        while view["status"] == "ongoing" && plies < 400 {
            // Alternate a person's move (the first legal house) and the engine's.
            view = if plies % 2 == 0 {
                let house = view["legal"][0].as_str().unwrap().to_string();
                ok(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": house}))).await
            } else {
                ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await["game"].clone()
            };
            assert_matches_rules(&view);
            assert!(view["last"]["house"].is_string());
            plies += 1;
        }
        if view["status"] != "ongoing" {
            assert!(view["result"].is_string(), "{rules}: {}", view["result"]);
            let message =
                refused(&app, "POST", &format!("/api/games/{id}/engine-move"), None, StatusCode::CONFLICT).await;
            assert!(message.contains("over"), "{message}");
        }
        assert!(view["record"].as_str().unwrap().starts_with(&format!("rules {}", view["rules"].as_str().unwrap())));
    }
}

#[tokio::test]
async fn bad_bodies_are_refused_naming_the_input() {
    let app = server();
    let cases: &[(&str, &str)] = &[
        ("{not json", "bad request body"),
        (r#"{"rules": "chess"}"#, "chess"),
        (r#"{"rules": "oware houses=99"}"#, "99"),
        (r#"{"colour": "red"}"#, "colour"),
        (r#"{"engine_side": "east"}"#, "east"),
        (r#"{"strength": {"simulations": 0}}"#, "0 simulations"),
        (r#"{"strength": {"simulations": 99999999}}"#, "99999999"),
        (r#"{"strength": {"milliseconds": 600000}}"#, "600000"),
        (r#"{"strength": {"visits": 5}}"#, "visits"),
        (r#"{"run": "r"}"#, "run and model"),
        (r#"{"run": "r", "model": "m"}"#, "--runs"),
    ];
    for (body, expected) in cases {
        let message = refused(&app, "POST", "/api/games", Some(body), StatusCode::BAD_REQUEST).await;
        assert!(message.contains(expected), "{body}: {message}");
    }
    let id = new_game(&app, json!({})).await["id"].as_str().unwrap().to_string();
    for (uri, body) in [
        ("move", "{}"),
        ("move", r#"{"house": 3}"#),
        ("position", r#"{"line": 5}"#),
        ("settings", r#"{"strength": {"simulations": -1}}"#),
        ("undo", r#"{"plies": 1, "back_to": "south"}"#),
    ] {
        let message =
            refused(&app, "POST", &format!("/api/games/{id}/{uri}"), Some(body), StatusCode::BAD_REQUEST).await;
        assert!(!message.is_empty(), "{uri} {body}");
    }
    // The game is unchanged by all of that.
    let view = ok(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert!(strings(&view["moves"]).is_empty());
}

#[tokio::test]
async fn unknown_and_expired_games_are_404() {
    let app = server();
    for (method, path) in [
        ("GET", ""),
        ("POST", "/move"),
        ("POST", "/engine-move"),
        ("POST", "/undo"),
        ("POST", "/analysis"),
        ("DELETE", ""),
    ] {
        let body = if method == "POST" { Some(r#"{"house": "A"}"#) } else { None };
        let body = if path == "/move" { body } else { None };
        let message = refused(&app, method, &format!("/api/games/nosuchgame{path}"), body, StatusCode::NOT_FOUND).await;
        assert!(message.contains("nosuchgame"), "{message}");
    }
    let expiring = router(common::app(ServerConfig { idle: Duration::ZERO, ..common::config() }));
    let id = new_game(&expiring, json!({})).await["id"].as_str().unwrap().to_string();
    let message = refused(&expiring, "GET", &format!("/api/games/{id}"), None, StatusCode::NOT_FOUND).await;
    assert!(message.contains("expired"), "{message}");
    // A full table makes room by dropping the game idle longest.
    let small = router(common::app(ServerConfig { max_games: 2, ..common::config() }));
    let first = new_game(&small, json!({})).await["id"].as_str().unwrap().to_string();
    new_game(&small, json!({})).await;
    new_game(&small, json!({})).await;
    refused(&small, "GET", &format!("/api/games/{first}"), None, StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn illegal_moves_give_the_rules_reason() {
    let app = server();
    let id =
        new_game(&app, json!({"rules": "oware", "engine_side": "north"})).await["id"].as_str().unwrap().to_string();
    let uri = format!("/api/games/{id}/move");
    let setup = json!({"line": "south | 10 10 | 0 0 0 0 0 1 0 0 0 0 0 27 | ongoing"});
    ok(&app, "POST", &format!("/api/games/{id}/position"), Some(setup)).await;
    // A house that does not feed the empty opponent row: the rules crate says why.
    let message = refused(&app, "POST", &uri, Some(r#"{"house": "A"}"#), StatusCode::BAD_REQUEST).await;
    assert!(message.starts_with("illegal move A: "), "{message}");
    let message = refused(&app, "POST", &uri, Some(r#"{"house": "b"}"#), StatusCode::BAD_REQUEST).await;
    assert!(message.contains("north's"), "{message}");
    let message = refused(&app, "POST", &uri, Some(r#"{"house": "Z"}"#), StatusCode::BAD_REQUEST).await;
    assert!(message.contains("'Z'"), "{message}");
    ok(&app, "POST", &uri, Some(json!({"house": "F"}))).await;
    // North is the engine's side: a person may not move for it.
    let message = refused(&app, "POST", &uri, Some(r#"{"house": "a"}"#), StatusCode::CONFLICT).await;
    assert!(message.contains("engine's turn"), "{message}");
}

#[tokio::test]
async fn undo_and_settings() {
    let app = server();
    let id =
        new_game(&app, json!({"rules": "kalah", "engine_side": "north", "strength": {"simulations": 8}})).await["id"]
            .as_str()
            .unwrap()
            .to_string();
    let refused_undo = refused(&app, "POST", &format!("/api/games/{id}/undo"), None, StatusCode::CONFLICT).await;
    assert!(refused_undo.contains("0 played"), "{refused_undo}");
    // C ends in South's store: South moves again.
    ok(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": "C"}))).await;
    ok(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": "A"}))).await;
    let view = ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await["game"].clone();
    assert_matches_rules(&view);
    let played = view["moves"].as_array().unwrap().len();
    let view = ok(&app, "POST", &format!("/api/games/{id}/undo"), Some(json!({"back_to": "south"}))).await;
    assert_eq!(view["side_to_move"], "south");
    assert!(view["moves"].as_array().unwrap().len() < played);
    let view = ok(&app, "POST", &format!("/api/games/{id}/undo"), Some(json!({"plies": 1}))).await;
    assert_matches_rules(&view);
    let message =
        refused(&app, "POST", &format!("/api/games/{id}/undo"), Some(r#"{"plies": 9}"#), StatusCode::CONFLICT).await;
    assert!(message.contains("cannot take back 9"), "{message}");
    let view = ok(
        &app,
        "POST",
        &format!("/api/games/{id}/settings"),
        Some(json!({"engine_side": "none", "strength": {"milliseconds": 50}})),
    )
    .await;
    assert_eq!(view["engine_side"], Value::Null);
    assert_eq!(view["strength"], json!({"milliseconds": 50}));
    // A time budget still gives a move (the search always completes one simulation).
    let moved = ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await;
    assert!(moved["thought"]["simulations"].as_u64().unwrap() >= 1);
    assert_matches_rules(&moved["game"]);
    let (status, _) = call(&app, "DELETE", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn a_full_engine_queue_answers_503() {
    let app = router(common::app(ServerConfig { engine_queue: 0, ..common::config() }));
    let id = new_game(&app, json!({})).await["id"].as_str().unwrap().to_string();
    let message =
        refused(&app, "POST", &format!("/api/games/{id}/engine-move"), None, StatusCode::SERVICE_UNAVAILABLE).await;
    assert!(message.contains("busy"), "{message}");
    // The game itself is untouched and still plays.
    ok(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": "A"}))).await;
}

#[tokio::test]
async fn pasted_positions() {
    let app = server();
    let id =
        new_game(&app, json!({"rules": "ba-awa", "engine_side": "none"})).await["id"].as_str().unwrap().to_string();
    let uri = format!("/api/games/{id}/position");
    let line = "north | 20 12 | 0 0 2 3 0 1 0 4 2 0 1 3 | ongoing | s s s s s s n n n n n s";
    let view = ok(&app, "POST", &uri, Some(json!({"line": line}))).await;
    assert_eq!(view["position"], line);
    assert_eq!(view["controllers"][11], "south");
    assert_eq!(view["side_to_move"], "north");
    for (bad, expected) in [
        ("south | 0 0 | 4 4 | ongoing", "pits"),
        ("sideways | 0 0 | 4 | ongoing", "side"),
        ("south | 0 0 | 9 9 9 9 9 9 9 9 9 9 9 9 | ongoing", "seeds"),
    ] {
        let message =
            refused(&app, "POST", &uri, Some(&json!({"line": bad}).to_string()), StatusCode::BAD_REQUEST).await;
        assert!(message.contains(expected) && message.contains(bad), "{bad}: {message}");
    }
    assert_eq!(ok(&app, "GET", &format!("/api/games/{id}"), None).await["position"], line);
}

#[tokio::test]
async fn analysis_with_and_without_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let game = parse_rules("kalah").unwrap();
    let (tb, _) = Tablebase::build(&game, 6, &|_| {}).unwrap();
    let db = dir.path().join("kalah6.tb");
    tb.write(&db).unwrap();
    let app = router(common::app(ServerConfig { db: Some(db), ..common::config() }));
    assert_eq!(ok(&app, "GET", "/api/info", None).await["database"], game.rules_string());
    let id = new_game(&app, json!({"rules": "kalah", "strength": {"simulations": 64}})).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let analysis = ok(&app, "POST", &format!("/api/games/{id}/analysis"), None).await;
    let thought = &analysis["thought"];
    assert_eq!(thought["moves"].as_array().unwrap().len(), 6);
    let share: f64 = thought["moves"].as_array().unwrap().iter().map(|m| m["visit_share"].as_f64().unwrap()).sum();
    assert!((share - 1.0).abs() < 1e-3, "{share}");
    assert!(!thought["pv"].as_array().unwrap().is_empty());
    assert!(thought["best"].is_string());
    // The line the page shows starts with the move the engine plays.
    assert_eq!(thought["pv"][0], thought["best"], "{thought}");
    assert_eq!(analysis["exact"], Value::Null, "48 seeds are outside a 6-seed database");
    let endgame = "south | 21 21 | 0 1 0 0 2 0 0 0 1 0 2 0 | ongoing";
    ok(&app, "POST", &format!("/api/games/{id}/position"), Some(json!({"line": endgame}))).await;
    let analysis = ok(&app, "POST", &format!("/api/games/{id}/analysis"), None).await;
    let exact = &analysis["exact"];
    assert!(exact["value"].is_i64() && !strings(&exact["best"]).is_empty(), "{exact}");
    let pos = game.from_setup(&endgame.parse().unwrap()).unwrap();
    assert_eq!(exact["value"].as_i64().unwrap(), i64::from(tb.probe(&game, &pos).unwrap().value));
}

#[tokio::test]
async fn runs_curves_and_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), "kalah-run", "kalah");
    std::fs::create_dir_all(dir.path().join("not-a-run")).unwrap();
    let runs = dir.path().to_str().unwrap().to_string();
    let app = router(common::app(ServerConfig { runs: Some(runs), ..common::config() }));
    let list = ok(&app, "GET", "/api/runs", None).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], "kalah-run");
    assert_eq!(list[0]["best"], "iter-0002.mzm");
    assert_eq!(list[0]["elo"]["random"], 120.5);
    let run = ok(&app, "GET", "/api/runs/kalah-run", None).await;
    assert_eq!(run["series"]["loss/policy"], json!([[1.0, 2.0], [2.0, 1.5], [3.0, 1.25]]));
    assert_eq!(run["series"]["loss/value"].as_array().unwrap().len(), 2);
    assert_eq!(run["skipped_lines"], 1);
    assert_eq!(strings(&run["models"]), ["iter-0001.mzm", "iter-0002.mzm"]);
    for bad in ["not-a-run", "..", "nothing"] {
        refused(&app, "GET", &format!("/api/runs/{bad}"), None, StatusCode::NOT_FOUND).await;
    }
    // Play the checkpoint: the game comes from the model file.
    let view = new_game(
        &app,
        json!({"run": "kalah-run", "model": "iter-0001.mzm", "engine_side": "south", "strength": {"simulations": 16}}),
    )
    .await;
    assert!(view["engine"].as_str().unwrap().contains("kalah-run/iter-0001.mzm"), "{}", view["engine"]);
    let id = view["id"].as_str().unwrap();
    let moved = ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await;
    assert_matches_rules(&moved["game"]);
    let network = &moved["thought"]["network"];
    let wdl = network["win"].as_f64().unwrap() + network["draw"].as_f64().unwrap() + network["loss"].as_f64().unwrap();
    assert!((wdl - 1.0).abs() < 1e-4, "{network}");
    for (run, model) in
        [("kalah-run", "../config.toml"), ("kalah-run", "iter-0009.mzm"), ("../kalah-run", "iter-0001.mzm")]
    {
        let body = json!({"run": run, "model": model}).to_string();
        refused(&app, "POST", "/api/games", Some(&body), StatusCode::NOT_FOUND).await;
    }
    // Without --runs there are no runs.
    refused(&server(), "GET", "/api/runs", None, StatusCode::NOT_FOUND).await;
}

/// A game no preset covers: two ranks of five houses, three seeds, stores, sown clockwise,
/// counts of 2 or 4 captured from the opponent on the last seed, at most 200 plies.
const CLOCKWISE: &str = r#"format = 1
name = "clockwise-five"
[board]
houses = 5
seeds = 3
stores = true
[sowing]
direction = "clockwise"
[capture]
counts = [2, 4]
[end]
max_plies = 200
"#;

#[tokio::test]
async fn a_described_game_plays_to_the_end_with_every_move_traced() {
    let app = server();
    let mut view =
        new_game(&app, json!({"description": CLOCKWISE, "engine_side": "none", "strength": {"simulations": 4}})).await;
    let id = view["id"].as_str().unwrap().to_string();
    assert!(view["rules"].as_str().unwrap().starts_with("sowing {"), "{}", view["rules"]);
    let layout = &view["layout"];
    assert_eq!((layout["rows"].as_u64(), layout["cols"].as_u64()), (Some(2), Some(5)));
    assert_eq!((layout["scores"].as_str(), layout["south_end"].as_str()), (Some("store"), Some("left")));
    let mut plies = 0;
    while view["status"] == "ongoing" {
        view = if plies % 2 == 0 {
            let house = view["legal"][0].as_str().unwrap().to_string();
            ok(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": house}))).await
        } else {
            ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await["game"].clone()
        };
        assert_matches_rules(&view);
        // The course ends on the board shown, with the seeds in the scores.
        let frames = view["last"]["course"]["frames"].as_array().unwrap();
        assert_eq!(frames.last().unwrap()["pits"], view["pits"]);
        assert_eq!(frames.last().unwrap()["scores"], view["scores"]);
        assert_eq!(frames[1]["active"], view["last"]["pit"], "the first step lifts the house sown");
        plies += 1;
        assert!(plies <= 200, "no end after the ply cap");
    }
    assert!(view["result"].is_string());
    // The same game from its one-line rules string; a request may not name a file of the
    // server's machine, even one that holds the same description.
    let rules = view["rules"].as_str().unwrap().to_string();
    assert_eq!(new_game(&app, json!({"rules": rules})).await["rules"], view["rules"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("clockwise-five.toml");
    std::fs::write(&file, CLOCKWISE).unwrap();
    let body = json!({"rules": file.display().to_string()}).to_string();
    let message = refused(&app, "POST", "/api/games", Some(body.as_str()), StatusCode::BAD_REQUEST).await;
    assert!(message.contains("not read here"), "{message}");
}

#[tokio::test]
async fn bad_descriptions_are_refused_naming_the_key() {
    let app = server();
    let unknown_key = CLOCKWISE.replace("seeds = 3", "seed = 3");
    let no_houses = CLOCKWISE.replace("houses = 5", "houses = 0");
    // Without stores seeds can circulate for ever: a cap or a cycle rule is required.
    let endless = CLOCKWISE.replace("max_plies = 200", "max_plies = 0").replace("stores = true", "stores = false");
    let cases: Vec<(Value, &str)> = vec![
        (json!({"description": unknown_key}), "seed"),
        (json!({"description": no_houses}), "houses"),
        (json!({"description": endless}), "max_plies"),
        (json!({"description": "not toml at all ["}), "description"),
        (json!({"description": CLOCKWISE, "rules": "oware"}), "not both"),
        (json!({"rules": "sowing {\"format\": 1"}), "sowing"),
        (json!({"rules": "sowing {\"format\": 1, \"name\": \"x\", \"board\": {\"houses\": 40}}"}), "64"),
        (json!({"rules": "/no/such/dir/game.toml"}), "/no/such/dir/game.toml"),
    ];
    for (body, expected) in cases {
        let text = body.to_string();
        let message = refused(&app, "POST", "/api/games", Some(text.as_str()), StatusCode::BAD_REQUEST).await;
        assert!(message.contains(expected), "{text}: {message}");
    }
}

#[tokio::test]
async fn info_lists_the_catalogue_of_described_games() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("clockwise-five.toml"), CLOCKWISE).unwrap();
    let app = router(common::app(ServerConfig { catalogue: Some(dir.path().to_path_buf()), ..common::config() }));
    let info = ok(&app, "GET", "/api/info", None).await;
    let games = info["catalogue"]["games"].as_array().unwrap();
    // The built-in games and the folder's.
    assert_eq!(games.len(), mancala_rules::catalogue::GAMES.len() + 1);
    let mine = games.iter().find(|g| g["name"] == "clockwise-five").unwrap();
    let view = new_game(&app, json!({"rules": mine["rules"]})).await;
    assert_eq!(view["rules"], mine["game"]);
}

/// A run written through the store, as training writes it: its config, metrics, one
/// checkpoint named by its checksum and the best pointer. Returns the checkpoint's file name.
fn write_run_to_store(runs: &Store, name: &str) -> String {
    let run = runs.folder(name).unwrap();
    run.put(layout::CONFIG, b"[game]\nrules = \"kalah\"\n").unwrap();
    run.put(layout::METRICS, br#"{"iteration": 1, "loss/policy": 2.0, "elo/random": 50.0}"#).unwrap();
    let dir = tempfile::tempdir().unwrap();
    common::write_model("kalah", &dir.path().join("m.mzm"));
    let bytes = std::fs::read(dir.path().join("m.mzm")).unwrap();
    let checksum = layout::checksum(&bytes);
    let key = layout::model_key(1, &checksum);
    run.create(&key, &bytes).unwrap();
    let best = layout::BestPointer { generation: 1, model: key.clone(), checksum };
    run.put(layout::BEST, &serde_json::to_vec(&best).unwrap()).unwrap();
    key.strip_prefix(layout::MODELS).unwrap().to_string()
}

/// `--runs URL` on a store that is not a directory: the runs, their curves and a game
/// against a checkpoint, which is fetched from the store.
fn runs_in_a_store(url: &str) {
    let runs = Store::open(url).unwrap();
    let model = write_run_to_store(&runs, "kalah-run");
    runs.folder("not-a-run").unwrap().put("notes.txt", b"no config").unwrap();
    let app = router(common::app(ServerConfig { runs: Some(url.to_string()), ..common::config() }));
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let list = ok(&app, "GET", "/api/runs", None).await;
        assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
        assert_eq!(list[0]["name"], "kalah-run");
        assert_eq!(list[0]["rules"], "kalah");
        assert_eq!(list[0]["best"], model.as_str());
        assert_eq!(list[0]["elo"]["random"], 50.0);
        let run = ok(&app, "GET", "/api/runs/kalah-run", None).await;
        assert_eq!(run["series"]["loss/policy"], json!([[1.0, 2.0]]));
        refused(&app, "GET", "/api/runs/not-a-run", None, StatusCode::NOT_FOUND).await;
        let body = json!({"run": "kalah-run", "model": model, "engine_side": "south", "strength": {"simulations": 16}});
        let view = new_game(&app, body).await;
        let id = view["id"].as_str().unwrap();
        let moved = ok(&app, "POST", &format!("/api/games/{id}/engine-move"), None).await;
        assert_matches_rules(&moved["game"]);
    });
}

#[test]
fn runs_in_a_memory_store() {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    runs_in_a_store(&format!("memory://web-runs-{t}"));
}

#[test]
fn runs_on_a_real_s3_server() {
    // The bucket of the S3 server `.ci/run` starts (scripts/s3-test-server.sh), as the
    // scale-out tests of the CLI read it.
    let bucket = match std::env::var("MZ_TEST_S3_BUCKET") {
        Ok(b) if !b.is_empty() => b,
        _ => {
            assert!(std::env::var("MZ_REQUIRE_S3").is_err(), "MZ_REQUIRE_S3 is set but MZ_TEST_S3_BUCKET is not");
            eprintln!("skipped: no S3 server (set MZ_TEST_S3_BUCKET and AWS_*, as .ci/run does)");
            return;
        }
    };
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    runs_in_a_store(&format!("s3://{bucket}/web-runs-{}-{t}", std::process::id()));
}
