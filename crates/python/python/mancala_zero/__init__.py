"""Sowing games from Python: the rules, the network's input encoding, the search, the
trained models, every agent of the command line and the arena of mancala-zero, compiled
from the same Rust libraries as the ``mancala-zero`` binary.

>>> import mancala_zero as mz
>>> game = mz.Game("oware")
>>> state = game.start()
>>> state.legal_labels()
['A', 'B', 'C', 'D', 'E', 'F']
>>> state.apply("D")
>>> state.position_line()
'north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing | plies=1'

The environments are in :mod:`mancala_zero.pettingzoo` (an AEC environment) and
:mod:`mancala_zero.gymnasium` (one player against an agent); they need ``pettingzoo`` and
``gymnasium``, which the package itself does not.
"""

from ._core import (
    ALL_AGENTS,
    ENCODING_VERSION,
    PRESETS,
    Agent,
    Game,
    IllegalMoveError,
    Model,
    State,
    arena,
    encode_batch,
    play_random_games,
)

__all__ = [
    "ALL_AGENTS",
    "ENCODING_VERSION",
    "PRESETS",
    "Agent",
    "Game",
    "IllegalMoveError",
    "Model",
    "State",
    "arena",
    "encode_batch",
    "play_random_games",
]
