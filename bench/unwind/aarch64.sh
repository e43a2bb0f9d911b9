#!/bin/bash
# make bench, the aarch64 walks (when the cross tools are installed):
# bench/unwind's walk8 chain (main -> f1 -> f2 -> f3 -> leaf) and its
# depth-32 chains (recursive, mixed, distinct), cross-built with the
# aarch64 plugin (-O2 -fomit-frame-pointer) and walk-to-start.c built
# -DWALK_LIBGCC, run under qemu-user: the whole walk to _start by
# gorc_backtrace and by libgcc's _Unwind_Backtrace (the cross
# toolchain's; libunwind for arm64 is not installed here, and 1.6 crashes
# on signed return addresses), both in the same process, interleaved,
# each walk checked against libgcc's before it is timed.  Prints ns per
# walk (the median over WALK_REPS processes of the median over 9 stack
# placements) and the ratio libgcc / gorc, for each emulated CPU of
# QEMU_CPUS: qemu's default "max" computes pointer authentication with
# the architected QARMA5 cipher in software, microseconds per paciasp or
# autiasp, and libgorc is built with -mbranch-protection=standard, so
# every signed function it runs pays that; "max,pauth-impdef=on" runs
# the same instructions with qemu's cheap implementation-defined cipher.
#
# Environment: GORC_ROOT, BENCH_WORK as for bench/run.sh; AARCH64_CC
# (default aarch64-linux-gnu-gcc-12), WALK_REPS (default 3), QEMU
# (default qemu-aarch64 -L /usr/aarch64-linux-gnu), QEMU_CPUS (default
# "max max,pauth-impdef=on").
set -u
export LC_ALL=C
GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc-12}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}/unwind-aarch64
WALK_REPS=${WALK_REPS:-3}
read -r -a QEMU <<<"${QEMU:-qemu-aarch64 -L /usr/aarch64-linux-gnu}"
read -r -a CPUS <<<"${QEMU_CPUS:-max max,pauth-impdef=on}"
here=$GORC_ROOT/bench/unwind
major=$("$CC" -dumpversion 2>/dev/null | cut -d. -f1)
plugin=$GORC_ROOT/plugin/gcc-$major-aarch64/gorc.so
lib=$GORC_ROOT/runtime/aarch64/libgorc.a
mkdir -p "$WORK"

if [ ! -f "$plugin" ] || [ ! -f "$lib" ] || ! command -v "${QEMU[0]}" >/dev/null; then
  echo "unwind-aarch64: skipped: needs $CC, $plugin, $lib (make ARCH=aarch64, make runtime-aarch64) and ${QEMU[0]}"
  exit 0
fi

flags=(-O2 -fomit-frame-pointer -fno-ipa-icf -fplugin="$plugin")

# build OUT ENTRY DEPTH CHAIN_OBJ: walk-to-start over ENTRY(DEPTH).
build() {
  "$CC" "${flags[@]}" -Wall -Wextra -DWALK_LIBGCC -I"$GORC_ROOT/runtime/include" \
    -DCHAIN_ENTRY="$2" -DCHAIN_DEPTH="$3" -c "$here/walk-to-start.c" -o "$1.o" &&
  "$CC" -o "$1" "$1.o" "$4" "$lib" -ldl
}

if ! { "$CC" "${flags[@]}" -c "$here/chain8.c" -o "$WORK/chain8.o" &&
       "$CC" "${flags[@]}" -DCHAIN_NAME=chain_nofp -DMIXED_NAME=mixed_nofp \
         -DDISTINCT_NAME=distinct_nofp -c "$here/chain.c" -o "$WORK/chain.o" &&
       build "$WORK/walk-walk8" f1 3 "$WORK/chain8.o" &&
       build "$WORK/walk-recursive" chain_nofp 32 "$WORK/chain.o" &&
       build "$WORK/walk-mixed" mixed_nofp 32 "$WORK/chain.o" &&
       build "$WORK/walk-distinct" distinct_nofp 32 "$WORK/chain.o"; }; then
  echo "unwind-aarch64: failed: building the walks"
  exit 1
fi

echo "unwind-aarch64: the whole walk to _start, cross-built (-O2 -fomit-frame-pointer, the plugin), under ${QEMU[*]}: gorc_backtrace vs libgcc's _Unwind_Backtrace (the cross toolchain's; libunwind for arm64 is not installed here), same process, interleaved; median of $WALK_REPS processes x 9 stack placements"
echo "unwind-aarch64: what the emulation does to the figure: qemu-user translates the aarch64 code into x86-64 code block by block, so these are not hardware times, and it does not cost every instruction alike: only the ratio of the two unwinders in the same emulated process counts, and it is qemu's ratio, not an aarch64 core's. Above all, under qemu's default CPU (max) every paciasp/autiasp computes the QARMA5 cipher in software (microseconds each); libgorc is built with -mbranch-protection=standard, so the figures with max,pauth-impdef=on (the same instructions, qemu's cheap cipher) are the ones that compare the unwinders"
for cpu in "${CPUS[@]}"; do
for label in walk8 recursive mixed distinct; do
  out=$WORK/$label.$cpu.txt
  : >"$out"
  for _ in $(seq "$WALK_REPS"); do
    "${QEMU[@]}" -cpu "$cpu" "$WORK/walk-$label" 60 >>"$out" 2>&1 ||
      echo "unwind-aarch64: $label: walk-$label failed: $(tail -n 1 "$out")"
  done
  awk -v label="$label" -v cpu="$cpu" '
    $2 == "MISMATCH" { bad[$1] = $0; next }
    NF == 3 { frames = $2; ns[$1, ++n[$1]] = $3 }
    function median(m,   i, j, t, k, a) {
      k = n[m]
      for (i = 1; i <= k; i++) a[i] = ns[m, i]
      for (i = 2; i <= k; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      if ("gorc_backtrace" in bad || "_Unwind_Backtrace" in bad) {
        printf "unwind-aarch64: -cpu %s %-9s MISMATCH -- NO FIGURE: %s %s\n", cpu, label,
          bad["gorc_backtrace"], bad["_Unwind_Backtrace"]
        exit
      }
      if (!n["gorc_backtrace"] || !n["_Unwind_Backtrace"]) {
        printf "unwind-aarch64: -cpu %s %-9s no figure (the runs failed)\n", cpu, label
        exit
      }
      g = median("gorc_backtrace"); u = median("_Unwind_Backtrace")
      printf "unwind-aarch64: -cpu %-19s %-9s %3d frames: gorc_backtrace %9.1f ns/walk, _Unwind_Backtrace %9.1f ns/walk: _Unwind_Backtrace / gorc_backtrace = %.2fx\n",
        cpu, label, frames, g, u, u / g
    }' "$out"
done
done
