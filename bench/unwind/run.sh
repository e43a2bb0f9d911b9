#!/bin/bash
# make bench, part 2: what a stack walk costs, for gorc and the other
# unwinders, each figure against anchors measured in the same run (the
# machine is shared and noisy: the unwinders are interleaved, figures are
# medians).  Parts, in the order they run (UNWIND_PARTS picks some):
#
#   walk8      the 8-frame walk to _start: main -> f1 -> f2 -> f3 -> leaf
#              (chain8.c), ns per whole walk for gorc_backtrace,
#              unw_backtrace, glibc backtrace() and a frame-pointer walk
#   chains     the depth-32 chains of chain.c (recursive, mixed, distinct):
#              ns per frame of the chain's own frames (unwind-bench.c,
#              depths 8, 32, 128, libgcc too), then per whole walk to
#              _start (walk-to-start.c)
#   libs       walks through 10, 30 and 100 shared libraries (generated,
#              cached in $BENCH_WORK/unwind/libs), per frame and per walk
#   callgrind  instructions per frame under valgrind --tool=callgrind: of
#              the chains' own frames (unwind-bench.c), and per whole walk
#              to _start of the parts above that ran (walk-to-start --count)
#   cold       a fresh process's first walk to _start (walk8's chain),
#              median over COLD_PROCS processes; and the distinct chain's
#              first walk (unwind-bench --cold)
#   first-use  the first lookup in a module of 15000 functions
#   sampled    a real program (cc1) sampled, every sample walked by gorc
#              and by libunwind's cursor: ns per sample, memo on and off
#
# Then a summary: each aim of issue 15, its figure and "met" or "missed"
# (a part not run, or whose walks were wrong, says so instead).
#
# libgorc keeps a memo of each thread's last walk (runtime/src/memo.h): a
# walk that meets it checks the outer frames' stack words instead of
# looking them up, as a repeated walk of one stack (the bench's loops, a
# profiler's samples of one call path) does.  The whole-walk parts also
# run each gorc program with the memo off (GORC_WALK_MEMO=0, rows
# "gorc_no_memo"): what a walk of a stack not walked before pays.
#
# Every walk is checked before it is timed: the expected number of frames,
# and gorc's and glibc's addresses equal to unw_backtrace's; a wrong walk
# prints "MISMATCH" and no figure.
#
# Environment: GORC_ROOT, CC, BENCH_WORK as for bench/run.sh;
#   UNWIND_PARTS  (default: walk8 chains libs callgrind cold first-use sampled)
#   WALK_REPS     processes per figure of walk-to-start, each program
#                 alternating with its frame-pointer build (default 3)
#   COLD_PROCS    processes per method for the cold walk (default 21)
# Items 1-3 of the issue alone, in under a minute:
#   UNWIND_PARTS="walk8 chains libs callgrind" bench/unwind/run.sh
# Needs runtime/libgorc.a and plugin/gorc.so (built by `make`), libunwind
# (libunwind-dev) and, for callgrind, valgrind.
set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/unwind
PARTS=" ${UNWIND_PARTS:-walk8 chains libs callgrind cold first-use sampled} "
WALK_REPS=${WALK_REPS:-3}
COLD_PROCS=${COLD_PROCS:-21}
here=$GORC_ROOT/bench/unwind
plugin=$GORC_ROOT/plugin/gorc.so
lib=$GORC_ROOT/runtime/libgorc.a
inc=(-I"$GORC_ROOT/runtime/include")
mkdir -p "$WORK"

if [ ! -f "$lib" ] || [ ! -f "$plugin" ]; then
  echo "unwind: skipped: runtime/libgorc.a or plugin/gorc.so not built"
  exit 0
fi
if ! echo '#include <libunwind.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
  echo "unwind: skipped: libunwind headers missing (apt-get install libunwind-dev)"
  exit 0
fi

part() { [[ $PARTS == *" $1 "* ]]; }

# Figures for the summary: "KEY VALUE" lines (see summary()).
FIGURES=$WORK/figures.txt
: >"$FIGURES"
figure() { echo "$1 $2" >>"$FIGURES"; }

# ---------------------------------------------------------------- building

# stale OUT DEP...: OUT is missing or older than a DEP or than the
# plugin.  This script is a DEP of what it generates or has the flags of.
stale() {
  local out=$1 dep
  shift
  [ -e "$out" ] || return 0
  for dep in "$@" "$plugin"; do
    [ "$dep" -nt "$out" ] && return 0
  done
  return 1
}

