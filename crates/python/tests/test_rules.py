"""The rules from Python agree with the Rust engine (the binary's engine protocol) move by
move on random games, and the state API holds together."""

import copy
import random

import numpy as np
import pytest

import mancala_zero as mz
from conftest import ROOT

GAMES = ["oware", "kalah", "awale", "ouril", "ba-awa", "owela", "kalah:4,3 empty_capture=true", "congkak"]


@pytest.mark.parametrize("rules", GAMES)
def test_random_games_agree_with_the_engine(engine, rules):
    game = mz.Game(rules)
    assert engine.ask(f"game {rules}") == game.rules
    rng = random.Random(rules)
    for _ in range(3):
        engine.ask("clear_board")
        state = game.start()
        while True:
            assert engine.ask("position") == state.position_line()
            assert engine.ask("legal_moves").split() == state.legal_labels()
            assert engine.ask("result") == (state.result or "ongoing")
            if state.is_over:
                break
            label = rng.choice(state.legal_labels())
            engine.ask(f"play {label}")
            state.apply(label)


@pytest.mark.parametrize("rules", GAMES)
def test_play_and_apply_agree_and_play_leaves_the_state(rules):
    game = mz.Game(rules)
    rng = random.Random(7)
    state = game.start()
    while not state.is_over:
        before = state.position_line()
        action = rng.choice(state.legal_actions())
        after = state.play(action)
        assert state.position_line() == before
        state.apply(action)
        assert state == after and state.position_line() == after.position_line()
        assert state.plies == after.plies
    assert state.result is not None
    south, north = state.returns()
    assert south == -north and south in (-1.0, 0.0, 1.0)
    if state.winner is None:
        assert state.result == "draw"
    else:
        assert state.result.startswith(["south", "north"][state.winner])


def test_state_accessors_on_oware():
    game = mz.Game("oware")
    assert game.rules == mz.Game(game.rules).rules
    assert game.action_space == 6 and game.num_pits == 12 and game.total_seeds == 48
    state = game.start()
    assert state.to_move == 0
    assert state.legal_actions() == list(range(6))
    assert state.legal_mask().dtype == np.bool_ and state.legal_mask().all()
    state.apply("D")
    assert state.to_move == 1
    assert state.board.tolist() == [4, 4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4]
    assert state.board.dtype == np.uint8
    assert state.captures == (0, 0)
    assert state.moves == ["D"]
    assert state.position_line() == "north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing | plies=1"
    assert "a" in str(state) and "A" in str(state)
    assert state.label(0) == "a" and state.action("c") == 2
    assert game.label(3) == "D" and game.label(3, "north") == "d" and game.action("d") == 3
    assert state.undo() and state == game.start() and not state.undo()


def test_position_lines_read_back():
    game = mz.Game("kalah")
    rng = random.Random(3)
    state = game.start()
    while not state.is_over:
        line = state.position_line()
        again = game.from_line(line)
        assert again == state and again.position_line() == line
        assert mz.State.from_line("kalah", line) == state
        state.apply(rng.choice(state.legal_actions()))


def test_copies_are_independent():
    state = mz.Game("oware").start()
    for other in (copy.copy(state), copy.deepcopy(state), state.copy()):
        other.apply(0)
        assert state.plies == 0 and other.plies == 1
    assert hash(state) == hash(mz.Game("oware").start())


def test_random_games_in_a_batch_do_not_depend_on_threads():
    one = mz.play_random_games("oware", 64, seed=5, threads=1)
    two = mz.play_random_games(mz.Game("oware"), 64, seed=5, threads=2)
    assert one["games"] == 64 and one["moves"] == int(one["plies"].sum())
    for key in ("plies", "results", "margins"):
        assert np.array_equal(one[key], two[key])
    assert set(one["results"].tolist()) <= {-1, 0, 1}
    assert (np.sign(one["margins"]) == one["results"]).all()
    other = mz.play_random_games("oware", 64, seed=6, threads=1)
    assert not np.array_equal(one["plies"], other["plies"])


def test_described_games_from_files(tmp_path):
    congkak = mz.Game("congkak")
    path = tmp_path / "my.toml"
    path.write_text((ROOT / "games" / "congkak.toml").read_text())
    assert mz.Game(str(path)).rules == congkak.rules
    assert mz.Game(congkak.rules).rules == congkak.rules
