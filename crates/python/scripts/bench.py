"""The speed figures of docs/python.md, on one core: random playouts driven move by move
from Python (`state.apply`) beside the same loop over OpenSpiel's `pyspiel` `oware` (when it
is installed), `play_random_games` in one call, and `Model.evaluate` at batch 256 (compare
with `mancala-zero bench nn --game oware --batches 256`, the same evaluator without Python).

    python crates/python/scripts/bench.py [--seconds S]
"""

import argparse
import random
import time

import mancala_zero as mz


def timed(seconds, body):
    """Runs `body` (returning a count) until `seconds` pass; count per second."""
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        count += body()
    return count / (time.perf_counter() - start)


def playouts_mz(game, rng):
    state = game.start()
    moves = 0
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
        moves += 1
    return moves


def playouts_pyspiel(game, rng):
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        moves += 1
    return moves


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    rng = random.Random(1)
    game = mz.Game("oware")
    print(f"mancala_zero state.apply playouts (oware): {timed(args.seconds, lambda: playouts_mz(game, rng)):,.0f} moves/s")
    try:
        import pyspiel

        spiel = pyspiel.load_game("oware")
        rate = timed(args.seconds, lambda: playouts_pyspiel(spiel, rng))
        print(f"pyspiel apply_action playouts (oware): {rate:,.0f} moves/s")
    except ImportError:
        print("pyspiel: not installed")
    for threads in (1, None):
        rate = timed(args.seconds, lambda: mz.play_random_games(game, 2000, seed=1, threads=threads)["moves"])
        print(f"play_random_games (oware, threads={threads or 'all'}): {rate:,.0f} moves/s")
    model = mz.Model.shipped(game)
    states = []
    while len(states) < 256:
        state = game.start()
        for _ in range(rng.randrange(60)):
            if state.is_over:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over:
            states.append(state)
    rate = timed(args.seconds, lambda: model.evaluate(states)[1].shape[0])
    print(f"Model.evaluate (shipped oware, batch 256): {rate:,.0f} positions/s")


if __name__ == "__main__":
    main()
