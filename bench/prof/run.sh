#!/bin/bash
# make bench: gorc-prof's figures, every one measured in this run.
#
# 1. Overhead at 1 kHz on the profiled program: a two-thread CPU-bound
#    program (testsuite/gorc.dropin/prof-burn.c, a fixed amount of work)
#    run plain, under `gorc-prof -F 1000` (perf events: the kernel copies
#    the registers and 8 KB of stack per sample) and under
#    `gorc-prof --preload -F 1000` (the sampler inside the program).
#    Ratios of the program's own CPU time (user + sys: the kernel's copy
#    is charged to it) and of everything (gorc-prof's unwinding included),
#    the median of 7 interleaved rounds.
# 2. One perf.data (perf record -e cpu-clock -F 1000 --call-graph dwarf of
#    the same program, and of 30 runs of the bundled example) unwound by
#    gorc-prof --perf-data and by perf script (--no-inline, the frames' addresses, symbols and files: what the
#    comparison reads): the time of each (best of 3), the agreement of the
#    stacks where both reached the outermost frame and the kinds of
#    differences (testsuite/gorc.prof/perf-compare.awk), how many stacks
#    each completed (to _start or the thread start); then issue 16's aim
#    on one line per file (10x perf script's time, >= 99.9% agreement).
# 3. Bytes per sample: perf.data's over its samples, and the records
#    gorc-prof reads from its ring buffers over its samples.
#
# 4. Kernel share of a syscall-heavy program (testsuite/gorc.prof/
#    prof-syscall.c: read/write rounds with some user work each, as many
#    as take ~3 s here):
#    gorc-prof's share of samples with kernel frames against the share of
#    perf record -a's samples of the same run taken in the kernel, in 9
#    runs of each unwinding mode; aim: within 3 points, on the mean of
#    the runs' differences (a run's difference spreads with a standard
#    deviation of ~1.8 points: ~3,000 samples each, and two periodic
#    timers against a periodic program; a single difference of 3 or 4
#    is not rare).
# 5. The whole machine: gorc-prof -a -d 10 -F 1000 and perf record -a -g
#    -F 1000 for 10 s each, while 20 short programs start one after
#    another (prof-syscall copies named kshare-w): lost samples of each,
#    and how many of the 20 each saw (aim: 0 lost, 20 of 20).
#
# 6. --unwind=bpf (the stack walked in the kernel), against anchors of
#    the same run: --unwind=copy and `perf record -g` of a frame-pointer
#    build of the same program: bytes per sample; overhead at 1 kHz
#    (the program's CPU, everything's, and everything's less each
#    profiler's fixed start and end, measured on a run of true; and the
#    floor, the program's CPU under perf record with no call graph: the
#    sampling interrupts alone); everything's and the start's again with
#    no table cache (GORC_PROF_CACHE=off: every table built, as at a
#    machine's first run; the others read the bench's own cache, filled
#    by the first run); everything's and the start's with the walker
#    kept between runs (--keep-walker, in a directory of the bench's own
#    in /sys/fs/bpf: loaded by the first round); the walker's BPF run time per
#    sample and per frame (the kernel's BPF statistics, BPF_ENABLE_STATS,
#    what kernel.bpf_stats_enabled turns on) against the copy mode's
#    added program CPU per sample; what its tables cost against the
#    records' and .eh_frame's bytes; a 500-frame recursion (100 KB of
#    stack): stacks complete in each mode; the distinct complete
#    stacks of the burn program in both modes and from libgorc in the
#    process (--preload), compared; the BPF run time on a compiler
#    (cc1: deep stacks, a large .eh_frame table); and the start and end
#    of a program of large libraries (clang --version: a million rows of
#    tables, read from the cache), each mode's and the program alone.
#
# PROF_PARTS picks parts (default "overhead perf-data kernel system bpf":
# 1, 2 with 3, 4, 5, 6), e.g. PROF_PARTS=perf-data bench/prof/run.sh for
# the perf.data figures alone.
set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/prof
mkdir -p "$WORK" || exit 2
PROF=$GORC_ROOT/tools/gorc-prof
# gorc-prof's table cache: the bench's own, emptied, not the user's
export GORC_PROF_CACHE=$WORK/table-cache
rm -rf "$GORC_PROF_CACHE"
COMPARE=$GORC_ROOT/testsuite/gorc.prof/perf-compare.awk
[ -x "$PROF" ] || { echo "prof: tools/gorc-prof not built"; exit 2; }

# cpu_of FILE: "CPU WALL" from bash's time output (user sys real) in FILE
TIMEFORMAT='%3U %3S %3R'
cpu_of() {
  local u s r
  read -r u s r <"$1"
  awk -v u="$u" -v s="$s" -v r="$r" 'BEGIN { printf "%.3f %.3f\n", u + s, r }'
}

