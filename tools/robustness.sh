#!/bin/bash
# Robustness self-check for tools/gorc-dump and tools/gorc-check.
#
#   tools/robustness.sh [-n ITERATIONS] [-s SEED] [-a] [FILE...]
#
# For each FILE (default: a small program and its object, built here with
# plugin/gorc.so when it exists, else from hand-written records), make
# ITERATIONS (default 200) copies with 1-8 random bytes of its
# gorc_unwind_index and gorc_unwind sections overwritten (with -a, also
# copies with random bytes anywhere in the file: headers, relocations,
# .note.gorc, .eh_frame), run both tools on each copy and fail if an exit
# status is above 2 or a tool dies from a signal.
# GORC_VALGRIND=1 runs the tools under valgrind (status 99 = memory error).
# Last line: "robustness: N runs, M failures"; exit status 0 iff M is 0.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dump=$here/gorc-dump
check=$here/gorc-check
iters=200
seed=$$
anywhere=0
while getopts "n:s:a" opt; do
  case $opt in
    n) iters=$OPTARG ;;
    s) seed=$OPTARG ;;
    a) anywhere=1 ;;
    *) echo "usage: $0 [-n ITERATIONS] [-s SEED] [-a] [FILE...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
RANDOM=$seed

for t in "$dump" "$check"; do
  [ -x "$t" ] || { echo "robustness: $t not built" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gorc-robust.XXXXXX")
trap 'rm -rf "$work"' EXIT

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  CC=${CC:-gcc}
  cp "$here/robustness-prog.c" "$work/t.c" || exit 2
  if [ -f "$root/plugin/gorc.so" ] \
     && $CC -O2 -fplugin="$root/plugin/gorc.so" -c "$work/t.c" -o "$work/t.o" 2>"$work/cc.log" \
     && $CC "$work/t.o" -o "$work/t" 2>>"$work/cc.log"; then
    :
  else
    # Without the plugin: one function with hand-written records.
    cat >"$work/t.s" <<'EOF'
	.text
	.globl main
	.type main,@function
main:
.L0:	.cfi_startproc
	pushq %rbp
.L1:	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	xorl %eax, %eax
	popq %rbp
.L2:	.cfi_def_cfa_offset 8
	.cfi_restore 6
	ret
	.cfi_endproc
.L3:
	.size main, .-main
	.section gorc_unwind_index,"ao",@progbits,.L0
	.p2align 2
	.long .L0-., .Lb-.
	.section gorc_unwind,"ao",@progbits,.L0
.Lb:	.uleb128 ((.L1-.L0)<<3)|4
	.byte 0x49, 0x7c
	.uleb128 ((.L2-.L1)<<3)|4
	.byte 0x21
	.uleb128 ((.L3-.L2)<<3)|0
	.section .note.gorc,"aGR",@note,gorc.module.v2,comdat
	.p2align 2
	.long 5, 24, 1
	.string "gorc"
	.p2align 2
	.long 2, 62
	.hidden __start_gorc_unwind_index
	.hidden __stop_gorc_unwind_index
	.long __start_gorc_unwind_index - .
	.long __stop_gorc_unwind_index - .
	.hidden __start_gorc_unwind
	.hidden __stop_gorc_unwind
	.long __start_gorc_unwind - .
	.long __stop_gorc_unwind - .
	.section .note.GNU-stack,"",@progbits
EOF
    $CC -c "$work/t.s" -o "$work/t.o" && $CC "$work/t.o" -o "$work/t" \
      || { echo "robustness: cannot build a test program" >&2; exit 2; }
  fi
  files=("$work/t" "$work/t.o")
fi

vg=()
if [ "${GORC_VALGRIND:-0}" = 1 ]; then
  vg=(valgrind -q --error-exitcode=99)
fi

runs=0
failures=0

run_tool() { # tool file
  "${vg[@]}" "$1" "$2" >"$work/out" 2>&1
  local rc=$?
  runs=$((runs + 1))
  if [ $rc -gt 2 ]; then
    failures=$((failures + 1))
    echo "robustness: FAIL: $(basename "$1") exited with $rc on $3"
    head -5 "$work/out" | sed 's/^/  /'
    cp "$2" "$work/../gorc-robust-fail.$failures" 2>/dev/null \
      && echo "  input kept as ${TMPDIR:-/tmp}/gorc-robust-fail.$failures"
  fi
}

# "offset size" of every gorc_unwind_index and gorc_unwind section of FILE.
sections_of() {
  readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] *gorc_unwind\(_index\)\?  *[A-Z_]*  *[0-9a-f]*  *\([0-9a-f]*\)  *\([0-9a-f]*\).*/\2 \3/p'
}

rand32() { echo $(( (RANDOM << 15) | RANDOM )); }

for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "robustness: $f: no such file" >&2; exit 2; }
  mapfile -t secs < <(sections_of "$f")
  if [ ${#secs[@]} -eq 0 ]; then
    echo "robustness: $f has no gorc_unwind_index or gorc_unwind section" >&2
    exit 2
  fi
  fsize=$(stat -c %s "$f")
  for ((i = 0; i < iters; i++)); do
    c=$work/c
    cp "$f" "$c"
    nb=$((RANDOM % 8 + 1))
    what=gorc-sections
    if [ $anywhere = 1 ] && [ $((i % 2)) = 1 ]; then
      what=file
    fi
    desc=""
    for ((k = 0; k < nb; k++)); do
      if [ $what = file ]; then
        off=$(( $(rand32) % fsize ))
      else
        s=${secs[$((RANDOM % ${#secs[@]}))]}
        soff=$((16#${s% *}))
        ssz=$((16#${s#* }))
        [ "$ssz" -gt 0 ] || continue
        off=$((soff + $(rand32) % ssz))
      fi
      byte=$((RANDOM % 256))
      printf "$(printf '\\x%02x' $byte)" | dd of="$c" bs=1 seek=$off conv=notrunc status=none
      desc="$desc $(printf '0x%x=%02x' $off $byte)"
    done
    run_tool "$dump" "$c" "$(basename "$f") ($what:$desc)"
    run_tool "$check" "$c" "$(basename "$f") ($what:$desc)"
  done
  # Truncations of the file at random points.
  for ((i = 0; i < iters / 10 + 1; i++)); do
    c=$work/c
    len=$(( $(rand32) % fsize ))
    head -c "$len" "$f" >"$c"
    run_tool "$dump" "$c" "$(basename "$f") (truncated to $len bytes)"
    run_tool "$check" "$c" "$(basename "$f") (truncated to $len bytes)"
  done
done

echo "robustness: $runs runs, $failures failures (seed $seed)"
[ $failures -eq 0 ]
