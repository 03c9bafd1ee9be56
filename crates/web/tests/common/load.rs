//! The load driver: many clients, each on its own thread, each playing one whole game against
//! the engine over HTTP on the loopback; every response time is kept. Shared by the load
//! test and `examples/load.rs` (which points it at a running `mancala-zero serve`).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A one-request HTTP/1.1 exchange (`Connection: close`): status and JSON body.
fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| format!("{method} {path}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| format!("{method} {path}: no HTTP answer"))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{method} {path}: bad status line"))?;
    let value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).map_err(|e| format!("{method} {path}: {e}: {body}"))?
    };
    Ok((status, value))
}

/// What one client saw.
#[derive(Default)]
pub struct ClientRun {
    pub finished: bool,
    pub plies: usize,
    /// (was it an engine move, milliseconds) for every request.
    pub times: Vec<(bool, f64)>,
    pub error: Option<String>,
}

/// Plays one game of `rules` as South, the engine at `simulations` a move; `seed` picks the
/// person's houses.
pub fn play_one(addr: SocketAddr, rules: &str, simulations: u32, seed: u64, max_plies: usize) -> ClientRun {
    let mut run = ClientRun::default();
    if let Err(e) = play_inner(addr, rules, simulations, seed, max_plies, &mut run) {
        run.error = Some(e);
    }
    run
}

fn play_inner(
    addr: SocketAddr,
    rules: &str,
    simulations: u32,
    seed: u64,
    max_plies: usize,
    run: &mut ClientRun,
) -> Result<(), String> {
    let mut timed = |engine: bool, method: &str, path: &str, body: Option<Value>| -> Result<Value, String> {
        let started = Instant::now();
        let (status, value) = request(addr, method, path, body.as_ref())?;
        run.times.push((engine, started.elapsed().as_secs_f64() * 1000.0));
        if !(200..300).contains(&status) {
            return Err(format!("{method} {path}: {status} {value}"));
        }
        Ok(value)
    };
    let new = json!({"rules": rules, "engine_side": "north", "strength": {"simulations": simulations}});
    let mut game = timed(false, "POST", "/api/games", Some(new))?;
    let id = game["id"].as_str().ok_or("no game id")?.to_string();
    let mut pick = seed;
    while game["status"] == "ongoing" {
        if run.plies >= max_plies {
            return Err(format!("no result after {max_plies} plies"));
        }
        game = if game["side_to_move"] == "south" {
            let legal = game["legal"].as_array().ok_or("no legal list")?;
            pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let house = legal[(pick >> 33) as usize % legal.len()].clone();
            timed(false, "POST", &format!("/api/games/{id}/move"), Some(json!({"house": house})))?
        } else {
            timed(true, "POST", &format!("/api/games/{id}/engine-move"), None)?["game"].clone()
        };
        run.plies += 1;
    }
    timed(false, "DELETE", &format!("/api/games/{id}"), None)?;
    run.finished = true;
    Ok(())
}

/// The `q` quantile (0..1) of `times`, by nearest rank.
pub fn quantile(times: &mut [f64], q: f64) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort_by(f64::total_cmp);
    let rank = ((q * times.len() as f64).ceil() as usize).clamp(1, times.len());
    times[rank - 1]
}

/// Runs `clients` games at once and prints the figures; returns every client's run.
pub fn load(addr: SocketAddr, clients: usize, rules: &str, simulations: u32, max_plies: usize) -> Vec<ClientRun> {
    let started = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let rules = rules.to_string();
            std::thread::spawn(move || play_one(addr, &rules, simulations, k as u64 + 1, max_plies))
        })
        .collect();
    let runs: Vec<ClientRun> = handles.into_iter().map(|h| h.join().expect("a client thread panicked")).collect();
    let wall = started.elapsed().as_secs_f64();
    let mut all: Vec<f64> = runs.iter().flat_map(|r| r.times.iter().map(|t| t.1)).collect();
    let mut engine: Vec<f64> = runs.iter().flat_map(|r| r.times.iter().filter(|t| t.0).map(|t| t.1)).collect();
    let finished = runs.iter().filter(|r| r.finished).count();
    let plies: usize = runs.iter().map(|r| r.plies).sum();
    println!(
        "load: {clients} clients, {rules}, {simulations} simulations a move: {finished} games finished, {plies} plies, {} requests in {wall:.1} s",
        all.len()
    );
    println!(
        "load: all requests p50 {:.1} ms, p99 {:.1} ms; engine moves ({}) p50 {:.1} ms, p99 {:.1} ms",
        quantile(&mut all, 0.5),
        quantile(&mut all, 0.99),
        engine.len(),
        quantile(&mut engine, 0.5),
        quantile(&mut engine, 0.99)
    );
    runs
}
