//! One game between two agents from an opening.

use mancala_mcts::Agent;
use mancala_rules::{Game, Outcome, Player, Status};

use crate::error::ArenaError;
use crate::opening::Opening;
use crate::record::GameRecord;

/// Plays a game from `opening` to its end, `south` and `north` choosing the moves; the specs
/// name the agents in the record.
///
/// # Errors
/// [`ArenaError::IllegalMove`] naming the agent that chose a move its position forbids.
pub fn play_game<G: Game>(
    game: &G,
    opening: &Opening,
    south: (&str, &mut dyn Agent<G>),
    north: (&str, &mut dyn Agent<G>),
) -> Result<(GameRecord, Outcome), ArenaError> {
    let (south_spec, south_agent) = south;
    let (north_spec, north_agent) = north;
    let mut line = opening.line(game);
    let outcome = loop {
        if let Status::Over(outcome) = line.status() {
            break outcome;
        }
        let (spec, action) = match line.side_to_move() {
            Player::South => (south_spec, south_agent.choose(&line)),
            Player::North => (north_spec, north_agent.choose(&line)),
        };
        line.play(action).map_err(|e| ArenaError::IllegalMove { agent: spec.to_string(), reason: e.to_string() })?;
    };
    Ok((GameRecord::from_line(&line, south_spec, north_spec, &opening.labels), outcome))
}