# run_program PROFILER... -- CMD...: "PROGRAM_CPU TOTAL_CPU" of one run:
# the program's own CPU (timed by a bash inside the profiler) and that of
# everything (timed outside).
run_program() {
  local pre=() inner outer
  while [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  inner=$(mktemp); outer=$(mktemp)
  { time "${pre[@]}" bash -c 'TIMEFORMAT="%3U %3S %3R"; { time "$@" >/dev/null 2>&1; } 2>"$0"' \
      "$inner" "$@" >/dev/null 2>&1; } 2>"$outer"
  echo "$(cpu_of "$inner" | cut -d' ' -f1) $(cpu_of "$outer" | cut -d' ' -f1)"
  rm -f "$inner" "$outer"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ROUNDS=${PROF_ROUNDS:-7}
overhead() {
  local i plain perf pre
  : >"$WORK/rounds.txt"
  for i in $(seq "$ROUNDS"); do
    plain=$(run_program env -- "$@")
    perf=$(run_program "$PROF" -q --unwind=copy -F 1000 -o "$WORK/perf" -- "$@")
    pre=$(run_program "$PROF" --preload -q -F 1000 -o "$WORK/preload" -- "$@")
    echo "$plain $perf $pre" >>"$WORK/rounds.txt"
  done
  local r1 r2 r3 r4
  r1=$(awk '{ print $3 / $1 }' "$WORK/rounds.txt" | median)
  r2=$(awk '{ print $4 / $2 }' "$WORK/rounds.txt" | median)
  r3=$(awk '{ print $5 / $1 }' "$WORK/rounds.txt" | median)
  r4=$(awk '{ print $6 / $2 }' "$WORK/rounds.txt" | median)
  printf 'prof: overhead at 1 kHz (burn, median of %d rounds; plain %.3f s CPU):\n' "$ROUNDS" \
    "$(awk '{ print $1 }' "$WORK/rounds.txt" | median)"
  printf 'prof:   perf events: the program %.3fx CPU, everything (gorc-prof unwinding) %.3fx\n' "$r1" "$r2"
  printf 'prof:   --preload:   the program %.3fx CPU, everything %.3fx\n' "$r3" "$r4"
}

# best_of_3 CMD...: "WALL CPU", the best of each over 3 runs, in seconds
# (CPU: user + sys, which a machine shared with other jobs changes less)
best_of_3() {
  local i t best="" cpu=""
  for i in 1 2 3; do
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1)
    best=$(echo "$t" | awk -v a="$best" '{ print ((a == "" || $3 < a) ? $3 : a) }')
    cpu=$(echo "$t" | awk -v a="$cpu" '{ c = $1 + $2; print ((a == "" || c < a) ? c : a) }')
  done
  echo "$best $cpu"
}

# perf_data NAME CMD...: the perf.data figures of one workload
perf_data() {
  command -v perf >/dev/null || { echo "prof: perf.data: skipped (perf not installed: make deps)"; return; }
  local name=$1
  shift
  local data=$WORK/$name.data
  rm -f "$data"
  perf record -q --no-bpf-event -o "$data" -e cpu-clock -F 1000 --call-graph dwarf -- "$@" >/dev/null 2>&1
  [ -s "$data" ] || { echo "prof: perf record failed"; return; }
  local tg tp cg cp
  read -r tg cg < <(best_of_3 "$PROF" -q -o "$WORK/import" --stacks="$WORK/import.stacks" --perf-data "$data")
  read -r tp cp < <(best_of_3 sh -c "perf script -i '$data' --ns --no-inline -F tid,time,ip,sym,dso >'$WORK/burn.script' 2>/dev/null")
  "$PROF" -q -o "$WORK/import" --stacks="$WORK/import.stacks" --perf-data "$data"
  perf script -i "$data" --ns --no-inline -F tid,time,ip,sym,dso >"$WORK/burn.script" 2>/dev/null
  awk -f "$COMPARE" "$WORK/import.stacks" "$WORK/burn.script" >"$WORK/compare.txt" 2>"$WORK/differences.txt"
  local n both equal differ gc pc
  read -r _ n _ both _ equal _ differ _ gc _ pc _ <"$WORK/compare.txt"
  local size
  size=$(stat -c %s "$data")
  printf 'prof: perf.data of %s (%d samples, %.1f MB): gorc-prof %.3f s, perf script %.3f s: %.1fx faster\n' \
    "$name" "$n" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')" "$tg" "$tp" "$(awk -v a="$tg" -v b="$tp" 'BEGIN { print (a > 0 ? b / a : 0) }')"
  printf 'prof:   agreement: %d of %d stacks complete in both are equal (%.2f%%)\n' "$equal" "$both" \
    "$(awk -v e="$equal" -v b="$both" 'BEGIN { print b ? 100 * e / b : 0 }')"
  tail -n +2 "$WORK/compare.txt" | sed 's/^ */prof:   /'
  printf 'prof:   complete (to _start or the thread start): gorc-prof %d (%.1f%%), perf script %d (%.1f%%)\n' \
    "$gc" "$(awk -v a="$gc" -v n="$n" 'BEGIN { print n ? 100 * a / n : 0 }')" \
    "$pc" "$(awk -v a="$pc" -v n="$n" 'BEGIN { print n ? 100 * a / n : 0 }')"
  # issue 16's aim, on one line: 10x perf script (wall time), stacks
  # agreeing >= 99.9%; the CPU times of the same runs beside
  awk -v name="$name" -v mb="$(awk -v s="$size" 'BEGIN { print s / 1e6 }')" -v n="$n" -v tg="$tg" \
      -v tp="$tp" -v cg="$cg" -v cp="$cp" -v both="$both" -v equal="$equal" -v gc="$gc" \
      -v pc="$pc" 'BEGIN {
    r = tg > 0 ? tp / tg : 0; agree = both ? 100 * equal / both : 0
    printf "prof: aim 10x perf script, perf.data of %s (%.1f MB, %d samples): gorc-prof %.3f s, " \
      "perf script %.3f s: %.1fx (%s; CPU %.3f s against %.3f s: %.1fx); agreement %.2f%% " \
      "(%s); complete: gorc-prof %.1f%%, perf script %.1f%%\n", name, mb, n, tg, tp, r,
      (r >= 10 ? "met" : "missed"), cg, cp, (cg > 0 ? cp / cg : 0), agree,
      (both && agree >= 99.9 ? "met" : "missed"), (n ? 100 * gc / n : 0), (n ? 100 * pc / n : 0) }'
  # gorc-prof's summary: "N MB of perf records, B bytes per sample (S of them stack)"
  "$PROF" --unwind=copy -o "$WORK/rec" -- "$@" 2>"$WORK/rec.txt" >/dev/null
  local ours
  ours=$(sed -n 's/.* \([0-9]*\) bytes per sample (\([0-9]*\) of them stack).*/\1 \2/p' "$WORK/rec.txt")
  printf 'prof: bytes per sample: perf.data %.0f, gorc-prof %s (%s of them the stack copy)\n' \
    "$(awk -v s="$size" -v n="$n" 'BEGIN { print n ? s / n : 0 }')" "${ours% *}" "${ours#* }"
}

