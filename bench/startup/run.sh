#!/bin/bash
# make bench: what libgorc costs a program that loads it, before and at its
# first walk.
#
#   start-up    each program run ROUNDS times without and ROUNDS times with
#               LD_PRELOAD=runtime/libgorc.so, interleaved (rusage-pair.c):
#               medians of CPU time (user + sys) and of peak RSS, as a ratio
#               and a difference.  Programs: the demo (examples/, built by
#               its Makefile's rules), sqlite3's shell running one query
#               (when bench/run.sh built it: $BENCH_WORK/build/sqlite3) and
#               GCC's cc1 on an empty file.
#   first walk  cc1 compiling generated C with firstwalk.so preloaded after
#               libgorc: the first gorc_backtrace_ucontext from a SIGPROF
#               handler after FW_MS (20) ms of CPU, then the same walk warm, and
#               the RSS the first walk added (median over FW_ROUNDS
#               processes, one walk each).
#
# Environment: GORC_ROOT, CC, BENCH_WORK as for bench/run.sh;
# STARTUP_ROUNDS (default 15), FW_ROUNDS (default 9).
set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
BENCH_WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}
WORK=$BENCH_WORK/startup
here=$GORC_ROOT/bench/startup
LIBGORC=$GORC_ROOT/runtime/libgorc.so
PLUGIN=$GORC_ROOT/plugin/gorc.so
ROUNDS=${STARTUP_ROUNDS:-15}
FW_ROUNDS=${FW_ROUNDS:-9}
FW_MS=20   # CPU time of cc1 before the walk
mkdir -p "$WORK" || exit 2

if [ ! -f "$LIBGORC" ]; then
  echo "startup: skipped: runtime/libgorc.so not built"
  exit 0
fi
if ! "$CC" -O2 -Wall -Wextra "$here/rusage-pair.c" -o "$WORK/rusage-pair" 2>"$WORK/rusage-pair.log"; then
  echo "startup: skipped: building rusage-pair failed (see $WORK/rusage-pair.log)"
  exit 0
fi