# The chains of chain.c: with the plugin and without frame pointers (for
# gorc, glibc, libgcc, libunwind) and with frame pointers.
build_chains() {
  "$CC" -O2 -fno-ipa-icf -fno-omit-frame-pointer -DCHAIN_FP -DCHAIN_NAME=chain_fp \
    -DMIXED_NAME=mixed_fp -DDISTINCT_NAME=distinct_fp -c "$here/chain.c" -o "$WORK/chain-fp.o" &&
  "$CC" -O2 -fno-ipa-icf -fomit-frame-pointer -fplugin="$plugin" -DCHAIN_NAME=chain_nofp \
    -DMIXED_NAME=mixed_nofp -DDISTINCT_NAME=distinct_nofp -c "$here/chain.c" -o "$WORK/chain-nofp.o"
}

build_unwind_bench() {
  "$CC" -O2 -g -Wall -Wextra -fno-omit-frame-pointer -fplugin="$plugin" "${inc[@]}" \
    -c "$here/unwind-bench.c" -o "$WORK/unwind-bench.o" &&
  "$CC" -o "$WORK/unwind-bench" "$WORK/unwind-bench.o" "$WORK/chain-fp.o" "$WORK/chain-nofp.o" \
    "$lib" -lunwind -ldl
}

# build_walk OUT ENTRY DEPTH fp|nofp OBJS/LIBS/-DDEFS...: walk-to-start.c
# over the chain ENTRY(DEPTH), compiled with the -D definitions and
# linked with the rest.  The frame-pointer build walks with frame pointers
# only; the other, with the plugin, with the rest.
build_walk() {
  local out=$1 entry=$2 depth=$3 kind=$4 a
  shift 4
  local flags=(-fomit-frame-pointer -fplugin="$plugin") defs=() links=()
  [ "$kind" = fp ] && flags=(-fno-omit-frame-pointer -DFRAME_POINTERS)
  for a in "$@"; do
    case $a in -D*) defs+=("$a") ;; *) links+=("$a") ;; esac
  done
  stale "$out" "$here/walk-to-start.c" "$lib" "$0" "${links[@]}" || return 0
  "$CC" -O2 -Wall -Wextra "${flags[@]}" "${inc[@]}" "${defs[@]}" -DCHAIN_ENTRY="$entry" \
    -DCHAIN_DEPTH="$depth" -c "$here/walk-to-start.c" -o "$out.o" &&
  "$CC" -o "$out" "$out.o" "${links[@]}" "$lib" -lunwind -ldl
}

# N_LIBS generated libraries per build, libchainK.so (K = 0 .. N_LIBS-1),
# each lib_chain_K calling lib_chain_{K+1} through the PLT, the last one
# calling the leaf; a program linked with libchainK.so loads only K and
# those after it, so the chain through N libraries starts at N_LIBS - N.
N_LIBS=100
gen_lib_source() { # K
  local k=$1
  echo "/* Generated by bench/unwind/run.sh: one link of the chain of libraries. */"
  echo "typedef int (*chain_leaf_fn)(void *arg);"
  [ "$k" -lt $((N_LIBS - 1)) ] && echo "int lib_chain_$((k + 1))(int depth, chain_leaf_fn leaf, void *arg);"
  echo "int lib_chain_$k(int depth, chain_leaf_fn leaf, void *arg)"
  echo "{"
  echo "  volatile char buf[$((8 + k % 5 * 24))];"
  echo "  buf[0] = (char)depth;"
  if [ "$k" -lt $((N_LIBS - 1)) ]; then
    echo "  int r = depth <= 1 ? leaf(arg) : lib_chain_$((k + 1))(depth - 1, leaf, arg);"
  else
    echo "  int r = leaf(arg);"
  fi
  echo '  __asm__ volatile("" ::: "memory");'
  echo "  return r + buf[0];"
  echo "}"
}

# build_libs DIR fp|nofp: the libraries, compiled two at a time, linked
# from the last (each needs the next).  Rebuilt only when stale (not when
# only libgorc changed: they do not link it).
build_libs() {
  local dir=$1 kind=$2 k log=$1.log
  local cflags=(-O2 -fPIC -fomit-frame-pointer -fplugin="$plugin")
  [ "$kind" = fp ] && cflags=(-O2 -fPIC -fno-omit-frame-pointer)
  stale "$dir/libchain0.so" "$0" || return 0
  echo "unwind: libs: building $N_LIBS libraries ($kind) in $dir (log: $log)"
  rm -rf "$dir"
  mkdir -p "$dir"
  : >"$log"
  for k in $(seq 0 $((N_LIBS - 1))); do
    gen_lib_source "$k" >"$dir/chain$k.c"
  done
  seq 0 $((N_LIBS - 1)) | xargs -P2 -I{} "$CC" "${cflags[@]}" -c "$dir/chain{}.c" -o "$dir/chain{}.o" \
    >>"$log" 2>&1 || return 1
  for k in $(seq $((N_LIBS - 1)) -1 0); do
    local next=()
    [ "$k" -lt $((N_LIBS - 1)) ] && next=(-L"$dir" -lchain$((k + 1)))
    # shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
    "$CC" -shared -o "$dir/libchain$k.so" "$dir/chain$k.o" "${next[@]}" -Wl,-rpath,'$ORIGIN' \
      >>"$log" 2>&1 || return 1
  done
}

