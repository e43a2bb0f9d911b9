#!/bin/bash
# make check-matrix: the whole testsuite in the Debian sid root
# (scripts/sid-root.sh) for each GCC version given (default 13 14 15 16),
# each with its aarch64 cross compiler.
#   check-matrix.sh [N]...
#
# Each version builds in its own copy of the source tree inside the root
# (/build/gcc-N, sid-root.sh copy: the files git knows, committed or not,
# and no build output), so neither the host's build nor another
# version's is touched.
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
rm -rf "$OUT" && mkdir -p "$OUT"

status=0
for v in $VERSIONS; do
  start=$(date +%s)
  build=/build/gcc-$v
  if ! "$SRC/scripts/sid-root.sh" copy "$build"; then
    echo "ERROR: GCC $v: copying the tree into the root failed" >"$OUT/gcc-$v-norun.sum"
    status=1; continue
  fi
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
