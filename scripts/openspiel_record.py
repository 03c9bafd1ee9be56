#!/usr/bin/env python3
"""Records random games of OpenSpiel's `oware` and `mancala` as reference data for the rules
crate (crates/rules/tests/openspiel.rs checks that our Oware and Kalah agree move by move).

    pip install open_spiel
    python3 scripts/openspiel_record.py [--games 300] [--out crates/rules/tests/data/openspiel]

Writes `oware.jsonl` and `mancala.jsonl`, one game a line:

    {"seed": S, "moves": ["D", "e", ...],
     "positions": ["north | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4 | ongoing", ...],
     "legal": [["A", "B", ...], ...], "returns": [1.0, -1.0],
     "end": "majority", "openspiel_final": "..."}

`positions[i]` is the position after `moves[i]` and `legal[i]` the moves legal before it,
written in the engine protocol (docs/protocol.md): `SIDE | S0 S1 | P0 ... P11 | STATUS`, pits in
docs/rules.md order (South A-F = 0..5, North a-f = 6..11, sowing A->F->a->f), moves as pit labels.
`end` says how the game ended; `openspiel_final` is OpenSpiel's own last board, for reference.

Every ply is also replayed by a small shadow implementation of docs/rules.md's defaults below, and
the shadow must agree with OpenSpiel exactly (legal moves, board, scores, side to move) before
a game is written. OpenSpiel differs from docs/rules.md only in how it books the end of a game:

* oware: when a player reaches a majority (or 24-24), OpenSpiel also moves every seed left
  on the board into its row owner's score (CollectAndTerminate runs whenever the next player
  has no legal move, which includes every terminal state). docs/rules.md ends the game there and
  leaves the board as it is; the outcome's sign is the same, the margin is not. The recorded
  final position is the docs/rules.md one (the board before OpenSpiel's collection), and the
  shadow checks that collecting it gives OpenSpiel's final board.
* oware: OpenSpiel has no ply limit, it refuses a 1001st move (kMaxGameLength = 1000);
  docs/rules.md ends the game after `max_plies` = 1000. Games that reach 1000 plies are skipped.
* mancala: when a row is empty OpenSpiel leaves the seeds on the board and counts them for the
  row owner in Returns(); docs/rules.md gives them to the owner, so the recorded final position has
  them in the stores and every pit empty (this is a matter of bookkeeping, not of rules).
  The side of a finished game is OpenSpiel's internal next player (the mover again after a
  last seed in its store).

A game where the shadow and OpenSpiel disagree on anything else is not written; the script
reports it and exits with status 1.
"""

import argparse
import json
import os
import random
import sys

import pyspiel

HOUSES = 6
SEEDS = 4
TOTAL = 2 * HOUSES * SEEDS
MAX_PLIES = 1000


def label(side, house_in_row):
    return chr((ord("A") if side == 0 else ord("a")) + house_in_row)


def status_string(scores):
    s, n = scores
    if s > n:
        return f"south+{s - n}"
    if n > s:
        return f"north+{n - s}"
    return "draw"


def line(side, scores, pits, status):
    return "{} | {} {} | {} | {}".format(
        "south" if side == 0 else "north", scores[0], scores[1], " ".join(map(str, pits)), status
    )


def sign(x):
    return (x > 0) - (x < 0)