"$CC" -O2 -pthread -fplugin="$GORC_ROOT/plugin/gorc.so" "$GORC_ROOT/testsuite/gorc.dropin/prof-burn.c" \
  -o "$WORK/burn" || { echo "prof: building the burn workload failed"; exit 2; }
# bytes_per_sample FILE: gorc-prof's summary line in FILE, "BYTES STACK"
bytes_per_sample() {
  sed -n 's/.* \([0-9]*\) bytes per sample (\([0-9]*\) of them stack).*/\1 \2/p' "$1"
}

# complete_set STACKS: the distinct complete stacks of a --stacks file
complete_set() { awk '$3 == 0 { sub(/^[0-9]* [0-9]* 0 /, ""); print }' "$1" | sort -u; }
# same_at_leaf REF SET: "E of N": of SET's stacks whose leaf address and
# return address REF has too, E are equal to one of REF's.  The rest are
# what one run's samples met and the other's not: a leaf function
# called from two places (burn's leaf, from main's chain and from the
# thread's) is two stacks, and a run that met it from one only says
# nothing of the other's walk.
same_at_leaf() {
  awk -F';' 'NR == FNR { at[$1 ";" $2] = at[$1 ";" $2] "|" $0 "|"; next }
    (($1 ";" $2) in at) { n++; if (index(at[$1 ";" $2], "|" $0 "|")) e++ }
    END { printf "%d of %d", e, n }' "$1" "$2"
}

# deep_complete MODE: "COMPLETE OF" stacks in leaf_work of prof-deep 500
# (attached with -p, so that the walker's tables are there first)
deep_complete() {
  "$WORK/deep" 500 300 >"$WORK/ready.txt" &
  local pid=$! n=0
  until grep -q ready "$WORK/ready.txt"; do n=$((n+1)); [ $n -lt 600 ] || return; sleep 0.05; done
  "$PROF" --unwind="$1" -o "$WORK/deep-$1" -p $pid 2>"$WORK/deep-$1.txt" &
  local prof=$!
  n=0
  until grep -qs 'attached to process' "$WORK/deep-$1.txt"; do n=$((n+1)); [ $n -lt 600 ] || return; sleep 0.05; done
  kill -USR1 $pid
  wait $pid
  wait $prof
  awk '/leaf_work [0-9]*$/ { n += $NF; if ($0 ~ /^_start;/) c += $NF } END { print c + 0, n + 0 }' \
    "$WORK/deep-$1.folded"
}

