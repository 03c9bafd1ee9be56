"""`encode` is the network's input as the encoding crate writes it: the layout of
crates/encoding checked on known positions, and the batch equal to the rows."""

import random

import numpy as np
import pytest

import mancala_zero as mz


def test_version_1_of_a_known_oware_position():
    game = mz.Game("oware")
    state = game.start()
    state.apply("D")
    # Mover (North) first: North's pits, then South's; seeds times pits / total seeds.
    seeds = [5, 5, 4, 4, 4, 4] + [4, 4, 4, 0, 5, 5]
    expected = [s * 12 / 48 for s in seeds] + [0.0, 0.0]
    got = state.encode(version=1)
    assert got.dtype == np.float32
    assert got.tolist() == pytest.approx(expected)


def test_version_2_adds_the_plies_left():
    state = mz.Game("oware").start()
    got = state.encode(version=2)
    assert len(got) == 12 + 2 + 1
    assert got[-1] == 1.0  # the ply limit is far away at the start


def test_version_3_capture_channel_sees_a_capture():
    game = mz.Game("oware")
    # South sows F (1 seed) into a, making it 2: a capture of 2 for South.
    state = game.from_line("south | 0 0 | 0 0 0 0 0 1 1 0 0 0 0 46 | ongoing")
    got = state.encode()
    assert len(got) == game.encoding_size() == 12 * 2 + 2 + 1
    capture = got[12:24]
    # F is South's sixth pit; two seeds captured, in seed units (times 12 / 48).
    assert capture[5] == pytest.approx(2 * 12 / 48)
    assert got[:12].tolist() == pytest.approx([s * 12 / 48 for s in [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 46]])
    assert got.tolist() == mz.encode_batch([state]).tolist()[0]


@pytest.mark.parametrize("rules", ["oware", "kalah", "ba-awa", "owela", "ouril", "congkak"])
def test_a_batch_is_its_rows(rules):
    game = mz.Game(rules)
    rng = random.Random(1)
    states = []
    state = game.start()
    while not state.is_over and len(states) < 40:
        states.append(state.copy())
        state.apply(rng.choice(state.legal_actions()))
    batch = mz.encode_batch(states)
    assert batch.shape == (len(states), game.encoding_size()) and batch.dtype == np.float32
    for row, s in zip(batch, states):
        assert np.array_equal(row, s.encode())
    assert mz.ENCODING_VERSION == 3
