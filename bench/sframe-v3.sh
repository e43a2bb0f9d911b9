#!/bin/bash
# make bench, last step: the records against SFrame version 3 (sid's
# binutils writes only v3) and .eh_frame + .eh_frame_hdr, for the bench's
# C programs built with the newest GCC of the Debian sid root
# (scripts/sid-root.sh; docs/GCC_VERSIONS.md).  The size and compile part
# of bench/run.sh, run in a copy of this tree inside the root
# (/build/bench-gcc-N); the sources are fetched there as bench/run.sh does
# (/build/bench-work keeps them between runs).  Skipped, with a message,
# when there is no root: make check-matrix or `scripts/sid-root.sh ensure`
# makes it.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
SID=$SRC/scripts/sid-root.sh
if [ "$(id -u)" != 0 ] || ! "$SID" status >/dev/null 2>&1; then
  echo "bench: records vs SFrame v3: skipped (no complete sid root, or not root; scripts/sid-root.sh ensure makes it)"
  exit 0
fi
v=$("$SID" newest)
build=/build/bench-gcc-$v
"$SID" copy "$build" || exit 2
echo "bench: records vs SFrame v3: GCC $v in the sid root"
"$SID" run sh -c "cd $build &&
  make -j2 CC=gcc-$v CXX=g++-$v >build.log 2>&1 || { tail -n 30 build.log; exit 2; }
  GORC_ROOT=$build CC=gcc-$v BENCH_WORK=/build/bench-work ${BENCH_ONLY:+BENCH_ONLY='$BENCH_ONLY'} \
    BENCH_SKIP_STARTUP=1 BENCH_SKIP_UNWIND=1 BENCH_SKIP_PROF=1 BENCH_SKIP_STATIC_CALL=1 \
    bench/run.sh"
