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
"$CC" -O2 -fno-ipa-icf -fno-omit-frame-pointer -DCHAIN_FP -DCHAIN_NAME=chain_fp \
  -DMIXED_NAME=mixed_fp -DDISTINCT_NAME=distinct_fp -c "$here/chain.c" -o "$WORK/chain-fp.o"
"$CC" -O2 -fno-ipa-icf -fomit-frame-pointer -fplugin="$plugin" -DCHAIN_NAME=chain_nofp \
  -DMIXED_NAME=mixed_nofp -DDISTINCT_NAME=distinct_nofp -c "$here/chain.c" -o "$WORK/chain-nofp.o"
"$CC" -O2 -g -Wall -Wextra -fno-omit-frame-pointer -fplugin="$plugin" "${inc[@]}" \
  -c "$here/unwind-bench.c" -o "$WORK/unwind-bench.o"
"$CC" -o "$WORK/unwind-bench" "$WORK/unwind-bench.o" "$WORK/chain-fp.o" "$WORK/chain-nofp.o" \
  "$lib" -lunwind -ldl
set +e

echo "unwind: ns per frame, same chain, same run (machine shared: compare ratios)"
echo "unwind: recursive = one function calling itself (every frame the same return address);"
echo "unwind: mixed = eight different functions in turn (no two adjacent frames alike; mutual recursion);"
echo "unwind: distinct = 136 different functions (no return address repeats: every frame a table lookup)"
echo "unwind: each cell: the median over 9 stack placements"
"$WORK/unwind-bench" | tee "$WORK/times.txt" | sed 's/^/unwind: /'

# Instructions per frame, when valgrind is there: no stale figures else.
instructions=/dev/null
rm -f "$WORK/instructions.txt"
if command -v valgrind >/dev/null; then
  echo "unwind: callgrind instructions per frame (each cell: 100 walks counted alone)"
  rm -f "$WORK"/callgrind.out*
  GORC_BENCH_CALLGRIND=1 valgrind --tool=callgrind --collect-atstart=no \
    --callgrind-out-file="$WORK/callgrind.out" \
    "$WORK/unwind-bench" >"$WORK/callgrind-run.txt" 2>"$WORK/callgrind.log"
  # One dump per cell: "desc: Trigger: Client Request: cell M|CHAIN|DEPTH|FRAMES|ITERS"
  # and its total ("summary:" or "totals:").
  for f in "$WORK"/callgrind.out.*; do
    [ -f "$f" ] || continue
    awk '/^desc: Trigger: Client Request: cell / { sub(/^desc: Trigger: Client Request: cell /, ""); label = $0 }
         /^(summary|totals):/ { total = $2 }
         END { if (label != "") print label "|" total }' "$f"
  done | sort -t'|' -k2,2 -k3,3n -k1,1 >"$WORK/instructions.txt"
  if [ -s "$WORK/instructions.txt" ]; then
    instructions=$WORK/instructions.txt
    awk -F'|' '{ printf "unwind: %-26s %-9s depth %4d: %8.1f instructions per frame\n", $1, $2, $3, $6 / ($4 * $5) }' \
      "$WORK/instructions.txt"
  else
    echo "unwind: callgrind run failed (see $WORK/callgrind.log)"
  fi
fi

# Cold: the distinct chain's first walk in a fresh process (libgorc's
# caches empty), one process per sample.
COLD_ROUNDS=${COLD_ROUNDS:-9}
: >"$WORK/cold.txt"
for i in $(seq "$COLD_ROUNDS"); do
  "$WORK/unwind-bench" --cold >>"$WORK/cold.txt" 2>/dev/null
done

# The bars of the runtime issue, at depth 32, from this run's figures.
awk -F'|' -v times="$WORK/times.txt" -v cold="$WORK/cold.txt" '
  BEGIN {
    while ((getline line < times) > 0) {
      n = split(line, f, /  +/)
      # method, chain, depth, frames, ns/frame, ratio (columns split on 2+ spaces)
      if (n >= 5 && f[3] + 0 == 32) ns[f[1] "|" f[2]] = f[5]
    }
    # cold.txt: "FRAMES NS" per process
    while ((getline line < cold) > 0) {
      split(line, f, " ")
      if (f[1] > 0) cold_per[++ncold] = f[2] / f[1]
    }
    fpbar["recursive"] = " (bar <= 1.5)"; fpbar["distinct"] = " (bar <= 2)"
  }
  $3 == 32 { ins[$1 "|" $2] = $6 / ($4 * $5) }
  END {
    split("recursive mixed distinct", chains, " ")
    for (c = 1; c <= 3; c++) {
      ch = chains[c]
      g = ns["gorc_backtrace|" ch]; fp = ns["frame-pointer walk|" ch]; u = ns["libunwind unw_backtrace|" ch]
      if (g > 0 && fp > 0 && u > 0)
        printf "unwind: depth 32, %s chain: gorc %.2f ns/frame = %.2fx the frame-pointer walk%s, %.1fx faster than unw_backtrace (bar >= 3)", ch, g, g / fp, fpbar[ch], u / g
      if (("gorc_backtrace|" ch) in ins)
        printf ", %.1f instructions per frame (bar <= 40)", ins["gorc_backtrace|" ch]
      print ""
    }
    fp = ns["frame-pointer walk|distinct"]
    if (ncold > 0 && fp > 0) {
      # median (insertion sort: a handful of samples)
      for (i = 2; i <= ncold; i++)
        for (j = i; j > 1 && cold_per[j - 1] > cold_per[j]; j--) {
          t = cold_per[j]; cold_per[j] = cold_per[j - 1]; cold_per[j - 1] = t
        }
      m = ncold % 2 ? cold_per[(ncold + 1) / 2] : (cold_per[ncold / 2] + cold_per[ncold / 2 + 1]) / 2
      printf "unwind: depth 32, distinct chain, cold (a fresh process'"'"'s first walk, median of %d processes): gorc %.2f ns/frame = %.1fx the frame-pointer walk (warm, above)\n", ncold, m, m / fp
    } else
      print "unwind: cold walk: skipped: no sample (see unwind-bench --cold)"
  }' "$instructions"

# First use of a module: a generated library with about 100k records.
gen=$WORK/many-functions.c
if [ ! -f "$WORK/libmany.so" ] || [ "$plugin" -nt "$WORK/libmany.so" ]; then
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
  "$here/first-use.c" "$lib" -ldl -lpthread -o "$WORK/first-use" &&
ranges=$("$GORC_ROOT/tools/gorc-dump" "$WORK/libmany.so" | head -1 | sed -n 's/.*, \([0-9]*\) ranges.*/\1/p') &&
read -r ns_first ns_again ns_hit < <("$WORK/first-use" "$WORK/libmany.so" f7500) &&
awk -v r="$ranges" -v a="$ns_first" -v b="$ns_again" -v c="$ns_hit" 'BEGIN {
  printf "unwind: first lookup in a module with %s ranges (reads its headers, checks its index once): %.1f us; the next lookup of the same address (index bisected in place): %.2f us; from the PC cache: %.1f ns\n", r, a / 1e3, b / 1e3, c }'
