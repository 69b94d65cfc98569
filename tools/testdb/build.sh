#!/usr/bin/env bash
# Builds the MongoDB-wire test database, once per machine, into a cache outside the repository:
#  - the Debian packages it needs (apt, only those missing; needs root);
#  - pgvector, pg_cron and DocumentDB for PostgreSQL 15 from the vendored tarball in
#    tools/testdb/vendor/ (sha256 verified against vendor/SHA256SUMS; its README and licences
#    beside it; DOCUMENTDB_VENDOR names another folder), staged in the cache and installed into the
#    machine's PostgreSQL 15 extension directories (files only: no cluster is touched);
#  - the FerretDB v2.7.0 wrapper (main.go) with the machine's Go.
# Every output is keyed by a hash of its inputs, so a warm run checks and returns in a second.
#   tools/testdb/build.sh            → prints the path of the FerretDB binary on stdout
# Progress goes to stderr; build logs to the cache directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TESTDB_CACHE:-$HOME/.cache/coupon-testdb}
vendor=${DOCUMENTDB_VENDOR:-$here/vendor}
tarball_sha=$(cut -d' ' -f1 "$here/vendor/SHA256SUMS")
pg_bin=/usr/lib/postgresql/15/bin
export PATH="$PATH:/usr/local/go/bin"
say() { printf 'testdb: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "needs root for: $*"; fi; }
mkdir -p "$cache"
# One build at a time per cache: two first runs at once on one machine (a CI clone and a developer's
# `npm test`) would otherwise rebuild each other's staged extensions and rename each other's
# binaries away ("mv: cannot stat …ferretdb-….tmp"). The second waits, then finds everything built
# and returns at once. The lock is released when this script exits.
exec 9>"$cache/build.lock"
flock -n 9 || { say "waiting for another build of the test database on this machine"; flock 9; }

# 1. Debian packages. libkrb5-dev: PostgreSQL's server headers include gssapi/gssapi.h.
packages=(postgresql-15 postgresql-server-dev-15 postgresql-15-rum postgresql-15-postgis-3 libpcre2-dev
  libintelrdfpmath-dev libbson-dev libpq-dev libkrb5-dev pkg-config make gcc)
missing=()
for p in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >"$cache/apt.log" 2>&1 ||
    { as_root apt-get update -qq >>"$cache/apt.log" 2>&1 &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >>"$cache/apt.log" 2>&1; } ||
    { tail -20 "$cache/apt.log" >&2; die "apt-get install failed (log: $cache/apt.log)"; }
fi
command -v go >/dev/null || die "Go is required to build FerretDB (install golang or put /usr/local/go/bin on PATH)"
pg_config="$pg_bin/pg_config"
[ -x "$pg_config" ] || die "PostgreSQL 15 not found at $pg_bin"
pkglibdir=$("$pg_config" --pkglibdir)
sharedir=$("$pg_config" --sharedir)

# 2. Extensions, staged into the cache by DESTDIR, keyed by the tarball, this script and PostgreSQL.
tarball=$(ls "$vendor"/documentdb-*-src.tgz 2>/dev/null | head -1) || true
[ -n "$tarball" ] || die "DocumentDB sources not found in $vendor"
shopt -s nullglob
patches=("$here"/patches/*.patch)
shopt -u nullglob
ext_key=$( (echo "$tarball_sha"; cat "$0" ${patches[@]+"${patches[@]}"}; "$pg_config" --version) | sha256sum | cut -c1-16)
stage="$cache/ext-$ext_key"
if [ ! -f "$stage.done" ]; then
  echo "$tarball_sha  $tarball" | sha256sum -c --quiet - >&2 || die "checksum mismatch: $tarball"
  say "building pgvector, pg_cron and DocumentDB for PostgreSQL 15 (first time on this machine, ~1 min)"
  src=$(mktemp -d "$cache/src.XXXXXX")
  trap 'rm -rf "$src"' EXIT
  rm -rf "$stage" "$stage.done"
  tar xzf "$tarball" -C "$src"
  # Our patches to the vendored sources (tools/testdb/patches/, each explained in its header and
  # in docs/testing.md).
  for p in ${patches[@]+"${patches[@]}"}; do
    patch -s -p1 -d "$src" <"$p" >>"$cache/patch.log" 2>&1 || die "patch $p does not apply (log: $cache/patch.log)"
  done
  # DocumentDB looks the Intel decimal library up as pkg-config `intelmathlib`; Debian ships the
  # archive without a .pc file.
  mkdir -p "$src/pkgconfig"
  cat >"$src/pkgconfig/intelmathlib.pc" <<EOF
Name: intelmathlib
Description: Intel Decimal Floating-Point Math Library (Debian libintelrdfpmath-dev)
Version: 2.0
Cflags: -I/usr/include
Libs: $(dpkg -L libintelrdfpmath-dev | grep '/libbidgcc000.a$' | head -1)
EOF
  # with_llvm=no: no JIT bitcode (it would look for clang). libpq: always the shared library — a
  # statically linked libpq makes dropDatabase fail ("libpq is incorrectly linked to backend
  # functions"), which happens when libpq.so is a dangling symlink. libbson 1.23 (Debian) lacks
  # BSON_SUBTYPE_SENSITIVE (1.28); its value is 8.
  flags=(PG_CONFIG="$pg_config" with_llvm=no libpq=-l:libpq.so.5)
  log="$cache/build-$ext_key.log"
  : >"$log"
  build() { make -C "$1" -j"$(nproc)" "${flags[@]}" "${@:2}" >>"$log" 2>&1 && make -C "$1" "${flags[@]}" "${@:2}" install DESTDIR="$stage" >>"$log" 2>&1; }
  export PKG_CONFIG_PATH="$src/pkgconfig"
  build "$src/pgvector" || die "pgvector build failed (log: $log)"
  build "$src/pg_cron" || die "pg_cron build failed (log: $log)"
  build "$src/src/pg_documentdb_core" COPT="-DBSON_SUBTYPE_SENSITIVE=8 -Wno-error=switch" || die "pg_documentdb_core build failed (log: $log)"
  build "$src/src/pg_documentdb" COPT="-DBSON_SUBTYPE_SENSITIVE=8 -Wno-error=switch" || die "pg_documentdb build failed (log: $log)"
  for so in pg_cron pg_documentdb_core pg_documentdb; do
    ! nm -D --defined-only "$stage$pkglibdir/$so.so" | grep -qw PQexec || die "$so.so has libpq linked in statically"
  done
  rm -rf "$src"
  touch "$stage.done"
fi
# Install (or refresh) the staged files where PostgreSQL 15 looks for extensions. Each changed file
# is copied beside its target and renamed over it: a running cluster keeps the library it mapped
# (overwriting a mapped .so in place crashes its backends).
changed=()
while IFS= read -r f; do
  cmp -s "$stage/$f" "/$f" || changed+=("$f")
done < <(cd "$stage" && find . -type f | sed 's|^\./||')
if [ ${#changed[@]} -gt 0 ]; then
  say "installing the extensions into $pkglibdir and $sharedir/extension"
  for f in "${changed[@]}"; do
    as_root mkdir -p "$(dirname "/$f")"
    as_root cp -a "$stage/$f" "/$f.testdb-new" && as_root mv -f "/$f.testdb-new" "/$f" || die "could not install /$f"
  done
fi
# DocumentDB requires `postgis`; some Debian versions name the control file postgis-3.control.
if [ ! -f "$sharedir/extension/postgis.control" ] && [ -f "$sharedir/extension/postgis-3.control" ]; then
  as_root cp "$sharedir/extension/postgis-3.control" "$sharedir/extension/postgis.control"
fi

# 3. FerretDB v2.7.0 wrapper, keyed by its sources and the Go version.
fdb_key=$( (cat "$here/go.mod" "$here/go.sum" "$here/main.go"; go version) | sha256sum | cut -c1-16)
bin="$cache/ferretdb-$fdb_key"
if [ ! -x "$bin" ]; then
  say "building FerretDB v2.7.0 (first time on this machine, ~1 min)"
  (cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o "$bin.tmp" . && mv "$bin.tmp" "$bin") >"$cache/go-build.log" 2>&1 ||
    { tail -20 "$cache/go-build.log" >&2; die "FerretDB build failed (log: $cache/go-build.log)"; }
fi
echo "$bin"
