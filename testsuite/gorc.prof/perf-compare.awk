# Compare gorc-prof's stacks (--stacks FILE) with perf script's of the
# same perf.data (perf script --ns --no-inline -F tid,time,ip,sym,dso),
# sample by sample (matched by time and thread).
#   awk -f perf-compare.awk GORC_STACKS PERF_SCRIPT_OUTPUT
# Prints one line of counts:
#   samples S both-complete B equal E differ D gorc-complete G perf-complete P
#   gorc-only O perf-only Q missing M
# A stack is complete when it reaches the outermost frame: for gorc-prof
# its END is 0, for perf its last frame is _start, clone3 or __clone3.
# With -v all=1 every sample is compared (frame-pointer callchains,
# which have no notion of complete) and counted as both complete.
# Kernel frames of perf's are left out, and samples with no others.  Differences are listed on
# stderr (the first 20), each with both stacks.
# perf script prints a user frame's address relative to its file (perf
# 6.1) or absolute (perf 7.x); with --show-mmap-events in the script the
# absolute ones are made relative to their file from the mappings, as gorc
# prints them.  (Hex by hand: mawk has no strtonum; the addresses fit in a
# double's 53 bits.)
FNR == NR {
  gkey = $1 " " $2
  gend[gkey] = $3
  gframes[gkey] = $4
  next
}
function hex2num(h,   i, n) {
  sub(/^0x/, "", h)
  n = 0
  for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
  return n
}
function num2hex(n,   h) {
  if (n == 0) return "0"
  for (h = ""; n > 0; n = int(n / 16)) h = substr("0123456789abcdef", n % 16 + 1, 1) h
  return h
}
# PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH
$3 ~ /^PERF_RECORD_MMAP2?$/ {
  split($5, span, /[[(]|\)/)
  path = $NF
  sub(/.*\//, "", path)
  nmaps++
  mpath[nmaps] = path
  mstart[nmaps] = hex2num(span[2])
  mend[nmaps] = mstart[nmaps] + hex2num(span[3])
  mpgoff[nmaps] = hex2num($7)
  next
}
# IP (hex) of a frame in file DSO, relative to the file.
function file_relative(ip, dso,   a, i) {
  a = hex2num(ip)
  for (i = nmaps; i > 0; i--)
    if (mpath[i] == dso && a >= mstart[i] && a < mend[i]) return num2hex(a - mstart[i] + mpgoff[i])
  return ip
}
# What kind of difference: one stack a prefix of the other (one is
# longer), else the file of the first frame that differs.
function diff_kind(a, b,   na, nb, x, y, i) {
  na = split(a, x, ";"); nb = split(b, y, ";")
  for (i = 1; i <= na && i <= nb; i++)
    if (x[i] != y[i]) { sub(/\+.*/, "", x[i]); return "a frame in " x[i] }
  return na > nb ? "gorc longer" : "perf longer"
}
function flush() {
  if (key == "") return
  if (frames == "") { key = ""; return }     # kernel frames only
  n++
  pcomplete = (lastsym == "_start" || lastsym == "clone3" || lastsym == "__clone3")
  if (!(key in gend)) { missing++; key = ""; return }
  gcomplete = gend[key] == 0 || all
  if (all) pcomplete = 1
  if (gcomplete) gc++
  if (pcomplete) pc++
  if (gcomplete && pcomplete) {
    both++
    if (gframes[key] == frames) equal++
    else {
      differ++
      kind[diff_kind(gframes[key], frames)]++
      if (differ <= 20) print "differ at " key ":\n  gorc " gframes[key] "\n  perf " frames > "/dev/stderr"
    }
  } else if (gcomplete) gonly++
  else if (pcomplete) ponly++
  key = ""
}
/^ *[0-9]+ +[0-9]+\.[0-9]+: *$/ {
  flush()
  t = $2; sub(/:$/, "", t); sub(/\./, "", t); sub(/^0+/, "", t)
  key = t " " $1
  frames = ""
  lastsym = ""
  next
}
/^\t/ && key != "" {
  dso = $NF
  if (dso == "([kernel.kallsyms])") next
  gsub(/^\(|\)$/, "", dso)
  sub(/.*\//, "", dso)
  ip = file_relative($1, dso)
  sub(/^0+/, "", ip)
  if (ip == "") ip = "0"
  if (dso == "[unknown]") f = "?"; else f = dso "+" ip
  frames = frames == "" ? f : frames ";" f
  lastsym = NF > 2 ? $2 : ""
  next
}
/^$/ { flush() }
END {
  flush()
  printf "samples %d both-complete %d equal %d differ %d gorc-complete %d perf-complete %d gorc-only %d perf-only %d missing %d\n", n, both, equal, differ, gc, pc, gonly, ponly, missing
  for (k in kind) printf "  differences: %d %s\n", kind[k], k
}
