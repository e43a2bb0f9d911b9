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
# tree (replacing only that version's); the run prints each version's
# count and time, then ends with one line "N passed, M failed" over the
# versions it ran (testsuite/summary.sh).
# MATRIX_JOBS: how many versions run at once (default 2).
# Exit status: 1 when anything failed.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${GORC_SID_ROOT:-/var/cache/gorc/sid-root}
OUT=$SRC/testsuite/out-matrix
VERSIONS=${*:-13 14 15 16}

"$SRC/scripts/sid-root.sh" ensure || exit 1
mkdir -p "$OUT"
# Only the versions run now are cleared: two runs for different versions
# (.ci/run's two lanes) share the folder.
for v in $VERSIONS; do rm -f "$OUT"/gcc-"$v"-* "$OUT"/gcc-"$v".log; done

# test_version N: build and test GCC N in its copy; its .sum files (or an
# ERROR line when the tests did not run) into $OUT, its line on stdout.
test_version() {
  local v=$1 start build=/build/gcc-$1 sum counts
  start=$(date +%s)
  if ! "$SRC/scripts/sid-root.sh" copy "$build"; then
    echo "ERROR: GCC $v: copying the tree into the root failed" >"$OUT/gcc-$v-norun.sum"
    return
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
  echo "check-matrix: GCC $v: $counts ($(( $(date +%s) - start )) s; log: $OUT/gcc-$v.log)"
}

# MATRIX_JOBS versions at a time (default 2: the testsuite is one runtest
# per version, mostly waiting on the programs it starts, so two share 2
# cores well).
jobs=${MATRIX_JOBS:-2}
running=0
for v in $VERSIONS; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  test_version "$v" &
  running=$((running + 1))
done
wait
# The summary of the versions run now.
sums=$(mktemp -d) || exit 1
for v in $VERSIONS; do cp "$OUT"/gcc-"$v"-*.sum "$sums"/ 2>/dev/null; done
status=0
"$SRC/testsuite/summary.sh" "$sums" || status=1
rm -rf "$sums"
exit $status
