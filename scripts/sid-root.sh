#!/bin/bash
# The Debian sid root gorc is tested in for GCC 13 to 16 (docs/GCC_VERSIONS.md).
#   sid-root.sh ensure          make the root, or reuse it when it is complete
#   sid-root.sh run CMD [ARG]...  run CMD in the root (as root), with /proc,
#                               /sys, /dev, /dev/pts and the source tree
#                               mounted for that run only
#   sid-root.sh status          say whether the root is there and complete
#   sid-root.sh copy DIR        copy this source tree (the files git knows,
#                               committed or not; no build output) to DIR
#                               inside the root, emptied first: a build
#                               there touches neither this tree's build
#                               nor another copy's
#   sid-root.sh newest          the newest GCC version of the root
#
# GORC_SID_ROOT: where the root lives (default /var/cache/gorc/sid-root,
# outside any clone, so CI's fresh clones reuse it).  GORC_SID_MIRROR: the
# Debian mirror (default: the one the host's apt uses).
#
# The root is complete when its stamp file names the same package set as
# this script asks for.  debootstrap works in a temporary directory moved
# into place when done, so a build that dies leaves no half-made root; a
# root whose stamp differs gets the missing packages installed.
#
# Mounts live in a private mount namespace (unshare --mount) made for each
# `run`: they vanish with the run, even when it is killed.  A root is never
# deleted while any process on the machine has something mounted inside it,
# and never while a `run` holds the lock (flock, shared for runs, exclusive
# for building).
#
# sid is taken from a snapshot mirror whose Release file can be past its
# Valid-Until: the root's own apt configuration (not the host's) turns that
# check off.
set -euo pipefail

ROOT=${GORC_SID_ROOT:-/var/cache/gorc/sid-root}
LOCK=$ROOT.lock
VERSIONS="13 14 15 16"
SRC=$(cd "$(dirname "$0")/.." && pwd)
# The source tree is visible in the root at this path (read-only).
ROOT_SRC=/gorc/src

die() { echo "sid-root.sh: $*" >&2; exit 1; }

host_mirror() {
  local uri
  uri=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -v security | head -n 1)
  [ -n "$uri" ] || uri=$(sed -n 's/^deb  *\(\[[^]]*\]  *\)\{0,1\}\(http[^ ]*\) .*/\2/p' \
        /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
  echo "${uri:-http://deb.debian.org/debian}"
}
MIRROR=${GORC_SID_MIRROR:-$(host_mirror)}

# The packages beyond deps.sh's: the compilers whose deps.sh runs install
# the rest, and the tools the build, the testsuite and make bench use
# (bench/sframe-v3.sh: xz unpacks Debian's .orig.tar.xz sources, tclsh
# makes sqlite3's amalgamation).
base_packages() {
  local v pkgs="make ca-certificates xz-utils tcl"
  for v in $VERSIONS; do pkgs="$pkgs gcc-$v g++-$v"; done
  echo "$pkgs"
}
# What makes a root complete: the versions, the base packages and deps.sh.
stamp_text() {
  { echo "versions $VERSIONS"; echo "base $(base_packages)"; cat "$SRC/scripts/deps.sh"; } |
    sha256sum | cut -d' ' -f1
}
STAMP=/etc/gorc-sid-root.stamp
is_complete() { [ -f "$ROOT$STAMP" ] && [ "$(cat "$ROOT$STAMP")" = "$(stamp_text)" ]; }

