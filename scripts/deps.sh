#!/bin/sh
# gorc build and test dependencies on Debian.
#   deps.sh check     exit 0 when everything is present
#   deps.sh install   install what is missing (apt-get; needs root)
#
# The plugin's headers and C++ compiler for $CC (default gcc), for
# $PLUGIN_CC when given (make PLUGIN_CC=...), and GCC 11: the second
# supported GCC, which `make check GORC_CC=gcc-11` and CI test against
# (wanted where the distribution has it: Debian 12 does).
#
# Optional: the aarch64 cross compiler of $CC's version, its plugin
# headers, binutils, libc, libsupc++ (libgorc's demangler) and qemu-user
# (the aarch64 tests, make ARCH=aarch64, make runtime-aarch64).
# `install` installs them where the distribution has them; `check` does
# not ask for them, so a machine without them still builds and tests
# (the aarch64 tests are then UNSUPPORTED).
set -eu
CC=${CC:-gcc}
SECOND_GCC=11

missing=""
need() { # need PACKAGE TEST...
  pkg=$1; shift
  if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
# need_gcc DRIVER: the plugin headers and g++ of the GCC DRIVER runs
need_gcc() {
  major=$($1 -dumpversion 2>/dev/null | cut -d. -f1) || return 0
  [ -n "$major" ] || return 0
  need "gcc-$major-plugin-dev" test -f "$($1 -print-file-name=plugin)/include/plugin-version.h"
  need "g++-$major" command -v "g++-$major"
}
need_gcc "$CC"
[ -n "${PLUGIN_CC:-}" ] && need_gcc "$PLUGIN_CC"
second_pkgs="gcc-$SECOND_GCC g++-$SECOND_GCC gcc-$SECOND_GCC-plugin-dev"
second_known() { apt-cache show $second_pkgs >/dev/null 2>&1; }
if command -v "gcc-$SECOND_GCC" >/dev/null 2>&1; then
  need_gcc "gcc-$SECOND_GCC"
elif second_known; then
  missing="$missing $second_pkgs"
fi
need dejagnu command -v runtest
need libelf-dev test -f /usr/include/libelf.h
need libdw-dev test -f /usr/include/elfutils/libdw.h
need elfutils command -v eu-readelf
# gorc-check decodes instructions where the records differ from GCC's CFI
# on purpose (docs/FORMAT.md)
need libcapstone-dev test -f /usr/include/capstone/capstone.h
need binutils command -v objcopy
# nongnu libunwind: the oracle of the runtime's sampling tests and a
# reference in make bench (not a dependency of libgorc).  It conflicts with
# LLVM's libunwind-14-dev, which apt then removes.
# (Asked for the native one: with another architecture's installed too,
# a bare package name is ambiguous to dpkg.)
need libunwind-dev dpkg -s "libunwind-dev:$(dpkg --print-architecture)"
need valgrind command -v valgrind
# the drop-in tests: the in-repo project through CMake, make install's
# pkg-config file, the flame graph checked as XML
need cmake command -v cmake
need pkg-config command -v pkg-config
need libxml2-utils command -v xmllint
# gorc-prof: perf events (perf itself is the reference of its perf.data
# test and of make bench), pprof output encoded with protobuf-c from
# pprof's own profile.proto, gzipped with zlib, read back by go tool pprof
need linux-perf command -v perf
need golang-go command -v go
need libprotobuf-c-dev test -f /usr/include/protobuf-c/protobuf-c.h
need protobuf-c-compiler command -v protoc-c
need golang-github-google-pprof-dev test -f /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
need zlib1g-dev test -f /usr/include/zlib.h
# gorc-prof's tests watch its system calls under strace: the files it
# opens, its scheduling policy, its polls
need strace command -v strace

cc_major=$($CC -dumpversion 2>/dev/null | cut -d. -f1) || cc_major=
aarch64_missing=""
want_aarch64() { # want_aarch64 PACKAGE TEST...
  pkg=$1; shift
  if ! "$@" >/dev/null 2>&1; then aarch64_missing="$aarch64_missing $pkg"; fi
}
if [ -n "$cc_major" ]; then
  a64cc=aarch64-linux-gnu-gcc-$cc_major
  want_aarch64 "gcc-$cc_major-aarch64-linux-gnu" command -v "$a64cc"
  want_aarch64 "gcc-$cc_major-plugin-dev-aarch64-linux-gnu" \
    test -f "$($a64cc -print-file-name=plugin 2>/dev/null)/include/plugin-version.h"
  want_aarch64 binutils-aarch64-linux-gnu command -v aarch64-linux-gnu-as
  want_aarch64 libc6-dev-arm64-cross test -f /usr/aarch64-linux-gnu/include/stdio.h
  want_aarch64 qemu-user command -v qemu-aarch64
  want_aarch64 "libstdc++-$cc_major-dev-arm64-cross" \
    test -f "$($a64cc -print-file-name=libsupc++.a 2>/dev/null)"
fi
aarch64_known() { apt-cache show $aarch64_missing >/dev/null 2>&1; }

# Optional: gorc-prof's in-kernel unwinder (--unwind=bpf): clang for the
# BPF target, bpftool (its skeleton) and libbpf-dev.  Installed where the
# distribution has them; without them gorc-prof is built without it and
# its tests are UNSUPPORTED.
bpf_missing=""
want_bpf() { # want_bpf PACKAGE TEST...
  pkg=$1; shift
  if ! "$@" >/dev/null 2>&1; then bpf_missing="$bpf_missing $pkg"; fi
}
want_bpf clang command -v clang
want_bpf bpftool sh -c 'command -v bpftool || test -x /usr/sbin/bpftool'
want_bpf libbpf-dev test -f /usr/include/bpf/bpf_helpers.h
bpf_known() { apt-cache show $bpf_missing >/dev/null 2>&1; }

case "${1:-check}" in
check)
  if [ -n "$missing" ]; then echo "gorc: missing packages:$missing"; exit 1; fi
  echo "gorc: all dependencies present";;
install)
  [ -z "$missing$aarch64_missing$bpf_missing" ] && { echo "gorc: all dependencies present"; exit 0; }
  echo "gorc: installing:$missing$aarch64_missing$bpf_missing"
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # Now that the package lists are fresh: the second GCC, if there is one.
  if ! command -v "gcc-$SECOND_GCC" >/dev/null 2>&1 && second_known; then
    case " $missing " in *" gcc-$SECOND_GCC "*) ;; *) missing="$missing $second_pkgs";; esac
  fi
  # The aarch64 tools where the distribution has them (optional).
  # shellcheck disable=SC2086
  if [ -n "$aarch64_missing" ] && aarch64_known; then missing="$missing $aarch64_missing"; fi
  # The BPF tools where the distribution has them (optional).
  # shellcheck disable=SC2086
  if [ -n "$bpf_missing" ] && bpf_known; then missing="$missing $bpf_missing"; fi
  # shellcheck disable=SC2086
  [ -z "$missing" ] || $SUDO apt-get install -y -qq --no-install-recommends $missing;;
*)
  echo "usage: $0 check|install" >&2; exit 2;;
esac
