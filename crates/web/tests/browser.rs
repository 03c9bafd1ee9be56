//! A real browser: headless Chromium driven over WebDriver plays whole games by clicking
//! houses (Oware, Kalah, Owela, and described games no preset covers: one written in the
//! page's description box, one sown in the mover's choice of direction) and checks the board
//! drawn after every move against the rules crate; also a four-rank described board, an
//! illegal click, undo, a pasted position, the sowing shown step by step, and the analysis
//! panel.
//!
//! Needs `chromedriver` (`$CHROMEDRIVER`, else /usr/bin/chromedriver) and Chromium
//! (`$CHROME`, else /usr/bin/chromium; Debian's `chromium` and `chromium-driver`, see
//! scripts/ci-browser.sh). Without chromedriver the test prints "skipped: no chromedriver"
//! and passes, unless MZ_REQUIRE_BROWSER=1. With MZ_SCREENSHOT=FILE it saves a screenshot of
//! the page in the middle of an Oware game there (docs/serve.png is made this way); with
//! MZ_SCREENSHOTS=DIR it saves described.png, four-rank.png and either.png there.

mod common;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use mancala_rules::{Game, Line, Setup, parse_rules};
use mancala_web::ServerConfig;
use serde_json::{Value, json};

/// chromedriver on a free loopback port, killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The chromedriver to use, or `None` (after saying so) when the test is to be skipped.
fn chromedriver() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMEDRIVER").map_or_else(|| PathBuf::from("/usr/bin/chromedriver"), PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    let required = std::env::var("MZ_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "MZ_REQUIRE_BROWSER=1 but there is no chromedriver at {} (scripts/ci-browser.sh installs it)",
        path.display()
    );
    println!("skipped: no chromedriver at {} (set CHROMEDRIVER, or run scripts/ci-browser.sh)", path.display());
    None
}

fn start_driver(path: &PathBuf) -> Driver {
    let port = free_port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    let driver = Driver { child, port };
    // Wait until it listens (a bound on a failure, not a timing the test relies on).
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on port {port} within 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    driver
}