bpf_part() {
  if ! "$PROF" -q --unwind=bpf -o "$WORK/probe" -- true 2>"$WORK/probe.txt"; then
    echo "prof: bpf: skipped ($(head -1 "$WORK/probe.txt"))"
    return
  fi
  "$CC" -O2 -pthread -fno-omit-frame-pointer "$GORC_ROOT/testsuite/gorc.dropin/prof-burn.c" \
    -o "$WORK/burn-fp" || { echo "prof: bpf: building the frame-pointer burn failed"; return; }
  local i plain copy bpf plainfp fp
  : >"$WORK/bpf-rounds.txt"
  : >"$WORK/bpf-floor.txt"
  : >"$WORK/bpf-start.txt"
  : >"$WORK/bpf-cold.txt"
  : >"$WORK/bpf-kept.txt"
  # --keep-walker: the bench's own directory, removed at the end
  local kept=/sys/fs/bpf/gorc-prof-bench-$$
  [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ] || kept=
  for i in $(seq "$ROUNDS"); do
    plain=$(run_program env -- "$WORK/burn" 25000)
    copy=$(run_program "$PROF" -q --unwind=copy -F 1000 -o "$WORK/copy" -- "$WORK/burn" 25000)
    bpf=$(run_program "$PROF" -q --unwind=bpf -F 1000 -o "$WORK/bpf" -- "$WORK/burn" 25000)
    plainfp=$(run_program env -- "$WORK/burn-fp" 25000)
    fp=$(run_program perf record -q --no-bpf-event -e cpu-clock -F 1000 -g -o "$WORK/fp.data" -- "$WORK/burn-fp" 25000)
    echo "$plain $copy $bpf $plainfp $fp" >>"$WORK/bpf-rounds.txt"
    # the floor: the sampling interrupts alone, no call graph at all
    run_program perf record -q --no-bpf-event -e cpu-clock -F 1000 -o "$WORK/floor.data" -- "$WORK/burn" 25000 \
      >>"$WORK/bpf-floor.txt"
    # the fixed cost of each profiler's start and end: a run of true
    echo "$(run_program "$PROF" -q --unwind=copy -F 1000 -o "$WORK/copy-true" -- true)" \
      "$(run_program "$PROF" -q --unwind=bpf -F 1000 -o "$WORK/bpf-true" -- true)" \
      "$(run_program perf record -q --no-bpf-event -e cpu-clock -F 1000 -g -o "$WORK/true.data" -- true)" \
      >>"$WORK/bpf-start.txt"
    # with no table cache: everything, and the start and end
    echo "$(run_program env GORC_PROF_CACHE=off "$PROF" -q --unwind=bpf -F 1000 -o "$WORK/bpf" \
              -- "$WORK/burn" 25000)" \
      "$(run_program env GORC_PROF_CACHE=off "$PROF" -q --unwind=bpf -F 1000 -o "$WORK/bpf-true" \
           -- true)" >>"$WORK/bpf-cold.txt"
    # the walker kept between runs (loaded by the first round's first)
    [ -z "$kept" ] ||
      echo "$(run_program "$PROF" -q --unwind=bpf --keep-walker="$kept" -F 1000 -o "$WORK/bpf-kept" \
                -- "$WORK/burn" 25000)" \
        "$(run_program "$PROF" -q --unwind=bpf --keep-walker="$kept" -F 1000 -o "$WORK/bpf-true" \
             -- true)" >>"$WORK/bpf-kept.txt"
  done
  [ -z "$kept" ] || rm -r "$kept"
  printf 'prof: --unwind=bpf, overhead at 1 kHz (burn, median of %d rounds): the program / everything:
' "$ROUNDS"
  printf 'prof:   bpf %.3fx / %.3fx; copy %.3fx / %.3fx; perf record -g (FP build) %.3fx / %.3fx
' \
    "$(awk '{ print $5 / $1 }' "$WORK/bpf-rounds.txt" | median)" \
    "$(awk '{ print $6 / $2 }' "$WORK/bpf-rounds.txt" | median)" \
    "$(awk '{ print $3 / $1 }' "$WORK/bpf-rounds.txt" | median)" \
    "$(awk '{ print $4 / $2 }' "$WORK/bpf-rounds.txt" | median)" \
    "$(awk '{ print $9 / $7 }' "$WORK/bpf-rounds.txt" | median)" \
    "$(awk '{ print $10 / $8 }' "$WORK/bpf-rounds.txt" | median)"
  printf 'prof:   with no table cache (every table built): bpf everything %.3fx, start and end %.3f s\n' \
    "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-cold.txt" | awk '{ print $12 / $2 }' | median)" \
    "$(awk '{ print $4 }' "$WORK/bpf-cold.txt" | median)"
  [ -s "$WORK/bpf-kept.txt" ] &&
    printf 'prof:   the walker kept (--keep-walker): bpf everything %.3fx, start and end %.3f s\n' \
      "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-kept.txt" | awk '{ print $12 / $2 }' | median)" \
      "$(awk '{ print $4 }' "$WORK/bpf-kept.txt" | median)"
  printf 'prof:   the sampling alone (perf record -e cpu-clock -F 1000, no call graph, same build): the program %.3fx\n' \
    "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-floor.txt" | awk '{ print $11 / $1 }' | median)"
  # everything, less each profiler's fixed start and end (the median CPU
  # of everything in a run of true): what sampling costs as a run goes on
  printf 'prof:   start and end alone (a run of true, everything'"'"'s CPU): bpf %.3f s, copy %.3f s, perf record -g %.3f s; everything less that: bpf %.3fx, copy %.3fx, perf record -g (FP build) %.3fx\n' \
    "$(awk '{ print $4 }' "$WORK/bpf-start.txt" | median)" \
    "$(awk '{ print $2 }' "$WORK/bpf-start.txt" | median)" \
    "$(awk '{ print $6 }' "$WORK/bpf-start.txt" | median)" \
    "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-start.txt" | awk '{ print ($6 - $14) / $2 }' | median)" \
    "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-start.txt" | awk '{ print ($4 - $12) / $2 }' | median)" \
    "$(paste "$WORK/bpf-rounds.txt" "$WORK/bpf-start.txt" | awk '{ print ($10 - $16) / $8 }' | median)"
  # one more run of each with its summary
  "$PROF" --unwind=bpf -F 1000 -o "$WORK/bpf" --stacks="$WORK/bpf.stacks" -- "$WORK/burn" 25000 \
    2>"$WORK/bpf.txt" >/dev/null
  "$PROF" --unwind=copy -F 1000 -o "$WORK/copy" --stacks="$WORK/copy.stacks" -- "$WORK/burn" 25000 \
    2>"$WORK/copy.txt" >/dev/null
  "$PROF" -o "$WORK/fpimport" --perf-data "$WORK/fp.data" 2>"$WORK/fp.txt" >/dev/null
  local b c f
  b=$(bytes_per_sample "$WORK/bpf.txt"); c=$(bytes_per_sample "$WORK/copy.txt"); f=$(bytes_per_sample "$WORK/fp.txt")
  printf 'prof:   bytes per sample: bpf %s (%s of them stack copies: a table not loaded yet), copy %s, perf record -g (FP build) %s\n' \
    "${b% *}" "${b#* }" "${c% *}" "${f% *}"
  local samples added
  samples=$(sed -n 's/^gorc-prof: \([0-9]*\) samples,.*/\1/p' "$WORK/copy.txt")
  added=$(awk -v s="$samples" '{ d += $3 - $1 } END { printf "%.0f", s ? d / NR / s * 1e9 : 0 }' "$WORK/bpf-rounds.txt")
  printf 'prof:   %s; copy mode: %s ns of added program CPU per sample\n' \
    "$(sed -n 's/^gorc-prof: BPF run time: //p' "$WORK/bpf.txt")" "$added"
  sed -n 's/^gorc-prof: BPF tables: /prof:   tables (burn): /p' "$WORK/bpf.txt"
  tables_of_larger
  # libgorc in the process (--preload): its thread trampoline's frame
  # is its own, left out
  "$PROF" --preload -F 1000 -o "$WORK/pre" --stacks="$WORK/pre.stacks" -- "$WORK/burn" 25000 \
    2>"$WORK/pre.txt" >/dev/null
  complete_set "$WORK/bpf.stacks" >"$WORK/bpf.set"
  complete_set "$WORK/copy.stacks" >"$WORK/copy.set"
  complete_set "$WORK/pre.stacks" | sed 's/libgorc-preload\.so+[0-9a-f]*;//' | sort -u >"$WORK/pre.set"
  printf 'prof:   agreement: distinct complete stacks: bpf %d, copy %d, libgorc in the process (--preload) %d; of those bpf has at a leaf and return address the other has too, equal to one of its: copy %s, libgorc %s\n' \
    "$(wc -l <"$WORK/bpf.set")" "$(wc -l <"$WORK/copy.set")" "$(wc -l <"$WORK/pre.set")" \
    "$(same_at_leaf "$WORK/copy.set" "$WORK/bpf.set")" "$(same_at_leaf "$WORK/pre.set" "$WORK/bpf.set")"
  "$CC" -O2 -fplugin="$GORC_ROOT/plugin/gorc.so" "$GORC_ROOT/testsuite/gorc.prof/prof-deep.c" -o "$WORK/deep" ||
    { echo "prof: bpf: building prof-deep failed"; return; }
  local db dc
  db=$(deep_complete bpf); dc=$(deep_complete copy)
  printf 'prof:   a 500-frame recursion (100 KB of stack): complete stacks: bpf %s of %s, copy %s of %s\n' \
    "${db% *}" "${db#* }" "${dc% *}" "${dc#* }"
  printf 'prof:   short processes (%s): bpf %s; copy %s\n' "$SHORT_LOOP_SAID" \
    "$(short_processes bpf)" "$(short_processes copy)"
  compiler_walk
  large_libraries
}

