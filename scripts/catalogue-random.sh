#!/usr/bin/env bash
# Plays the issue's 10,000 random games of every catalogue game (the presets and the
# described games of games/): no panic, seeds conserved at every ply, every game ends.
# The test suite plays as many; this prints each game's figures. MZ_CATALOGUE_GAMES sets
# the count.
set -euo pipefail
cd "$(dirname "$0")/.."
export MZ_CATALOGUE_GAMES="${MZ_CATALOGUE_GAMES:-10000}"
time cargo test --release -p mancala-rules --test catalogue -- --nocapture every_catalogue_game_plays
