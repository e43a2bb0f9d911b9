#!/bin/sh
# The main job: the bundled example, built without frame pointers and with
# the plugin, and what gorc recorded for it.
set -eu
cd "$(dirname "$0")/.."
demo=examples/demo
echo "== $demo: built with -O2 -fomit-frame-pointer -fplugin=plugin/gorc.so"
readelf -SW "$demo" | sed -n 's/^ *\[ *[0-9]*\] //p' |
while read -r name _type _addr _off size _rest; do
  case $name in
  gorc_unwind_index|gorc_unwind|.note.gorc|.eh_frame|.eh_frame_hdr) echo "   section $name: $((0x$size)) bytes";;
  esac
done
echo
echo "== tools/gorc-dump --summary $demo"
tools/gorc-dump --summary "$demo"
echo
echo "== tools/gorc-dump $demo: the VM loop (rbp frame, several exits) and its cold part"
tools/gorc-dump "$demo" | awk '/^range / { show = ($3 == "vm_run" || $3 == "vm_run.cold") } show'
echo
echo "== tools/gorc-dump $demo: six saved registers and a 120-byte frame (run), a small function (arena_alloc)"
tools/gorc-dump "$demo" | awk '/^range / { show = ($3 == "arena_alloc" || $3 == "run") } show' | sed -n '1,40p' 
echo
echo "== tools/gorc-check $demo   (every byte against .eh_frame, libdw as oracle)"
tools/gorc-check "$demo"
echo
echo "== examples/demo-sampled: the same program, sampled while it runs (SIGPROF every"
echo "   20 us from a helper thread); each sample walked by libgorc and by libunwind"
examples/demo-sampled 2>&1 >/dev/null | sed 's/^/   /'
echo
echo "== tools/gorc-prof: $demo -q run 100 times (one run is 15 ms), every thread sampled"
echo "   with perf events at -F 1000, each stack walked with the records, in the kernel (BPF)
   where that loads, else from a copy"
tools/gorc-prof -o examples/demo-prof --title='examples/demo -q, 100 runs (make demo)' -- sh -c \
  'i=0; while [ $i -lt 100 ]; do examples/demo -q >/dev/null; i=$((i + 1)); done' 2>&1 | sed 's/^/   /'
echo "   top stacks (innermost 5 frames; count):"
awk '{ print $NF "\t" $0 }' examples/demo-prof.folded | sort -t "$(printf '\t')" -k1,1nr | head -n 5 |
  cut -f2- | awk '{ c = $NF; $NF = ""; n = split($0, f, ";"); s = "";
                    for (i = (n > 5 ? n - 4 : 1); i <= n; i++) s = s (s == "" ? "" : ";") f[i];
                    sub(/ +$/, "", s); printf "   %6d  %s%s\n", c, (n > 5 ? "...;" : ""), s }'
echo "   flame graph: $(pwd)/examples/demo-prof.svg  (folded stacks: examples/demo-prof.folded)"