# ---------------------------------------------------------------- walking

WALKS=$WORK/walks.txt
: >"$WALKS"

# walk_runs LABEL PROGRAM FP_PROGRAM: WALK_REPS runs of each, alternating,
# and of PROGRAM with the walk memo off (GORC_WALK_MEMO=0: every gorc walk
# looks up every frame, as a process's first walk of a stack does), whose
# gorc_backtrace line is kept as gorc_no_memo; the lines go to $WALKS as
# "LABEL METHOD FRAMES NS_PER_WALK" (or "LABEL METHOD MISMATCH WHY").
walk_runs() {
  local label=$1 i p out rc memo
  for i in $(seq "$WALK_REPS"); do
    for p in "$2" "$3" "no-memo:$2"; do
      memo=1
      [[ $p == no-memo:* ]] && { memo=0; p=${p#no-memo:}; }
      out=$(GORC_WALK_MEMO=$memo "$p" 60 2>&1)
      rc=$?
      if [ $rc -ne 0 ]; then
        echo "unwind: $label: FAILED: ${p##*/} exited with status $rc (no figures from it): $out" | head -n 5
        continue
      fi
      if [ $memo = 0 ]; then
        out=$(awk '$1 == "gorc_backtrace" { $1 = "gorc_no_memo"; print }' <<<"$out")
      fi
      awk -v label="$label" '{ print label " " $0 }' <<<"$out" >>"$WALKS"
    done
  done
}

# walk_figure LABEL METHOD: "FRAMES NS_PER_WALK", the median over the runs;
# "MISMATCH WHY" when a run's walk was wrong; nothing when not measured.
walk_figure() {
  awk -v label="$1" -v method="$2" '
    $1 == label && $2 == method {
      if ($3 == "MISMATCH") { $1 = $2 = ""; sub(/^ +/, ""); bad = $0; next }
      frames = $3; ns[++n] = $4 }
    END {
      if (bad != "") { print bad; exit }
      if (n == 0) exit
      for (i = 2; i <= n; i++)
        for (j = i; j > 1 && ns[j - 1] > ns[j]; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
      printf "%d %.1f\n", frames, n % 2 ? ns[(n + 1) / 2] : (ns[n / 2] + ns[n / 2 + 1]) / 2 }' "$WALKS"
}

# print_walks LABEL TITLE: one line per method for LABEL: frames, ns per
# walk and per frame, and per walk against the frame-pointer walk and
# unw_backtrace.  Sets the figures LABEL.METHOD.walk and .frame.
print_walks() {
  local label=$1 m fig
  local fp unw
  # The anchors; none when their walks were wrong.
  fp=$(walk_figure "$label" frame-pointer)
  unw=$(walk_figure "$label" unw_backtrace)
  [[ $fp == MISMATCH* ]] && fp=""
  [[ $unw == MISMATCH* ]] && unw=""
  echo "unwind: $2"
  for m in frame-pointer gorc_backtrace gorc_no_memo unw_backtrace glibc_backtrace; do
    fig=$(walk_figure "$label" "$m")
    if [ -z "$fig" ]; then
      echo "unwind:   $m: not measured"
      continue
    fi
    if [[ $fig == MISMATCH* ]]; then
      echo "unwind:   $m: MISMATCH: ${fig#MISMATCH } -- NO FIGURE"
      figure "$label.$m.walk" MISMATCH
      continue
    fi
    awk -v m="$m" -v fig="$fig" -v fp="$fp" -v unw="$unw" 'BEGIN {
      split(fig, f, " "); split(fp, p, " "); split(unw, u, " ")
      line = sprintf("unwind:   %-16s %4d frames %9.1f ns/walk %7.2f ns/frame", m, f[1], f[2], f[2] / f[1])
      if (p[2] > 0) line = line sprintf("  %6.2fx the FP walk", f[2] / p[2])
      if (u[2] > 0) line = line sprintf("  %6.2fx unw_backtrace", f[2] / u[2])
      print line }'
    figure "$label.$m.walk" "${fig#* }"
    figure "$label.$m.frame" "$(awk -v fig="$fig" 'BEGIN { split(fig, f, " "); printf "%.3f", f[2] / f[1] }')"
  done
}

# ---------------------------------------------------------------- parts

part_walk8() {
  if ! { build_walk "$WORK/walk-walk8" f1 3 nofp "$WORK/chain8.o" &&
          build_walk "$WORK/walk-walk8-fp" f1 3 fp "$WORK/chain8-fp.o"; }; then
    echo "unwind: walk8: failed: building walk-to-start"
    return
  fi
  COUNTED="$COUNTED walk8"
  walk_runs walk8 "$WORK/walk-walk8" "$WORK/walk-walk8-fp"
  print_walks walk8 "the 8-frame walk to _start (main -> f1 -> f2 -> f3 -> leaf, -O2 -fomit-frame-pointer, the plugin; the FP walk: the same built with frame pointers, to main's return into glibc); median of $WALK_REPS processes x 9 stack placements"
}

build_chain8() {
  stale "$WORK/chain8.o" "$here/chain8.c" "$0" || return 0
  "$CC" -O2 -Wall -Wextra -fomit-frame-pointer -fplugin="$plugin" -c "$here/chain8.c" \
    -o "$WORK/chain8.o" &&
  "$CC" -O2 -Wall -Wextra -fno-omit-frame-pointer -c "$here/chain8.c" -o "$WORK/chain8-fp.o"
}

part_chains_per_frame() {
  echo "unwind: ns per frame of the chain's own frames (the walk stops at the chain's entry), same run (machine shared: compare ratios)"
  echo "unwind: recursive = one function calling itself (every frame the same return address);"
  echo "unwind: mixed = eight different functions in turn (no two adjacent frames alike; mutual recursion);"
  echo "unwind: distinct = 136 different functions (no return address repeats: every frame a table lookup)"
  echo "unwind: each cell: the median over 9 stack placements"
  "$WORK/unwind-bench" | tee "$WORK/times.txt" | sed 's/^/unwind: /'
  # method, chain, depth, frames, ns/frame, ratio (columns split on 2+
  # spaces), or method, chain, depth, "MISMATCH: why"
  awk '{ n = split($0, f, /  +/)
         if (n >= 4 && f[3] + 0 == 32) print f[1] "|" f[2] "|" (f[4] ~ /^MISMATCH/ ? "MISMATCH" : f[5]) }' \
    "$WORK/times.txt" | while IFS='|' read -r method chain ns; do
    case $method in
    "frame-pointer walk") figure "chain.$chain.frame-pointer.frame" "$ns";;
    gorc_backtrace) figure "chain.$chain.gorc_backtrace.frame" "$ns";;
    "libunwind unw_backtrace") figure "chain.$chain.unw_backtrace.frame" "$ns";;
    esac
  done
}

