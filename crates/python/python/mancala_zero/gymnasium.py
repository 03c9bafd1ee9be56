"""A Gymnasium environment: one player of a mancala-zero game against an agent.

>>> import numpy as np
>>> from mancala_zero.gymnasium import MancalaEnv
>>> env = MancalaEnv("oware", opponent="greedy")
>>> obs, info = env.reset(seed=7)
>>> action = int(np.flatnonzero(info["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)

The observation is the network's input (``State.encode``) from the learner's seat (it is
always the learner's move when the environment answers); ``info["action_mask"]`` marks the
legal actions and ``info["state"]`` is the ``State``. The opponent is any agent spec
(``"random"``, ``"greedy"``, ``"alphabeta:depth=4"``, ``"net:shipped,sims=50"``, ...) and
answers at once after each move. The reward is +1, -1 or 0 when the game ends. An illegal
action ends the game at once with reward -1 and ``info["illegal"] = True``: Gymnasium's
spaces cannot say which actions are legal, so a learner finds out this way.
"""

from typing import Any, Dict, Optional, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._core import Agent, Game, State

__all__ = ["MancalaEnv"]


class MancalaEnv(gym.Env):
    """One player of ``rules`` against ``opponent`` (an agent spec or an ``Agent``).

    ``play_as`` is the learner's seat: 0 (South, moves first), 1 (North), or None for a seat
    drawn at every reset.
    """

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        rules: str = "oware",
        opponent: Union[str, Agent] = "random",
        play_as: Optional[int] = 0,
        render_mode: Optional[str] = None,
    ):
        if play_as not in (0, 1, None):
            raise ValueError(f"play_as={play_as!r}: expected 0 (south), 1 (north) or None (drawn)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}")
        self.game = Game(rules)
        self.opponent = opponent if isinstance(opponent, Agent) else Agent(opponent, self.game)
        self.play_as = play_as
        self.render_mode = render_mode
        bound = float(self.game.num_pits)
        self.observation_space = spaces.Box(
            low=-bound, high=bound, shape=(self.game.encoding_size(),), dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.game.action_space)
        self.seat = 0 if play_as is None else play_as
        self.state: State = self.game.start()

    def _info(self, **extra: Any) -> Dict[str, Any]:
        mask = self.state.legal_mask() if self.state.to_move == self.seat else np.zeros(self.game.action_space, bool)
        return {"action_mask": mask.astype(np.int8), "state": self.state, **extra}

    def _reply(self) -> None:
        """The opponent moves until it is the learner's turn or the game is over."""
        while not self.state.is_over and self.state.to_move != self.seat:
            self.state.apply(self.opponent.choose(self.state))

    def _reward(self) -> float:
        return float(self.state.returns()[self.seat]) if self.state.is_over else 0.0

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self.seat = int(self.np_random.integers(2)) if self.play_as is None else self.play_as
        self.opponent.new_game(int(self.np_random.integers(2**63)))
        self.state = self.game.start()
        self._reply()
        return self.state.encode(), self._info()

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self.state.is_over:
            raise RuntimeError("step() after the game ended: call reset()")
        action = int(action)
        if not 0 <= action < self.game.action_space or not self.state.legal_mask()[action]:
            return self.state.encode(), -1.0, True, False, self._info(illegal=True)
        self.state.apply(action)
        self._reply()
        if self.render_mode == "human":
            self.render()
        return self.state.encode(), self._reward(), self.state.is_over, False, self._info()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode: MancalaEnv(..., render_mode='ansi')")
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text
