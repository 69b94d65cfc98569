#!/usr/bin/env bash
# Stops what tools/testdb/start.sh DIR started — its FerretDB and its PostgreSQL cluster, by the
# pids and data directory recorded in DIR — and nothing else. Keeps DIR (a later start reuses it);
# pass --rm to delete it too.
set -uo pipefail
dir=${1:?usage: stop.sh DIR [--rm]}
pg_bin=/usr/lib/postgresql/15/bin
[ -d "$dir" ] || exit 0
# Running: not gone and not a zombie (an exited process PID 1 has not reaped).
running() { [ -r "/proc/$1/stat" ] && ! sed 's/^.*) //' "/proc/$1/stat" | grep -q '^Z'; }
if [ -f "$dir/ferretdb.pid" ]; then
  pid=$(cat "$dir/ferretdb.pid")
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 100); do running "$pid" || break; sleep 0.1; done
    running "$pid" && kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$dir/ferretdb.pid" "$dir/uri"
fi
if [ -f "$dir/pgdata/postmaster.pid" ]; then
  if [ "$(id -u)" -eq 0 ]; then as_pg() { runuser -u postgres -- "$@"; }; else as_pg() { "$@"; }; fi
  # Fast, else immediate: after a RUM crash, recovered backends can spin without heeding a
  # fast shutdown's SIGTERM (postgrespro/rum#184); an immediate one's SIGQUIT ends them.
  as_pg "$pg_bin/pg_ctl" -D "$dir/pgdata" -m fast -w -t 20 stop >/dev/null 2>&1 ||
    as_pg "$pg_bin/pg_ctl" -D "$dir/pgdata" -m immediate -w -t 20 stop >/dev/null 2>&1
  rm -f "$dir/postgres.pid"
fi
[ "${2:-}" = --rm ] && rm -rf "$dir"
exit 0
