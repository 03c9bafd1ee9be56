#!/usr/bin/env bash
# The catalogue's balance report: `mancala-zero report` on every game `mancala-zero games`
# lists (abapa is oware's other name and is left out): a game with a shipped model plays that
# model, every other game a player trained for MINUTES minutes on its embedded defaults; one
# row a game appended to docs/catalogue-report.md (its "player" column says which).
#
#   scripts/catalogue-report.sh [MINUTES] [GAMES] [GAME...]
#
# Defaults: 10 minutes, 100 games a match, every game of the catalogue not yet in the file.
# Naming the games lets two instances share the cores (each under `taskset -c N`) on disjoint
# lists. Long: training is nearly all of it, MINUTES a game (a shipped model's row takes well
# under a minute), 41 trained games in all. Runs go to checkpoints/catalogue/.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
games="${2:-100}"
cargo build --release -q
bin=target/release/mancala-zero
out=docs/catalogue-report.md
if [ ! -f "$out" ]; then
  {
    echo "# Catalogue report"
    echo
    echo "Written by \`scripts/catalogue-report.sh $minutes $games\` ($(date -u +%Y-%m-%d), $(nproc) cores):"
    echo "each game's shipped model, or a player trained $minutes minutes on the embedded defaults, then"
    echo "$games games a match at 200 simulations a move; scores against the references as South / North"
    echo "in brackets."
    echo
  } > "$out"
fi
if [ "$#" -gt 2 ]; then
  shift 2
  printf '%s\n' "$@"
else
  "$bin" games | awk '$2 == "preset" || $2 == "described" {print $1}' | grep -v '^abapa$'
fi | while read -r game; do
  if grep -q "^| $game |" "$out"; then
    echo "$game: already in $out"
    continue
  fi
  echo "== $game"
  if [ -f "checkpoints/shipped/$game.mzm" ]; then
    player=(--model "checkpoints/shipped/$game.mzm")
  else
    player=(--minutes "$minutes" --checkpoints checkpoints/catalogue)
  fi
  "$bin" report --game "$game" "${player[@]}" --games "$games" --row "$out" || echo "$game: report failed"
done
