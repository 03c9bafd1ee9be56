//! `Game` and `State`: a rules string read by the rules crate, and a game in progress (a
//! [`Line`], so the cycle rule applies exactly as in self-play, the arena and the engine).

use std::path::Path;
use std::sync::Arc;

use mancala_encoding::{ENCODING_VERSION, Layout, encode, layout_for};
use mancala_rules::{Action, AnyGame, AnyPosition, Game, Line, Player, RulesError, Setup, parse_rules};
use numpy::PyArray1;
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use crate::errors::{bad_label, illegal, illegal_move, value_error};

/// A game's rules with what every state of it shares: the input layout of this build's
/// encoding version, worked out once.
#[derive(Debug)]
pub struct Rules {
    pub game: AnyGame,
    pub layout: Layout,
}

impl Rules {
    pub fn new(game: AnyGame) -> Arc<Rules> {
        let layout = mancala_encoding::layout(&game);
        Arc::new(Rules { game, layout })
    }

    /// The layout of encoding `version` (this build's by default).
    pub fn layout(&self, version: Option<u32>) -> PyResult<Layout> {
        match version {
            None => Ok(self.layout),
            Some(v) if v == ENCODING_VERSION => Ok(self.layout),
            Some(v) => layout_for(&self.game, v).map_err(value_error),
        }
    }
}

/// Reads a rules string as `parse_rules` does; a description file that is not there is a
/// `FileNotFoundError`, every other refusal a `ValueError` naming what is wrong.
pub fn read_rules(text: &str) -> PyResult<AnyGame> {
    parse_rules(text).map_err(|e| match &e {
        RulesError::DescriptionFile { path, .. } if !Path::new(path).exists() => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        _ => value_error(e),
    })
}

/// A game given as a `Game` or as a rules string.
#[derive(FromPyObject)]
pub enum GameArg<'py> {
    Game(PyRef<'py, PyGame>),
    Rules(String),
}

impl GameArg<'_> {
    pub fn rules(&self) -> PyResult<Arc<Rules>> {
        match self {
            GameArg::Game(g) => Ok(g.rules.clone()),
            GameArg::Rules(text) => Ok(Rules::new(read_rules(text)?)),
        }
    }
}

/// A player as Python names one: 0 or `"south"` (moves first), 1 or `"north"`.
#[derive(FromPyObject)]
pub enum PlayerArg {
    Index(i64),
    Name(String),
}

impl PlayerArg {
    fn player(&self) -> PyResult<Player> {
        match self {
            PlayerArg::Index(0) => Ok(Player::South),
            PlayerArg::Index(1) => Ok(Player::North),
            PlayerArg::Name(name) => Player::parse(name)
                .ok_or_else(|| PyValueError::new_err(format!("'{name}' is not a player: expected south or north"))),
            PlayerArg::Index(i) => {
                Err(PyValueError::new_err(format!("{i} is not a player: expected 0 (south) or 1 (north)")))
            }
        }
    }
}

/// A move as Python gives one: an action number or a pit label.
#[derive(FromPyObject)]
pub enum MoveArg {
    Action(i64),
    Label(String),
}

