#!/bin/bash
# gorc's libFuzzer targets: built, seeded from files made here, run for a
# set time each, and counted.  `make fuzz` runs all of them for
# FUZZ_SECONDS each; gorc.tools/fuzz.exp runs the foreign-file ones for
# GORC_FUZZ_TIME seconds in make check (docs/FUZZING.md).
#
#   scripts/fuzz.sh [-t SECONDS] [-o DIR] [TARGET...]
#
# Targets (default: all):
#   fuzz_ehframe   libgorc's .eh_frame lookup     testsuite/gorc.runtime/ehframe/
#   fuzz_records   the record decoder             testsuite/gorc.runtime/ehframe/
#   fuzz_elf       the tools' ELF reading         testsuite/gorc.tools/fuzz/
#   fuzz_elfsym    the crash handler's symbols    testsuite/gorc.tools/fuzz/
#   fuzz_perfdata  gorc-prof's perf.data reader   testsuite/gorc.tools/fuzz/
# Seeds: a program (tools/robustness-prog.c), its object and a shared library built here with $CC's
# plugin (and a stripped copy with a .gnu_debuglink to its debug file),
# libgcc_s's .eh_frame, and a perf.data recorded here with perf (-g and
# --call-graph dwarf) when perf can record; a minimal header otherwise.
# Crash inputs are kept in DIR as crash-TARGET-* (only this run's are counted).
# One line per target, "fuzz: TARGET: N executions, M crashes (S s)", then
# "fuzz: total: N executions over K targets, M crashes".  Exit status 0
# when nothing crashed, 1 when something did, 77 when clang cannot build
# libFuzzer targets here (the line says why).

set -u
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
out=$root/fuzz
while getopts "t:o:" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS] [-o DIR] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_ehframe fuzz_records fuzz_elf fuzz_elfsym fuzz_perfdata)
CC=${CC:-gcc}
mkdir -p "$out" || exit 2
cd "$out" || exit 2
out=$(pwd)

clang=
for c in clang clang-14; do command -v $c >/dev/null && { clang=$c; break; }; done
flags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 -std=gnu11
       -I"$root/include")
if [ -z "$clang" ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' \
     | $clang -x c "${flags[@]}" - -o probe >/dev/null 2>&1; then
  echo "fuzz: unsupported: no clang with -fsanitize=fuzzer (install clang)"
  exit 77
fi

eh=$root/testsuite/gorc.runtime/ehframe
fz=$root/testsuite/gorc.tools/fuzz
tool_lib=("$root"/tools/lib/{common,elfload,mapped,symtab,gopclntab,arch,arch-x86_64,arch-aarch64}.c)

# build TARGET: the fuzzer binary $out/TARGET (kept while no source of
# gorc is newer); 0 or 1 with the compiler's messages in TARGET.build.log.
build() {
  local srcs dirs
  case $1 in
  fuzz_ehframe|fuzz_records) dirs=("$root/runtime/src" "$eh") ;;
  fuzz_elfsym) dirs=("$root/runtime/src" "$fz") ;;
  fuzz_elf) dirs=("$root/tools/lib" "$fz") ;;
  *) dirs=("$root/tools" "$fz") ;;
  esac
  [ -x "$1" ] && [ -z "$(find "$root/include" "${dirs[@]}" -name '*.[ch]' -newer "$1" -print \
                           -quit)" ] && return 0
  case $1 in
  fuzz_ehframe) srcs=(-I"$root/runtime/include" -I"$root/runtime/src" -I"$eh"
                      -I"$root/testsuite/gorc.runtime/support" "$eh/fuzz_ehframe.c"
                      "$eh/eh-lookup.c") ;;
  fuzz_records) srcs=("$eh/fuzz_records.c") ;;
  fuzz_elfsym) srcs=(-I"$root/runtime/include" -I"$root/runtime/src" "$fz/fuzz_elfsym.c"
                     "$root/runtime/src/elfsym.c") ;;
  fuzz_elf) srcs=(-I"$root/tools/lib" "$fz/fuzz_elf.c" "${tool_lib[@]}" -lelf -ldw) ;;
  fuzz_perfdata)
    [ -f "$root/tools/prof/profile.pb-c.h" ] || { echo "tools/prof/profile.pb-c.h missing: make" \
                                                   >"$1.build.log"; return 1; }
    # gorc-prof's C files, not its BPF programs (*.bpf.c, for the BPF target)
    local prof_c=() f
    for f in "$root"/tools/prof/prof-*.c; do [[ $f == *.bpf.c ]] || prof_c+=("$f"); done
    srcs=(-I"$root/tools/lib" -I"$root/tools/prof" "$fz/fuzz_perfdata.c" "${prof_c[@]}"
          "$root/tools/prof/profile.pb-c.c" "${tool_lib[@]}" -lelf -ldw -lprotobuf-c -lz
          "$($CC -print-file-name=libsupc++.a)") ;;
  *) echo "unknown target $1" >"$1.build.log"; return 1 ;;
  esac
  $clang "${flags[@]}" "${srcs[@]}" -o "$1" >"$1.build.log" 2>&1
}

