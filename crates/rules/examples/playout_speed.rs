//! Random Oware playouts for a fixed time; prints moves/s (a quick check beside `bench rules`).
use mancala_rules::{parse_rules, AnyGame, Game};
use std::time::{Duration, Instant};

struct WyRand(u64);
impl WyRand {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

fn cpu() -> f64 {
    let t = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    t.split_whitespace().next().unwrap().parse::<f64>().unwrap() / 1e9
}

fn run<G: Game>(g: &G, secs: f64) -> f64 {
    let mut rng = WyRand(1);
    let start = Instant::now();
    let c0 = cpu();
    let mut moves = 0u64;
    while start.elapsed() < Duration::from_secs_f64(secs) {
        let mut pos = g.start();
        while !g.status(&pos).is_over() {
            let legal = g.legal_moves(&pos);
            let a = legal.nth(rng.below(legal.len())).unwrap();
            g.play_unchecked(&mut pos, a);
            moves += 1;
        }
    }
    moves as f64 / (cpu() - c0)
}

fn main() {
    let rules = std::env::args().nth(1).unwrap_or_else(|| "oware".into());
    let AnyGame::Oware(g) = parse_rules(&rules).unwrap() else { panic!("oware rules only") };
    for _ in 0..3 {
        println!("{:.1}M moves per cpu-second", run(&g, 2.0) / 1e6);
    }
}