part_chains_whole() {
  local chain entry
  for chain in recursive mixed distinct; do
    case $chain in
    recursive) entry=chain;;
    *) entry=$chain;;
    esac
    if ! { build_walk "$WORK/walk-$chain" "${entry}_nofp" 32 nofp "$WORK/chain-nofp.o" &&
            build_walk "$WORK/walk-$chain-fp" "${entry}_fp" 32 fp "$WORK/chain-fp.o"; }; then
      echo "unwind: $chain chain: failed: building walk-to-start"
      continue
    fi
    COUNTED="$COUNTED $chain"
    walk_runs "$chain" "$WORK/walk-$chain" "$WORK/walk-$chain-fp"
    print_walks "$chain" "depth 32, $chain chain, the whole walk to _start (main calls the chain); median of $WALK_REPS processes x 9 stack placements"
  done
}

part_callgrind() {
  if ! command -v valgrind >/dev/null; then
    echo "unwind: callgrind: skipped: no valgrind"
    return
  fi
  echo "unwind: callgrind instructions per frame (each cell: 100 walks counted alone)"
  rm -f "$WORK"/callgrind.out*
  GORC_BENCH_CALLGRIND=1 valgrind --tool=callgrind --collect-atstart=no \
    --callgrind-out-file="$WORK/callgrind.out" \
    "$WORK/unwind-bench" >"$WORK/callgrind-run.txt" 2>"$WORK/callgrind.log"
  # One dump per cell: "desc: Trigger: Client Request: cell M|CHAIN|DEPTH|FRAMES|ITERS"
  # and its total ("summary:" or "totals:").
  local f
  for f in "$WORK"/callgrind.out.*; do
    [ -f "$f" ] || continue
    awk '/^desc: Trigger: Client Request: cell / { sub(/^desc: Trigger: Client Request: cell /, ""); label = $0 }
         /^(summary|totals):/ { total = $2 }
         END { if (label != "") print label "|" total }' "$f"
  done | sort -t'|' -k2,2 -k3,3n -k1,1 >"$WORK/instructions.txt"
  if [ ! -s "$WORK/instructions.txt" ]; then
    echo "unwind: callgrind run failed (see $WORK/callgrind.log)"
    return
  fi
  awk -F'|' '{ printf "unwind: %-26s %-9s depth %4d: %8.1f instructions per frame\n", $1, $2, $3, $6 / ($4 * $5) }' \
    "$WORK/instructions.txt"
  awk -F'|' '$1 == "gorc_backtrace" && $3 == 32 {
    printf "chain.%s.gorc_backtrace.instructions %.1f\n", $2, $6 / ($4 * $5) }' \
    "$WORK/instructions.txt" >>"$FIGURES"

  echo "unwind: callgrind instructions per whole walk to _start / per frame ($COUNT_WALKS walks counted alone)"
  local label
  for label in $COUNTED; do
    count_walks "$label"
  done
}

