/* main.c: runs a few built-in scripts and reports on them.
   Usage: demo [-q] [-d FUNCTION] [-e]
     -q           print only the summary line
     -d FUNCTION  also disassemble FUNCTION of the main script
     -e           then run a script that fails deep in a recursion: the
                  cold error path, exit status 2 */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

static const char main_script[] =
  "# recursion, loops and an eight-parameter function\n"
  "fn fib(n) { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n"
  "fn ack(m, n) {\n"
  "  if m == 0 { return n + 1; }\n"
  "  if n == 0 { return ack(m - 1, 1); }\n"
  "  return ack(m - 1, ack(m, n - 1));\n"
  "}\n"
  "fn gcd(a, b) { while b != 0 { let t = a % b; a = b; b = t; } return a; }\n"
  "fn isprime(n) {\n"
  "  if n < 2 { return 0; }\n"
  "  let d = 2;\n"
  "  while d * d <= n { if n % d == 0 { return 0; } d = d + 1; }\n"
  "  return 1;\n"
  "}\n"
  "fn collatz(n) {\n"
  "  let steps = 0;\n"
  "  while n != 1 { if n % 2 == 0 { n = n / 2; } else { n = 3 * n + 1; } steps = steps + 1; }\n"
  "  return steps;\n"
  "}\n"
  "fn sumto(n) { if n == 0 { return 0; } return n + sumto(n - 1); }\n"
  "fn mix(a, b, c, d, e, f, g, h) { return ((a * 31 + b) * 31 + c - d) * (e + 1) + f * g - h; }\n"
  "fn hash(n) { let h = 7; let i = 0; while i < n { h = (h * 33 + i) % 1000003; i = i + 1; } return h; }\n"
  "let total = 0;\n"
  "print \"fib(20) =\", fib(20);\n"
  "print \"ack(2, 3) =\", ack(2, 3), \"ack(3, 3) =\", ack(3, 3);\n"
  "print \"gcd(1071, 462) =\", gcd(1071, 462);\n"
  "let i = 0; let primes = 0;\n"
  "while i < 3000 { primes = primes + isprime(i); i = i + 1; }\n"
  "print \"primes below 3000:\", primes;\n"
  "let best = 0; let arg = 0; i = 1;\n"
  "while i < 2000 { let s = collatz(i); if s > best { best = s; arg = i; } i = i + 1; }\n"
  "print \"longest collatz below 2000:\", arg, \"with\", best, \"steps\";\n"
  "print \"sumto(4000) =\", sumto(4000);\n"
  "print \"mix =\", mix(1, 2, 3, 4, 5, 6, 7, 8), mix(8, 7, 6, 5, 4, 3, 2, 1);\n"
  "print \"hash(20000) =\", hash(20000);\n"
  "total = fib(15) + gcd(84, 36) * 1000 + !0 - -1;\n"
  "print \"total =\", total, \"logic:\", 1 && 0 || 2 > 1, 0 || 0;\n";

static const char failing_script[] =
  "fn down(n, d) { if n == 0 { return 100 / d; } return down(n - 1, d) + 1; }\n"
  "print down(50, 0);\n";

/* (1 + (2 - (3 + (... )))) nested `depth` levels: a deep chain in the
   parser, the compiler and ast_depth. */
static char *nested_script(int depth)
{
  size_t cap = (size_t)depth * 16 + 64;
  char *s = malloc(cap);
  if (!s)
    fatal(0, "out of memory");
  static const char ops[] = "+-+-";
  size_t len = (size_t)snprintf(s, cap, "print \"nested:\", ");
  for (int i = 0; i < depth; i++)
    len += (size_t)snprintf(s + len, cap - len, "(%d %c ", i % 9 + 1, ops[i % 4]);
  len += (size_t)snprintf(s + len, cap - len, "1");
  for (int i = 0; i < depth; i++)
    s[len++] = ')';
  memcpy(s + len, ";\n", 3);
  return s;
}

static void run(const char *name, const char *src, struct outbuf *ob,
                const char *disasm, int show_profile)
{
  struct node *ast = parse_program(src);
  struct program *prog = compile_program(ast);
  int64_t *globals = arena_alloc(sizeof *globals * (size_t)(prog->nglobals + 1));
  struct vm vm = {.prog = prog, .globals = globals, .out = ob};

  out_printf(ob, "== %s: %d nodes, depth %d, %d functions, %d globals\n", name,
             ast_count(ast), ast_depth(ast), prog->nfuncs, prog->nglobals);
  vm_run(&vm, 0, 0, NULL);
  out_printf(ob, "-- %ld steps, max call depth %d\n", vm.steps, vm.max_depth);
  if (disasm) {
    int fi = find_function(prog, disasm);
    if (fi < 0)
      fatal(0, "no function '%s' to disassemble", disasm);
    disassemble(prog->funcs[fi], ob);
  }
  if (show_profile) {
    report_profile(prog, ob, 10);
    report_histogram(prog, ob, 16, 6, '#', '.', 0, "log2(steps) per function:");
  }
}

int main(int argc, char **argv)
{
  int quiet = 0, fail = 0;
  const char *disasm = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else if (strcmp(argv[i], "-e") == 0)
      fail = 1;
    else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
      disasm = argv[++i];
    else {
      fprintf(stderr, "usage: %s [-q] [-d FUNCTION] [-e]\n", argv[0]);
      return 2;
    }
  }

  struct outbuf ob = {0};
  run("main", main_script, &ob, disasm, 1);
  char *deep = nested_script(300);
  run("nested", deep, &ob, NULL, 0);
  free(deep);

  uint32_t sum = checksum(ob.data, ob.len);
  if (!quiet)
    fwrite(ob.data, 1, ob.len, stdout);
  printf("demo: %zu bytes of output, checksum %08x, arena %zu bytes\n", ob.len,
         sum, arena_used());
  out_free(&ob);
  if (fail) {
    fflush(stdout);
    run("failing", failing_script, &ob, NULL, 0); /* exits in fatal() */
  }
  return 0;
}