# text_kb FILE: size of FILE's .text in KB.
text_kb() {
  local size
  size=$(readelf -SW "$1" 2>/dev/null |
    sed -n 's/^ *\[ *[0-9]*\] \.text  *[A-Z]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
  echo $(( 16#${size:-0} / 1024 ))
}

# median_col COL FILE: the median of column COL (space-separated) of FILE.
median_col() {
  cut -d' ' -f"$1" "$2" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# An empty shared library, preloaded the same way: the anchor, what any
# LD_PRELOAD costs a program (the loader opening and mapping one more
# library), whatever the library does.
EMPTY_LIB=$WORK/libempty.so
echo 'int gorc_bench_empty;' | "$CC" -shared -fPIC -x c - -o "$EMPTY_LIB" 2>/dev/null || EMPTY_LIB=""

# startup LABEL CMD...: prints the start-up line of CMD; RSS_DIFF is the
# peak RSS libgorc added, in KB.
RSS_DIFF=""
startup() {
  local label=$1 line cpu0 cpu1 rss0 rss1 anchor=""
  shift
  RSS_DIFF=""
  if ! line=$("$WORK/rusage-pair" "$ROUNDS" "$LIBGORC" "$@" 2>"$WORK/rusage-pair.err"); then
    echo "startup: $label: skipped: $(head -n1 "$WORK/rusage-pair.err")"
    return 1
  fi
  read -r cpu0 cpu1 rss0 rss1 <<<"$line"
  RSS_DIFF=$((rss1 - rss0))
  [ -n "$EMPTY_LIB" ] && anchor=$("$WORK/rusage-pair" "$ROUNDS" "$EMPTY_LIB" "$@" 2>/dev/null)
  awk -v l="$label" -v c0="$cpu0" -v c1="$cpu1" -v r0="$rss0" -v r1="$rss1" -v n="$ROUNDS" \
      -v anchor="$anchor" 'BEGIN {
    printf "startup: %s: CPU %.2f ms without libgorc, %.2f ms with: %.2fx (bar <= 1.02); ", l, c0 / 1e3, c1 / 1e3, (c0 > 0 ? c1 / c0 : 0)
    printf "peak RSS %d KB without, %d KB with: %+d KB (bar < 1024 KB); median of %d runs each", r0, r1, r1 - r0, n
    if (split(anchor, a, " ") == 4 && a[1] > 0)
      printf "; an empty library preloaded instead: %.2fx, %+d KB", a[2] / a[1], a[4] - a[3]
    printf "\n" }'
}

# build_demo: the demo, by examples/Makefile's rules, in $WORK/demo.
build_demo() {
  mkdir -p "$WORK/demo"
  # vpath for the sources only: a demo built in examples/ must not count.
  make -s -C "$WORK/demo" -f "$GORC_ROOT/examples/Makefile" \
    --eval="vpath %.c $GORC_ROOT/examples" --eval="vpath %.h $GORC_ROOT/examples" \
    CC="$CC" PLUGIN="$PLUGIN" demo >"$WORK/demo/build.log" 2>&1
}

echo "startup: a program without and with LD_PRELOAD=runtime/libgorc.so, runs interleaved; CPU = user + sys"
mem_demo="" mem_cc1=""
if build_demo; then
  startup "demo (examples/demo -q, .text $(text_kb "$WORK/demo/demo") KB)" "$WORK/demo/demo" -q &&
    mem_demo="$RSS_DIFF KB for the demo (.text $(text_kb "$WORK/demo/demo") KB)"
else
  echo "startup: demo: skipped: building it failed (see $WORK/demo/build.log)"
fi
sqlite=$BENCH_WORK/build/sqlite3/sqlite3
if [ -x "$sqlite" ]; then
  startup "sqlite3 shell, one query (.text $(text_kb "$sqlite") KB)" "$sqlite" :memory: "select count(*) from sqlite_master;"
else
  echo "startup: sqlite3: skipped: not built by this bench ($sqlite missing: BENCH_ONLY, or its source could not be had)"
fi
cc1=$("$CC" -print-prog-name=cc1)
if [ -x "$cc1" ]; then
  startup "cc1 on an empty file (.text $(text_kb "$cc1") KB)" "$cc1" -quiet /dev/null -o /dev/null &&
    mem_cc1="$RSS_DIFF KB for cc1 (.text $(text_kb "$cc1") KB)"
else
  echo "startup: cc1: skipped: $CC -print-prog-name=cc1 gives no program ($cc1)"
fi
[ -n "$mem_demo$mem_cc1" ] &&
  echo "startup: libgorc's own memory at start-up (peak RSS with - without): ${mem_demo:-demo n/a}; ${mem_cc1:-cc1 n/a} (bar: not growing with the text size)"

# ---------------------------------------------------------------- first walk

first_walk() {
  [ -x "$cc1" ] || { echo "first walk: skipped: no cc1"; return; }
  if ! "$CC" -O2 -Wall -Wextra -fPIC -shared -I"$GORC_ROOT/runtime/include" "$here/firstwalk.c" \
       -o "$WORK/firstwalk.so" -L"$GORC_ROOT/runtime" -Wl,-rpath,"$GORC_ROOT/runtime" -lgorc 2>"$WORK/firstwalk.log"; then
    echo "first walk: skipped: building firstwalk.so failed (see $WORK/firstwalk.log)"
    return
  fi
  # About 0.6 s of cc1 -O2 here; the walk ends the process after FW_MS.
  local gen=$WORK/generated.c i
  for i in $(seq 1 200); do
    echo "int f$i(int *a, int n) { int s = $i; for (int k = 0; k < n; k++) { s += a[k] * $i; if (s > $((i * 7))) s ^= a[k / 2]; } return s; }"
  done >"$gen"
  : >"$WORK/firstwalk.out"
  for i in $(seq 1 "$FW_ROUNDS"); do
    GORC_FIRSTWALK_MS=$FW_MS LD_PRELOAD=$LIBGORC:$WORK/firstwalk.so "$cc1" -quiet -O2 "$gen" -o /dev/null 2>&1 |
      grep '^gorc-firstwalk: ' >>"$WORK/firstwalk.out"
  done
  local n
  n=$(wc -l <"$WORK/firstwalk.out")
  if [ "$n" -eq 0 ]; then
    echo "first walk: skipped: no walk reported (the timer never fired in cc1?)"
    return
  fi
  # Columns: tag, first ns, warm ns, frames, result, RssAnon and RssFile
  # growth KB, minor faults.
  local first warm frames anon file faults early
  first=$(median_col 2 "$WORK/firstwalk.out")
  warm=$(median_col 3 "$WORK/firstwalk.out")
  frames=$(median_col 4 "$WORK/firstwalk.out")
  anon=$(median_col 6 "$WORK/firstwalk.out")
  file=$(median_col 7 "$WORK/firstwalk.out")
  faults=$(median_col 8 "$WORK/firstwalk.out")
  early=$(awk '$5 < 0' "$WORK/firstwalk.out" | wc -l)
  awk -v f="$first" -v w="$warm" -v k="$frames" -v n="$n" -v ms="$FW_MS" 'BEGIN {
    printf "first walk: first walk through cc1: %.1f us for %d frames (warm: %.2f us); bar: microseconds, not milliseconds; median of %d processes, SIGPROF after %d ms of cc1 -O2\n", f / 1e3, k, w / 1e3, n, ms }'
  [ "$early" -gt 0 ] && echo "first walk: $early of $n first walks stopped early (negative result: see $WORK/firstwalk.out)"
  echo "first walk: libgorc's own memory for cc1: the first walk added $anon KB of anonymous RSS (PC cache, module slots); $file KB of file pages (cc1's .eh_frame_hdr and .eh_frame read in place, libgorc's code); $faults minor page faults"
}
first_walk
