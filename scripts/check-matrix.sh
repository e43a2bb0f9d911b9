#!/bin/bash
# make check-matrix: the whole testsuite in the Debian sid root
# (scripts/sid-root.sh) for each GCC version given (default 13 14 15 16),
# each with its aarch64 cross compiler.
#   check-matrix.sh [N]...
#
# Each version builds in its own copy of the source tree inside the root
# (/build/gcc-N: the files git knows, committed or not, and no build
# output), so neither the host's build nor another version's is touched.
# Each version's log and .sum files go to testsuite/out-matrix/ in this
# tree; the run prints each version's count and time, then ends with one
# line "N passed, M failed" over all of them (testsuite/summary.sh).
# Exit status: 1 when anything failed.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${GORC_SID_ROOT:-/var/cache/gorc/sid-root}
OUT=$SRC/testsuite/out-matrix
VERSIONS=${*:-13 14 15 16}

"$SRC/scripts/sid-root.sh" ensure || exit 1
command -v git >/dev/null && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "check-matrix.sh: $SRC is not a git tree (the copy takes git's file list)" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT"

# copy_tree DIR: the source files of this tree into DIR (emptied first).
copy_tree() {
  rm -rf --one-file-system "$1" && mkdir -p "$1"
  git -C "$SRC" ls-files -z -co --exclude-standard |
    (cd "$SRC" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$1" -xf -
}

status=0
for v in $VERSIONS; do
  start=$(date +%s)
  build=/build/gcc-$v
  copy_tree "$ROOT$build"
  "$SRC/scripts/sid-root.sh" run sh -c "cd $build &&
      make -j2 CC=gcc-$v CXX=g++-$v >build.log 2>&1 || { tail -n 30 build.log; exit 1; }
      make check CC=gcc-$v CXX=g++-$v" >"$OUT/gcc-$v.log" 2>&1
  for sum in "$ROOT$build"/testsuite/out/*.sum; do
    [ -f "$sum" ] && cp "$sum" "$OUT/gcc-$v-$(basename "$sum")"
  done
  cp "$ROOT$build/testsuite/out/gorc.log" "$OUT/gcc-$v-gorc.log.txt" 2>/dev/null
  # A version that did not get to run its tests counts as an error.
  ls "$OUT"/gcc-$v-*.sum >/dev/null 2>&1 ||
    echo "ERROR: GCC $v: the build or the testsuite did not run" >"$OUT/gcc-$v-norun.sum"
  counts=$(tail -n 1 "$OUT/gcc-$v.log")
  case $counts in *" passed, 0 failed") ;; *) status=1;; esac
  echo "check-matrix: GCC $v: $counts ($(( $(date +%s) - start )) s; log: $OUT/gcc-$v.log)"
done
testsuite_summary=$("$SRC/testsuite/summary.sh" "$OUT") || status=1
echo "$testsuite_summary"
exit $status
