"""The environments pass their libraries' own API checks."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from mancala_zero.gymnasium import MancalaEnv
from mancala_zero.pettingzoo import env, raw_env


@pytest.mark.parametrize("rules", ["oware", "kalah", "ba-awa", "congkak"])
def test_pettingzoo_api(rules):
    api_test(env(rules=rules), num_cycles=200)


def test_pettingzoo_game_to_the_end():
    e = env(rules="kalah", render_mode="ansi")
    e.reset(seed=3)
    rewards = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        rewards[agent] += reward
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)
        steps += 1
    assert steps > 10 and sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert isinstance(raw_env("kalah", render_mode="ansi").render(), str)


@pytest.mark.parametrize("opponent", ["random", "greedy", "net:shipped,sims=4"])
def test_gymnasium_check_env(opponent):
    check_env(MancalaEnv("oware", opponent=opponent, play_as=None), skip_render_check=True)


def test_gymnasium_episodes():
    e = MancalaEnv("kalah", opponent="greedy", play_as=1)
    obs, info = e.reset(seed=1)
    assert e.observation_space.contains(obs)
    done, reward = False, 0.0
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, done, truncated, info = e.step(action)
        assert e.observation_space.contains(obs) and not truncated
    assert reward in (-1.0, 0.0, 1.0)
    _, info = e.reset(seed=2)
    illegal = np.flatnonzero(info["action_mask"] == 0)
    obs, reward, done, _, info = e.step(int(illegal[0]) if len(illegal) else 99)
    assert done and reward == -1.0 and info["illegal"]
    with pytest.raises(ValueError):
        MancalaEnv("kalah", play_as=2)