async fn browser(driver: &Driver) -> Client {
    let chrome = std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let mut options = json!({
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1300,1000"]
    });
    if std::path::Path::new(&chrome).is_file() {
        options["binary"] = json!(chrome);
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session with headless Chromium")
}

/// Starts the server in this process on a free loopback port.
async fn server(config: ServerConfig) -> SocketAddr {
    let app = common::app(config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mancala_web::serve_until(listener, app, std::future::pending()));
    addr
}

async fn js(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Waits until the page has no request or animation under way.
async fn settle(client: &Client) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while js(client, "return document.body.dataset.busy;").await != "0" {
        assert!(Instant::now() < deadline, "the page stayed busy for 60 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// What the page shows: every house's seeds by pit, the two scores, the legal houses, the
/// record, the message and the result.
async fn drawn(client: &Client) -> Value {
    js(
        client,
        r#"const houses = Array.from(document.querySelectorAll('#board g.house'));
        const pits = [];
        for (const g of houses) pits[+g.dataset.pit] = +g.querySelector('.count').textContent;
        const score = (s) => +document.querySelector(`#board [data-score=${s}] .store-count`).textContent;
        return {
          pits,
          scores: [score('south'), score('north')],
          legal: houses.flatMap((g) => g.dataset.moves ? g.dataset.moves.split(' ') : []),
          ranks: +document.getElementById('board').dataset.ranks,
          record: document.getElementById('record').value,
          message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent,
          result: document.getElementById('result').hidden ? '' : document.getElementById('result').textContent,
          position: document.getElementById('position-line').textContent,
          rules: document.getElementById('board').dataset.rules,
          claims: pits.map((_, i) => {
            const g = houses.find((h) => +h.dataset.pit === i);
            return g.classList.contains('claimed-south') ? 'south' : g.classList.contains('claimed-north') ? 'north' : null;
          }),
        };"#,
    )
    .await
}

/// Replays the page's own game record with the rules crate and checks the drawn board.
fn check_against_rules(page: &Value, human_to_move: bool) -> Line<mancala_rules::AnyGame> {
    let record = page["record"].as_str().unwrap();
    let field =
        |name: &str| record.lines().find_map(|l| l.strip_prefix(&format!("{name} "))).map_or("", str::trim).to_string();
    let game = parse_rules(&field("rules")).unwrap();
    let start: Setup = field("start").parse().unwrap();
    let mut line = Line::from_position(game.clone(), game.from_setup(&start).unwrap());
    for label in field("moves").split_whitespace() {
        line.play_label(label).unwrap();
    }
    let pos = line.position();
    let pits: Vec<u64> = page["pits"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let expected: Vec<u64> = game.pits(pos).iter().map(|&p| u64::from(p)).collect();
    assert_eq!(pits, expected, "drawn board after {:?}", field("moves"));
    let scores = game.scores(pos);
    assert_eq!(page["scores"], json!([scores.south, scores.north]), "drawn scores after {:?}", field("moves"));
    let claims: Vec<Option<&str>> = (0..expected.len()).map(|h| game.claimed(pos, h).map(|p| p.name())).collect();
    assert_eq!(page["claims"], json!(claims), "claimed houses drawn after {:?}", field("moves"));
    assert_eq!(field("result"), line.status().to_string());
    assert_eq!(page["result"] != "", line.status().is_over(), "result shown: {}", page["result"]);
    if human_to_move {
        let mut legal: Vec<String> =
            line.legal_moves().iter().map(|a| game.move_label(line.side_to_move(), a)).collect();
        let mut shown: Vec<String> = serde_json::from_value(page["legal"].clone()).unwrap();
        legal.sort();
        shown.sort();
        assert_eq!(shown, legal, "clickable houses");
    } else {
        assert_eq!(page["legal"], json!([]), "no house is clickable on the engine's turn");
    }
    line
}

async fn actions(client: &Client) -> u64 {
    js(client, "return +(document.body.dataset.actions || 0);").await.as_u64().unwrap()
}

/// Clicks what `css` finds, waits until the page has taken the click (WebDriver may return
/// before the page's handler ran), then until it is still.
async fn click(client: &Client, css: &str) {
    let before = actions(client).await;
    client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("nothing at {css}: {e}")).click().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while actions(client).await == before {
        assert!(Instant::now() < deadline, "the page never handled the click on {css}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    settle(client).await;
}

async fn click_house(client: &Client, label: &str) {
    click(client, &format!("#board g.house[data-label='{label}'] circle.pit")).await;
}

/// Plays the move `label`: a click on its house, or on its direction mark where the house
/// may be sown both ways.
async fn click_move(client: &Client, label: &str) {
    let mark = format!("#board g.direction[data-move='{label}'] circle");
    let has_mark = js(client, &format!("return document.querySelector({}) !== null;", json!(mark))).await;
    if has_mark == true {
        click(client, &mark).await;
    } else {
        click(client, &format!("#board g.house[data-moves='{label}'] circle.pit")).await;
    }
}

/// Sets a form field the way a person would leave it, firing `change`.
async fn set_field(client: &Client, id: &str, value: &str) {
    let script = format!(
        "const e = document.getElementById('{id}'); e.value = {}; e.dispatchEvent(new Event('change')); return null;",
        json!(value)
    );
    js(client, &script).await;
    settle(client).await;
}

async fn new_game(client: &Client, rules: &str) {
    set_field(client, "rules", rules).await;
    click(client, "#new-game").await;
}

/// Plays a whole game as South against the engine, clicking the houses the page offers
/// (a fixed pseudo-random pick), checking the board after every move.
async fn play_whole_game(client: &Client, rules: &str, seed: u64) -> usize {
    new_game(client, rules).await;
    play_on(client, rules, seed).await
}

/// Plays the game on the page to its end as in [`play_whole_game`].
async fn play_on(client: &Client, rules: &str, seed: u64) -> usize {
    let mut pick = seed;
    let mut clicks = 0;
    loop {
        let page = drawn(client).await;
        let line = check_against_rules(&page, true);
        if line.status().is_over() {
            return clicks;
        }
        let legal = page["legal"].as_array().unwrap();
        pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let label = legal[(pick >> 33) as usize % legal.len()].as_str().unwrap().to_string();
        click_move(client, &label).await;
        clicks += 1;
        assert!(clicks < 600, "{rules}: no result after {clicks} moves");
        assert_eq!(drawn(client).await["message"], "", "{rules}: a legal click was refused");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_in_a_real_browser() {
    let Some(path) = chromedriver() else { return };
    let driver = start_driver(&path);
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), "kalah-run", "kalah");
    let runs = dir.path().to_str().unwrap().to_string();
    let addr = server(ServerConfig { runs: Some(runs), ..common::config() }).await;
    let client = browser(&driver).await;
    // The session runs as its own task so that a failed check still closes the browser.
    let result = tokio::spawn(session(client.clone(), addr)).await;
    let _ = client.close().await;
    drop(driver);
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

async fn session(client: Client, addr: SocketAddr) {
    let client = &client;
    client.goto(&format!("http://{addr}/")).await.unwrap();
    settle(client).await;
    // Quick games: a small engine budget, and sowings drawn at once except where tested.
    set_field(client, "strength", "24").await;
    js(client, "document.getElementById('animate').checked = false; return null;").await;

    // An illegal click: North's house at the start.
    new_game(client, "oware").await;
    click_house(client, "a").await;
    let page = drawn(client).await;
    assert!(page["message"].as_str().unwrap().contains("illegal move a: that house is north's"), "{}", page["message"]);
    check_against_rules(&page, true);
    click_house(client, "C").await;
    let page = drawn(client).await;
    assert_eq!(page["message"], "");
    let line = check_against_rules(&page, true);
    assert_eq!(line.len(), 2, "C and the engine's reply");

    // Undo takes back the engine's reply and the person's move.
    click(client, "#undo").await;
    let line = check_against_rules(&drawn(client).await, true);
    assert_eq!(line.len(), 0);

    // The sowing step by step ends on the right board.
    js(client, "document.getElementById('animate').checked = true; return null;").await;
    click_house(client, "F").await;
    check_against_rules(&drawn(client).await, true);
    js(client, "document.getElementById('animate').checked = false; return null;").await;

    // The analysis panel: a value, a bar per legal house, the principal variation.
    click(client, "#analyse").await;
    let analysis = js(client, "return {rows: document.querySelectorAll('#move-table tr[data-house]').length, pv: document.getElementById('pv').textContent, value: document.getElementById('search-value').textContent};").await;
    assert!(analysis["rows"].as_u64().unwrap() >= 1 && analysis["pv"] != "", "{analysis}");
    if let Some(path) = std::env::var_os("MZ_SCREENSHOT") {
        std::fs::write(&path, client.screenshot().await.unwrap()).unwrap();
    }

    // An empty house refused with the rules crate's reason, in a pasted Oware position.
    set_field(client, "position-input", "south | 0 0 | 0 5 5 5 5 4 4 4 4 4 4 4 | ongoing").await;
    click(client, "#set-position").await;
    click_house(client, "A").await;
    let page = drawn(client).await;
    assert!(page["message"].as_str().unwrap().starts_with("illegal move A: "), "{}", page["message"]);
    assert_eq!(check_against_rules(&page, true).len(), 0, "the refused click played nothing");

    // A pasted position: Kalah near its end.
    new_game(client, "kalah").await;
    let position = "south | 20 22 | 0 1 0 2 0 1 1 0 0 0 1 0 | ongoing";
    set_field(client, "position-input", position).await;
    click(client, "#set-position").await;
    let page = drawn(client).await;
    assert_eq!(page["position"], position);
    check_against_rules(&page, true);
    let message = {
        set_field(client, "position-input", "south | 0 0 | 1 2 3 | ongoing").await;
        click(client, "#set-position").await;
        drawn(client).await["message"].as_str().unwrap().to_string()
    };
    assert!(message.contains("pits"), "{message}");

    // Whole games, each board checked against the rules crate.
    for (rules, seed) in [("oware", 1), ("kalah", 2), ("owela", 3)] {
        let clicks = play_whole_game(client, rules, seed).await;
        assert!(clicks > 0, "{rules}");
    }

    described_games(client).await;

    // A run's curves are drawn, and a checkpoint plays.
    let charts = js(client, "return document.querySelectorAll('#loss-chart polyline').length;").await;
    assert_eq!(charts, 2, "loss/policy and loss/value");
    click(client, "#play-checkpoint").await;
    let engine = js(client, "return document.getElementById('engine-name').textContent;").await;
    assert!(engine.as_str().unwrap().contains("kalah-run/iter-0002.mzm"), "{engine}");
    play_whole_game_from_here(client).await;
}

/// Finishes the game on the page (a checkpoint's game) with the first legal house each turn.
async fn play_whole_game_from_here(client: &Client) {
    for _ in 0..600 {
        let page = drawn(client).await;
        if check_against_rules(&page, true).status().is_over() {
            return;
        }
        let house = page["legal"][0].as_str().unwrap().to_string();
        click_house(client, &house).await;
    }
    panic!("no result after 600 moves");
}

/// A game no preset covers, written in the page's description box: two ranks of five
/// houses, three seeds, stores, sown clockwise, counts of 2 or 4 captured from the opponent
/// on the last seed, at most 200 plies.
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

/// Described games through the page: a whole game of one written in the description box
/// (its sowing shown step by step for the first moves), a four-rank board, and a game where
/// the mover chooses the direction, played by its direction marks.
async fn described_games(client: &Client) {
    js(client, "document.getElementById('describe').open = true; return null;").await;
    set_field(client, "description", CLOCKWISE).await;
    click(client, "#new-described").await;
    let page = drawn(client).await;
    assert_eq!(page["message"], "", "the description was refused");
    assert!(page["rules"].as_str().unwrap().starts_with("sowing {"), "{}", page["rules"]);
    assert_eq!(page["pits"].as_array().unwrap().len(), 10);
    // South's store follows South's first house when sowing clockwise: the left end.
    let ends = js(client, "return Array.from(document.querySelectorAll('#board [data-score] rect')).map((r) => [r.closest('[data-score]').dataset.score, +r.getAttribute('x')]);").await;
    let ends = ends.as_array().unwrap();
    let x = |side: &str| ends.iter().find(|e| e[0] == side).unwrap()[1].as_f64().unwrap();
    assert!(x("south") < x("north"), "{ends:?}");
    js(client, "document.getElementById('animate').checked = true; return null;").await;
    for _ in 0..3 {
        let label = drawn(client).await["legal"][0].as_str().unwrap().to_string();
        click_move(client, &label).await;
        check_against_rules(&drawn(client).await, true);
    }
    js(client, "document.getElementById('animate').checked = false; return null;").await;
    if let Some(dir) = std::env::var_os("MZ_SCREENSHOTS") {
        std::fs::write(PathBuf::from(&dir).join("described.png"), client.screenshot().await.unwrap()).unwrap();
    }
    let clicks = play_on(client, "clockwise-five", 5).await;
    assert!(clicks > 0);

    // Four ranks of five houses: relay sowing around each player's own territory.
    let four = r#"sowing {"format":1,"name":"small-four","board":{"ranks":4,"houses":5,"seeds":2},"move":{"min_seeds":2},"sowing":{"relay":true},"end":{"max_plies":300}}"#;
    new_game(client, four).await;
    let page = drawn(client).await;
    assert_eq!(page["message"], "", "{four}");
    assert_eq!((page["ranks"].as_u64(), page["pits"].as_array().unwrap().len()), (Some(4), 20));
    for _ in 0..2 {
        let label = drawn(client).await["legal"][0].as_str().unwrap().to_string();
        click_move(client, &label).await;
        check_against_rules(&drawn(client).await, true);
    }
    if let Some(dir) = std::env::var_os("MZ_SCREENSHOTS") {
        std::fs::write(PathBuf::from(&dir).join("four-rank.png"), client.screenshot().await.unwrap()).unwrap();
    }

    // The mover chooses the direction: each legal house carries a mark a direction.
    let either = r#"sowing {"format":1,"name":"both-ways","board":{"houses":7,"seeds":2},"sowing":{"direction":"either","origin":"skip"},"capture":{"counts":[3],"on":"run"},"end":{"max_plies":150}}"#;
    new_game(client, either).await;
    let marks = js(client, "return document.querySelectorAll('#board g.direction').length;").await;
    assert_eq!(marks, 14, "two marks on each of South's seven houses");
    for label in ["C-", "A+"] {
        click_move(client, label).await;
        let page = drawn(client).await;
        assert_eq!(page["message"], "", "{label}");
        let moves =
            page["record"].as_str().unwrap().lines().find_map(|l| l.strip_prefix("moves ")).unwrap().to_string();
        assert!(moves.contains(label), "{label} was played: {moves}");
        check_against_rules(&page, true);
    }
    if let Some(dir) = std::env::var_os("MZ_SCREENSHOTS") {
        std::fs::write(PathBuf::from(&dir).join("either.png"), client.screenshot().await.unwrap()).unwrap();
    }
    play_on(client, "both-ways", 7).await;

    // Toguz Kumalak: South's last seed makes North's second house hold 3, South claims it
    // (the tuzdyk), and the page marks it South's from then on.
    new_game(client, "toguz-kumalak").await;
    set_field(client, "position-input", "south | 70 77 | 0 0 0 0 0 0 5 0 0 0 2 0 0 0 0 0 4 4 | ongoing").await;
    click(client, "#set-position").await;
    assert_eq!(drawn(client).await["message"], "", "the position was refused");
    click_move(client, "G").await;
    let page = drawn(client).await;
    assert_eq!(page["claims"][10], "south", "{}", page["claims"]);
    check_against_rules(&page, true);
    if let Some(dir) = std::env::var_os("MZ_SCREENSHOTS") {
        std::fs::write(PathBuf::from(&dir).join("tuzdyk.png"), client.screenshot().await.unwrap()).unwrap();
    }
    play_on(client, "toguz-kumalak", 3).await;

    // Every game of the picker (the presets and the whole catalogue), chosen with a click:
    // the board is drawn with the game's houses and seeds from its start, and South's moves
    // are the rules crate's.
    let picker = js(
        client,
        "return Array.from(document.querySelectorAll('#preset option')).map((o) => o.value).filter((v) => v);",
    )
    .await;
    let picker: Vec<String> = serde_json::from_value(picker).unwrap();
    assert_eq!(picker.len(), mancala_rules::catalogue::entries().len(), "{picker:?}");
    for rules in &picker {
        set_field(client, "preset", rules).await;
        let page = drawn(client).await;
        assert_eq!(page["message"], "", "{rules}");
        assert_eq!(page["rules"].as_str().map(parse_rules).unwrap().unwrap(), parse_rules(rules).unwrap(), "{rules}");
        let game = parse_rules(rules).unwrap();
        assert_eq!(page["pits"].as_array().unwrap().len(), game.pits(&game.start()).len(), "{rules}");
        check_against_rules(&page, true);
    }

    // Bad rules are a message on the page, and the game in play stays.
    new_game(client, "toguz-kumalak").await;
    new_game(client, "sowing {\"format\": 1}").await;
    let page = drawn(client).await;
    assert!(page["message"].as_str().unwrap().contains("sowing"), "{}", page["message"]);
    assert_eq!(page["pits"].as_array().unwrap().len(), 18, "Toguz Kumalak's board stays");
}
