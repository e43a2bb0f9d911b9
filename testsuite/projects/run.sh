#!/bin/bash
# make check-projects: real open-source C projects built unmodified with
# CC=gorc-gcc through their own build systems, their own test suites run,
# and gorc-check on what they built.  Nothing is vendored: the sources come
# from Debian source packages (apt-get source through a private apt
# configuration, as bench/run.sh does) or from a directory given in
# PROJECTS_SRC holding already unpacked trees (zlib-*, bzip2-*, lua-*, gzip-*, tinyxml2-*).
#
#   testsuite/projects/run.sh [fetch] [PROJECT...]   (default: zlib zlib-lto bzip2 lua gzip tinyxml2)
#
# Environment:
#   GORC_ROOT       the gorc tree (default: two levels up)
#   PROJECTS_WORK   build directory (default $GORC_ROOT/testsuite/projects/work)
#   PROJECTS_DL     where fetched sources are kept (default PROJECTS_WORK)
#   PROJECTS_SRC    unpacked sources to use instead of fetching
#   PROJECTS_FETCH=0  never fetch (only PROJECTS_SRC or earlier downloads)
#
# Each step prints "PASS: ...", "FAIL: ..." or "UNSUPPORTED: ..." (sources
# absent), and the last line is "projects: N passed, M failed, U unsupported".
# Exit status 1 when anything failed, else 0 (also when all are unsupported).
# With "fetch" it only downloads and unpacks the sources.

set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
GORC_ROOT=$(cd "$GORC_ROOT" && pwd)
WORK=${PROJECTS_WORK:-$GORC_ROOT/testsuite/projects/work}
WORK=$(mkdir -p "$WORK" && cd "$WORK" && pwd)
DL=${PROJECTS_DL:-$WORK}
SRCDIR=${PROJECTS_SRC:-}
FETCH=${PROJECTS_FETCH:-1}
WRAP=$GORC_ROOT/tools/gorc-gcc
WRAPXX=$GORC_ROOT/tools/gorc-g++
CHECK=$GORC_ROOT/tools/gorc-check
JOBS=$(nproc 2>/dev/null || echo 2)

FETCH_ONLY=""
if [ "${1:-}" = fetch ]; then FETCH_ONLY=1; shift; fi
LIST=${*:-zlib zlib-lto bzip2 lua gzip tinyxml2}

