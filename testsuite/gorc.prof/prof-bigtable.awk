# A program with a large table: N functions (awk -v n=N), each saving
# three registers around a call, so that its records hold about 9 rows a
# function (5000: some 45,000 rows, a BPF table three index levels deep).
# main calls f_0(20, ...) repeatedly; f_I calls f_((I * 37 + 11) % N),
# 21 functions in all, spread over the whole table, the last calls
# leaf_work.  prof.exp derives the chain the same way.
BEGIN {
  print "#include <stdlib.h>"
  print "volatile long sink;"
  print "__attribute__((noinline)) long leaf_work(long x)"
  print "{"
  print "  long s = 0;"
  print "  for (long i = 0; i < 200000; i++)"
  print "    s += (i ^ x) * sink;"
  print "  return s;"
  print "}"
  for (i = 0; i < n; i++)
    printf "long f_%d(long d, long x);\n", i
  for (i = 0; i < n; i++) {
    printf "__attribute__((noinline)) long f_%d(long d, long x)\n{\n", i
    printf "  long a = x * %d, b = x ^ %d, c = x + %d;\n", i + 3, i, i * 7
    printf "  long r = d <= 0 ? leaf_work(x) : f_%d(d - 1, x + 1);\n", (i * 37 + 11) % n
    printf "  return r + a * b * c;\n}\n"
  }
  print "int main(int argc, char **argv)"
  print "{"
  print "  long rounds = argc > 1 ? atol(argv[1]) : 100;"
  print "  for (long i = 0; i < rounds; i++)"
  print "    f_0(20, i);"
  print "  return 0;"
  print "}"
}
