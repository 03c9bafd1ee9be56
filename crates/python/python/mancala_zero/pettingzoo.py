"""A PettingZoo AEC environment for any mancala-zero game.

>>> from mancala_zero.pettingzoo import env
>>> e = env(rules="kalah")
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

Agents are ``player_0`` (South, moves first) and ``player_1`` (North). Turns follow the
rules, so a player may move twice in a row (Kalah's store, Ouril's grand slam). The
observation is a dict: ``observation``, the network's input (``State.encode``) from the
seat of the player to move, and ``action_mask`` (int8, 1 where legal; all zeros for the
player not to move). Rewards are +1, -1 or 0 for each player when the game ends.
"""

from typing import Any, Dict, Optional

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._core import Game

__all__ = ["env", "raw_env"]


def env(rules: str = "oware", render_mode: Optional[str] = None) -> AECEnv:
    """The environment for ``rules`` (any rules string ``Game`` reads), wrapped as
    PettingZoo's classic games are: an illegal move ends the game with -1 for its player."""
    e: AECEnv = raw_env(rules=rules, render_mode=render_mode)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """The unwrapped AEC environment; ``env`` adds PettingZoo's usual wrappers."""

    metadata = {"render_modes": ["human", "ansi"], "name": "mancala_zero_v0", "is_parallelizable": False}

    def __init__(self, rules: str = "oware", render_mode: Optional[str] = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}")
        self.game = Game(rules)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        actions = self.game.action_space
        # Seeds are scaled by pits / total seeds, so no input exceeds the number of pits.
        bound = float(self.game.num_pits)
        size = self.game.encoding_size()
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=-bound, high=bound, shape=(size,), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.game_state = self.game.start()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        mover = self.possible_agents[self.game_state.to_move]
        if agent == mover and not self.game_state.is_over:
            mask = self.game_state.legal_mask().astype(np.int8)
        else:
            mask = np.zeros(self.game.action_space, dtype=np.int8)
        return {"observation": self.game_state.encode(), "action_mask": mask}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self.game_state = self.game.start()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game_state.to_move]

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.game_state.apply(int(action))
        if self.game_state.is_over:
            for a, r in zip(self.possible_agents, self.game_state.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        self.agent_selection = self.possible_agents[self.game_state.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode: env(rules, render_mode='ansi' or 'human')")
            return None
        text = str(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
