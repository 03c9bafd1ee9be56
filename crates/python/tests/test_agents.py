"""Every agent spec plays legal moves from Python; analysis and the arena report."""

import random

import numpy as np
import pytest

import mancala_zero as mz
from conftest import SHIPPED

SPECS = [
    "random",
    "greedy",
    "alphabeta:depth=2",
    "mcts:sims=20",
    "net:shipped,sims=8",
    f"net:{SHIPPED / 'kalah.mzm'},sims=8,threads=2",
]


@pytest.mark.parametrize("spec", SPECS)
def test_agents_play_legal_moves_to_the_end(spec):
    game = mz.Game("kalah")
    agent = mz.Agent(spec, game, seed=3)
    other = mz.Agent("random", game, seed=4)
    state = game.start()
    while not state.is_over:
        mover = agent if state.to_move == 0 else other
        action = mover.choose(state)
        assert action in state.legal_actions()
        state.apply(action)
    assert state.result is not None


def test_analysis_of_a_search():
    game = mz.Game("oware")
    agent = mz.Agent("net:shipped,sims=64", game)
    state = game.start()
    report = agent.analyze(state)
    assert -1 <= report["value"] <= 1
    visits = report["visits"]
    assert visits.shape == (6,) and visits.sum() == pytest.approx(1, abs=1e-5)
    assert report["best"] in state.legal_actions() and report["label"] == state.label(report["best"])
    assert report["pv"][0] == report["label"] and len(report["pv"]) >= 2
    assert report["simulations"] >= 64
    assert report["priors"].sum() == pytest.approx(1, abs=1e-5)


def test_analysis_of_an_agent_without_a_tree():
    state = mz.Game("oware").start()
    report = mz.Agent("greedy", "oware").analyze(state)
    assert report["value"] is None and report["priors"] is None
    assert report["visits"][report["best"]] == 1.0


def test_same_seed_same_moves():
    game = mz.Game("oware")
    rng = random.Random(9)
    state = game.start()
    for _ in range(6):
        state.apply(rng.choice(state.legal_actions()))
    a = mz.Agent("mcts:sims=50", game, seed=11).choose(state)
    b = mz.Agent("mcts:sims=50", game, seed=11).choose(state)
    assert a == b


def test_arena_report():
    report = mz.arena("greedy", mz.Agent("random", "kalah"), "kalah", games=8, seed=2, threads=2)
    assert report["games"] == 8 == report["wins"] + report["draws"] + report["losses"]
    assert report["a"] == "greedy" and report["b"] == "random"
    assert 0 <= report["score"] <= 1
    assert len(report["records"]) == 8
    assert report["records"][0]["south"] == "greedy" and report["records"][1]["south"] == "random"
    for r in report["records"]:
        state = mz.Game("kalah").start()
        assert r["moves"][: len(r["opening"])] == r["opening"]
        for label in r["moves"]:
            state.apply(label)
        assert state.result == r["result"]
    again = mz.arena("greedy", "random", "kalah", games=8, seed=2, threads=1)
    assert [r["moves"] for r in again["records"]] == [r["moves"] for r in report["records"]]
    assert np.isfinite(report["elo_low"]) or report["wins"] in (0, 8)


def test_searches_in_python_threads_give_the_sequential_answers():
    """Searches run with the interpreter detached: threads overlap and still agree."""
    from concurrent.futures import ThreadPoolExecutor

    game = mz.Game("oware")
    state = game.start()
    state.apply("C")

    def search(seed):
        return mz.Agent("mcts:sims=200", game, seed=seed).analyze(state)["visits"].tolist()

    alone = [search(s) for s in range(4)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(search, range(4)))
    assert together == alone
