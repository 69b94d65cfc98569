#!/usr/bin/env bash
# Builds compose-check once per machine (cached outside the repo, keyed by its sources) and runs
# it on the given compose file: the stand-in for `docker compose config` (see main.go).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${COMPOSE_CHECK_CACHE:-$HOME/.cache/coupon-compose-check}
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
bin="$cache/compose-check-$key"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  (cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o "$bin.tmp" . && mv "$bin.tmp" "$bin")
fi
exec "$bin" "$@"
