#!/bin/bash
# make bench, part 2: the cost of one stack walk per frame, for gorc and
# the other unwinders, as ratios to a frame-pointer walk of the same chain
# measured in the same run; then instructions per frame under callgrind.
# Needs runtime/libgorc.a (built by `make`) and libunwind (libunwind-dev).
set -u
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/unwind
here=$GORC_ROOT/bench/unwind
plugin=$GORC_ROOT/plugin/gorc.so
lib=$GORC_ROOT/runtime/libgorc.a
mkdir -p "$WORK"

if [ ! -f "$lib" ] || [ ! -f "$plugin" ]; then
  echo "unwind: skipped: runtime/libgorc.a or plugin/gorc.so not built"
  exit 0
fi
if ! echo '#include <libunwind.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
  echo "unwind: skipped: libunwind headers missing (apt-get install libunwind-dev)"
  exit 0
fi

inc=(-I"$GORC_ROOT/runtime/include")
set -e
"$CC" -O2 -fno-omit-frame-pointer -DCHAIN_NAME=chain_fp -c "$here/chain.c" -o "$WORK/chain-fp.o"
"$CC" -O2 -fomit-frame-pointer -fplugin="$plugin" -DCHAIN_NAME=chain_nofp -c "$here/chain.c" -o "$WORK/chain-nofp.o"
"$CC" -O2 -g -Wall -Wextra -fno-omit-frame-pointer -fplugin="$plugin" "${inc[@]}" \
  -c "$here/unwind-bench.c" -o "$WORK/unwind-bench.o"
"$CC" -o "$WORK/unwind-bench" "$WORK/unwind-bench.o" "$WORK/chain-fp.o" "$WORK/chain-nofp.o" \
  "$lib" -lunwind -ldl
set +e

echo "unwind: ns per frame, same chain, same run (machine shared: compare ratios)"
"$WORK/unwind-bench" | sed 's/^/unwind: /'

if command -v valgrind >/dev/null; then
  echo "unwind: callgrind instructions per frame (100 walks of each depth; inclusive cost of the walker / frames)"
  out=$WORK/callgrind.out
  rm -f "$out"
  GORC_BENCH_CALLGRIND=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$WORK/unwind-bench" >"$WORK/callgrind-run.txt" 2>"$WORK/callgrind.log"
  if [ -s "$out" ]; then
    # Frames walked per method and depth, from the run's own table.
    callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null >"$WORK/callgrind.txt"
    for w in walk_fp walk_gorc walk_glibc walk_libgcc walk_unw; do
      ir=$(awk -v f="$w" '$0 ~ ("[: ]" f "[ \\[]|[: ]" f "$") { gsub(",", "", $1); print $1; exit }' "$WORK/callgrind.txt")
      # every depth runs 100 walks + 1 warm-up; frames = sum over depths
      case $w in
      walk_fp) m="frame-pointer walk";; walk_gorc) m="gorc_backtrace";;
      walk_glibc) m="glibc backtrace";; walk_libgcc) m="libgcc _Unwind_Backtrace";;
      walk_unw) m="libunwind unw_backtrace";;
      esac
      frames=$(awk -v m="$m" 'index($0, m) == 1 { n += $(NF-2) } END { print n + 0 }' "$WORK/callgrind-run.txt")
      if [ -n "$ir" ] && [ "$frames" -gt 0 ]; then
        awk -v m="$m" -v ir="$ir" -v fr="$frames" 'BEGIN { printf "unwind: %-26s %8.1f instructions per frame\n", m, ir / (fr * 101) }'
      else
        echo "unwind: $m: no callgrind figure"
      fi
    done
  else
    echo "unwind: callgrind run failed (see $WORK/callgrind.log)"
  fi
fi

# Registration: a generated library with about 100k records.
gen=$WORK/many-functions.c
if [ ! -f "$WORK/libmany.so" ]; then
  {
    echo "int sink_many(int);"
    for i in $(seq 1 15000); do
      echo "__attribute__((noinline)) int f$i(int x) { volatile char b[$((16 + i % 64))]; b[x & 15] = (char)x; if (x > $i) return sink_many(x - 1) + b[1]; return b[2] + sink_many(x); }"
    done
    echo "int sink_many(int x) { return x * 3; }"
  } >"$gen"
  "$CC" -O2 -fPIC -shared -fplugin="$plugin" "$gen" -o "$WORK/libmany.so" || echo "unwind: building libmany.so failed"
fi
"$CC" -O2 -Wall -Wextra "${inc[@]}" -I"$GORC_ROOT/include" -I"$GORC_ROOT/runtime/src" \
  "$here/registration.c" "$lib" -ldl -lpthread -o "$WORK/registration" &&
read -r recs ehs ns_new ns_scan < <("$WORK/registration" "$WORK/libmany.so") &&
awk -v r="$recs" -v e="$ehs" -v a="$ns_new" -v b="$ns_scan" 'BEGIN {
  printf "unwind: registration of a module with %d records (+%d .eh_frame entries): %.2f ms, %.1f ns per record; a rescan finding nothing new: %.3f ms\n", r, e, a / 1e6, a / (r + e), b / 1e6 }'