# The programs whose whole walks the callgrind part counts: those of the
# parts that ran (their binaries are up to date).
COUNTED=""
COUNT_WALKS=100

# count_walks LABEL: instructions per walk of $WORK/walk-LABEL and its
# frame-pointer build, per method; sets the figures
# LABEL.METHOD.instructions (per frame).
count_walks() {
  local label=$1 m prog line out=$WORK/callgrind-walk.out
  line=$(printf "unwind:   %-10s" "$label")
  for m in gorc_backtrace gorc_no_memo unw_backtrace frame-pointer; do
    prog=$WORK/walk-$label
    [ "$m" = frame-pointer ] && prog=$prog-fp
    rm -f "$out"
    local res frames total memo=1 method=$m
    [ "$m" = gorc_no_memo ] && { memo=0; method=gorc_backtrace; }
    res=$(GORC_WALK_MEMO=$memo valgrind --tool=callgrind --collect-atstart=no \
            --callgrind-out-file="$out" "$prog" --count "$method" "$COUNT_WALKS" \
            2>>"$WORK/callgrind.log")
    total=$(sed -n 's/^summary: *//p' "$out" 2>/dev/null)
    read -r _ frames _ <<<"$res"
    if [ "$frames" = MISMATCH ]; then
      line="$line  $m: MISMATCH (${res#* MISMATCH })"
      figure "$label.$m.instructions" MISMATCH
    elif [ -z "$total" ] || [ -z "$frames" ]; then
      line="$line  $m: failed (see $WORK/callgrind.log)"
    else
      line="$line  $(awk -v m="$m" -v t="$total" -v n="$COUNT_WALKS" -v f="$frames" 'BEGIN {
        printf "%s %.0f / %.1f", m, t / n, t / n / f }')"
      figure "$label.$m.instructions" "$(awk -v t="$total" -v n="$COUNT_WALKS" -v f="$frames" 'BEGIN { printf "%.1f", t / n / f }')"
    fi
  done
  echo "$line"
}

part_libs() {
  local n
  if ! build_libs "$WORK/libs/nofp" nofp || ! build_libs "$WORK/libs/fp" fp; then
    echo "unwind: libs: failed: building the libraries (see $WORK/libs/*.log)"
    rm -f "$WORK/libs/nofp/libchain0.so" "$WORK/libs/fp/libchain0.so"
    return
  fi
  for n in 10 30 100; do
    local first=$((N_LIBS - n))
    if ! { build_walk "$WORK/walk-libs$n" "lib_chain_$first" "$n" nofp \
             -L"$WORK/libs/nofp" -lchain$first -Wl,-rpath,"$WORK/libs/nofp" &&
           build_walk "$WORK/walk-libs$n-fp" "lib_chain_$first" "$n" fp \
             -L"$WORK/libs/fp" -lchain$first -Wl,-rpath,"$WORK/libs/fp"; }; then
      echo "unwind: libs: failed: building the program through $n libraries"
      continue
    fi
    COUNTED="$COUNTED libs$n"
    walk_runs "libs$n" "$WORK/walk-libs$n" "$WORK/walk-libs$n-fp"
    print_walks "libs$n" "the walk to _start through $n shared libraries (one function each, calling the next through the PLT); median of $WALK_REPS processes x 9 stack placements"
  done
  # The same 100 libraries loaded by dlopen: modules that may be unloaded.
  if build_walk "$WORK/walk-dlopen100" lib_chain_0 100 nofp \
       -DCHAIN_DLOPEN="\"$WORK/libs/nofp/libchain0.so\"" &&
     build_walk "$WORK/walk-dlopen100-fp" lib_chain_0 100 fp \
       -DCHAIN_DLOPEN="\"$WORK/libs/fp/libchain0.so\""; then
    walk_runs dlopen100 "$WORK/walk-dlopen100" "$WORK/walk-dlopen100-fp"
    print_walks dlopen100 "the same walk through 100 libraries loaded by dlopen (checked once per walk each: they may be unloaded); median of $WALK_REPS processes x 9 stack placements"
  else
    echo "unwind: libs: failed: building the program that dlopens the 100 libraries"
  fi
  awk '{ fig[$1] = $2 }
    END {
      line = "unwind: libs: per frame, through 100 libraries / through 30:"
      split("gorc_backtrace unw_backtrace glibc_backtrace frame-pointer", m, " ")
      for (i = 1; i <= 4; i++) {
        a = fig["libs100." m[i] ".frame"]; b = fig["libs30." m[i] ".frame"]
        line = line sprintf(" %s %s", m[i], a > 0 && b > 0 ? sprintf("%.2fx", a / b) : "n/a")
      }
      print line }' "$FIGURES"
}