NPASS=0 NFAIL=0 NUNSUP=0
pass() { echo "PASS: $*"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
unsupported() { echo "UNSUPPORTED: $*"; NUNSUP=$((NUNSUP + 1)); }

# ---------------------------------------------------------------- sources
# Debian source packages through a private apt configuration, as in
# bench/run.sh (scripts/debian-src.sh), kept under $DL.
. "$GORC_ROOT/scripts/debian-src.sh" ||
  { echo "projects: cannot read $GORC_ROOT/scripts/debian-src.sh" >&2; exit 2; }
debian_src_init "$DL"

# source_dir PKG GLOB: sets SRC to an unpacked upstream tree of Debian
# source package PKG (PROJECTS_SRC/GLOB, else an earlier download, else
# apt-get source); or REASON and returns 1.
source_dir() {
  local pkg=$1 glob=$2 d
  SRC=""
  if [ -n "$SRCDIR" ]; then
    for d in "$SRCDIR"/$glob; do
      [ -d "$d" ] && { SRC=$d; return 0; }
    done
  fi
  debian_src_cached "$pkg" && return 0
  [ "$FETCH" = 1 ] || { REASON="no $glob in ${SRCDIR:-PROJECTS_SRC (unset)} and fetching is off"; return 1; }
  debian_src_apt_setup || { REASON="sources absent and cannot fetch: $APT_STATE"; return 1; }
  # with the extra upstream components (lua's test suite comes as orig-tests)
  debian_src_fetch "$pkg" components
}

# ---------------------------------------------------------------- building

# step NAME LOG CMD...: run CMD (in the current directory), PASS/FAIL NAME.
step() {
  local name=$1 log=$2
  shift 2
  echo "== $name: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then pass "$name"; return 0; fi
  fail "$name (log: $log)"
  tail -n 15 "$log" | sed 's/^/    /'
  return 1
}

# check_bins PROJECT LOG FILE...: gorc-check on what the project built.
check_bins() {
  local p=$1 log=$2 f
  shift 2
  for f in "$@"; do
    if [ ! -f "$f" ]; then fail "$p: gorc-check $(basename "$f"): not built"; continue; fi
    local out rc
    out=$("$CHECK" "$f" 2>&1); rc=$?
    echo "$out" >>"$log"
    if [ $rc = 0 ]; then
      pass "$p: gorc-check $(basename "$f"): $(echo "$out" | tail -n1 | sed 's/^gorc-check: [^:]*: //; s/,.*//')"
    else
      fail "$p: gorc-check $(basename "$f") (exit $rc): $(echo "$out" | tail -n1)"
    fi
  done
}

# fresh_copy PKG GLOB NAME: a pristine copy of the sources in $WORK/build/NAME.
fresh_copy() {
  if ! source_dir "$1" "$2"; then unsupported "$3: $REASON"; return 1; fi
  B=$WORK/build/$3
  rm -rf "$B"
  mkdir -p "$WORK/build"
  cp -a "$SRC" "$B"
  LOG=$WORK/build/$3.log
  : >"$LOG"
  echo "$3: $(cat "$(dirname "$SRC")/.version" 2>/dev/null || echo "$SRC")"
}

# zlib: ./configure; make; make test (example and minigzip, static and shared)
build_zlib() {
  fresh_copy zlib 'zlib-*' zlib || return
  cd "$B" || return
  step "zlib: configure (CC=gorc-gcc)" "$LOG" env CC="$WRAP" CFLAGS="-O2" ./configure &&
  step "zlib: make" "$LOG" make -j"$JOBS" &&
  step "zlib: make test (its own tests)" "$LOG" make test &&
  check_bins zlib "$LOG" "$B"/libz.so.*.* "$B/example" "$B/minigzip" "$B/examplesh"
  cd "$WORK" || return
}

# zlib again with link-time optimisation (the plugin runs in lto1 at link time)
build_zlib_lto() {
  fresh_copy zlib 'zlib-*' zlib-lto || return
  cd "$B" || return
  step "zlib-lto: configure (CC=gorc-gcc CFLAGS='-O2 -flto' AR=gcc-ar)" "$LOG" env CC="$WRAP" CFLAGS="-O2 -flto" AR=gcc-ar ./configure &&
  step "zlib-lto: make" "$LOG" make -j"$JOBS" AR=gcc-ar &&
  step "zlib-lto: make test (its own tests)" "$LOG" make test &&
  check_bins zlib-lto "$LOG" "$B"/libz.so.*.* "$B/example" "$B/minigzip"
  cd "$WORK" || return
}

# gzip: an autoconf configure (CC=gorc-gcc), make, make check (its test suite)
build_gzip() {
  fresh_copy gzip 'gzip-*' gzip || return
  cd "$B" || return
  step "gzip: ./configure CC=gorc-gcc (autoconf)" "$LOG" ./configure CC="$WRAP" &&
  step "gzip: make" "$LOG" make -j"$JOBS" &&
  step "gzip: make check (its own tests)" "$LOG" make -j"$JOBS" check &&
  check_bins gzip "$LOG" "$B/gzip"
  cd "$WORK" || return
}

# tinyxml2 (C++): CMake with CMAKE_CXX_COMPILER=gorc-g++, its xmltest via ctest
build_tinyxml2() {
  command -v cmake >/dev/null || { unsupported "tinyxml2: cmake not installed"; return; }
  fresh_copy tinyxml2 'tinyxml2-*' tinyxml2 || return
  local S=$B
  B=$S/_build
  step "tinyxml2: cmake configure (CXX=gorc-g++)" "$LOG" env CXX="$WRAPXX" cmake -S "$S" -B "$B" \
      -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -Dtinyxml2_BUILD_TESTING=ON &&
  step "tinyxml2: cmake --build" "$LOG" cmake --build "$B" -j "$JOBS" &&
  step "tinyxml2: ctest (its own xmltest)" "$LOG" ctest --test-dir "$B" --output-on-failure &&
  check_bins tinyxml2 "$LOG" "$B"/libtinyxml2.so.*.*.* "$B/xmltest"
  cd "$WORK" || return
}

# bzip2: its Makefile (make CC=gorc-gcc) runs its own compress/decompress
# tests as part of "all"; make check runs them again.
build_bzip2() {
  fresh_copy bzip2 'bzip2-*' bzip2 || return
  cd "$B" || return
  step "bzip2: make -f Makefile-libbz2_so CC=gorc-gcc (shared library)" "$LOG" make CC="$WRAP" -f Makefile-libbz2_so &&
  step "bzip2: make clean" "$LOG" make clean &&
  step "bzip2: make CC=gorc-gcc (builds and runs its tests)" "$LOG" make CC="$WRAP" &&
  step "bzip2: make check (its own tests)" "$LOG" make CC="$WRAP" check &&
  check_bins bzip2 "$LOG" "$B/bzip2" "$B/bzip2recover" "$B"/libbz2.so.*.*.*
  cd "$WORK" || return
}

# lua: make linux CC=gorc-gcc; its tarball has no test suite (upstream ships
# it separately), so: its "make test" (lua -v) and a script of our own.
build_lua() {
  fresh_copy lua5.4 'lua-*' lua || return
  cd "$B" || return
  cat >"$B/smoke.lua" <<'LUA'
local t = {}
for i = 1, 20000 do t[i] = (i * 7919) % 10007 end
table.sort(t)
for i = 2, #t do assert(t[i - 1] <= t[i]) end
local co = coroutine.wrap(function (a) local b = coroutine.yield(a + 1); return b * 2 end)
assert(co(1) == 2 and co(5) == 10)
local ok, err = pcall(function () error({code = 42}) end)
assert(not ok and err.code == 42)
assert(string.format("%5.2f|%s", math.pi, ("x"):rep(3)) == " 3.14|xxx")
assert(select('#', string.gsub("hello world", "o", "0")) == 2)
local s = 0
for w in ("one two three"):gmatch("%a+") do s = s + #w end
assert(s == 11)
assert(load("return 6 * 7")() == 42)
print("lua smoke: ok")
LUA
  step "lua: make linux CC=gorc-gcc" "$LOG" make -j"$JOBS" linux CC="$WRAP -std=gnu99" &&
  step "lua: make test (lua -v)" "$LOG" make test &&
  step "lua: a script of sorts, coroutines, errors, string library" "$LOG" src/lua smoke.lua &&
  check_bins lua "$LOG" "$B/src/lua" "$B/src/luac"
  cd "$WORK" || return
}

if [ -n "$FETCH_ONLY" ]; then
  for p in $LIST; do
    case $p in
    zlib|zlib-lto) source_dir zlib 'zlib-*' ;;
    tinyxml2) source_dir tinyxml2 'tinyxml2-*' ;;
    gzip) source_dir gzip 'gzip-*' ;;
    bzip2) source_dir bzip2 'bzip2-*' ;;
    lua) source_dir lua5.4 'lua-*' ;;
    *) false ;;
    esac && echo "$p: $SRC" || echo "$p: ${REASON:-unknown project}"
  done
  exit 0
fi

if [ ! -x "$WRAP" ] || [ ! -x "$CHECK" ]; then
  echo "projects: $WRAP or $CHECK not built (make)" >&2
  exit 2
fi
cd "$WORK" || exit 2
for p in $LIST; do
  case $p in
  zlib) build_zlib ;;
  zlib-lto) build_zlib_lto ;;
  tinyxml2) build_tinyxml2 ;;
  gzip) build_gzip ;;
  bzip2) build_bzip2 ;;
  lua) build_lua ;;
  *) fail "$p: unknown project (known: zlib zlib-lto bzip2 lua gzip tinyxml2)" ;;
  esac
done
echo "projects: $NPASS passed, $NFAIL failed, $NUNSUP unsupported"
[ "$NFAIL" = 0 ]
