#!/usr/bin/env bash
# Self-play positions/s of 1 and 2 `worker` processes (one thread each) on a local directory
# and on a local S3 server (SeaweedFS, started and stopped here): what the store costs, and
# how self-play scales with processes. Each worker plays 2 shards of 12 Oware games with the
# default search; its rate (from its heartbeat) includes uploads and model loads.
#   scripts/measure-workers.sh [path/to/mancala-zero]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/mancala-zero}
work=$(mktemp -d /tmp/mz-measure.XXXXXX)
cfg=$work/oware.toml
{ cat configs/base.toml; printf '\n[game]\nrules = "oware"\n'; } > "$cfg"
sed -i -e 's/^games_per_shard = .*/games_per_shard = 12/' \
    -e 's/^parallel_games = .*/parallel_games = 12/' -e 's/^tensorboard = .*/tensorboard = false/' "$cfg"
measure() { # store-url processes
    local url=$1 n=$2 pids=""
    # Create the run (trainer, gatekeeper and evaluator), then stop them: the workers alone run.
    "$BIN" train --config "$cfg" --store "$url" --workers 0 --quiet >/dev/null 2>&1 &
    local t=$!
    for _ in $(seq 1 100); do "$BIN" status --store "$url" >/dev/null 2>&1 && break; sleep 0.2; done
    kill -9 $t; wait $t 2>/dev/null || true
    for k in $(seq 1 "$n"); do
        "$BIN" worker --quiet --store "$url" --id "m$k" --threads 1 --max-shards 2 >/dev/null 2>&1 &
        pids="$pids $!"
    done
    wait $pids
    "$BIN" status --store "$url" --json | python3 -c "
import json, sys
w = [x[0] for x in json.load(sys.stdin)['workers']]
print('%-40s %d process(es): %6.0f positions/s (%s)' % ('$url'[:40], $n, sum(x['positions_per_s'] for x in w),
      ', '.join('%.0f' % x['positions_per_s'] for x in w)))"
}
eval "$(scripts/s3-test-server.sh)"
trap 'kill $S3_SERVER_PID 2>/dev/null; sleep 3; kill -9 $S3_SERVER_PID 2>/dev/null; rm -rf "$S3_SERVER_DIR" "$work"' EXIT
for n in 1 2; do
    measure "$work/local-$n" "$n"
    measure "s3://$MZ_TEST_S3_BUCKET/measure-$n-$$" "$n"
done
