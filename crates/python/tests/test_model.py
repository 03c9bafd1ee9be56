"""Models: the shipped ones and files, `evaluate` against the search's own evaluation."""

import shutil

import numpy as np
import pytest

import mancala_zero as mz
from conftest import SHIPPED

PRESETS = ["oware", "kalah", "awale", "oware-capture-all", "ouril", "ba-awa", "owela"]


def some_states(game, n, seed=2):
    import random

    rng = random.Random(seed)
    states = []
    while len(states) < n:
        state = game.start()
        for _ in range(rng.randrange(30)):
            if state.is_over:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over:
            states.append(state)
    return states


@pytest.mark.parametrize("rules", PRESETS)
def test_every_preset_has_a_shipped_model_that_evaluates(rules):
    model = mz.Model.shipped(rules)
    game = model.game
    states = some_states(game, 9)
    policy, value, margin = model.evaluate(states)
    assert policy.shape == (9, game.action_space) and policy.dtype == np.float32
    assert value.shape == (9,) and margin.shape == (9,)
    assert ((value >= -1) & (value <= 1)).all() and ((margin >= -1) & (margin <= 1)).all()
    for row, state in zip(policy, states):
        mask = state.legal_mask()
        assert row[~mask].sum() == 0 and row[mask].sum() == pytest.approx(1, abs=1e-5)


def test_a_batch_gives_what_each_state_alone_gives():
    model = mz.Model.shipped("oware")
    states = some_states(model.game, 33)
    policy, value, margin = model.evaluate(states)
    for i, state in enumerate(states):
        p, v, m = model.evaluate([state])
        np.testing.assert_allclose(p[0], policy[i], atol=1e-5)
        assert v[0] == pytest.approx(value[i], abs=1e-5) and m[0] == pytest.approx(margin[i], abs=1e-5)


def test_evaluate_equals_the_searchs_network_call():
    """A search of one simulation asks the Rust evaluator for the root's priors: the same
    numbers Model.evaluate gives."""
    model = mz.Model.shipped("kalah")
    agent = mz.Agent("net:shipped,sims=1", "kalah")
    for state in some_states(model.game, 5):
        policy, _, _ = model.evaluate([state])
        priors = agent.analyze(state)["priors"]
        np.testing.assert_allclose(priors, policy[0], atol=1e-5)


def test_a_model_file_loads_with_its_game():
    model = mz.Model.load(SHIPPED / "kalah.mzm")
    assert model.game.rules == mz.Game("kalah").rules
    assert model.encoding_version in (1, 2, 3)
    shipped = mz.Model.shipped("kalah")
    states = some_states(model.game, 4)
    np.testing.assert_allclose(model.evaluate(states)[0], shipped.evaluate(states)[0], atol=1e-6)
    assert mz.Model.load(str(SHIPPED / "kalah.mzm"), game="kalah").game == model.game


def test_bad_model_files_raise(tmp_path):
    with pytest.raises(FileNotFoundError):
        mz.Model.load(tmp_path / "none.mzm")
    junk = tmp_path / "junk.mzm"
    junk.write_bytes(b"not a model at all")
    with pytest.raises(ValueError):
        mz.Model.load(junk)
    truncated = tmp_path / "truncated.mzm"
    truncated.write_bytes((SHIPPED / "oware.mzm").read_bytes()[:1000])
    with pytest.raises(ValueError):
        mz.Model.load(truncated)
    flipped = tmp_path / "flipped.mzm"
    data = bytearray((SHIPPED / "oware.mzm").read_bytes())
    data[len(data) // 2] ^= 0x55
    flipped.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        mz.Model.load(flipped)
    with pytest.raises(ValueError, match="kalah"):
        mz.Model.load(SHIPPED / "kalah.mzm", game="oware")
    with pytest.raises(ValueError):
        mz.Model.shipped("kalah:4,3")
    with pytest.raises(ValueError):
        mz.Model.shipped("oware").evaluate(some_states(mz.Game("kalah"), 1))
    with pytest.raises(ValueError):
        mz.Model.shipped("oware").evaluate([])
    copy = tmp_path / "copy.mzm"
    shutil.copy(SHIPPED / "owela.mzm", copy)
    assert mz.Model.load(copy).game.name == "owela"
