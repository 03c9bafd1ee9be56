//! What the page is told about a game: the board with its layout, whose move it is, the
//! legal houses, the last move with its sowing course, and the record. Everything the page
//! shows comes from here; it never works out a rule itself.

use mancala_rules::{AnyGame, Game, Line, Player, Status};
use serde::Serialize;

use crate::board::{Layout, layout};
use crate::course::{Sown, course};
use crate::engine::Strength;
use crate::games::Session;

#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    pub id: String,
    pub rules: String,
    pub family: &'static str,
    pub layout: Layout,
    pub pits: Vec<u8>,
    /// South's then North's store or captured seeds.
    pub scores: [u16; 2],
    /// Ba-awa: who controls each pit (`south`, `north`).
    pub controllers: Option<Vec<&'static str>>,
    /// Games with claimed houses (Toguz Kumalak's tuzdyk): who has claimed each pit, if anyone.
    pub claims: Option<Vec<Option<&'static str>>>,
    pub side_to_move: &'static str,
    /// `ongoing`, `draw`, `south+N` or `north+N`.
    pub status: String,
    /// The result in words when the game is over.
    pub result: Option<String>,
    pub legal: Vec<String>,
    /// `south`, `north`, or `None` when a person moves for both sides.
    pub engine_side: Option<&'static str>,
    pub strength: Strength,
    pub engine: String,
    pub moves: Vec<String>,
    pub last: Option<LastMove>,
    /// The protocol's position line of the current position.
    pub position: String,
    pub record: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LastMove {
    pub house: String,
    pub pit: usize,
    pub side: &'static str,
    /// Seeds the move put in a store or captured, South then North.
    pub gained: [i32; 2],
    /// The sowing step by step, from the rules engine's trace (`None` past
    /// [`crate::course::MAX_FRAMES`] steps).
    pub course: Option<Sown>,
}

/// The view of `session`; `engine` describes who plays for the engine.
pub fn view(id: &str, session: &Session, engine: String) -> GameView {
    let line = &session.line;
    let game = line.game();
    let pos = line.position();
    let setup = game.to_setup(pos);
    let scores = game.scores(pos);
    let side = line.side_to_move();
    let status = line.status();
    GameView {
        id: id.to_string(),
        rules: game.rules_string(),
        family: game.family(),
        layout: layout(game),
        pits: game.pits(pos).to_vec(),
        scores: [scores.south, scores.north],
        controllers: setup.controllers.map(|c| c.into_iter().map(Player::name).collect()),
        claims: game
            .claims_houses()
            .then(|| (0..game.pits(pos).len()).map(|h| game.claimed(pos, h).map(Player::name)).collect()),
        side_to_move: side.name(),
        status: status.to_string(),
        result: result_words(status),
        legal: line.legal_moves().iter().map(|a| game.move_label(side, a)).collect(),
        engine_side: session.engine_side.map(Player::name),
        strength: session.strength,
        engine,
        moves: line.move_labels(),
        last: last_move(line),
        position: position_line(line),
        record: record(line),
    }
}

/// The position line with the line's own status (which includes the cycle rule's ending).
pub fn position_line(line: &Line<AnyGame>) -> String {
    let mut setup = line.game().to_setup(line.position());
    setup.status = line.status().to_string();
    setup.to_string()
}

fn result_words(status: Status) -> Option<String> {
    let outcome = status.outcome()?;
    Some(match outcome.winner {
        None => "Draw".to_string(),
        Some(p) => {
            let seeds = if outcome.margin == 1 { "seed" } else { "seeds" };
            format!("{} wins by {} {seeds}", if p == Player::South { "South" } else { "North" }, outcome.margin)
        }
    })
}

fn last_move(line: &Line<AnyGame>) -> Option<LastMove> {
    let game = line.game();
    let positions: Vec<_> = line.positions().collect();
    let [.., before, after] = positions.as_slice() else { return None };
    let action = line.moves().last()?;
    let side = game.side_to_move(before);
    let pit = game.action_pit(side, action);
    let (b, a) = (game.scores(before), game.scores(after));
    Some(LastMove {
        house: game.move_label(side, action),
        pit,
        side: side.name(),
        gained: [i32::from(a.south) - i32::from(b.south), i32::from(a.north) - i32::from(b.north)],
        course: course(game, before, action, after),
    })
}

/// The game record: the rules, the start position, the moves and the result, one a line,
/// so that `rules` and `start` can be pasted back into the page or given to `engine`.
pub fn record(line: &Line<AnyGame>) -> String {
    let game = line.game();
    let mut start = game.to_setup(line.start());
    start.status = game.status(line.start()).to_string();
    format!(
        "rules {}\nstart {}\nmoves {}\nresult {}\n",
        game.rules_string(),
        start,
        line.move_labels().join(" "),
        line.status()
    )
}