/// A sowing game with its rules fixed: a preset with options (`"oware"`, `"kalah:6,6
/// empty_capture=true"`), a catalogue game (`"congkak"`), a description file
/// (`"my-game.toml"`) or a described game's rules string (`"sowing {...}"`).
#[pyclass(frozen, name = "Game", module = "mancala_zero")]
pub struct PyGame {
    pub rules: Arc<Rules>,
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (rules = "oware"))]
    fn new(rules: &str) -> PyResult<Self> {
        Ok(PyGame { rules: Rules::new(read_rules(rules)?) })
    }

    /// The canonical rules string: `Game(game.rules)` is the same game.
    #[getter]
    fn rules(&self) -> String {
        self.rules.game.rules_string()
    }

    /// The game's short name: the preset family, or a described game's name.
    #[getter]
    fn name(&self) -> String {
        self.rules.game.name().to_string()
    }

    /// The number of actions; action `a` sows the mover's `a`-th pit.
    #[getter]
    fn action_space(&self) -> usize {
        self.rules.game.action_space()
    }

    /// The number of pits (houses of both players, without stores).
    #[getter]
    fn num_pits(&self) -> usize {
        self.rules.layout.pits
    }

    /// All the seeds in play.
    #[getter]
    fn total_seeds(&self) -> u16 {
        self.rules.game.total_seeds()
    }

    /// The length of `State.encode(version)`: the network's input size.
    #[pyo3(signature = (version = None))]
    fn encoding_size(&self, version: Option<u32>) -> PyResult<usize> {
        Ok(self.rules.layout(version)?.inputs())
    }

    /// The initial position.
    fn start(&self) -> PyState {
        PyState { line: Line::new(self.rules.game.clone()), rules: self.rules.clone() }
    }

    /// The position a position line describes (as `State.position_line()` writes it), with
    /// no history before it.
    #[pyo3(name = "from_line")]
    fn state_from_line(&self, line: &str) -> PyResult<PyState> {
        PyState::read_line(&self.rules, line)
    }

    /// The pit label of `action` when `player` (0 or "south", 1 or "north") moves.
    #[pyo3(signature = (action, player = PlayerArg::Index(0)))]
    fn label(&self, action: i64, player: PlayerArg) -> PyResult<String> {
        let side = player.player()?;
        let action = self.check_action(action)?;
        Ok(self.rules.game.move_label(side, action))
    }

    /// The action a pit label names, for the player who owns it (capitals: South).
    fn action(&self, label: &str) -> PyResult<usize> {
        let game = &self.rules.game;
        for side in Player::BOTH {
            for a in 0..game.action_space() {
                let a = a as Action;
                if game.move_label(side, a) == label {
                    return Ok(usize::from(a));
                }
            }
        }
        Err(PyValueError::new_err(format!("'{label}' is not a pit label of {}", game.rules_string())))
    }

    fn __repr__(&self) -> String {
        format!("Game({:?})", self.rules.game.rules_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyGame>().is_ok_and(|o| o.get().rules.game == self.rules.game)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let mut h = DefaultHasher::new();
        self.rules.game.rules_string().hash(&mut h);
        h.finish()
    }
}

impl PyGame {
    fn check_action(&self, action: i64) -> PyResult<Action> {
        let space = self.rules.game.action_space();
        match u8::try_from(action) {
            Ok(a) if usize::from(a) < space => Ok(a),
            _ => Err(PyValueError::new_err(format!("action {action} is outside the action space 0..{space}"))),
        }
    }
}

/// A game in progress: a position with the history the cycle rule needs.
#[pyclass(name = "State", module = "mancala_zero")]
#[derive(Clone)]
pub struct PyState {
    pub line: Line<AnyGame>,
    pub rules: Arc<Rules>,
}

impl PyState {
    pub fn position(&self) -> &AnyPosition {
        self.line.position()
    }

    fn read_line(rules: &Arc<Rules>, text: &str) -> PyResult<PyState> {
        let setup: Setup = text.parse().map_err(value_error)?;
        let pos = rules.game.from_setup(&setup).map_err(value_error)?;
        Ok(PyState { line: Line::from_position(rules.game.clone(), pos), rules: rules.clone() })
    }

    /// The action a move names, checked only for being one (legality is `play`'s).
    fn action_of(&self, py: Python<'_>, mv: &MoveArg) -> PyResult<Action> {
        match mv {
            MoveArg::Action(a) => {
                let space = self.rules.game.action_space();
                match u8::try_from(*a) {
                    Ok(a) if usize::from(a) < space => Ok(a),
                    _ => Err(illegal(
                        py,
                        format!("illegal move {a}: outside the action space 0..{space}"),
                        a.to_string(),
                        format!("outside the action space 0..{space}"),
                    )),
                }
            }
            MoveArg::Label(text) => {
                if self.line.status().is_over() {
                    return Err(illegal(
                        py,
                        format!("illegal move {text}: the game is over"),
                        text.clone(),
                        "the game is over".into(),
                    ));
                }
                self.rules.game.parse_move(self.position(), text).map_err(|e| bad_label(py, text, &e))
            }
        }
    }

    fn apply_move(&mut self, py: Python<'_>, mv: &MoveArg) -> PyResult<()> {
        let action = self.action_of(py, mv)?;
        self.line.play(action).map(drop).map_err(|e| illegal_move(py, &e))
    }

    pub fn encode_into(&self, layout: &Layout, out: &mut [f32]) {
        encode(&self.rules.game, layout, self.position(), out);
    }
}

