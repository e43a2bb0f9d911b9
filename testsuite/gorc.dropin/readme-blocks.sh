#!/bin/sh
# readme-blocks.sh README DIR: writes each code block of README that is
# marked to run in the testsuite (a fence opened with "```sh test") to
# DIR/block-N.sh, N from 1, and prints N (0 when there is none).
set -eu
readme=$1 dir=$2
mkdir -p "$dir"
awk -v dir="$dir" '
  /^```sh test[ \t]*$/ { n++; out = dir "/block-" n ".sh"; printf "" > out; inblock = 1; next }
  inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
  inblock { print > out }
  END { print n + 0; if (inblock) exit 1 }' "$readme"
