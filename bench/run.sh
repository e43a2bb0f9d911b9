#!/bin/bash
# make bench: the size of gorc's records against .eh_frame + .eh_frame_hdr
# and against .sframe (binutils' -Wa,--gsframe), and the plugin's compile
# time, for the bundled demo and for real C programs whose sources come from
# Debian's source packages at bench time (nothing is vendored).
#
# Environment:
#   GORC_ROOT     the gorc tree (default: this script's parent directory)
#   CC            the GCC to measure (default gcc); its plugin is
#                 plugin/gcc-N/gorc.so (N its major version), for a cross
#                 compiler plugin/gcc-N-ARCH/gorc.so (CC=aarch64-linux-gnu-gcc-12:
#                 the programs built for aarch64, sizes only), built with
#                 make PLUGIN_CC=$CC if missing
#   BENCH_WORK    download and build directory (default $GORC_ROOT/bench/work)
#   BENCH_CFLAGS  optimisation flags (default -O2)
#   BENCH_ONLY    space-separated subset of: demo sqlite3 lua5.4 zlib bzip2 tinyxml2;
#                 or "unwind": only the stack walks (bench/unwind/run.sh, which
#                 can also be run directly; its UNWIND_PARTS picks parts of it,
#                 e.g. UNWIND_PARTS="walk8 chains libs callgrind" for the
#                 whole-walk figures alone, in under a minute)
#   BENCH_NO_PLUGIN=1  measure without the plugin (records print "no records")
#
# Every C file is compiled twice, without and with -fplugin (timed, same
# flags), to assembly and then assembled.  The plugin's assembly is
# assembled a third time with -Wa,--gsframe for the .sframe size, so the code
# in all three builds is the same.  Records = gorc_unwind +
# gorc_unwind_index + .note.gorc, from
# `readelf -SW` of the linked program.  C programs are built twice more,
# with frame pointers and with records only (-fno-asynchronous-unwind-tables
# -fno-unwind-tables: aarch64 GCC makes synchronous unwind tables by default),
# for the whole-program size (code + unwind data) of the three ways to unwind.
#
# Then bench/startup (start-up with libgorc preloaded, the first walk in
# cc1), bench/unwind (walks), bench/prof and bench/static-call; each can be
# left out with BENCH_SKIP_STARTUP, _UNWIND, _PROF, _STATIC_CALL=1.
#
# A program whose source cannot be had (no deb-src access, no network, a
# build step failing) prints "skipped: REASON" and the run goes on.  Exit
# status: 0 when at least one program has a ratio; 1 when none has; 2 when
# the plugin or the tools cannot be built.

set -u
export LC_ALL=C

