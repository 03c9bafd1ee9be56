"""Every bad input raises the Python exception that names it; none crashes the interpreter."""

import random
import string

import pytest

import mancala_zero as mz


@pytest.mark.parametrize(
    "rules", ["", "nope", "oware foo=1", "oware grand_slam=maybe", "kalah:0,4", "kalah:x", "oware oware", "sowing {"]
)
def test_bad_rules_are_value_errors(rules):
    with pytest.raises(ValueError):
        mz.Game(rules)


def test_a_missing_description_file():
    with pytest.raises(FileNotFoundError):
        mz.Game("no/such/game.toml")


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError):
        mz.Game(12)
    with pytest.raises(TypeError):
        mz.Game("oware").start().apply(1.5)


def test_illegal_moves_carry_the_rules_reason():
    game = mz.Game("oware")
    state = game.start()
    for move in (6, -1, 255, "Z", "a", ""):
        with pytest.raises(mz.IllegalMoveError) as e:
            state.apply(move)
        assert isinstance(e.value, ValueError) and e.value.reason and e.value.label == str(move)
    assert state.plies == 0
    empty = game.from_line("south | 0 0 | 4 4 0 4 4 4 4 4 4 4 4 8 | ongoing")
    with pytest.raises(mz.IllegalMoveError) as e:
        empty.play("C")
    assert "empty" in e.value.reason and e.value.label == "C"
    over = game.from_line("south | 30 18 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+12")
    assert over.is_over
    with pytest.raises(mz.IllegalMoveError, match="over"):
        over.apply(0)
    with pytest.raises((TypeError, OverflowError, ValueError)):
        state.apply(2**80)


def test_bad_calls_raise_value_errors():
    game = mz.Game("oware")
    state = game.start()
    bad = [
        lambda: game.from_line("garbage"),
        lambda: game.from_line("south | 0 0 | 4 4 | ongoing"),
        lambda: mz.State.from_line("kalah", "south | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 5 | ongoing"),
        lambda: game.label(6),
        lambda: game.label(0, "east"),
        lambda: game.label(0, 2),
        lambda: game.action("Q"),
        lambda: state.encode(version=99),
        lambda: game.encoding_size(0),
        lambda: mz.encode_batch([]),
        lambda: mz.encode_batch([state, mz.Game("kalah").start()]),
        lambda: mz.play_random_games("oware", 4, threads=0),
        lambda: mz.play_random_games("oware", 10**9),
        lambda: mz.Agent("bogus", game),
        lambda: mz.Agent("mcts:sims=0", game),
        lambda: mz.Agent("alphabeta:depth=2,ms=5", game),
        lambda: mz.Agent("net:shipped", "kalah:4,3"),
        lambda: mz.Agent("random", "kalah").choose(state),
        lambda: mz.Agent("random", game).choose(game.from_line("south | 30 18 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+12")),
        lambda: mz.arena("random", "greedy", game, games=3),
        lambda: mz.arena("random", "bogus", game, games=2),
        lambda: mz.arena("random", "greedy", game, games=2, threads=0),
    ]
    for i, call in enumerate(bad):
        with pytest.raises(ValueError):
            call()
            pytest.fail(f"bad call {i} did not raise")


def test_missing_files_named_by_specs(tmp_path):
    for spec in (f"net:{tmp_path / 'none.mzm'}", f"perfect:db={tmp_path / 'none.mztb'}"):
        with pytest.raises(FileNotFoundError):
            mz.Agent(spec, "oware")
    with pytest.raises(FileNotFoundError):
        mz.arena("random", f"net:{tmp_path / 'none.mzm'}", "oware", games=2)
    junk = tmp_path / "junk.mzm"
    junk.write_bytes(b"\x00" * 64)
    with pytest.raises(ValueError):
        mz.Agent(f"net:{junk}", "oware")


def test_random_text_never_crashes():
    rng = random.Random(0)
    alphabet = string.printable + "éß€\x00"
    game = mz.Game("kalah")
    state = game.start()
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        for call in (
            lambda: mz.Game(text),
            lambda: game.from_line(text),
            lambda: state.play(text),
            lambda: mz.Agent(text, game),
            lambda: mz.Agent("mcts:" + text, game),
            lambda: game.action(text),
        ):
            try:
                call()
            except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError, OSError):
                pass
