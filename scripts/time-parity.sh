#!/usr/bin/env bash
# The time-parity table: each shipped model against alpha-beta at the same time a move
# (net:FILE,ms=T against alphabeta:ms=T), for Oware and Kalah at T = 100, 200 and 1000 ms,
# then 2 search threads against 1 at equal time. Time-limited matches measure the machine as
# much as the players: run it on a quiet machine with at least 2 free cores, and note the
# machine with the figures.
#
#   scripts/time-parity.sh            # 100 games a pairing (about 2.5 hours)
#   GAMES=20 TIMES="100" scripts/time-parity.sh
set -euo pipefail

cd "$(dirname "$0")/.."
GAMES="${GAMES:-100}"
TIMES="${TIMES:-100 200 1000}"
GAMES_LIST="${GAMES_LIST:-oware kalah}"
BIN="${BIN:-target/release/mancala-zero}"

[ -x "$BIN" ] || cargo build --release -p mancala-zero

# One game at a time: a match on time shares the cores with nothing else.
arena() {
    "$BIN" arena --threads 1 --games "$GAMES" "$@"
}

echo "# time parity, $(date -u +%Y-%m-%d), $GAMES games a pairing, $(nproc) cores"
for game in $GAMES_LIST; do
    model="checkpoints/shipped/$game.mzm"
    for ms in $TIMES; do
        echo "## $game: net:$model,ms=$ms against alphabeta:ms=$ms"
        arena --game "$game" --a "net:$model,ms=$ms" --b "alphabeta:ms=$ms"
    done
    for ms in $TIMES; do
        echo "## $game: 2 threads against 1 at ms=$ms"
        arena --game "$game" --a "net:$model,ms=$ms,threads=2" --b "net:$model,ms=$ms"
    done
done