GORC_ROOT=${GORC_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
GORC_ROOT=$(cd "$GORC_ROOT" && pwd)
CC=${CC:-gcc}
WORK=${BENCH_WORK:-$GORC_ROOT/bench/work}
CFLAGS=${BENCH_CFLAGS:--O2}
CC_ARCH=$("$CC" -dumpmachine | cut -d- -f1)
PLUGIN=$GORC_ROOT/plugin/gcc-$("$CC" -dumpversion | cut -d. -f1)$([ "$CC_ARCH" = "$(uname -m)" ] || echo "-$CC_ARCH")/gorc.so
ONLY=${BENCH_ONLY:-demo sqlite3 lua5.4 zlib bzip2 tinyxml2}
CXX=${CXX:-$(echo "$CC" | sed 's/gcc/g++/')}  # the same GCC's C++ compiler
OBJCOPY=$("$CC" -print-prog-name=objcopy)  # the target's (the host's cannot read aarch64)
NO_PLUGIN=${BENCH_NO_PLUGIN:-}

mkdir -p "$WORK" || { echo "bench: cannot create $WORK" >&2; exit 2; }

# ---------------------------------------------------------------- plugin

if [ -z "$NO_PLUGIN" ]; then
  if [ ! -f "$PLUGIN" ] || [ ! -x "$GORC_ROOT/tools/gorc-check" ]; then
    echo "bench: building the plugin and tools (make -C $GORC_ROOT all PLUGIN_CC=$CC)"
    if ! make -C "$GORC_ROOT" all PLUGIN_CC="$CC" >"$WORK/make-all.log" 2>&1; then
      tail -n 20 "$WORK/make-all.log" >&2
      echo "bench: the plugin or tools failed to build (log: $WORK/make-all.log)" >&2
      exit 2
    fi
  fi
  PFLAGS="-fplugin=$PLUGIN"
else
  PFLAGS=""
fi

# Only the stack walks: nothing else is built or measured.
if [ "$ONLY" = unwind ]; then
  [ -n "${BENCH_SKIP_UNWIND:-}" ] && exit 0
  GORC_ROOT=$GORC_ROOT CC=$CC BENCH_WORK=$WORK "$GORC_ROOT/bench/unwind/run.sh"
  exit $?
fi

# ---------------------------------------------------------------- helpers

# cpu_time LOG cd DIR CMD...: runs CMD in DIR, then assembles its output
# (the argument after -o, a .s file, into the .o beside it), output to LOG;
# CPU_MS = user + system time of both, in milliseconds.
in_dir() ( cd "$1" && shift && "$@" && "$CC" -c "${*: -1}" -o "$(echo "${*: -1}" | sed 's/\.s$/.o/')" )
cpu_time() {
  local log=$1 dir=$3 tf rc
  shift 3
  local t
  tf=$(mktemp)
  { time in_dir "$dir" "$@" >>"$log" 2>&1 ; } 2>"$tf"
  rc=$?
  read -r t <"$tf"
  rm -f "$tf"
  CPU_MS=$(awk -v t="${t:-0 0}" 'BEGIN { split(t, a, " "); printf "%d", (a[1] + a[2]) * 1000 }')
  return $rc
}
TIMEFORMAT='%3U %3S'

# section_size FILE NAME: decimal size of section NAME (summed over all
# sections of that name), empty when there is none.
section_size() {
  local name _type _addr _off size _rest total="" 
  while read -r name _type _addr _off size _rest; do
    [ "$name" = "$2" ] && total=$(( ${total:-0} + 16#$size ))
  done < <(readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p')
  echo "$total"
}

# code_sums OBJ [NAME]...: checksums of the object's executable sections
# and of the sections NAME (unrelocated bytes: the plugin must not change
# the code); a section that cannot be read says so, so that two objects
# never compare equal by both being unreadable.
code_sums() {
  local name _type _addr _off _size _es flags _rest tmp=$1.code obj=$1 extra=" ${*:2} "
  while read -r name _type _addr _off _size _es flags _rest; do
    case $flags in *X*) ;; *) [[ $extra == *" $name "* ]] || continue;; esac
    if "$OBJCOPY" --dump-section "$name=$tmp" "$obj" /dev/null 2>/dev/null; then
      echo "$name $(cksum <"$tmp")"
    else
      echo "$name unreadable $obj"
    fi
  done < <(readelf -SW "$obj" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p')
  rm -f "$tmp"
}

# code_unwind_size FILE: "CODE UNWIND" in bytes: CODE = the executable
# sections, UNWIND = .eh_frame + .eh_frame_hdr + gorc_unwind +
# gorc_unwind_index + .note.gorc (a section that is not there counts 0).
code_unwind_size() {
  local name _type _addr _off size _es flags _rest code=0 unwind=0
  while read -r name _type _addr _off size _es flags _rest; do
    case $name in
    .eh_frame|.eh_frame_hdr|gorc_unwind|gorc_unwind_index|.note.gorc)
      unwind=$((unwind + 16#$size)); continue;;
    esac
    case $flags in *X*) code=$((code + 16#$size));; esac
  done < <(readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p')
  echo "$code $unwind"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1e3 }'; }

# ---------------------------------------------------------------- sources

# Debian source packages (a private apt configuration with deb-src lines)
# unpacked under $WORK/src: debian_src_fetch PKG sets SRC, or REASON and
# returns 1.
. "$GORC_ROOT/scripts/debian-src.sh" ||
  { echo "bench: cannot read $GORC_ROOT/scripts/debian-src.sh" >&2; exit 2; }
debian_src_init "$WORK"

# ---------------------------------------------------------------- programs
# Each prep_NAME sets SRC, FILES (sources relative to SRC), XFLAGS (extra
# compile flags), LIBS, KIND (exe or shared), VERSION and, for C++, COMPILER;
# or REASON and returns 1.

prep_demo() {
  SRC=$GORC_ROOT/examples
  FILES=(main.c lexer.c parser.c compile.c vm.c report.c util.c)
  XFLAGS=(-fomit-frame-pointer)
  LIBS=()
  KIND=exe
  VERSION="examples/"
}

prep_sqlite3() {
  debian_src_fetch sqlite3 || return 1
  VERSION=$(cat "$WORK/src/sqlite3/.version")
  if [ ! -f "$SRC/sqlite3.c" ] || [ ! -f "$SRC/shell.c" ]; then
    command -v tclsh >/dev/null ||
      { REASON="needs tclsh to generate the amalgamation (apt-get install tcl)"; return 1; }
    # The Debian source is the full tree: generate sqlite3.c and shell.c
    # (machine-independent C, made by tools built for this machine: CC=cc
    # also when CC is a cross compiler).
    if ! (cd "$SRC" && CC=cc ./configure --disable-tcl >"$WORK/sqlite3-configure.log" 2>&1 &&
          make -j2 sqlite3.c shell.c >"$WORK/sqlite3-amalgamation.log" 2>&1); then
      REASON="generating the amalgamation failed (see $WORK/sqlite3-*.log)"
      return 1
    fi
  fi
  FILES=(sqlite3.c shell.c)
  XFLAGS=(-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I.)
  LIBS=(-lm)
  KIND=exe
  VERSION="$VERSION, amalgamation + shell"
}

prep_lua54() {
  debian_src_fetch lua5.4 || return 1
  VERSION="$(cat "$WORK/src/lua5.4/.version"), interpreter"
  FILES=()
  local f
  for f in "$SRC"/src/*.c; do
    case $f in */luac.c) continue;; esac
    FILES+=("src/${f##*/}")
  done
  [ ${#FILES[@]} -gt 0 ] || { REASON="no src/*.c in the lua5.4 source"; return 1; }
  XFLAGS=(-DLUA_COMPAT_5_3 -DLUA_USE_LINUX)
  LIBS=(-lm -ldl)
  KIND=exe
}

prep_zlib() {
  debian_src_fetch zlib || return 1
  VERSION="$(cat "$WORK/src/zlib/.version"), libz.so"
  FILES=()
  local f
  for f in adler32 crc32 deflate infback inffast inflate inftrees trees zutil \
           compress uncompr gzclose gzlib gzread gzwrite; do
    [ -f "$SRC/$f.c" ] || { REASON="zlib source has no $f.c"; return 1; }
    FILES+=("$f.c")
  done
  XFLAGS=(-fPIC -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN)
  LIBS=()
  KIND=shared
}

prep_tinyxml2() {
  debian_src_fetch tinyxml2 || return 1
  VERSION="$(cat "$WORK/src/tinyxml2/.version"), C++ library + its test program"
  FILES=(tinyxml2.cpp xmltest.cpp)
  XFLAGS=()
  LIBS=()
  KIND=exe
  COMPILER=$CXX
}

prep_bzip2() {
  debian_src_fetch bzip2 || return 1
  VERSION="$(cat "$WORK/src/bzip2/.version"), bzip2 program"
  FILES=(blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c
         bzlib.c bzip2.c)
  XFLAGS=(-D_FILE_OFFSET_BITS=64)
  LIBS=()
  KIND=exe
}

# ---------------------------------------------------------------- measuring

link() { # link OUT OBJS...
  local out=$1; shift
  if [ "$KIND" = shared ]; then
    "$COMPILER" $CFLAGS -shared -o "$out" "$@" "${LIBS[@]}"
  else
    "$COMPILER" $CFLAGS -o "$out" "$@" "${LIBS[@]}"
  fi
}

MEASURED=0
SKIPPED=0
BELOW=0
SUM_GORC=0
SUM_EH=0
SUM_GORC_SF=0   # the programs that have a .sframe too
SUM_SF=0

# measure NAME: builds and prints the lines for one program.
measure() {
  local name=$1 fn=prep_${1//./}
  local SRC="" FILES=() XFLAGS=() LIBS=() KIND=exe VERSION="" REASON="" COMPILER=$CC
  if ! "$fn"; then
    echo "$name: skipped: $REASON"
    SKIPPED=$((SKIPPED + 1))
    return
  fi
  local out=$WORK/build/$name
  rm -rf "$out"
  mkdir -p "$out/base" "$out/gorc" "$out/sframe"
  local t_base=0 t_gorc=0 f o fail="" sframe_fail=""
  local objs_base=() objs_gorc=() objs_sframe=()
  : >"$out/base.log"; : >"$out/gorc.log"; : >"$out/sframe.log"
  for f in "${FILES[@]}"; do
    o=$(echo "${f%.*}" | tr / _)
    # without the plugin
    if ! cpu_time "$out/base.log" cd "$SRC" "$COMPILER" $CFLAGS "${XFLAGS[@]}" -S "$f" -o "$out/base/$o.s"; then
      fail="compiling $f failed without the plugin (see $out/base.log)"
      break
    fi
    t_base=$((t_base + CPU_MS))
    # with the plugin, same flags
    echo "== $f" >>"$out/gorc.log"
    if ! cpu_time "$out/gorc.log" cd "$SRC" "$COMPILER" $CFLAGS "${XFLAGS[@]}" $PFLAGS -S "$f" -o "$out/gorc/$o.s"; then
      fail="the plugin failed on $f: $(grep -m1 -E 'error|internal compiler|Segmentation' "$out/gorc.log" | cut -c1-200)"
      break
    fi
    t_gorc=$((t_gorc + CPU_MS))
    objs_base+=("$out/base/$o.o")
    objs_gorc+=("$out/gorc/$o.o")
    # the same assembly, with SFrame
    if [ -z "$sframe_fail" ]; then
      if "$CC" -c -Wa,--gsframe "$out/gorc/$o.s" -o "$out/sframe/$o.o" >>"$out/sframe.log" 2>&1; then
        objs_sframe+=("$out/sframe/$o.o")
      else
        sframe_fail="as --gsframe failed on $f: $(grep -m1 -iE 'error|fatal' "$out/sframe.log" | cut -c1-120)"
      fi
    fi
  done
  if [ -n "$fail" ]; then
    echo "$name: failed: $fail"
    SKIPPED=$((SKIPPED + 1))
    return
  fi
  local ext=""; [ "$KIND" = shared ] && ext=.so
  local bin_base=$out/$name-base$ext bin=$out/$name$ext bin_sf=$out/$name-sframe$ext
  if ! link "$bin_base" "${objs_base[@]}" >>"$out/base.log" 2>&1 ||
     ! link "$bin" "${objs_gorc[@]}" >>"$out/gorc.log" 2>&1; then
    echo "$name: failed: linking failed (see $out/*.log)"
    SKIPPED=$((SKIPPED + 1))
    return
  fi
  if [ -z "$sframe_fail" ] && ! link "$bin_sf" "${objs_sframe[@]}" >>"$out/sframe.log" 2>&1; then
    sframe_fail="linking the --gsframe objects failed"
  fi

  local ng=$(section_size "$bin" gorc_unwind) nn=$(section_size "$bin" .note.gorc)
  local ni=$(section_size "$bin" gorc_unwind_index)
  local eh=$(section_size "$bin" .eh_frame) hdr=$(section_size "$bin" .eh_frame_hdr)
  local text=$(section_size "$bin" .text)
  local sf=""
  [ -z "$sframe_fail" ] && sf=$(section_size "$bin_sf" .sframe)
  [ -z "$sframe_fail" ] && [ -z "$sf" ] && sframe_fail="no .sframe section in the linked output"
  local ehsum=$(( ${eh:-0} + ${hdr:-0} ))
  local sf_part
  if [ -n "$sframe_fail" ]; then
    sf_part="sframe n/a ($sframe_fail)"
  fi

  echo "$name: $VERSION; ${#FILES[@]} source files, .text $text B, $KIND"
  if [ -z "$ng" ]; then
    [ -z "$sframe_fail" ] && sf_part="sframe $sf B"
    echo "$name: no records (no gorc_unwind section), eh_frame+hdr $ehsum B; $sf_part"
  else
    local g=$((ng + ${ni:-0} + ${nn:-0}))
    local r=$(ratio "$g" "$ehsum")
    if [ -z "$sframe_fail" ]; then
      sf_part="sframe $sf B, gorc/sframe $(ratio "$g" "$sf")"
      SUM_GORC_SF=$((SUM_GORC_SF + g)); SUM_SF=$((SUM_SF + sf))
    fi
    echo "$name: gorc $g B, eh_frame+hdr $ehsum B, ratio $r; $sf_part"
    MEASURED=$((MEASURED + 1))
    SUM_GORC=$((SUM_GORC + g)); SUM_EH=$((SUM_EH + ehsum))
    awk -v r="$r" 'BEGIN { exit !(r <= 0.5) }' && BELOW=$((BELOW + 1))
  fi
  echo "$name: compile $(secs $t_base) s CPU without plugin, $(secs $t_gorc) s with, ratio $(ratio "$t_gorc" "$t_base")"

  # Sanity: the plugin must not change code; its records must check out.
  local notes=""
  local differ=0
  for o in "${objs_base[@]}"; do
    o=${o##*/}
    [ "$(code_sums "$out/base/$o")" = "$(code_sums "$out/gorc/$o")" ] || differ=$((differ + 1))
  done
  [ $differ -gt 0 ] && notes="$notes code of $differ objects DIFFERS from the build without the plugin;"
  local nwarn
  nwarn=$(grep -c 'warning:' "$out/gorc.log"); nwarn=${nwarn:-0}
  local nwarn_base
  nwarn_base=$(grep -c 'warning:' "$out/base.log"); nwarn_base=${nwarn_base:-0}
  [ "$nwarn" -gt "$nwarn_base" ] &&
    notes="$notes $((nwarn - nwarn_base)) more warnings with the plugin (see $out/gorc.log);"
  if [ -n "$ng" ] && [ -x "$GORC_ROOT/tools/gorc-check" ]; then
    local chk
    chk=$(timeout 300 "$GORC_ROOT/tools/gorc-check" "$bin" 2>&1 | tail -n1)
    echo "$name: ${chk:-gorc-check printed nothing}"
  fi
  [ -n "$notes" ] && echo "$name: NOTE:$notes"
  measure_size
}

# size_line NAME FP OMIT RECORDS: the whole-program size line; each
# argument "CODE UNWIND" in bytes.
size_line() {
  awk -v name="$1" -v fp="$2" -v om="$3" -v rec="$4" 'BEGIN {
    split(fp, a, " "); split(om, b, " "); split(rec, c, " ")
    t1 = a[1] + a[2]; t2 = b[1] + b[2]; t3 = c[1] + c[2]
    printf "%s: whole-program size (code + unwind data): frame pointers + .eh_frame %d B (%d + %d); ", name, t1, a[1], a[2]
    printf "-fomit-frame-pointer + .eh_frame %d B (%d + %d) = %.3fx; ", t2, b[1], b[2], t2 / t1
    printf "-fomit-frame-pointer, records only %d B (%d + %d) = %.3fx", t3, c[1], c[2], t3 / t1
    printf " (bar: the smallest: %s)\n", (t3 < t1 && t3 < t2) ? "yes" : "NO" }'
}

SIZE_FP="0 0"
SIZE_OMIT="0 0"
SIZE_REC="0 0"
SIZED=0
add_size() { read -r a b <<<"$1"; read -r c d <<<"$2"; echo "$((a + c)) $((b + d))"; }

# measure_size: for a C program, two more builds of the same sources,
# frame pointers with .eh_frame and -fomit-frame-pointer
# -fno-asynchronous-unwind-tables with the plugin (records only), against
# the base build (-fomit-frame-pointer, as at -O2, with .eh_frame); prints their
# code + unwind data.  The records-only build must have the same code and
# records as the plugin build that gorc-check checked.  Uses measure's
# variables (name, SRC, FILES, XFLAGS, LIBS, KIND, out, objs_gorc, bin_base).
measure_size() {
  if [ -z "$PFLAGS" ]; then
    echo "$name: whole-program size: skipped: no plugin (BENCH_NO_PLUGIN)"
    return
  fi
  if [ "$COMPILER" != "$CC" ]; then
    echo "$name: whole-program size: skipped: C++ (its exceptions need .eh_frame)"
    return
  fi
  # The base and plugin builds are the -fomit-frame-pointer ones compared.
  if ! "$CC" $CFLAGS "${XFLAGS[@]}" -Q --help=optimizers 2>/dev/null |
       grep -q -- '-fomit-frame-pointer[[:space:]]*\[enabled\]'; then
    echo "$name: whole-program size: skipped: CFLAGS $CFLAGS keep the frame pointer"
    return
  fi
  mkdir -p "$out/fp" "$out/rec"
  : >"$out/fp.log"; : >"$out/rec.log"
  local f o objs_fp=() objs_rec=() differ=0
  for f in "${FILES[@]}"; do
    o=$(echo "${f%.*}" | tr / _)
    if ! (cd "$SRC" && "$CC" $CFLAGS "${XFLAGS[@]}" -fno-omit-frame-pointer -c "$f" \
            -o "$out/fp/$o.o") >>"$out/fp.log" 2>&1 ||
       ! (cd "$SRC" && "$CC" $CFLAGS "${XFLAGS[@]}" -fomit-frame-pointer \
            -fno-asynchronous-unwind-tables -fno-unwind-tables $PFLAGS -c "$f" \
            -o "$out/rec/$o.o") >>"$out/rec.log" 2>&1; then
      echo "$name: whole-program size: failed: compiling $f (see $out/fp.log, $out/rec.log)"
      return
    fi
    objs_fp+=("$out/fp/$o.o")
    objs_rec+=("$out/rec/$o.o")
    [ "$(code_sums "$out/rec/$o.o" gorc_unwind)" = "$(code_sums "$out/gorc/$o.o" gorc_unwind)" ] ||
      differ=$((differ + 1))
  done
  local ext=""; [ "$KIND" = shared ] && ext=.so
  if ! link "$out/$name-fp$ext" "${objs_fp[@]}" >>"$out/fp.log" 2>&1 ||
     ! link "$out/$name-records$ext" "${objs_rec[@]}" >>"$out/rec.log" 2>&1; then
    echo "$name: whole-program size: failed: linking (see $out/fp.log, $out/rec.log)"
    return
  fi
  local fp omit rec
  fp=$(code_unwind_size "$out/$name-fp$ext")
  omit=$(code_unwind_size "$bin_base")
  rec=$(code_unwind_size "$out/$name-records$ext")
  size_line "$name" "$fp" "$omit" "$rec"
  if [ $differ -eq 0 ]; then
    echo "$name: records only: code and gorc_unwind identical to the plugin build's, object for object (so the gorc-check above holds for it)"
  else
    echo "$name: records only: NOTE: code or gorc_unwind of $differ objects DIFFERS from the plugin build's"
  fi
  SIZE_FP=$(add_size "$SIZE_FP" "$fp")
  SIZE_OMIT=$(add_size "$SIZE_OMIT" "$omit")
  SIZE_REC=$(add_size "$SIZE_REC" "$rec")
  SIZED=$((SIZED + 1))
}

echo "gorc bench: $CC $($CC -dumpversion) ($CC_ARCH), $("$("$CC" -print-prog-name=as)" --version | head -n1), CFLAGS $CFLAGS${PFLAGS:+ $PFLAGS}"
crt=""
printf 'int main(void) { return 0; }\n' >"$WORK/empty.c"
if "$CC" $CFLAGS "$WORK/empty.c" -o "$WORK/empty" 2>/dev/null; then
  crt=$(( $(section_size "$WORK/empty" .eh_frame) + $(section_size "$WORK/empty" .eh_frame_hdr) ))
fi
echo "records = gorc_unwind + gorc_unwind_index + .note.gorc; eh_frame+hdr = .eh_frame + .eh_frame_hdr, including the C runtime's (${crt:-?} B for an empty main); bar: ratio <= 0.5"
echo "whole-program size = executable sections + .eh_frame + .eh_frame_hdr + gorc_unwind + gorc_unwind_index + .note.gorc of the linked C program (the C runtime's .eh_frame in all three builds)"
echo "compile = CPU time (user + sys) of cc1 + as over all source files, same flags, without and with the plugin"
for p in $ONLY; do
  case $p in
  demo|sqlite3|lua5.4|zlib|bzip2|tinyxml2) measure "$p";;
  *) echo "$p: skipped: unknown program (known: demo sqlite3 lua5.4 zlib bzip2 tinyxml2)"; SKIPPED=$((SKIPPED + 1));;
  esac
done
[ "$SIZED" -gt 0 ] && size_line "$SIZED C programs together" "$SIZE_FP" "$SIZE_OMIT" "$SIZE_REC"
# Start-up with libgorc preloaded against without; the first walk in cc1.
[ -n "${BENCH_SKIP_STARTUP:-}" ] || GORC_ROOT=$GORC_ROOT CC=$CC BENCH_WORK=$WORK "$GORC_ROOT/bench/startup/run.sh"
# Stack walks: gorc vs frame pointers, glibc, libgcc and libunwind.
[ -n "${BENCH_SKIP_UNWIND:-}" ] || GORC_ROOT=$GORC_ROOT CC=$CC BENCH_WORK=$WORK "$GORC_ROOT/bench/unwind/run.sh"
[ -n "${BENCH_SKIP_PROF:-}" ] || GORC_ROOT=$GORC_ROOT CC=$CC BENCH_WORK=$WORK "$GORC_ROOT/bench/prof/run.sh"
# Static calls: a call through a trampoline vs direct, indirect, retpoline.
[ -n "${BENCH_SKIP_STATIC_CALL:-}" ] || GORC_ROOT=$GORC_ROOT CC=$CC BENCH_WORK=$WORK "$GORC_ROOT/bench/static-call/run.sh"
if [ "$MEASURED" -gt 0 ]; then
  echo "bench: $MEASURED programs measured, $SKIPPED skipped; ratio <= 0.5 for $BELOW of $MEASURED; all together gorc $SUM_GORC B, eh_frame+hdr $SUM_EH B, ratio $(ratio $SUM_GORC $SUM_EH); against .sframe (where built) gorc $SUM_GORC_SF B, sframe $SUM_SF B, ratio $(ratio $SUM_GORC_SF $SUM_SF)"
  exit 0
fi
echo "bench: no program has a records ratio ($SKIPPED skipped)"
exit 1
