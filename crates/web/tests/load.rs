//! A bounded load test on the loopback: 50 clients at once, each playing a whole Oware game
//! against the engine at 100 simulations a move over real HTTP. All must finish; the response
//! times are printed (p50, p99; `cargo test --release -p mancala-web --test load --
//! --nocapture`). Nothing here depends on how fast the machine is: only a generous overall
//! bound turns a hang into a failure.

mod common;

#[path = "common/load.rs"]
mod driver;

use std::time::Duration;

use mancala_web::ServerConfig;

#[test]
fn fifty_clients_each_finish_a_game() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let addr = runtime.block_on(async {
        let app = common::app(ServerConfig { engine_threads: 2, ..common::config() });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(mancala_web::serve_until(listener, app, std::future::pending()));
        addr
    });
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(driver::load(addr, 50, "oware", 100, 1000));
    });
    let runs = result.recv_timeout(Duration::from_secs(300)).expect("50 games did not finish within 5 minutes");
    for (k, run) in runs.iter().enumerate() {
        assert!(run.finished, "client {k}: {:?} after {} plies", run.error, run.plies);
    }
    assert_eq!(runs.len(), 50);
    runtime.shutdown_background();
}
