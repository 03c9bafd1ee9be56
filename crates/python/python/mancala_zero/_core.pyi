"""Type stubs of the compiled module ``mancala_zero._core`` (re-exported by ``mancala_zero``)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

ENCODING_VERSION: int
"""The input encoding version new networks are made with (``State.encode``'s default)."""
PRESETS: List[str]
"""Every preset a rules string may start with."""
ALL_AGENTS: str
"""Every agent spec form, in words."""

class IllegalMoveError(ValueError):
    """A move the rules refuse."""

    label: str
    """The move as written: a pit label, or an action number."""
    reason: str
    """The rules' reason, in words (``house C is empty``, ``the game is over``, ...)."""

Move = Union[int, str]
"""An action number (the mover's ``a``-th pit) or a pit label (``"D"``, ``"c"``)."""
PlayerLike = Union[int, str]
"""0 or ``"south"`` (moves first), 1 or ``"north"``."""
GameLike = Union["Game", str]
"""A Game, or a rules string read as ``Game(rules)`` reads it."""

class Game:
    """A sowing game with its rules fixed.

    ``rules`` is a preset with options (``"oware"``, ``"kalah:6,6 empty_capture=true"``), a
    catalogue game (``"congkak"``), a description file (``"my-game.toml"``) or a described
    game's one-line rules string (``"sowing {...}"``). Raises ValueError naming the unknown
    preset, option or value (or what is wrong with a description), FileNotFoundError for a
    description file that is not there.
    """

    def __init__(self, rules: str = "oware") -> None: ...
    @property
    def rules(self) -> str:
        """The canonical rules string: ``Game(game.rules) == game``."""
    @property
    def name(self) -> str:
        """The preset family, or a described game's name."""
    @property
    def action_space(self) -> int:
        """The number of actions; action ``a`` sows the mover's ``a``-th pit."""
    @property
    def num_pits(self) -> int:
        """Pits of both players (stores not counted)."""
    @property
    def total_seeds(self) -> int: ...
    def encoding_size(self, version: Optional[int] = None) -> int:
        """The length of ``State.encode(version)``."""
    def start(self) -> "State":
        """The initial position."""
    def from_line(self, line: str) -> "State":
        """The position a position line describes; ValueError for a bad line."""
    def label(self, action: int, player: PlayerLike = 0) -> str:
        """The pit label of ``action`` when ``player`` moves."""
    def action(self, label: str) -> int:
        """The action a pit label names, for the player who owns that pit."""

class State:
    """A game in progress: a position and the history the cycle rule needs."""

    @property
    def game(self) -> Game: ...
    @property
    def to_move(self) -> int:
        """0 (South) or 1 (North); for a finished game, who would be."""
    def legal_actions(self) -> List[int]:
        """The legal actions in increasing order; empty when the game is over."""
    def legal_labels(self) -> List[str]:
        """The legal actions as pit labels."""
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Bool array over the action space, True where legal."""
    def play(self, move: Move) -> "State":
        """The state after ``move``; this one is unchanged. Raises IllegalMoveError."""
    def apply(self, move: Move) -> None:
        """Plays ``move`` in place. Raises IllegalMoveError, leaving the state unchanged."""
    def undo(self) -> bool:
        """Takes back the last move; False when there is none."""
    @property
    def board(self) -> npt.NDArray[np.uint8]:
        """Seeds in every pit in index order: South's row, then North's."""
    @property
    def captures(self) -> Tuple[int, int]:
        """Seeds captured (or in the stores) by South and North."""
    @property
    def is_over(self) -> bool: ...
    @property
    def result(self) -> Optional[str]:
        """``None`` while the game goes on, else ``"draw"``, ``"south+N"`` or ``"north+N"``."""
    @property
    def winner(self) -> Optional[int]:
        """0 or 1 for a won game; None for a draw or an ongoing game."""
    def returns(self) -> List[float]:
        """``[south, north]``: +1 win, -1 loss, 0 draw or ongoing."""
    @property
    def plies(self) -> int: ...
    @property
    def moves(self) -> List[str]:
        """The moves played, as pit labels."""
    def encode(self, version: Optional[int] = None) -> npt.NDArray[np.float32]:
        """The network's input (encoding ``version``, ENCODING_VERSION by default)."""
    def label(self, action: int) -> str:
        """The pit label of ``action`` for the side to move."""
    def action(self, label: str) -> int:
        """The action a pit label names for the side to move; IllegalMoveError otherwise."""
    def position_line(self) -> str:
        """The position as one line, read back by ``from_line``."""
    @staticmethod
    def from_line(game: GameLike, line: str) -> "State": ...
    def copy(self) -> "State": ...
    def __copy__(self) -> "State": ...
    def __deepcopy__(self, memo: Any) -> "State": ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Model:
    """A trained network and its game."""

    @staticmethod
    def load(path: Union[str, PathLike[str]], game: Optional[GameLike] = None) -> "Model":
        """Reads a model file. FileNotFoundError when missing, ValueError when unusable."""
    @staticmethod
    def shipped(game: GameLike) -> "Model":
        """The model shipped for a preset; ValueError for rules without one."""
    @property
    def game(self) -> Game: ...
    @property
    def encoding_version(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def name(self) -> str: ...
    def evaluate(
        self, states: List[State]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``(policy [n, A], value [n], margin [n])`` for the side to move of each state."""

class Agent:
    """An agent named by a spec of the command line: ``random``, ``greedy``,
    ``alphabeta:depth=D``, ``mcts:sims=N,...``, ``net:FILE,...`` (``net:shipped,...``),
    ``perfect:db=FILE``."""

    def __init__(self, spec: str, game: GameLike, seed: int = 0) -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def game(self) -> Game: ...
    def new_game(self, seed: int) -> None: ...
    def choose(self, state: State) -> int:
        """The action the agent plays in an ongoing game."""
    def analyze(self, state: State) -> Dict[str, Any]:
        """``value``, ``visits``, ``priors``, ``best``, ``label``, ``pv``, ``simulations``."""

def play_random_games(
    game: GameLike, n: int, seed: int = 0, threads: Optional[int] = None
) -> Dict[str, Any]:
    """``n`` random games: ``games``, ``moves``, and arrays ``plies``, ``results``, ``margins``."""

def encode_batch(states: List[State], version: Optional[int] = None) -> npt.NDArray[np.float32]:
    """``[len(states), inputs]``: every state's network input."""

def arena(
    a: Union[Agent, str],
    b: Union[Agent, str],
    game: GameLike,
    games: int = 100,
    seed: int = 1,
    threads: Optional[int] = None,
    opening_plies: int = 4,
) -> Dict[str, Any]:
    """A match as ``mancala-zero arena`` plays it; the report as a dict from A's view."""
