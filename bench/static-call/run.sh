#!/bin/bash
# make bench, static calls: ns per call for a direct call, a plain indirect
# call, a retpoline (-mindirect-branch=thunk) and a gorc static call in the
# same retpoline build, as ratios to the direct call of the same run; a
# call site patched in place against its direct twin; then the cost of one
# gorc_static_call_update through the memfd alias and with
# the mprotect fallback (GORC_STATIC_CALL_NO_ALIAS=1), in one run,
# against a system call timed alongside.
set -u
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/static-call
here=$GORC_ROOT/bench/static-call
plugin=$GORC_ROOT/plugin/gorc.so
lib=$GORC_ROOT/runtime/libgorc.a
mkdir -p "$WORK"
if [ ! -f "$lib" ] || [ ! -f "$plugin" ]; then
  echo "static-call: skipped: runtime/libgorc.a or plugin/gorc.so not built"
  exit 0
fi
inc=(-I"$GORC_ROOT/runtime/include")
set -e
"$CC" -O2 -c "$here/target.c" -o "$WORK/target.o"
"$CC" -O2 "${inc[@]}" -DLOOP_SUFFIX=_plain -c "$here/loops.c" -o "$WORK/loops-plain.o"
"$CC" -O2 -mindirect-branch=thunk -fplugin="$plugin" -fplugin-arg-gorc-static-calls "${inc[@]}" \
  -DLOOP_SUFFIX=_retpo -DWITH_STATIC_CALL -c "$here/loops.c" -o "$WORK/loops-retpo.o"
"$CC" -O2 -Wall -Wextra "${inc[@]}" -c "$here/static-call-bench.c" -o "$WORK/static-call-bench.o"
"$CC" -o "$WORK/static-call-bench" "$WORK/static-call-bench.o" "$WORK/loops-plain.o" \
  "$WORK/loops-retpo.o" "$WORK/target.o" "$lib" -pthread
set +e
# The rewrite really happened: no indirect call or thunk in the loop.
if objdump -d "$WORK/loops-retpo.o" | awk '/<static_loop_retpo>:/,/^$/' \
     | grep -Eq 'call +\*|__x86_indirect_thunk'; then
  echo "static-call: FAILED: static_loop_retpo still calls indirectly"
fi
"$WORK/static-call-bench" | sed 's/^/static-call: /'
"$WORK/static-call-bench" update | sed 's/^/static-call: /'
