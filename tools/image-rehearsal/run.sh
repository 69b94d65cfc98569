#!/usr/bin/env bash
# The image and compose rehearsed without Docker (docs/operations.md, "Rehearsing the image and
# compose without Docker"): builds the image by executing the Dockerfile's instructions, starts the
# API and worker from the runtime stage the way docker-compose.yml wires them, runs compose's
# health checks, seeds, and checks /console, an operator's sign-in, /docs and a client redeem.
# Installs packages from the npm registry (about a minute); not part of CI or npm test.
#
#   MONGODB_URI=mongodb://… REDIS_URL=redis://127.0.0.1:6379 tools/image-rehearsal/run.sh [--git REF] [--keep]
#
# --git REF builds from that commit's tree (what a fresh clone holds) instead of the working tree;
# --keep leaves the stages' roots and logs in the temporary directory it prints. Exit 0 when every
# step passed, 1 otherwise, 2 on a usage error.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${MONGODB_URI:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  echo 'image-rehearsal: set MONGODB_URI and REDIS_URL (the rehearsal uses a database of its own there, dropped at the end)' >&2
  exit 2
fi
[ -x "$repo/node_modules/.bin/tsx" ] || { echo "image-rehearsal: run npm install in $repo first (the rehearsal itself runs under tsx)" >&2; exit 2; }
cd "$repo"
# The helper ends what it started on SIGINT/SIGTERM; forward them to it and wait for its cleanup.
node --import tsx tools/image-rehearsal/rehearse.ts "$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid"; exit 143' TERM
trap 'kill -INT "$pid" 2>/dev/null || true; wait "$pid"; exit 130' INT
wait "$pid"
