#!/usr/bin/env bash
# Starts the MongoDB-wire test database in DIR: a private PostgreSQL 15 cluster with DocumentDB
# (its own data directory, port and socket directory under DIR, run as the `postgres` user when
# started by root; the machine's own cluster is never touched) and FerretDB v2.7.0 in front of it.
# Builds first if needed (tools/testdb/build.sh, cached). Prints the MongoDB URI on stdout.
#   tools/testdb/start.sh DIR [PORT]     PORT: the MongoDB port (default: FerretDB listens on port 0
#                                        and the port the system gave it is in the printed URI)
#   tools/testdb/stop.sh DIR             stops exactly what this started
# DIR is created if missing and reused if present (a warm start takes about a second). Its path
# must be traversable by the postgres user (e.g. under /tmp, not under a private mktemp dir).
# TESTDB_SETSID=1 starts FerretDB in a session (and process group) of its own, as pg_ctl starts
# PostgreSQL: a signal to the caller's process group (a terminal's Ctrl-C, `timeout`) then does not
# reach it, and the caller stops it with stop.sh after what uses it (`npm run dev`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: start.sh DIR [PORT]}
port=${2:-}
pg_bin=/usr/lib/postgresql/15/bin
say() { printf 'testdb: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# A process that exited but was never reaped (a zombie: where PID 1 does not reap orphans) is dead.
alive() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] && ! sed 's/^.*) //' "/proc/$pid/stat" | grep -q '^Z'
}

bin=$("$here/build.sh")
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd / # the postgres user may not enter the caller's directory
if alive "$dir/ferretdb.pid" && [ -f "$dir/uri" ]; then
  cat "$dir/uri"
  exit 0
fi

# PostgreSQL refuses to run as root: as root, run the cluster as `postgres`.
if [ "$(id -u)" -eq 0 ]; then
  pg_user=postgres
  as_pg() { runuser -u postgres -- "$@"; }
else
  pg_user=$(id -un)
  as_pg() { "$@"; }
fi
chmod 755 "$dir"
mkdir -p "$dir/pgdata" "$dir/run"
[ "$(id -u)" -eq 0 ] && chown "$pg_user" "$dir/pgdata" "$dir/run"
chmod 700 "$dir/pgdata"
as_pg test -w "$dir/run" || die "the $pg_user user cannot write $dir/run: choose a DIR whose parents it can traverse"

if [ ! -f "$dir/pgdata/PG_VERSION" ]; then
  as_pg "$pg_bin/initdb" -D "$dir/pgdata" -U "$pg_user" -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  # Only a socket in DIR/run carries this number (no TCP listener): any number is free there.
  pg_port=5432
  # fsync, synchronous_commit and full_page_writes off: a test database that may lose its last
  # writes in a machine crash, never in a process crash (docs/benchmarks.md states it beside
  # every figure). The documentdb.* settings are those of FerretDB's own DocumentDB images.
  cat >>"$dir/pgdata/postgresql.conf" <<EOF

# --- coupon-service test database (tools/testdb/start.sh) ---
port = $pg_port
listen_addresses = ''
unix_socket_directories = '$dir/run'
max_connections = 400
shared_buffers = 256MB
max_wal_size = 2GB
fsync = off
synchronous_commit = off
full_page_writes = off
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'postgres'
cron.host = '$dir/run'
# DocumentDB connects back to its own server for some commands (drop): through the socket too.
documentdb.localhost_connection_string = 'host=$dir/run'
documentdb.enableCompact = true
documentdb.enableLetAndCollationForQueryMatch = true
documentdb.enableNowSystemVariable = true
documentdb.enableSortbyIdPushDownToPrimaryKey = true
documentdb.enableSchemaValidation = true
documentdb.enableBypassDocumentValidation = true
documentdb.enableUserCrud = true
documentdb.maxUserLimit = 100
# Indexes in DocumentDB's composite operator class: one ordered term per document and index, as a
# MongoDB B-tree has, rather than one term per field path (where a compound lookup merges the
# posting lists of every document sharing a leading value: O(n) per lookup). Its unique checks are
# the ones tools/testdb/patches/rum-unique-check.patch keeps apart from concurrent insertions.
documentdb.defaultUseCompositeOpClass = true
EOF
fi
pg_port=$(sed -n "s/^port = \([0-9]*\)$/\1/p" "$dir/pgdata/postgresql.conf" | tail -1)

if ! as_pg "$pg_bin/pg_ctl" -D "$dir/pgdata" status >/dev/null 2>&1; then
  as_pg "$pg_bin/pg_ctl" -D "$dir/pgdata" -l "$dir/run/postgresql.log" -w -t 60 start >/dev/null ||
    { tail -20 "$dir/run/postgresql.log" >&2; die "PostgreSQL did not start"; }
fi
head -1 "$dir/pgdata/postmaster.pid" >"$dir/postgres.pid"
as_pg "$pg_bin/psql" -h "$dir/run" -p "$pg_port" -U "$pg_user" -d postgres -v ON_ERROR_STOP=1 -qc \
  'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE' >"$dir/extension.log" 2>&1 ||
  { cat "$dir/extension.log" >&2; die "CREATE EXTENSION documentdb failed"; }

rm -f "$dir/ferretdb.out" # a stale "ready" from an earlier run must not be read as this one's
pg_url="postgres://$pg_user@/postgres?host=$dir/run&port=$pg_port&pool_max_conns=${TESTDB_POOL_MAX_CONNS:-100}"
# Port 0 unless one is given (a restart on the port clients know): never a port picked, then bound.
# setsid execs in place (a background job of this shell, without job control, leads no process
# group), so $! stays FerretDB's pid.
launch=()
[ "${TESTDB_SETSID:-}" = 1 ] && launch=(setsid)
"${launch[@]}" "$bin" -listen "127.0.0.1:${port:-0}" -postgresql-url "$pg_url" -state-dir "$dir/ferretdb-state" \
  -log-level "${TESTDB_LOG_LEVEL:-error}" >"$dir/ferretdb.out" 2>"$dir/ferretdb.err" &
echo $! >"$dir/ferretdb.pid"
for _ in $(seq 1 300); do
  # The file may not exist yet (the background shell opens it): not an error.
  uri=$(sed -n 's/^ready //p' "$dir/ferretdb.out" 2>/dev/null || true)
  if [ -n "$uri" ]; then
    echo "$uri" | tee "$dir/uri"
    exit 0
  fi
  alive "$dir/ferretdb.pid" || break
  sleep 0.1
done
tail -20 "$dir/ferretdb.err" >&2 || true
die "FerretDB did not start (log: $dir/ferretdb.err)"
