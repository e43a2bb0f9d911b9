# shellcheck shell=bash disable=SC2034  # SRC and REASON are the callers'
# Upstream sources from Debian source packages, fetched at run time (nothing
# is vendored): deb-src lines for the Debian mirrors the machine already
# uses, in a private apt configuration (the system's is not touched), then
# `apt-get source --download-only` and the upstream tarball unpacked.
# Sourced by bench/run.sh and testsuite/projects/run.sh (bash, LC_ALL=C).
#
# Nothing here exits or prints: a package that cannot be had makes a
# function return 1 with the reason in REASON, for the caller to report as
# a skip.
#
# Layout under the directory given to debian_src_init:
#   apt/            the private apt configuration, its lists and cache
#                   (apt/update.log: the last `apt-get update`)
#   dl/PKG/         the files of source package PKG (dl/PKG.log: apt-get's output)
#   src/PKG/        the unpacked tree; src/PKG/.done names its top
#                   directory, src/PKG/.version holds "PKG VERSION"

# debian_src_init DIR: keep the apt configuration, downloads and unpacked
# trees under DIR (see above).  Sets APT_DIR and APT_OPTS (apt-get/apt-cache
# options for the private configuration); forgets an earlier apt set-up.
debian_src_init() {
  DEBIAN_SRC_DIR=$1
  APT_DIR=$1/apt
  APT_OPTS=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list"
            -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
            -o "Dir::State::Lists=$APT_DIR/lists"
            -o "Dir::Cache=$APT_DIR/cache"
            -o "APT::Sandbox::User=root"
            -o "Acquire::Retries=1")
  APT_STATE=""   # "", ok, or a reason it is unusable
}

# debian_src_apt_setup: writes the private apt configuration (deb-src for
# every Debian "deb" line or deb822 stanza in /etc/apt) and runs
# `apt-get update` on it, once per run.  Returns 0 when source indexes are
# there; else 1 with the reason in APT_STATE (also on later calls).
debian_src_apt_setup() {
  [ -n "$APT_STATE" ] && { [ "$APT_STATE" = ok ]; return; }
  command -v apt-get >/dev/null || { APT_STATE="apt-get not found"; return 1; }
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" \
           "$APT_DIR/sources.list.d"
  local mirror='[a-z]+://[^ \t\n]*/debian(-security)?/?([ \t\n]|$)'
  # one-line format
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v m="$mirror" '$1 == "deb" && $0 ~ m { $1 = "deb-src"; print }' \
      >"$APT_DIR/sources.list"
  # deb822 format: every Debian "deb" stanza again as "deb-src"
  local f
  : >"$APT_DIR/sources.list.d/debian-src.sources"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v m="URIs:[ \t]*$mirror" 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && $0 ~ m {
           sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" \
      >>"$APT_DIR/sources.list.d/debian-src.sources"
  done
  [ -s "$APT_DIR/sources.list.d/debian-src.sources" ] ||
    rm -f "$APT_DIR/sources.list.d/debian-src.sources"
  if [ ! -s "$APT_DIR/sources.list" ] && [ ! -f "$APT_DIR/sources.list.d/debian-src.sources" ]; then
    APT_STATE="no Debian mirror found in /etc/apt to add deb-src lines for"
    return 1
  fi
  touch "$APT_DIR/sources.list"
  if ! timeout 300 apt-get "${APT_OPTS[@]}" -q update >"$APT_DIR/update.log" 2>&1 ||
     grep -q '^\(E:\|Err:\)' "$APT_DIR/update.log"; then
    # a partial failure is fine as long as some source index came
    local idx
    for idx in "$APT_DIR"/lists/*Sources*; do
      [ -e "$idx" ] && break
    done
    if [ ! -e "$idx" ]; then
      APT_STATE="no deb-src access ($(grep -m1 '^\(E:\|Err:\)' "$APT_DIR/update.log" | cut -c1-100))"
      return 1
    fi
  fi
  APT_STATE=ok
}

# debian_src_cached PKG: when source package PKG was unpacked by an earlier
# run, sets SRC to its top directory and returns 0; else returns 1.
debian_src_cached() {
  local dir=$DEBIAN_SRC_DIR/src/$1
  SRC=""
  [ -f "$dir/.done" ] || return 1
  SRC=$dir/$(cat "$dir/.done")
}

# debian_src_fetch PKG [components]: sets SRC to the top directory of the
# upstream tarball of source package PKG, unpacked into src/PKG (once;
# later runs reuse it).  The newest version in the index is tried first,
# then the older ones.  With "components", extra upstream tarballs
# (PKG_V.orig-NAME.tar.*, e.g. lua's test suite) are unpacked into the top
# directory too.  Returns 1 with the reason in REASON when PKG cannot be had.
debian_src_fetch() {
  local pkg=$1 components=${2:-}
  local dir=$DEBIAN_SRC_DIR/src/$1 dl=$DEBIAN_SRC_DIR/dl/$1
  local log=$DEBIAN_SRC_DIR/dl/$1.log
  debian_src_cached "$pkg" && return 0
  debian_src_apt_setup || { REASON=$APT_STATE; return 1; }
  rm -rf "$dl" "$dir"
  mkdir -p "$dl" "$dir"
  # The newest version first; if its files are gone from the mirror (a
  # security index ahead of its pool), the older ones.
  local versions v ok=""
  versions=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null |
             awk -v pkg="$pkg" '/^Package: / { p = $2 } /^Version: / && p == pkg { print $2 }' |
             sort -Vr | uniq)
  [ -n "$versions" ] || { REASON="no source package $pkg in the deb-src index"; return 1; }
  for v in $versions; do
    rm -f "$dl"/*
    if (cd "$dl" && timeout 300 apt-get "${APT_OPTS[@]}" -q --download-only \
          source "$pkg=$v" >"$log" 2>&1); then
      ok=$v
      break
    fi
  done
  [ -n "$ok" ] || { REASON="apt-get source $pkg failed ($(grep -m1 '^E:' "$log" | cut -c1-100))"; return 1; }
  # the upstream tarball: not a signature, not a -www documentation one
  local f tarball=""
  for f in "$dl"/*.orig.tar.*; do
    case ${f##*/} in *-www.*|*.asc) continue;; esac
    [ -f "$f" ] && { tarball=$f; break; }
  done
  [ -n "$tarball" ] || { REASON="no upstream tarball in source package $pkg $ok"; return 1; }
  tar -xf "$tarball" -C "$dir" || { REASON="cannot unpack ${tarball##*/}"; return 1; }
  local top
  for top in "$dir"/*; do break; done
  if [ -e "$top" ]; then top=${top##*/}; else top=""; fi
  if [ -n "$components" ]; then
    for f in "$dl"/*.orig-*.tar.*; do
      [ -f "$f" ] || continue
      case $f in *.asc) continue;; esac
      tar -xf "$f" -C "$dir/$top" 2>/dev/null || true
    done
  fi
  echo "$top" >"$dir/.done"
  echo "$pkg $ok" >"$dir/.version"
  SRC=$dir/$top
}
