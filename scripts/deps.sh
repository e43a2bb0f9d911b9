#!/bin/sh
# gorc build and test dependencies on Debian.
#   deps.sh check     exit 0 when everything is present
#   deps.sh install   install what is missing (apt-get; needs root)
set -eu
CC=${CC:-gcc}
major=$($CC -dumpversion | cut -d. -f1)
plugin_dir=$($CC -print-file-name=plugin)

missing=""
need() { # need PACKAGE TEST...
  pkg=$1; shift
  if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
need "gcc-$major-plugin-dev" test -f "$plugin_dir/include/plugin-version.h"
need "g++-$major" command -v "g++-$major"
need dejagnu command -v runtest
need libelf-dev test -f /usr/include/libelf.h
need libdw-dev test -f /usr/include/elfutils/libdw.h
need elfutils command -v eu-readelf
need binutils command -v objcopy
# nongnu libunwind: the oracle of the runtime's sampling tests and a
# reference in make bench (not a dependency of libgorc).  It conflicts with
# LLVM's libunwind-14-dev, which apt then removes.
need libunwind-dev dpkg -s libunwind-dev
need valgrind command -v valgrind
# the drop-in tests: the in-repo project through CMake, make install's
# pkg-config file, the flame graph checked as XML
need cmake command -v cmake
need pkg-config command -v pkg-config
need libxml2-utils command -v xmllint

case "${1:-check}" in
check)
  if [ -n "$missing" ]; then echo "gorc: missing packages:$missing"; exit 1; fi
  echo "gorc: all dependencies present";;
install)
  [ -z "$missing" ] && { echo "gorc: all dependencies present"; exit 0; }
  echo "gorc: installing:$missing"
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing;;
*)
  echo "usage: $0 check|install" >&2; exit 2;;
esac
