#!/usr/bin/env bash
# Builds (once per machine, cached outside the repo) and starts the FerretDB test harness:
# FerretDB 1.24.2 on SQLite behind the write-serialising wire proxy (see main.go for why).
#   tools/ferretdb/start.sh PORT DATA_DIR   → prints the MongoDB URI when ready; runs in background
# The binary is never committed. Needs Go (GOTOOLCHAIN=local) and the Go module proxy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${1:?port}
dir=${2:?data dir}
cache=${FERRETDB_CACHE:-$HOME/.cache/coupon-ferretdb}
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
bin="$cache/ferretdb-harness-$key"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  echo "building FerretDB harness (first time on this machine, ~2 min)..." >&2
  (cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o "$bin.tmp" . && mv "$bin.tmp" "$bin")
fi
mkdir -p "$dir"
"$bin" -listen "127.0.0.1:$port" -dir "$dir" > "$dir/ferretdb.out" 2> "$dir/ferretdb.err" &
echo $! > "$dir/ferretdb.pid"
for _ in $(seq 1 100); do
  if grep -q '^ready' "$dir/ferretdb.out" 2>/dev/null; then
    echo "mongodb://127.0.0.1:$port/"
    exit 0
  fi
  sleep 0.1
done
echo "FerretDB did not start; see $dir/ferretdb.err" >&2
cat "$dir/ferretdb.err" >&2 || true
exit 1
