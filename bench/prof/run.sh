#!/bin/bash
# make bench: the overhead of gorc-prof at 1 kHz.  Each workload runs
# without the profiler and under `gorc-prof -F 1000` (everything
# included: the preload, the timers, the walks, the writer thread and
# gorc-prof's symbolization and SVG at the end): profiled / plain, in CPU
# time and in wall time, the median over 7 interleaved rounds.
#
#   burn   testsuite/gorc.dropin/prof-burn.c: two threads, ~0.5 s of CPU each
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

# run_time CMD...: "CPU WALL" of one run (CPU = user + sys of everything it
# ran, in seconds).  CPU time is what the profiler adds (handler, writer
# thread, gorc-prof's symbolization), and it is less disturbed than wall
# time by other load on the machine.
TIMEFORMAT='%3U %3S %3R'
run_time() {
  local u s r tf
  tf=$(mktemp)
  { time "$@" >/dev/null 2>&1 ; } 2>"$tf"
  read -r u s r <"$tf"
  rm -f "$tf"
  awk -v u="$u" -v s="$s" -v r="$r" 'BEGIN { printf "%.3f %.3f\n", u + s, r }'
}

# measure NAME CMD...: 7 rounds, each the plain run then the profiled one
# (interleaved, so that load from elsewhere hits both alike); the median
# of the per-round ratios, and the best times.
ROUNDS=${PROF_ROUNDS:-7}
measure() {
  local name=$1
  shift
  local i a b out=""
  for i in $(seq "$ROUNDS"); do
    a=$(run_time "$@")
    b=$(run_time "$PROF" -q -o "$WORK/$name" -- "$@")
    out="$out$a $b"$'\n'
  done
  local samples
  samples=$(awk '{ n += $NF } END { print n + 0 }' "$WORK/$name.folded" 2>/dev/null)
  printf '%s' "$out" | awk -v name="$name" -v samples="$samples" '
    NF == 4 { n++; rc[n] = $3 / $1; rw[n] = $4 / $2
              if (!bc || $1 < bc) bc = $1; if (!bw || $2 < bw) bw = $2
              if (!pc || $3 < pc) pc = $3; if (!pw || $4 < pw) pw = $4 }
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { printf "prof: %s: CPU ratio %.3f (median of %d rounds; best %.3f s plain, %.3f s profiled), wall ratio %.3f (best %.3f s / %.3f s); %d samples in the last run\n",
                 name, median(rc, n), n, bc, pc, median(rw, n), bw, pw, samples }'
}

"$CC" -O2 -pthread -fplugin="$GORC_ROOT/plugin/gorc.so" "$GORC_ROOT/testsuite/gorc.dropin/prof-burn.c" \
  -o "$WORK/burn" || { echo "prof: building the burn workload failed"; exit 2; }
measure burn "$WORK/burn" 25000

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