# Cold: a fresh process's first walk of walk8's chain, the methods in turn
# in each round; and the distinct chain's first gorc walk (unwind-bench).
part_cold() {
  build_walk "$WORK/walk-walk8" f1 3 nofp "$WORK/chain8.o" || {
    echo "unwind: cold: failed: building walk-to-start"; return; }
  local i m out=$WORK/cold-walk8.txt
  : >"$out"
  for i in $(seq "$COLD_PROCS"); do
    for m in gorc_backtrace unw_backtrace glibc_backtrace; do
      "$WORK/walk-walk8" --cold "$m" >>"$out" 2>&1 || echo "$m MISMATCH" >>"$out"
    done
  done
  echo "unwind: cold: a fresh process's first walk to _start (walk8's chain, 8 frames), median of $COLD_PROCS processes per method:"
  local unw
  unw=$(awk '$1 == "unw_backtrace" && $2 != "MISMATCH" { print $3 }' "$out" | sort -n |
        awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
  for m in gorc_backtrace unw_backtrace glibc_backtrace; do
    if grep -q "^$m MISMATCH" "$out"; then
      echo "unwind:   $m: MISMATCH: a first walk did not find 8 frames -- NO FIGURE"
      continue
    fi
    awk '$1 == "'$m'" { print $3 }' "$out" | sort -n | awk -v m="$m" -v unw="${unw:-0}" '
      { a[NR] = $1 }
      END { if (!NR) exit
            med = a[int((NR + 1) / 2)]
            printf "unwind:   %-16s %8.1f us (%.1f-%.1f us)", m, med / 1e3, a[1] / 1e3, a[NR] / 1e3
            if (unw > 0) printf "  %6.2fx unw_backtrace", med / unw
            print "" }'
  done

  # The distinct chain at depth 32 (chain frames only), one process per
  # sample, against the warm frame-pointer walk of part "chains".
  : >"$WORK/cold.txt"
  for i in $(seq 9); do
    "$WORK/unwind-bench" --cold >>"$WORK/cold.txt" 2>/dev/null
  done
  awk -v fp="$(awk '$1 == "chain.distinct.frame-pointer.frame" { print $2 }' "$FIGURES")" '
    $1 > 0 { per[++n] = $2 / $1 }
    END {
      if (!n) { print "unwind: cold walk of the distinct chain: skipped: no sample (see unwind-bench --cold)"; exit }
      for (i = 2; i <= n; i++)
        for (j = i; j > 1 && per[j - 1] > per[j]; j--) { t = per[j]; per[j] = per[j - 1]; per[j - 1] = t }
      m = n % 2 ? per[(n + 1) / 2] : (per[n / 2] + per[n / 2 + 1]) / 2
      printf "unwind: depth 32, distinct chain, cold (a fresh process'"'"'s first walk, median of %d processes): gorc %.2f ns/frame", n, m
      if (fp > 0) printf " = %.1fx the frame-pointer walk (warm, above)", m / fp
      print "" }' "$WORK/cold.txt"
}