# large_libraries: the start and end of a program whose libraries are
# large (clang's libLLVM and libclang-cpp: a million rows of tables from
# .eh_frame), the tables in the cache: everything's CPU in a run of
# clang --version, each mode's and the program's alone (medians of
# ROUNDS, alternated)
large_libraries() {
  local clang i
  clang=$(command -v clang-14 || command -v clang) ||
    { echo "prof:   large libraries: skipped (no clang)"; return; }
  # (the first run fills the table cache)
  "$PROF" -q --unwind=bpf -o "$WORK/large" -- "$clang" --version >/dev/null 2>&1
  : >"$WORK/large-rounds.txt"
  for i in $(seq "$ROUNDS"); do
    echo "$(run_program env -- "$clang" --version)" \
      "$(run_program "$PROF" -q --unwind=bpf -o "$WORK/large" -- "$clang" --version)" \
      "$(run_program "$PROF" -q --unwind=copy -o "$WORK/large" -- "$clang" --version)" \
      >>"$WORK/large-rounds.txt"
  done
  # the tables a cached run loads: the first run, slowed by building
  # them, had more modules mapped meanwhile (14 against 9-11)
  "$PROF" --unwind=bpf -o "$WORK/large" -- "$clang" --version 2>"$WORK/large.txt" >/dev/null
  printf 'prof:   large libraries (%s --version, %s modules, %s rows of tables, cached): everything %.3f s, copy %.3f s, the program alone %.3f s\n' \
    "${clang##*/}" "$(sed -n 's/.*; \([0-9]*\) from .eh_frame: .*/\1/p' "$WORK/large.txt")" \
    "$(sed -n 's/.* from .eh_frame: \([0-9]*\) rows.*/\1/p' "$WORK/large.txt")" \
    "$(awk '{ print $4 }' "$WORK/large-rounds.txt" | median)" \
    "$(awk '{ print $6 }' "$WORK/large-rounds.txt" | median)" \
    "$(awk '{ print $2 }' "$WORK/large-rounds.txt" | median)"
}

