//! `mancala-zero serve` end to end: the built binary on a free port, with the shipped Oware
//! network playing and judging; bad arguments refused before it listens.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// The server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve` on port 0 and reads the address it bound from its first line.
fn start() -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
        .args(["serve", "--port", "0", "--game", "oware"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut first).unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in '{first}'"))
        .to_string();
    (Server(child), addr)
}

fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[test]
fn serves_the_page_and_plays_with_the_shipped_network() {
    let (_server, addr) = start();
    let (status, info) = request(&addr, "GET", "/api/info", "");
    assert_eq!(status, 200);
    assert_eq!(info["default_rules"], "oware");
    let (status, game) = request(&addr, "POST", "/api/games", r#"{"strength": {"simulations": 50}}"#);
    assert_eq!(status, 201, "{game}");
    assert!(game["engine"].as_str().unwrap().contains("shipped oware network"), "{}", game["engine"]);
    let id = game["id"].as_str().unwrap();
    let (status, moved) = request(&addr, "POST", &format!("/api/games/{id}/move"), r#"{"house": "D"}"#);
    assert_eq!(status, 200, "{moved}");
    let (status, reply) = request(&addr, "POST", &format!("/api/games/{id}/engine-move"), "");
    assert_eq!(status, 200, "{reply}");
    let network = &reply["thought"]["network"];
    assert!(network["win"].is_f64() && network["margin"].is_f64(), "{network}");
    // North's house, whatever the engine played (an emptied D may have been sown again).
    let (status, refused) = request(&addr, "POST", &format!("/api/games/{id}/move"), r#"{"house": "a"}"#);
    assert_eq!(status, 400);
    let error = refused["error"].as_str().unwrap();
    assert!(error.starts_with("illegal move a: that house is north's"), "{refused}");
}

#[test]
fn bad_arguments_are_refused_before_listening() {
    for (args, expected) in [
        (&["--game", "chess"][..], "chess"),
        (&["--model", "/nonexistent/model.mzm"][..], "/nonexistent/model.mzm"),
        (&["--db", "/nonexistent/oware.tb"][..], "/nonexistent/oware.tb"),
        (&["--host", "not a host"][..], "not a host"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
