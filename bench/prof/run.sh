#!/bin/bash
# make bench: the overhead of gorc-prof at 1 kHz.  Each workload runs
# without the profiler and under `gorc-prof -F 1000` (everything
# included: the preload, the timers, the walks, the writer thread and
# gorc-prof's symbolization and SVG at the end), best of 3 wall-clock
# times each; the ratio is profiled / plain.
#
#   burn   testsuite/gorc.dropin/prof-burn.c: two threads, ~1 s of CPU each
#   demo   the bundled example (examples/demo -q) run 100 times in a loop
#          (short processes: start-up and exit costs dominate)
#   lua    lua from make check-projects running a sort-heavy script, when built
set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/prof
mkdir -p "$WORK" || exit 2
PROF=$GORC_ROOT/tools/gorc-prof
[ -x "$PROF" ] || { echo "prof: tools/gorc-prof not built"; exit 2; }

now() { date +%s.%N; }
# best3 CMD...: the best wall time of three runs, in seconds
best3() {
  local best="" t0 t1 t i
  for i in 1 2 3; do
    t0=$(now)
    "$@" >/dev/null 2>&1
    t1=$(now)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  echo "$best"
}

measure() { # NAME CMD...
  local name=$1
  shift
  local plain prof samples
  plain=$(best3 "$@")
  prof=$(best3 "$PROF" -q -o "$WORK/$name" -- "$@")
  samples=$(awk '{ n += $NF } END { print n + 0 }' "$WORK/$name.folded" 2>/dev/null)
  echo "prof: $name: plain $plain s, under gorc-prof -F 1000 $prof s, ratio $(awk -v a="$prof" -v b="$plain" 'BEGIN { printf "%.3f", a / b }') ($samples samples in the last run)"
}

"$CC" -O2 -pthread -fplugin="$GORC_ROOT/plugin/gorc.so" "$GORC_ROOT/testsuite/gorc.dropin/prof-burn.c" \
  -o "$WORK/burn" || { echo "prof: building the burn workload failed"; exit 2; }
measure burn "$WORK/burn" 50000

if [ -x "$GORC_ROOT/examples/demo" ] || make -s -C "$GORC_ROOT/examples" CC="$CC" demo >/dev/null 2>&1; then
  cat >"$WORK/demo-loop.sh" <<LOOP
#!/bin/sh
i=0
while [ \$i -lt 100 ]; do "$GORC_ROOT/examples/demo" -q >/dev/null; i=\$((i + 1)); done
LOOP
  chmod +x "$WORK/demo-loop.sh"
  measure demo-x100 "$WORK/demo-loop.sh"
else
  echo "prof: demo: skipped (examples/demo not built)"
fi

lua=$(ls "$GORC_ROOT"/testsuite/projects/work/build/lua/src/lua 2>/dev/null | head -n1)
if [ -n "$lua" ]; then
  cat >"$WORK/sort.lua" <<'LUA'
local t = {}
for r = 1, 8 do
  for i = 1, 200000 do t[i] = (i * 7919 + r) % 1000003 end
  table.sort(t)
end
LUA
  measure lua "$lua" "$WORK/sort.lua"
else
  echo "prof: lua: skipped (make check-projects builds it)"
fi