# Anything mounted at or below DIR in any mount namespace of this machine,
# or any process chrooted there (a chrooted process's mountinfo names its
# mounts relative to its root, so the mounts of a `run` show as its
# processes' roots).  The output decides, not the pipeline's status: cat
# fails on processes that exit while it reads.
mounted_below() {
  local dir=$1 found r
  found=$(cat /proc/[0-9]*/mountinfo 2>/dev/null |
          awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print; exit }')
  [ -n "$found" ] && return 0
  for r in /proc/[0-9]*/root; do
    case $(readlink "$r" 2>/dev/null) in "$dir"|"$dir"/*) return 0;; esac
  done
  return 1
}

remove_root_dir() {
  local dir=$1
  [ -e "$dir" ] || return 0
  mounted_below "$dir" && die "$dir has something mounted inside it; not removing it"
  rm -rf --one-file-system "$dir"
}

# in_root DIR CMD...: CMD chrooted in DIR with the pseudo file systems and
# the source tree mounted in a private namespace.
in_root() {
  local dir=$1; shift
  mkdir -p "$dir$ROOT_SRC"
  unshare --mount --propagation private -- /bin/sh -eu -c '
    dir=$1; src=$2; rsrc=$3; shift 3
    mount -t proc proc "$dir/proc"
    mount --rbind /sys "$dir/sys"
    mount --rbind /dev "$dir/dev"
    mountpoint -q "$dir/dev/pts" || mount -t devpts devpts "$dir/dev/pts"
    mount --bind "$src" "$dir$rsrc"
    mount -o remount,bind,ro "$dir$rsrc"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' sid-root "$dir" "$SRC" "$ROOT_SRC" "$@"
}

# debootstrap into a temporary directory, moved into place when done.
bootstrap_root() {
  local tmp=$ROOT.new
  if ! command -v debootstrap >/dev/null; then
    echo "sid-root.sh: installing debootstrap on this machine"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        debootstrap debian-archive-keyring >/dev/null ||
      die "debootstrap is missing and apt-get could not install it"
  fi
  remove_root_dir "$tmp"
  remove_root_dir "$ROOT"
  mkdir -p "$(dirname "$ROOT")"
  echo "sid-root.sh: debootstrap sid from $MIRROR into $ROOT"
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
      sid "$tmp" "$MIRROR" >"$ROOT.log" 2>&1 ||
    { tail -n 20 "$ROOT.log" >&2; die "debootstrap failed (log: $ROOT.log)"; }
  cat >"$tmp/etc/apt/apt.conf.d/99gorc-snapshot" <<'EOF2'
// The mirror is a snapshot: its Release file may be past Valid-Until.
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
EOF2
  mv "$tmp" "$ROOT"
}

# The packages, installed (again) whenever the stamp differs: apt installs
# only what is missing, so a changed deps.sh costs only its new packages.
provision_root() {
  echo "sid-root.sh: installing GCC $VERSIONS and gorc's dependencies in $ROOT"
  in_root "$ROOT" sh -ec "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $(base_packages) >/dev/null
    for v in $VERSIONS; do CC=gcc-\$v $ROOT_SRC/scripts/deps.sh install >/dev/null; done
    for v in $VERSIONS; do CC=gcc-\$v $ROOT_SRC/scripts/deps.sh check; done
    apt-get clean" >>"$ROOT.log" 2>&1 ||
    { tail -n 20 "$ROOT.log" >&2; die "installing the packages failed (log: $ROOT.log)"; }
  stamp_text >"$ROOT$STAMP"
}

ensure() {
  [ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
  is_complete && return 0
  mkdir -p "$(dirname "$LOCK")"
  (
    flock -x 9
    is_complete && exit 0
    [ -f "$ROOT/etc/apt/apt.conf.d/99gorc-snapshot" ] || bootstrap_root
    provision_root
  ) 9>"$LOCK"
  is_complete || die "the root in $ROOT is not complete"
  echo "sid-root.sh: root ready in $ROOT"
}

copy_tree() {
  local dir=$ROOT$1
  case $1 in /build/*) ;; *) die "copy: DIR must be under /build";; esac
  command -v git >/dev/null && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 ||
    die "$SRC is not a git tree (the copy takes git's file list)"
  rm -rf --one-file-system "$dir" && mkdir -p "$dir"
  git -C "$SRC" ls-files -z -co --exclude-standard |
    (cd "$SRC" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$dir" -xf -
}

case "${1:-}" in
ensure) ensure;;
copy)
  [ $# = 2 ] || die "usage: $0 copy /build/NAME"
  is_complete || die "no complete root in $ROOT (run: $0 ensure)"
  copy_tree "$2";;
newest) echo "${VERSIONS##* }";;
run)
  shift
  [ $# -gt 0 ] || die "usage: $0 run CMD [ARG]..."
  [ "$(id -u)" = 0 ] || die "needs root (chroot, mounts)"
  is_complete || die "no complete root in $ROOT (run: $0 ensure)"
  exec 9>"$LOCK"
  flock -s 9
  in_root "$ROOT" "$@";;
status)
  if is_complete; then echo "sid-root.sh: complete root in $ROOT"
  else echo "sid-root.sh: no complete root in $ROOT"; exit 1; fi;;
*)
  echo "usage: $0 ensure | run CMD [ARG]... | status | copy /build/NAME | newest" >&2; exit 2;;
esac