# The seed files: ELF files made once, then each target's corpus.
make_elf_seeds() {
  [ -d elf-seeds ] && return 0
  mkdir -p elf-seeds.tmp && cd elf-seeds.tmp || return 1
  cp "$root/tools/robustness-prog.c" t.c || return 1
  local plugin=() so
  so=$root/plugin/gcc-$($CC -dumpversion | cut -d. -f1)/gorc.so   # $CC's plugin
  [ -f "$so" ] && plugin=(-fplugin="$so")
  $CC -O2 "${plugin[@]}" -c t.c -o t.o && $CC t.o -o prog \
    && $CC -O2 -fPIC -shared "${plugin[@]}" t.c -o lib.so \
    && objcopy --only-keep-debug prog prog.debug \
    && objcopy --strip-all --add-gnu-debuglink=prog.debug prog stripped || return 1
  cd .. && mv elf-seeds.tmp elf-seeds
}

make_perf_seeds() {
  [ -d perf-seeds ] && return 0
  mkdir -p perf-seeds.tmp && cd perf-seeds.tmp || return 1
  if command -v perf >/dev/null \
     && perf record -q -o dwarf.data -e cpu-clock -c 100000 --call-graph dwarf,512 \
          -- "$out/elf-seeds/prog" >/dev/null 2>&1 \
     && perf record -q -o fp.data -e cpu-clock -c 100000 -g -- "$out/elf-seeds/prog" \
          >/dev/null 2>&1; then
    :
  else
    # "PERFILE2", header size 104, attribute size 136: a start to mutate.
    printf 'PERFILE2\150\0\0\0\0\0\0\0\210\0\0\0\0\0\0\0' >header.data
    head -c 88 /dev/zero >>header.data
  fi
  cd .. && mv perf-seeds.tmp perf-seeds
}

# corpus TARGET: $out/corpus-TARGET with the seeds (kept between runs).
corpus() {
  local c=corpus-$1
  mkdir -p "$c"
  case $1 in
  fuzz_ehframe)
    [ -x malformed ] || $CC -std=gnu11 -O2 -I"$root/include" -I"$root/runtime/include" \
      -I"$root/runtime/src" -I"$eh" -I"$root/testsuite/gorc.runtime/support" \
      "$eh/malformed.c" "$eh/eh-lookup.c" -lelf -o malformed || return 1
    ./malformed -c "$c/seed-prog" elf-seeds/prog >/dev/null 2>&1
    local gcc_s
    gcc_s=$($CC -print-file-name=libgcc_s.so.1)
    [ -f "$gcc_s" ] && ./malformed -c "$c/seed-gcc_s" "$gcc_s" >/dev/null 2>&1 ;;
  fuzz_records)
    objcopy -O binary --only-section=gorc_unwind elf-seeds/prog "$c/seed-prog" ;;
  fuzz_elf)
    cp elf-seeds/prog elf-seeds/t.o elf-seeds/lib.so elf-seeds/stripped "$c/" ;;
  fuzz_elfsym)
    # an address in leaf(), then the file
    local f a
    for f in prog lib.so stripped; do
      a=$(nm "elf-seeds/${f/stripped/prog.debug}" 2>/dev/null | awk '$3 == "leaf" { print $1 }')
      perl -e 'print pack("Q<", hex($ARGV[0]) + 2)' "${a:-1000}" >"$c/seed-$f"
      cat "elf-seeds/$f" >>"$c/seed-$f"
    done ;;
  fuzz_perfdata)
    cp perf-seeds/*.data "$c/" ;;
  esac
}

# run TARGET: its line; 0, or 1 when it crashed.
run() {
  local t=$1 log=$1.log before
  before=$(ls "$out"/crash-"$t"-* 2>/dev/null | wc -l)
  # The targets write their input to a file: tmpfs when there is one.
  local tmp=${TMPDIR:-/tmp}
  [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
  TMPDIR=$tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ./"$t" -max_total_time="$seconds" -print_final_stats=1 -close_fd_mask=3 \
      -artifact_prefix="$out/crash-$t-" "corpus-$t" </dev/null >"$log" 2>&1
  local rc=$? runs crashes
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  crashes=$(($(ls "$out"/crash-"$t"-* 2>/dev/null | wc -l) - before))
  [ $rc -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
  echo "fuzz: $t: ${runs:-0} executions, $crashes crashes ($seconds s)"
  total_runs=$((total_runs + ${runs:-0}))
  total_crashes=$((total_crashes + crashes))
  if [ $rc -ne 0 ]; then
    grep -m 3 -E 'ERROR|runtime error|SUMMARY|deadly signal|Test unit written' "$log" | sed 's/^/  /'
    return 1
  fi
}

total_runs=0 total_crashes=0 ran=0
make_elf_seeds || { echo "fuzz: cannot build the seed programs"; exit 2; }
for t in "${targets[@]}"; do
  if ! build "$t"; then
    echo "fuzz: $t: does not build ($out/$t.build.log):"
    tail -n 5 "$t.build.log" | sed 's/^/  /'
    total_crashes=$((total_crashes + 1))
    continue
  fi
  [ "$t" = fuzz_perfdata ] && make_perf_seeds
  corpus "$t" || { echo "fuzz: $t: cannot make its seeds"; total_crashes=$((total_crashes + 1)); continue; }
  run "$t"
  ran=$((ran + 1))
done
echo "fuzz: total: $total_runs executions over $ran targets, $total_crashes crashes"
[ $total_crashes -eq 0 ]