# Sampled: a real program (cc1 compiling gorc's runtime/src/walk.c,
# preprocessed; cc1 has no gorc records: libgorc walks it through its
# .eh_frame, caching states like any others) sampled by sampled.so, each
# sample walked by gorc and by libunwind's cursor.  SAMPLED_RUNS
# compilations per setting, the memo on and off in turns.
SAMPLED_RUNS=${SAMPLED_RUNS:-3}
part_sampled() {
  local cc1 so=$WORK/sampled.so src=$WORK/sampled-unwind.i i memo out=$WORK/sampled.txt
  cc1=$("$CC" -print-prog-name=cc1)
  [ -x "$cc1" ] || { echo "unwind: sampled: skipped: no cc1 for $CC"; return; }
  if ! "$CC" -O2 -Wall -Wextra -fPIC -shared "${inc[@]}" "$here/sampled.c" -o "$so" \
         -L"$GORC_ROOT/runtime" -Wl,-rpath,"$GORC_ROOT/runtime" -lgorc -lunwind -lpthread \
         2>"$WORK/sampled.log" ||
     ! "$CC" -E -I"$GORC_ROOT/include" -I"$GORC_ROOT/runtime/include" -I"$GORC_ROOT/runtime/src" \
         "$GORC_ROOT/runtime/src/walk.c" -o "$src" 2>>"$WORK/sampled.log"; then
    echo "unwind: sampled: failed: building (see $WORK/sampled.log)"
    return
  fi
  : >"$out"
  for i in $(seq "$SAMPLED_RUNS"); do
    for memo in 1 0; do
      GORC_WALK_MEMO=$memo GORC_SAMPLED_US=50 LD_PRELOAD="$GORC_ROOT/runtime/libgorc.so:$so" \
        "$cc1" -quiet -O2 "$src" -o /dev/null 2>&1 | sed -n "s/^gorc-sampled: /$memo /p" >>"$out"
    done
  done
  echo "unwind: sampled: cc1 -O2 compiling runtime/src/walk.c, $SAMPLED_RUNS times per setting (cc1 has no gorc records: walked through its .eh_frame), SIGPROF every 50 us from a helper thread; each sample walked by gorc_backtrace_ucontext and by libunwind's cursor (unw_init_local2 + unw_step), in turns, each timed (bench/unwind/sampled.c)"
  awk '{ n[$1] += $2; fr[$1] += $3; g[$1] += $4; u[$1] += $5; d[$1] += $6; e[$1] += $7 }
    END {
      for (m = 1; m >= 0; m--) {
        if (!n[m]) { printf "unwind:   %s: no samples\n", m ? "memo on" : "memo off"; continue }
        printf "unwind:   %-9s %6d samples, %.1f frames each: gorc %6.0f ns/sample, libunwind %8.0f ns/sample (%.0fx gorc); %d samples differ, %d gorc errors\n",
          m ? "memo on" : "memo off", n[m], fr[m] / n[m], g[m] / n[m], u[m] / n[m], (u[m] / n[m]) / (g[m] / n[m]), d[m], e[m]
      }
    }' "$out"
}

# First use of a module: a generated library with about 100k records.
part_first_use() {
  local gen=$WORK/many-functions.c i
  if stale "$WORK/libmany.so"; then
    {
      echo "int sink_many(int);"
      for i in $(seq 1 15000); do
        echo "__attribute__((noinline)) int f$i(int x) { volatile char b[$((16 + i % 64))]; b[x & 15] = (char)x; if (x > $i) return sink_many(x - 1) + b[1]; return b[2] + sink_many(x); }"
      done
      echo "int sink_many(int x) { return x * 3; }"
    } >"$gen"
    "$CC" -O2 -fPIC -shared -fplugin="$plugin" "$gen" -o "$WORK/libmany.so" ||
      { echo "unwind: building libmany.so failed"; return; }
  fi
  local ranges ns_first ns_again ns_hit
  "$CC" -O2 -Wall -Wextra "${inc[@]}" -I"$GORC_ROOT/include" -I"$GORC_ROOT/runtime/src" \
    "$here/first-use.c" "$lib" -ldl -lpthread -o "$WORK/first-use" &&
  ranges=$("$GORC_ROOT/tools/gorc-dump" "$WORK/libmany.so" | head -1 | sed -n 's/.*, \([0-9]*\) ranges.*/\1/p') &&
  read -r ns_first ns_again ns_hit < <("$WORK/first-use" "$WORK/libmany.so" f7500) &&
  awk -v r="$ranges" -v a="$ns_first" -v b="$ns_again" -v c="$ns_hit" 'BEGIN {
    printf "unwind: first lookup in a module with %s ranges (reads its headers, checks its index once): %.1f us; the next lookup of the same address (index bisected in place): %.2f us; from the PC cache: %.1f ns\n", r, a / 1e3, b / 1e3, c }'
}

# ---------------------------------------------------------------- summary