# compiler_walk: the walker's run time on a real program's deep stacks
# and large table: cc1 (its .eh_frame's), compiling gorc-prof's
# prof-record.c at -O2 six times
compiler_walk() {
  local out=$WORK/cc1
  (cd "$GORC_ROOT" &&
     "$PROF" --unwind=bpf -F 1000 -o "$out" \
       -- sh -c 'for i in 1 2 3 4 5 6; do "$0" -std=gnu11 -O2 -Iinclude -Itools/lib -Itools/prof -c tools/prof/prof-record.c -o /dev/null || exit 1; done' "$CC" \
       2>"$out.txt" >/dev/null) || { echo "prof: bpf: profiling the compiler failed"; return; }
  printf 'prof:   a compiler (%s -O2 of tools/prof/prof-record.c, 6 times): %s frames a sample, %s\n' "$CC" \
    "$(awk '/^gorc-prof: BPF walker: / {
              for (i = 1; i < NF; i++) {
                if ($(i + 1) == "samples,") samples = $i
                if ($(i + 1) == "user" && $(i + 2) == "frames") frames = $i
              }
            }
            END { printf "%.1f", samples ? frames / samples : 0 }' "$out.txt")" \
    "$(sed -n 's/^gorc-prof: BPF run time: //p' "$out.txt")"
}

# short_processes MODE: what gorc-prof --unwind=MODE makes of a shell
# loop of short processes, each a new process the walker is told of
# only after it starts, some mapping files no table was built for yet
SHORT_LOOP_SAID='a shell loop running burn for 20 ms of CPU, then gcc --version, 20 times, at 1 kHz'
short_processes() {
  local out=$WORK/short-$1
  "$PROF" --unwind="$1" -F 1000 -o "$out" \
    -- sh -c 'for i in $(seq 20); do "$0" 20ms; gcc --version; done >/dev/null' "$WORK/burn" \
    2>"$out.txt" >/dev/null
  awk '/^gorc-prof: [0-9]* samples, .* lost$/ { n = $2; lost = $(NF - 1) }
       /^gorc-prof: stacks: / { whole = $3 }
       /^gorc-prof: BPF walker: / {
         for (i = 1; i < NF; i++) {
           if ($(i + 1) == "mappings" && $(i + 2) == "found") found = $i
           if ($(i + 1) == "stacks" && $(i + 2) == "copied") copied = $i
         }
       }
       / bytes per sample / { for (i = 1; i < NF; i++) if ($(i + 1) == "bytes") bytes = $i }
       END {
         printf "%d samples, %d lost, %.1f%% whole", n, lost, n ? 100 * whole / n : 0
         if (copied != "") printf ", %d copied, %d mappings found in the kernel", copied, found
         printf ", %d bytes a sample", bytes
       }' "$out.txt"
}

