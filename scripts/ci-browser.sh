#!/usr/bin/env bash
# Installs what crates/web's browser test drives (Debian's chromium and chromium-driver) when
# it is missing, then runs that test with the browser required, so a missing browser fails
# CI instead of skipping.
set -euo pipefail

if [ ! -x "${CHROMEDRIVER:-/usr/bin/chromedriver}" ] || ! command -v chromium >/dev/null; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y chromium chromium-driver
fi

cd "$(dirname "$0")/.."
MZ_REQUIRE_BROWSER=1 cargo test --release -p mancala-web --test browser