# The aims of issue 15, from this run's figures: "met", "missed", or why
# there is no figure.
summary() {
  awk -v parts="$PARTS" '
    { fig[$1] = $2 }
    # aim TEXT PART FIGURE-KEYS... : the value, or why there is none.
    function value(key) { return (key in fig) ? fig[key] : "" }
    function line(text, part, v, shown, ok) {
      if (index(parts, " " part " ") == 0) { printf "unwind: aim %s: not run (UNWIND_PARTS)\n", text; return }
      if (v == "MISMATCH") { printf "unwind: aim %s: MISMATCH (no figure)\n", text; return }
      if (v == "") { printf "unwind: aim %s: no figure (see above)\n", text; return }
      printf "unwind: aim %s: %s (%s)\n", text, shown, ok ? "met" : "missed"
    }
    function times(r) { return sprintf(r >= 0.1 ? "%.2fx" : "%.2gx", r) }
    # RATIO of two figures A / B, or "" / "MISMATCH".
    function ratio(a, b) {
      if (value(a) == "MISMATCH" || value(b) == "MISMATCH") return "MISMATCH"
      if (value(a) == "" || value(b) == "" || value(b) + 0 <= 0) return ""
      return value(a) / value(b)
    }
    function faster(text, part, slow, fast, bar,   r) {   # slow / fast >= bar
      r = ratio(slow, fast)
      line(text, part, r, times(r), r >= bar)
    }
    function within(text, part, a, b, bar,   r) {        # a / b <= bar
      r = ratio(a, b)
      line(text, part, r, times(r), r <= bar)
    }
    END {
      print "unwind: summary: the aims of issue 15, from the figures above"
      faster("8-frame walk to _start >= 3x faster than unw_backtrace", "walk8",
             "walk8.unw_backtrace.walk", "walk8.gorc_backtrace.walk", 3)
      split("recursive mixed distinct", chains, " ")
      for (c = 1; c <= 3; c++) {
        ch = chains[c]; bar = ch == "recursive" ? 1.5 : 2.5
        within(sprintf("depth 32, %s chain, per frame of the chain <= %.1fx the FP walk", ch, bar), "chains",
               "chain." ch ".gorc_backtrace.frame", "chain." ch ".frame-pointer.frame", bar)
        within(sprintf("depth 32, %s chain, whole walk to _start <= %.1fx the FP walk", ch, bar), "chains",
               ch ".gorc_backtrace.walk", ch ".frame-pointer.walk", bar)
        if (ch != "recursive") {
          v = value("chain." ch ".gorc_backtrace.instructions")
          line(sprintf("depth 32, %s chain, per frame of the chain <= 25 callgrind instructions", ch),
               "callgrind", v, sprintf("%.1f", v), v <= 25)
          v = value(ch ".gorc_backtrace.instructions")
          line(sprintf("depth 32, %s chain, whole walk to _start <= 25 callgrind instructions per frame", ch),
               "callgrind", v, sprintf("%.1f", v), v <= 25)
        }
      }
      within("100 libraries, per frame <= 2x the 30-library walk", "libs",
             "libs100.gorc_backtrace.frame", "libs30.gorc_backtrace.frame", 2)
      faster("100 libraries, faster than unw_backtrace", "libs",
             "libs100.unw_backtrace.walk", "libs100.gorc_backtrace.walk", 1)
      # The same walks with the memo off: what a walk of a stack not walked
      # before pays (a crash trace, the first sample of a new stack).
      print "unwind: without the walk memo (GORC_WALK_MEMO=0: every frame looked up), for comparison:"
      r = ratio("walk8.unw_backtrace.walk", "walk8.gorc_no_memo.walk")
      if (r != "" && r != "MISMATCH")
        printf "unwind:   8-frame walk to _start: %s faster than unw_backtrace\n", times(r)
      for (c = 1; c <= 3; c++) {
        ch = chains[c]
        r = ratio(ch ".gorc_no_memo.walk", ch ".frame-pointer.walk")
        v = value(ch ".gorc_no_memo.instructions")
        if (r != "" && r != "MISMATCH")
          printf "unwind:   depth 32, %s chain, whole walk to _start: %s the FP walk%s\n", ch, times(r),
                 v != "" && v != "MISMATCH" ? sprintf(", %.1f callgrind instructions per frame", v) : ""
      }
      r = ratio("libs100.unw_backtrace.walk", "libs100.gorc_no_memo.walk")
      if (r != "" && r != "MISMATCH")
        printf "unwind:   100 libraries: %s faster than unw_backtrace\n", times(r)
    }' "$FIGURES"
}

# ---------------------------------------------------------------- main

if part chains || part callgrind || part cold; then
  if ! build_chains || ! build_unwind_bench; then
    echo "unwind: failed: building unwind-bench"
    exit 1
  fi
fi
if part walk8 || part cold; then
  build_chain8 || { echo "unwind: failed: building chain8.c"; exit 1; }
fi
part walk8 && part_walk8
if part chains; then
  part_chains_per_frame
  part_chains_whole
fi
part libs && part_libs
part callgrind && part_callgrind
part cold && part_cold
part first-use && part_first_use
part sampled && part_sampled
summary
exit 0
