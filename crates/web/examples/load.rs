//! The load driver against a running server, e.g. `mancala-zero serve` with its shipped
//! network: `cargo run --release -p mancala-web --example load -- 127.0.0.1:8080 50 oware 100`
//! (address, clients, rules, simulations a move).

#[path = "../tests/common/load.rs"]
mod driver;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, default: &str| args.get(k).cloned().unwrap_or_else(|| default.to_string());
    let addr = arg(0, "127.0.0.1:8080").parse().expect("an address host:port");
    let clients: usize = arg(1, "50").parse().expect("a number of clients");
    let rules = arg(2, "oware");
    let simulations: u32 = arg(3, "100").parse().expect("simulations a move");
    let runs = driver::load(addr, clients, &rules, simulations, 1000);
    let failed: Vec<_> = runs.iter().enumerate().filter(|(_, r)| !r.finished).collect();
    for (k, run) in &failed {
        eprintln!("client {k}: {:?} after {} plies", run.error, run.plies);
    }
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