# tables_of_larger: what the BPF tables of programs with more rows than
# burn's cost against their records: examples/demo (when make demo built
# it) and the testsuite's 5,000-function program
tables_of_larger() {
  awk -v n=5000 -f "$GORC_ROOT/testsuite/gorc.prof/prof-bigtable.awk" >"$WORK/big.c" &&
    "$CC" -O2 -fplugin="$GORC_ROOT/plugin/gorc.so" "$WORK/big.c" -o "$WORK/big" ||
    { echo "prof: bpf: building the 5,000-function program failed"; return; }
  "$PROF" --unwind=bpf -o "$WORK/big" -- "$WORK/big" 100 2>"$WORK/big.txt" >/dev/null
  sed -n 's/^gorc-prof: BPF tables: \([^;]*\);.*/prof:   tables (5,000 functions): \1/p' "$WORK/big.txt"
  [ -x "$GORC_ROOT/examples/demo" ] || return 0
  "$PROF" --unwind=bpf -o "$WORK/demo" -- "$GORC_ROOT/examples/demo" -q 2>"$WORK/demo.txt" >/dev/null
  sed -n 's/^gorc-prof: BPF tables: \([^;]*\);.*/prof:   tables (examples\/demo): \1/p' "$WORK/demo.txt"
}

# KSHARE_USER: prof-syscall's user work a round, about as long as its
# system calls here (a kernel share near half, where a wrong share shows)
KSHARE_USER=4000
# kshare_rounds: prof-syscall's rounds for about 3 s of its CPU on this
# machine (one round's cost differs tenfold between machines), from a
# timed run of 20,000
kshare_rounds() {
  local timing cpu
  timing=$(mktemp)
  { time "$WORK/kshare" 20000 $KSHARE_USER >/dev/null; } 2>"$timing"
  cpu=$(cpu_of "$timing" | cut -d' ' -f1)
  rm -f "$timing"
  awk -v cpu="$cpu" 'BEGIN { r = cpu > 0 ? int(20000 * 3 / cpu) : 2000000
                             print (r < 20000 ? 20000 : r > 20000000 ? 20000000 : r) }'
}

