//! The endgame feed: positions drawn from an endgame database with exact targets, mixed
//! into training batches. Self-play reaches few endgames of each kind, and a network trained
//! only on its own games learns them slowly; the database knows every one exactly, so a
//! share of every batch can teach them directly (value and margin from perfect play, the
//! best moves as the policy).

use mancala_encoding::{Layout, encode};
use mancala_rules::Game;
use mancala_tablebase::{Probe, SeedDraw, Tablebase, sample_positions_drawn};

use crate::record::Row;

/// The policy target of a position inside the database: uniform over its best moves.
pub(crate) fn best_moves_policy<G: Game>(game: &G, probe: &Probe) -> Vec<f32> {
    let mut policy = vec![0.0; game.action_space()];
    probe.best_policy(&mut policy);
    policy
}

/// `count` training rows of ongoing positions inside `tablebase`, drawn as the endgame
/// accuracy metric draws them ([`mancala_tablebase::sample_positions`]: a seed count, then a
/// board uniform among those) with the seed count chosen by `draw`, the same for the same
/// `seed`, each with its exact targets: the result of perfect play as value, the final
/// margin over the game's total seeds as margin, the best moves as policy. `tablebase` must
/// be for `game`.
pub fn database_rows<G: Game>(
    game: &G,
    lay: &Layout,
    tablebase: &Tablebase,
    count: usize,
    seed: u64,
    draw: SeedDraw,
) -> Vec<Row> {
    database_rows_with(game, lay, tablebase, count, seed, draw, |pos| tablebase.probe(game, pos))
}

/// [`database_rows`] with each drawn position's targets from `targets`: the database's own
/// probe, or a [`mancala_tablebase::ScoredTablebase`]'s, to teach the best moves and margins
/// of the game's own end (where Oware stops at a majority) instead of the played-out ones.
pub fn database_rows_with<G: Game>(
    game: &G,
    lay: &Layout,
    tablebase: &Tablebase,
    count: usize,
    seed: u64,
    draw: SeedDraw,
    targets: impl Fn(&G::Position) -> Option<Probe>,
) -> Vec<Row> {
    sample_positions_drawn(game, tablebase, count, seed, draw)
        .iter()
        .filter_map(|pos| {
            let probe = targets(pos)?;
            if probe.best.is_empty() {
                return None;
            }
            let mut inputs = vec![0.0; lay.inputs()];
            encode(game, lay, pos, &mut inputs);
            Some(Row {
                inputs,
                legal: game.legal_moves(pos).0,
                policy: best_moves_policy(game, &probe),
                search_value: probe.result(),
                outcome: probe.result(),
                margin: game.margin_share(probe.final_margin),
            })
        })
        .collect()
}
