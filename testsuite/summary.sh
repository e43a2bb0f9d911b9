#!/bin/sh
# Summarize a DejaGnu run: summary.sh OUTDIR
#
# Reads OUTDIR/*.sum and prints, last, exactly "N passed, M failed" where
#   passed = PASS + XFAIL
#   failed = FAIL + XPASS + UNRESOLVED + ERROR (harness errors)
# preceded by a line with the UNSUPPORTED and UNTESTED counts, and those
# by every line that failed, named by its .sum file (so a log that keeps
# only the end still says what failed and where).  Exits 1
# if M > 0 or N == 0 (nothing ran), 2 if there is no .sum file.
set -u
dir=${1:-out}
set -- "$dir"/*.sum
if [ ! -f "$1" ]; then
    echo "summary.sh: no .sum file in $dir" >&2
    echo "0 passed, 0 failed"
    exit 2
fi
count() {
    # Lines "KIND: ..." at the start of a line, over all .sum files.
    cat "$@" | grep -c "^$kind: " || true
}
grep -HE "^(FAIL|XPASS|UNRESOLVED|ERROR): " "$@" || true
kind=PASS; pass=$(count "$@")
kind=XFAIL; xfail=$(count "$@")
kind=FAIL; fail=$(count "$@")
kind=XPASS; xpass=$(count "$@")
kind=UNRESOLVED; unresolved=$(count "$@")
kind=ERROR; error=$(count "$@")
kind=UNSUPPORTED; unsupported=$(count "$@")
kind=UNTESTED; untested=$(count "$@")
passed=$((pass + xfail))
failed=$((fail + xpass + unresolved + error))
echo "PASS $pass, XFAIL $xfail, FAIL $fail, XPASS $xpass, UNRESOLVED $unresolved, ERROR $error"
echo "UNSUPPORTED $unsupported, UNTESTED $untested"
echo "$passed passed, $failed failed"
if [ "$failed" -gt 0 ] || [ "$passed" -eq 0 ]; then
    exit 1
fi
exit 0