class Mismatch(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Mismatch(what)


# --------------------------------------------------------------------------------------------
# Oware (Abapa), docs/rules.md section 1 with every option at its default.


class OwareShadow:
    def __init__(self):
        self.pits = [SEEDS] * (2 * HOUSES)
        self.scores = [0, 0]
        self.side = 0
        self.over = False
        self.end = None
        self.seen = {self.key()}

    def key(self):
        return (self.side, tuple(self.scores), tuple(self.pits))

    def row(self, side):
        return range(side * HOUSES, side * HOUSES + HOUSES)

    def legal(self):
        if self.over:
            return []
        opp_empty = sum(self.pits[h] for h in self.row(1 - self.side)) == 0
        out = []
        for i, h in enumerate(self.row(self.side)):
            seeds = self.pits[h]
            if seeds == 0:
                continue
            # Must feed: the sowing has to reach the opponent's row.
            if opp_empty and seeds < HOUSES - i:
                continue
            out.append(i)
        return out

    def play(self, i):
        me = self.side
        origin = me * HOUSES + i
        seeds = self.pits[origin]
        assert seeds > 0
        self.pits[origin] = 0
        h = origin
        while seeds:
            h = (h + 1) % (2 * HOUSES)
            if h == origin:
                continue
            self.pits[h] += 1
            seeds -= 1
        captured = 0
        if h // HOUSES != me:
            lower = (h // HOUSES) * HOUSES
            taken = []
            j = h
            while j >= lower and self.pits[j] in (2, 3):
                taken.append(j)
                j -= 1
            opp_left = sum(self.pits[k] for k in self.row(1 - me)) - sum(self.pits[k] for k in taken)
            if taken and opp_left > 0:  # a grand slam captures nothing
                for k in taken:
                    captured += self.pits[k]
                    self.pits[k] = 0
                self.scores[me] += captured
        self.side = 1 - me
        if captured:
            self.seen = set()
        half = TOTAL // 2
        if max(self.scores) > half or self.scores == [half, half]:
            self.over, self.end = True, "majority" if max(self.scores) > half else "draw"
        elif not self.legal():
            # Nobody can feed: the player to move captures every seed left.
            self.scores[self.side] += sum(self.pits)
            self.pits = [0] * (2 * HOUSES)
            self.over, self.end = True, "no-moves"
        elif self.key() in self.seen:
            self.collect_own_rows()
            self.over, self.end = True, "repetition"
        self.seen.add(self.key())

    def collect_own_rows(self):
        for h in range(2 * HOUSES):
            self.scores[h // HOUSES] += self.pits[h]
            self.pits[h] = 0

    def line(self):
        return line(self.side, self.scores, self.pits, status_string(self.scores) if self.over else "ongoing")


def parse_oware_observation(text):
    side, scores, seeds = (f.strip() for f in text.split("|"))
    return int(side), [int(x) for x in scores.split()], [int(x) for x in seeds.split()]


def record_oware(seed):
    game = pyspiel.load_game("oware")
    state = game.new_initial_state()
    shadow = OwareShadow()
    rng = random.Random(seed)
    moves, positions, legal = [], [], []
    while not state.is_terminal():
        if len(moves) >= MAX_PLIES - 1:
            return None  # docs/rules.md's max_plies would end it; OpenSpiel refuses move 1001
        side = state.current_player()
        actions = state.legal_actions()
        check(side == shadow.side, f"side to move: openspiel {side}, shadow {shadow.side}")
        check(actions == shadow.legal(), f"legal: openspiel {actions}, shadow {shadow.legal()}")
        legal.append([label(side, a) for a in actions])
        action = rng.choice(actions)
        moves.append(label(side, action))
        state.apply_action(action)
        shadow.play(action)
        os_side, os_scores, os_pits = parse_oware_observation(state.observation_string(0))
        if state.is_terminal():
            check(shadow.over, f"openspiel ended the game, shadow goes on: {shadow.line()}")
            final = OwareShadow.__new__(OwareShadow)
            final.pits, final.scores = list(shadow.pits), list(shadow.scores)
            final.collect_own_rows()
            check(
                (os_side, os_scores, os_pits) == (shadow.side, final.scores, final.pits),
                f"final board: openspiel {state.observation_string(0)}, shadow {shadow.line()}",
            )
        else:
            check(not shadow.over, f"shadow ended the game, openspiel goes on: {shadow.line()}")
            check(
                (os_side, os_scores, os_pits) == (shadow.side, shadow.scores, shadow.pits),
                f"board: openspiel {state.observation_string(0)}, shadow {shadow.line()}",
            )
        positions.append(shadow.line())
    returns = state.returns()
    check(
        sign(returns[0] - returns[1]) == sign(shadow.scores[0] - shadow.scores[1]),
        f"returns {returns} vs shadow {shadow.line()}",
    )
    return {
        "seed": seed,
        "moves": moves,
        "positions": positions,
        "legal": legal,
        "returns": returns,
        "end": shadow.end,
        "openspiel_final": state.observation_string(0),
    }


# --------------------------------------------------------------------------------------------
# Kalah(6,4), docs/rules.md section 2 with every option at its default.
#
# OpenSpiel's mancala board has 14 entries: [0] North's store, [1..6] South's houses A-F,
# [7] South's store, [8..13] North's houses a-f. Actions are board indices (1-6 South, 8-13
# North). Ours: South's houses are pits 0..5, North's 6..11, stores are the scores.


def mancala_label(action):
    return label(0, action - 1) if action <= 6 else label(1, action - 8)


def mancala_board(pits, stores):
    return [stores[1]] + pits[:HOUSES] + [stores[0]] + pits[HOUSES:]


class KalahShadow:
    def __init__(self):
        self.pits = [SEEDS] * (2 * HOUSES)
        self.stores = [0, 0]
        self.side = 0
        self.over = False

    def legal(self):
        if self.over:
            return []
        return [i for i in range(HOUSES) if self.pits[self.side * HOUSES + i] > 0]

    def play(self, i):
        me = self.side
        # The loop: South's houses, South's store, North's houses, North's store.
        ring = list(range(HOUSES)) + ["S"] + list(range(HOUSES, 2 * HOUSES)) + ["N"]
        skip = "N" if me == 0 else "S"
        own_store = "S" if me == 0 else "N"
        origin = me * HOUSES + i
        pos = ring.index(origin)
        seeds = self.pits[origin]
        self.pits[origin] = 0
        while seeds:
            pos = (pos + 1) % len(ring)
            if ring[pos] == skip:
                continue
            if ring[pos] == "S":
                self.stores[0] += 1
            elif ring[pos] == "N":
                self.stores[1] += 1
            else:
                self.pits[ring[pos]] += 1
            seeds -= 1
        last = ring[pos]
        if last == own_store:
            pass  # extra turn
        else:
            if last // HOUSES == me and self.pits[last] == 1:
                opposite = 2 * HOUSES - 1 - last
                if self.pits[opposite] > 0:
                    self.stores[me] += 1 + self.pits[opposite]
                    self.pits[last] = self.pits[opposite] = 0
            self.side = 1 - me
        if sum(self.pits[:HOUSES]) == 0 or sum(self.pits[HOUSES:]) == 0:
            self.over = True

    def swept(self):
        scores = [self.stores[0] + sum(self.pits[:HOUSES]), self.stores[1] + sum(self.pits[HOUSES:])]
        return scores, [0] * (2 * HOUSES)

    def line(self):
        if self.over:
            scores, pits = self.swept()
            return line(self.side, scores, pits, status_string(scores))
        return line(self.side, self.stores, self.pits, "ongoing")


def record_mancala(seed):
    game = pyspiel.load_game("mancala")
    state = game.new_initial_state()
    shadow = KalahShadow()
    rng = random.Random(seed)
    moves, positions, legal = [], [], []
    while not state.is_terminal():
        side = state.current_player()
        actions = state.legal_actions()
        check(side == shadow.side, f"side to move: openspiel {side}, shadow {shadow.side}")
        mine = [a + 1 if side == 0 else a + 8 for a in shadow.legal()]
        check(actions == mine, f"legal: openspiel {actions}, shadow {mine}")
        legal.append([mancala_label(a) for a in actions])
        action = rng.choice(actions)
        moves.append(mancala_label(action))
        state.apply_action(action)
        shadow.play(action - 1 if side == 0 else action - 8)
        tensor = [int(x) for x in state.observation_tensor(0)]
        board, os_side = tensor[:14], tensor[14]
        check(board == mancala_board(shadow.pits, shadow.stores), f"board: openspiel {board}, shadow {shadow.line()}")
        check(os_side == shadow.side, f"next player: openspiel {os_side}, shadow {shadow.side}")
        check(state.is_terminal() == shadow.over, f"end: openspiel {state.is_terminal()}, shadow {shadow.line()}")
        positions.append(shadow.line())
    returns = state.returns()
    scores, _ = shadow.swept()
    check(sign(returns[0] - returns[1]) == sign(scores[0] - scores[1]), f"returns {returns} vs {shadow.line()}")
    return {
        "seed": seed,
        "moves": moves,
        "positions": positions,
        "legal": legal,
        "returns": returns,
        "end": "row-empty",
        "openspiel_final": str(state).replace("\n", " / "),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "crates", "rules", "tests", "data", "openspiel"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed = False
    for name, record in (("oware", record_oware), ("mancala", record_mancala)):
        written = skipped = 0
        ends = {}
        path = os.path.join(args.out, f"{name}.jsonl")
        with open(path, "w") as out:
            seed = 0
            while written < args.games:
                try:
                    game = record(seed)
                except Mismatch as e:
                    print(f"{name} seed {seed}: OpenSpiel and docs/rules.md disagree: {e}", file=sys.stderr)
                    failed = True
                    game = None
                if game is None:
                    skipped += 1
                else:
                    out.write(json.dumps(game, separators=(",", ":")) + "\n")
                    written += 1
                    ends[game["end"]] = ends.get(game["end"], 0) + 1
                seed += 1
        print(f"{name}: {written} games written to {path} ({os.path.getsize(path)} bytes), {skipped} skipped; ends {ends}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