# kshare_once MODE ROUNDS: "GORC_PROF_SHARE PERF_SHARE" of one run of
# prof-syscall, sampled by both at once: gorc-prof --unwind=MODE runs it
# while perf record -a samples the whole machine, whose samples of the
# program (its pid, from gorc-prof's pprof) give perf's share. One run
# for both, because the program's own kernel share moves from run to run.
kshare_once() {
  local mode=$1 rounds=$2 perf_pid ours pid theirs
  perf record -q --no-bpf-event -a -e cpu-clock -F 1000 -o "$WORK/kshare.data" -- sleep 3600 >/dev/null 2>&1 &
  perf_pid=$!
  sleep 1   # perf has opened its events on every CPU
  "$PROF" --unwind="$mode" -F 1000 -o "$WORK/kshare" -- "$WORK/kshare" "$rounds" $KSHARE_USER \
    2>"$WORK/kshare.err" >/dev/null
  kill -INT $perf_pid; wait $perf_pid
  ours=$(sed -n 's/.*samples in the kernel (\([0-9.]*\)%).*/\1/p' "$WORK/kshare.err")
  pid=$(go tool pprof -raw "$WORK/kshare.pb.gz" 2>/dev/null | sed -n 's/.*pid:\[\([0-9]*\)\].*/\1/p' | head -1)
  theirs=$(perf script -i "$WORK/kshare.data" -F pid,ip 2>/dev/null \
           | awk -v pid="${pid:-none}" '$1 == pid { n++; if ($2 ~ /^ffff/) k++ }
                                        END { if (n) printf "%.1f", 100 * k / n }')
  echo "${ours:-?} ${theirs:-?}"
}

# kernel_share: part 4, in each mode
kernel_share() {
  command -v perf >/dev/null || { echo "prof: kernel share: skipped (perf not installed)"; return; }
  local rounds mode i
  rounds=$(kshare_rounds)
  for mode in bpf copy; do
    : >"$WORK/kshare.txt"
    for i in $(seq 9); do kshare_once $mode "$rounds" >>"$WORK/kshare.txt"; done
    if grep -q '?' "$WORK/kshare.txt"; then
      echo "prof: kernel share, --unwind=$mode: not measured ($(tr '\n' ' ' <"$WORK/kshare.txt"))"
      continue
    fi
    awk -v mode=$mode -v rounds="$rounds" '
      { d = $1 - $2; sum += d; if (d < 0) d = -d; if (d > worst) worst = d; a[NR] = $1; b[NR] = $2 }
      END { mean = sum / NR; off = mean < 0 ? -mean : mean
            printf "prof: kernel share, prof-syscall %d rounds, --unwind=%s and perf record -a sampling the same run (%d runs): ", rounds, mode, NR
            for (i = 1; i <= NR; i++) printf "%s%.1f%% / %.1f%%", (i > 1 ? ", " : ""), a[i], b[i]
            printf "; mean difference %+.1f points, largest %.1f (aim 3, on the mean: %s)\n", mean, worst, (off <= 3 ? "met" : "missed") }' \
      "$WORK/kshare.txt"
  done
}

# system_wide: part 5.  start_programs: the 20 programs, one every 0.4 s,
# from 1 s on (each profiler has started by then: a program that ended
# before it could not be seen)
start_programs() {
  local i
  sleep 1
  for i in $(seq 20); do "$WORK/kshare-w" 2000 >/dev/null; sleep 0.4; done
}
system_wide() {
  command -v perf >/dev/null || { echo "prof: -a: skipped (perf not installed)"; return; }
  cp "$WORK/kshare" "$WORK/kshare-w"
  start_programs &
  local starter=$!
  "$PROF" -a -d 10 -F 1000 -o "$WORK/all" 2>"$WORK/all.err" >/dev/null
  wait $starter
  local lost seen samples
  # the summary line (not a progress line: those have no "processes")
  lost=$(sed -n 's/.* processes, .*; \([0-9]*\) lost$/\1/p' "$WORK/all.err")
  samples=$(sed -n 's/^gorc-prof: \([0-9]*\) samples, .* processes, .*/\1/p' "$WORK/all.err")
  seen=$(go tool pprof -raw "$WORK/all.pb.gz" 2>/dev/null | grep -A1 'comm:\[kshare-w\]' \
         | sed -n 's/.*pid:\[\([0-9]*\)\].*/\1/p' | sort -u | wc -l)
  printf 'prof: -a -d 10 at 1 kHz on %d CPUs: gorc-prof %s samples, %s lost, %d of 20 programs seen' \
    "$(nproc)" "${samples:-?}" "${lost:-?}" "$seen"
  grep -o '([0-9]* with samples)' "$WORK/all.err" | sed 's/^/ /' | tr -d '\n'
  echo
  start_programs &
  starter=$!
  perf record -q --no-bpf-event -a -g -e cpu-clock -F 1000 -o "$WORK/all.data" -- sleep 10 >/dev/null 2>&1
  wait $starter
  local plost pseen psamples
  plost=$(perf report -i "$WORK/all.data" --stats 2>/dev/null | awk '/LOST_SAMPLES|^ *LOST / { s += $NF } END { print s + 0 }')
  psamples=$(perf script -i "$WORK/all.data" -F pid 2>/dev/null | wc -l)
  pseen=$(perf script -i "$WORK/all.data" -F comm,pid 2>/dev/null | awk '$1 == "kshare-w" { print $2 }' | sort -u | wc -l)
  printf 'prof: perf record -a -g -F 1000, 10 s: %d samples, %d lost, %d of 20 programs seen\n' \
    "$psamples" "$plost" "$pseen"
}

"$CC" -O2 "$GORC_ROOT/testsuite/gorc.prof/prof-syscall.c" -o "$WORK/kshare" \
  || { echo "prof: building prof-syscall failed"; exit 2; }
PARTS=" ${PROF_PARTS:-overhead perf-data kernel system bpf} "
case $PARTS in *" overhead "*) overhead "$WORK/burn" 25000 ;; esac
case $PARTS in *" kernel "*) kernel_share ;; esac
case $PARTS in *" system "*) system_wide ;; esac
case $PARTS in *" bpf "*) bpf_part ;; esac
case $PARTS in *" perf-data "*) ;; *) exit 0 ;; esac
perf_data burn "$WORK/burn" 200000
# many short processes, deeper stacks: the bundled interpreter 30 times
if [ -x "$GORC_ROOT/examples/demo" ] || make -s -C "$GORC_ROOT/examples" CC="$CC" demo >/dev/null 2>&1; then
  perf_data demo-x30 sh -c "for i in \$(seq 30); do '$GORC_ROOT/examples/demo' -q; done"
else
  echo "prof: demo: skipped (examples/demo not built)"
fi