#[pymethods]
impl PyState {
    /// The game this state is of.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame { rules: self.rules.clone() }
    }

    /// The player to move: 0 (South) or 1 (North); for a finished game, who would be.
    #[getter]
    fn to_move(&self) -> usize {
        self.line.side_to_move().index()
    }

    /// The legal actions in increasing order; empty when the game is over.
    fn legal_actions(&self) -> Vec<usize> {
        self.line.legal_moves().iter().map(usize::from).collect()
    }

    /// The legal actions as pit labels, in action order.
    fn legal_labels(&self) -> Vec<String> {
        let side = self.line.side_to_move();
        self.line.legal_moves().iter().map(|a| self.rules.game.move_label(side, a)).collect()
    }

    /// A numpy bool array over the action space: True where the action is legal.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let legal = self.line.legal_moves();
        let mask: Vec<bool> = (0..self.rules.game.action_space()).map(|a| legal.contains(a as Action)).collect();
        PyArray1::from_vec(py, mask)
    }

    /// The state after `move` (an action number or a pit label); this state is unchanged.
    ///
    /// Raises IllegalMoveError (a ValueError) with the rules' reason.
    #[pyo3(name = "play")]
    fn play_move(&self, py: Python<'_>, r#move: MoveArg) -> PyResult<PyState> {
        let mut next = self.clone();
        next.apply_move(py, &r#move)?;
        Ok(next)
    }

    /// Plays `move` (an action number or a pit label) in place.
    ///
    /// Raises IllegalMoveError (a ValueError) with the rules' reason; the state is unchanged.
    fn apply(&mut self, py: Python<'_>, r#move: MoveArg) -> PyResult<()> {
        self.apply_move(py, &r#move)
    }

    /// Takes back the last move; False when there is none.
    fn undo(&mut self) -> bool {
        self.line.undo()
    }

    /// Seeds in every pit, in pit index order (South's row, then North's), as numpy uint8.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, self.rules.game.pits(self.position()))
    }

    /// Seeds captured (or in the stores) by South and North.
    #[getter]
    fn captures(&self) -> (u16, u16) {
        let s = self.rules.game.scores(self.position());
        (s.south, s.north)
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.line.status().is_over()
    }

    /// `None` while the game goes on, else `"draw"`, `"south+N"` or `"north+N"`.
    #[getter]
    fn result(&self) -> Option<String> {
        self.line.status().outcome().map(|o| o.to_string())
    }

    /// The winner (0 or 1) of a finished game; `None` for a draw or while it goes on.
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.line.status().outcome().and_then(|o| o.winner).map(Player::index)
    }

    /// `[south, north]`: +1 for a win, -1 for a loss, 0 for a draw or an ongoing game.
    fn returns(&self) -> [f32; 2] {
        match self.line.status().outcome() {
            Some(o) => [o.value_for(Player::South), o.value_for(Player::North)],
            None => [0.0, 0.0],
        }
    }

    /// Plies played since the start (or since the position line it was read from).
    #[getter]
    fn plies(&self) -> usize {
        self.line.len()
    }

    /// The moves played, as pit labels.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.line.move_labels()
    }

    /// The network's input for this position, numpy float32: encoding `version` (this
    /// build's, `ENCODING_VERSION`, by default) in its layout, from the mover's seat.
    #[pyo3(signature = (version = None))]
    fn encode<'py>(&self, py: Python<'py>, version: Option<u32>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let layout = self.rules.layout(version)?;
        let mut out = vec![0.0f32; layout.inputs()];
        self.encode_into(&layout, &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    /// The pit label of `action` for the side to move.
    fn label(&self, action: i64) -> PyResult<String> {
        let g = PyGame { rules: self.rules.clone() };
        let a = g.check_action(action)?;
        Ok(self.rules.game.move_label(self.line.side_to_move(), a))
    }

    /// The action a pit label names for the side to move.
    ///
    /// Raises IllegalMoveError when the label names no pit the side to move sows.
    fn action(&self, py: Python<'_>, label: &str) -> PyResult<usize> {
        self.rules.game.parse_move(self.position(), label).map(usize::from).map_err(|e| bad_label(py, label, &e))
    }

    /// The position as one line (the engine protocol's `position`), which
    /// `Game.from_line` and `State.from_line` read back.
    fn position_line(&self) -> String {
        self.rules.game.to_setup(self.position()).to_string()
    }

    /// The state a position line describes, for `game` (a Game or a rules string).
    #[staticmethod]
    fn from_line(game: GameArg<'_>, line: &str) -> PyResult<PyState> {
        PyState::read_line(&game.rules()?, line)
    }

    fn copy(&self) -> PyState {
        self.clone()
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    fn __str__(&self) -> String {
        self.rules.game.display(self.position())
    }

    fn __repr__(&self) -> String {
        format!("State({:?}, {:?})", self.rules.game.rules_string(), self.position_line())
    }

    /// Equal when of the same game and the same position (history aside).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyState>().is_ok_and(|o| {
            let o = o.borrow();
            o.position() == self.position() && o.rules.game == self.rules.game
        })
    }

    fn __hash__(&self) -> u64 {
        self.rules.game.hash(self.position())
    }
}
