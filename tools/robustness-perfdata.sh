#!/bin/bash
# Robustness self-check for gorc-prof --perf-data (the sibling of
# tools/robustness.sh, which does gorc-dump and gorc-check).
#
#   tools/robustness-perfdata.sh [-n FILES] [-s SEED] [-k DIR] [FILE]
#
# FILE (default: a perf.data recorded here with perf record --call-graph
# dwarf of a small program) is copied FILES times (default 300), each copy
# corrupted one way, in turn:
#   bytes     1-8 random bytes anywhere
#   head      1-4 random bytes in the first 4 KB (header, attributes, ids,
#             the first records)
#   field     one 8-byte word of the header or the attributes set to 0,
#             all ones, the file's size or a random value
#   tail      1-4 random bytes in the last 4 KB (the feature sections:
#             build IDs, architecture)
#   cut       the file cut at a random length, maybe a byte changed before
# and gorc-prof -o OUT --stacks=OUT.stacks --perf-data COPY is run on it.
# A failure: a signal (or an exit status above 2), a run longer than 60 s,
# a non-zero exit without a "gorc-prof: " message, an output file
# (OUT.folded, OUT.pb.gz, OUT.svg, OUT.stacks) left after a non-zero
# exit, or one missing after a zero exit.  -k DIR keeps the failing
# copies there.
# Last line: "robustness-perfdata: N files, M failures (A read, B refused)";
# exit status 0 iff M is 0, 77 when no perf.data can be recorded here.

set -u
here=$(cd "$(dirname "$0")" && pwd)
prof=$here/gorc-prof
files=300
seed=$$
keep=
while getopts "n:s:k:" opt; do
  case $opt in
    n) files=$OPTARG ;;
    s) seed=$OPTARG ;;
    k) keep=$OPTARG ;;
    *) echo "usage: $0 [-n FILES] [-s SEED] [-k DIR] [FILE]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -x "$prof" ] || { echo "robustness-perfdata: $prof not built" >&2; exit 2; }

# tmpfs when there is one: every copy is written, read and its outputs
# removed.
tmp=${TMPDIR:-/tmp}
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
work=$(mktemp -d "$tmp/gorc-robust-pd.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -gt 0 ]; then
  cp "$1" "$work/orig.data" || exit 2
else
  CC=${CC:-gcc}
  cat >"$work/t.c" <<'EOF'
__attribute__((noinline)) static unsigned long leaf(unsigned long x) { return x * 2654435761u + 1; }
__attribute__((noinline)) static unsigned long chain(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += leaf(i ^ s);
  return s;
}
int main(void) { return chain(20000000) == 42; }
EOF
  $CC -O2 -g "$work/t.c" -o "$work/t" || exit 2
  if ! command -v perf >/dev/null \
     || ! perf record -q -o "$work/orig.data" -e cpu-clock -c 500000 --call-graph dwarf,1024 \
            -- "$work/t" >"$work/perf.log" 2>&1; then
    echo "robustness-perfdata: unsupported: perf record cannot record here:" \
         "$(tail -n 1 "$work/perf.log" 2>/dev/null)"
    exit 77
  fi
fi
"$prof" -q -o "$work/orig" --perf-data "$work/orig.data" >/dev/null 2>"$work/err" \
  || { cat "$work/err"; echo "robustness-perfdata: the uncorrupted file is not read" >&2; exit 2; }

# corrupt KIND I: $work/m.data, a corrupted copy of orig.data (perl: one
# process a copy; its random numbers seeded by SEED and I).
corrupt() {
  perl -e '
    my ($kind, $seed, $in, $out) = @ARGV;
    srand($seed);
    local $/; open(my $f, "<:raw", $in) or die; my $d = <$f>; close $f;
    my $n = length $d;
    my $poke = sub { my ($lo, $hi) = @_; $hi = $n if $hi > $n; $lo = 0 if $lo < 0;
                     substr($d, $lo + int(rand($hi - $lo)), 1) = chr(int(rand(256))); };
    if ($kind eq "bytes") { $poke->(0, $n) for 1 .. 1 + int(rand(8)); }
    elsif ($kind eq "head") { $poke->(0, 4096) for 1 .. 1 + int(rand(4)); }
    elsif ($kind eq "tail") { $poke->($n - 4096, $n) for 1 .. 1 + int(rand(4)); }
    elsif ($kind eq "field") {
      my $at = 8 * int(rand(($n < 512 ? $n : 512) / 8));
      my @v = (0, -1, $n, int(rand(2**32)) * 2**16 + int(rand(2**16)), 1 + int(rand(64)));
      substr($d, $at, 8) = pack("Q<", $v[int(rand(@v))]);
    } else {
      my $cut = int(rand($n));
      $d = substr($d, 0, $cut);
      substr($d, int(rand($cut)), 1) = chr(int(rand(256))) if $cut && rand() < 0.5;
    }
    open(my $o, ">:raw", $out) or die; print $o $d; close $o;
  ' "$1" "$((seed * 100003 + $2))" "$work/orig.data" "$work/m.data"
}

kinds=(bytes head field tail cut)
out=$work/out
failures=0 read=0 refused=0
for ((i = 0; i < files; i++)); do
  kind=${kinds[$((i % ${#kinds[@]}))]}
  corrupt "$kind" "$i" || { echo "robustness-perfdata: cannot write a copy" >&2; exit 2; }
  rm -f "$out".*
  timeout 60 "$prof" -q -o "$out" --stacks="$out.stacks" --perf-data "$work/m.data" \
    >/dev/null 2>"$work/err"
  rc=$?
  left=$(ls "$out".folded "$out".pb.gz "$out".svg "$out".stacks 2>/dev/null | wc -l)
  why=
  if [ $rc -eq 124 ]; then
    why="ran longer than 60 s"
  elif [ $rc -gt 2 ]; then
    why="exit status $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))")"
  elif [ $rc -ne 0 ] && ! grep -q '^gorc-prof: ' "$work/err"; then
    why="exit status $rc without a message"
  elif [ $rc -ne 0 ] && [ "$left" -ne 0 ]; then
    why="exit status $rc with $left output file(s) left"
  elif [ $rc -eq 0 ] && [ "$left" -ne 4 ]; then
    why="exit status 0 with $left of 4 output files"
  fi
  if [ $rc -eq 0 ]; then read=$((read + 1)); else refused=$((refused + 1)); fi
  if [ -n "$why" ]; then
    failures=$((failures + 1))
    echo "robustness-perfdata: copy $i ($kind, seed $seed): $why"
    sed -n '1,3s/^/  /p' "$work/err"
    [ -n "$keep" ] && mkdir -p "$keep" && cp "$work/m.data" "$keep/copy-$seed-$i.data"
  fi
done
echo "robustness-perfdata: $files files, $failures failures ($read read, $refused refused)"
[ $failures -eq 0 ]
