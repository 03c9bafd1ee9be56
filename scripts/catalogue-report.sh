#!/usr/bin/env bash
# The catalogue's balance report: `mancala-zero report` on every game `mancala-zero games`
# lists (abapa is oware's other name and is left out), each trained for MINUTES minutes on
# its embedded defaults, one row a game appended to docs/catalogue-report.md.
#
#   scripts/catalogue-report.sh [MINUTES] [GAMES]      defaults: 10 minutes, 100 games a match
#
# Long: about (MINUTES + 5) minutes a game on two cores. Runs go to checkpoints/catalogue/.
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
    echo "each game's player trained $minutes minutes on the embedded defaults, then $games games a"
    echo "match at 200 simulations a move; scores against the references as South / North in brackets."
    echo
  } > "$out"
fi
"$bin" games | tail -n +2 | awk '{print $1}' | grep -v '^abapa$' | while read -r game; do
  if grep -q "^| $game |" "$out"; then
    echo "$game: already in $out"
    continue
  fi
  echo "== $game"
  "$bin" report --game "$game" --minutes "$minutes" --games "$games" \
    --checkpoints checkpoints/catalogue --row "$out" || echo "$game: report failed"
done
