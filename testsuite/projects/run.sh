#!/bin/bash
# make check-projects: real open-source C projects built unmodified with
# CC=gorc-gcc through their own build systems, their own test suites run,
# and gorc-check on what they built.  Nothing is vendored: the sources come
# from Debian source packages (apt-get source through a private apt
# configuration, as bench/run.sh does) or from a directory given in
# PROJECTS_SRC holding already unpacked trees (zlib-*, bzip2-*, lua-*).
#
#   testsuite/projects/run.sh [fetch] [PROJECT...]   (default: zlib zlib-cmake bzip2 lua)
#
# Environment:
#   GORC_ROOT       the gorc tree (default: two levels up)
#   PROJECTS_WORK   build directory (default $GORC_ROOT/testsuite/projects/work)
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
SRCDIR=${PROJECTS_SRC:-}
FETCH=${PROJECTS_FETCH:-1}
WRAP=$GORC_ROOT/tools/gorc-gcc
CHECK=$GORC_ROOT/tools/gorc-check
JOBS=$(nproc 2>/dev/null || echo 2)

FETCH_ONLY=""
if [ "${1:-}" = fetch ]; then FETCH_ONLY=1; shift; fi
LIST=${*:-zlib zlib-cmake bzip2 lua}

NPASS=0 NFAIL=0 NUNSUP=0
pass() { echo "PASS: $*"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
unsupported() { echo "UNSUPPORTED: $*"; NUNSUP=$((NUNSUP + 1)); }

# ---------------------------------------------------------------- sources
# (the same private apt configuration as bench/run.sh)
APT_DIR=$WORK/apt
APT_OPTS=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list"
          -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
          -o "Dir::State::Lists=$APT_DIR/lists"
          -o "Dir::Cache=$APT_DIR/cache"
          -o "APT::Sandbox::User=root"
          -o "Acquire::Retries=1")
APT_STATE=""

apt_setup() {
  [ -n "$APT_STATE" ] && { [ "$APT_STATE" = ok ]; return; }
  command -v apt-get >/dev/null || { APT_STATE="apt-get not found"; return 1; }
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" \
           "$APT_DIR/sources.list.d"
  local mirror='[a-z]+://[^ \t\n]*/debian(-security)?/?([ \t\n]|$)'
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v m="$mirror" '$1 == "deb" && $0 ~ m { $1 = "deb-src"; print }' \
      >"$APT_DIR/sources.list"
  local f
  : >"$APT_DIR/sources.list.d/debian-src.sources"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v m="URIs:[ \t]*$mirror" 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && $0 ~ m {
           sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" \
      >>"$APT_DIR/sources.list.d/debian-src.sources"
  done
  [ -s "$APT_DIR/sources.list.d/debian-src.sources" ] ||
    rm -f "$APT_DIR/sources.list.d/debian-src.sources"
  if [ ! -s "$APT_DIR/sources.list" ] && [ ! -f "$APT_DIR/sources.list.d/debian-src.sources" ]; then
    APT_STATE="no Debian mirror in /etc/apt to add deb-src lines for"; return 1
  fi
  touch "$APT_DIR/sources.list"
  if ! timeout 300 apt-get "${APT_OPTS[@]}" -q update >"$APT_DIR/update.log" 2>&1 ||
     grep -q '^\(E:\|Err:\)' "$APT_DIR/update.log"; then
    if ! ls "$APT_DIR"/lists/*Sources* >/dev/null 2>&1; then
      APT_STATE="no deb-src access"; return 1
    fi
  fi
  APT_STATE=ok
}

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
  local dir=$WORK/src/$pkg dl=$WORK/dl/$pkg
  if [ -f "$dir/.done" ]; then SRC=$dir/$(cat "$dir/.done"); return 0; fi
  [ "$FETCH" = 1 ] || { REASON="no $glob in ${SRCDIR:-PROJECTS_SRC (unset)} and fetching is off"; return 1; }
  apt_setup || { REASON="sources absent and cannot fetch: $APT_STATE"; return 1; }
  rm -rf "$dl" "$dir"; mkdir -p "$dl" "$dir"
  local versions v ok=""
  versions=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null |
             awk '/^Package: / { p = $2 } /^Version: / && p == "'"$pkg"'" { print $2 }' |
             sort -Vr | uniq)
  [ -n "$versions" ] || { REASON="no source package $pkg in the deb-src index"; return 1; }
  for v in $versions; do
    rm -f "$dl"/*
    if (cd "$dl" && timeout 300 apt-get "${APT_OPTS[@]}" -q --download-only \
          source "$pkg=$v" >"$WORK/dl/$pkg.log" 2>&1); then ok=$v; break; fi
  done
  [ -n "$ok" ] || { REASON="apt-get source $pkg failed"; return 1; }
  local tarball
  tarball=$(ls "$dl"/*.orig.tar.* 2>/dev/null | grep -v -- '-www\.\|\.asc$' | head -n1)
  [ -n "$tarball" ] || { REASON="no upstream tarball in source package $pkg $ok"; return 1; }
  tar -xf "$tarball" -C "$dir" || { REASON="cannot unpack $(basename "$tarball")"; return 1; }
  # extra upstream components (lua's test suite comes as orig-tests)
  local extra
  for extra in "$dl"/*.orig-*.tar.*; do
    [ -f "$extra" ] || continue
    case $extra in *.asc) continue;; esac
    tar -xf "$extra" -C "$dir/$(ls "$dir" | head -n1)" 2>/dev/null || true
  done
  ls "$dir" | head -n1 >"$dir/.done"
  echo "$pkg $ok" >"$dir/.version"
  SRC=$dir/$(cat "$dir/.done")
}
