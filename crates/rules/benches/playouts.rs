//! Rules speed: random playouts from the start of each game, and one move (legal moves, a
//! random pick, sowing) at a time. Runs on the concrete game types, as a specialised search
//! would. Short measurement times keep `cargo bench` quick; compare ratios within one run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mancala_rules::sowing::Described;
use mancala_rules::{AnyGame, Game, parse_rules};

/// wyrand: one multiply a number, so the generator does not dominate a move's cost.
struct WyRand(u64);

impl WyRand {
    #[inline]
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        let r = ((t >> 64) as u64) ^ (t as u64);
        ((u128::from(r) * n as u128) >> 64) as usize
    }
}

/// One random game from the start; returns its length.
fn playout<G: Game>(game: &G, rng: &mut WyRand) -> u32 {
    let mut pos = game.start();
    let mut plies = 0;
    while !game.status(&pos).is_over() {
        let legal = game.legal_moves(&pos);
        game.play_unchecked(&mut pos, legal.nth(rng.below(legal.len())).expect("ongoing"));
        plies += 1;
    }
    plies
}

/// One random move of an endless sequence of games (a finished game starts again).
fn one_move<G: Game>(game: &G, pos: &mut G::Position, rng: &mut WyRand) {
    if game.status(pos).is_over() {
        *pos = game.start();
    }
    let legal = game.legal_moves(pos);
    game.play_unchecked(pos, legal.nth(rng.below(legal.len())).expect("ongoing"));
}

fn bench_game<G: Game>(c: &mut Criterion, name: &str, game: &G) {
    let mut rng = WyRand(7);
    c.bench_function(&format!("playout/{name}"), |b| b.iter(|| black_box(playout(game, &mut rng))));
    let mut pos = game.start();
    c.bench_function(&format!("move/{name}"), |b| {
        b.iter(|| {
            one_move(game, &mut pos, &mut rng);
            black_box(&pos);
        })
    });
}

fn rules(c: &mut Criterion) {
    for name in ["oware", "kalah", "ba-awa", "owela"] {
        match parse_rules(name).expect("a preset") {
            AnyGame::Oware(g) => bench_game(c, name, &g),
            AnyGame::Kalah(g) => bench_game(c, name, &g),
            AnyGame::BaAwa(g) => bench_game(c, name, &g),
            AnyGame::Owela(g) => bench_game(c, name, &g),
            AnyGame::Described(g) => bench_game(c, name, &g),
        }
        // The same game played by the sowing engine from its description.
        let game = parse_rules(name).expect("a preset");
        let described = Described::new(game.description()).expect("a preset's description is valid");
        bench_game(c, &format!("{name}-described"), &described);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = rules
}
criterion_main!(benches);
