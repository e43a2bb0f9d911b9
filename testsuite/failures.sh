#!/bin/sh
# What a failed test printed: failures.sh LOG...
#
# For each "FAIL:" (or XPASS, UNRESOLVED, ERROR) line of a DejaGnu log,
# the lines the log holds since the result before it (the test's own
# output: the commands it ran and why it stopped), at most 60 of them,
# headed by the log's name.  CI prints them at the end of a failed run,
# because a CI machine's logs do not outlive it.  At most 8 a log.
set -u
for log in "$@"; do
  [ -f "$log" ] || continue
  awk -v name="$log" '
    /^(PASS|XFAIL|UNSUPPORTED|UNTESTED|KFAIL): / { n = 0; next }
    /^(FAIL|XPASS|UNRESOLVED|ERROR): / {
      if (shown++ < 8) {
        print "=== " name ": " $0
        for (i = (n > 60 ? n - 60 : 0); i < n; i++) print buf[i % 60]
      }
      n = 0
      next
    }
    { buf[n % 60] = $0; n++ }
  ' "$log"
done
