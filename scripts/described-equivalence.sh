#!/usr/bin/env bash
# The full equivalence check of the sowing engine against the hand-written engines: 100,000
# random games of each preset and option set in crates/rules/tests/described.rs (the test
# suite plays 300). Takes minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
MZ_EQUIVALENCE_GAMES="${1:-100000}" cargo test --release -p mancala-rules --test described -- \
    presets_as_descriptions_agree_with_the_hand_written_engines --nocapture
