/* Epilogues of realigned frames with a DRAP register.  GCC's CFI says
   "rbp saved at [rbp+k]" until the return, also after leave or pop %rbp
   restored rbp; the records say rbp=same from the restore on
   (docs/FORMAT.md, "Where gorc's records differ from GCC's CFI"), and
   gorc-check accepts exactly that.  No state may read rbp through rbp
   once the CFA is back on rsp (at the ret).  The forms: leave; pops of
   callee-saved registers then pop %rbp; two epilogues (remember_state /
   restore_state); a nested function (r10 is the static chain, so DRAP
   takes another register); the stack protector's check before the
   epilogue; an early return before the frame is set up (shrink-wrapping).
   drap-step.c (gorc.runtime) steps through such epilogues.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump-not {cfa=sp\+8 +bp=\[bp[-+]} } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
use (void *p)
{
  if (((unsigned long) p & 15) != 0)
    abort ();
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone)) int
drap_leave (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  use (x);
  use (p);
  return x[0];
}

/* Callee-saved registers for the epilogue to pop before rbp (the
   torture tests run on aarch64 too: there the same frame without DRAP).  */
#ifdef __aarch64__
#define CALLEE_SAVED "x19", "x20", "x21", "x22", "x23"
#else
#define CALLEE_SAVED "rbx", "r12", "r13", "r14", "r15"
#endif

__attribute__((noinline, noclone)) long
drap_pops (int n, int m)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  long a = n * 3, b = m * 5, c = n ^ m, d = n - m, e = n + m;
  x[0] = n;
  use (x);
  use (p);
  __asm__ volatile ("" : "+r" (a), "+r" (b), "+r" (c), "+r" (d), "+r" (e)
                    : : CALLEE_SAVED);
  return x[0] + a + b + c + d + e;
}

__attribute__((noinline, noclone)) int
drap_two_returns (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  x[1] = n & 1;
  use (x);
  if (x[1]) {
    use (x);
    return x[0] - 1;
  }
  use (p);
  return x[0];
}

__attribute__((noinline, noclone)) int
drap_nested (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  __attribute__((noinline)) int inner (int k) { return k + x[0] + p[0]; }
  x[0] = n;
  p[0] = 0;
  use (x);
  use (p);
  return inner (1);
}

__attribute__((noinline, noclone, optimize ("stack-protector-all"))) int
drap_ssp (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  use (x);
  use (p);
  return x[0];
}

__attribute__((noinline, noclone)) int
drap_shrink_wrapped (int n)
{
  if (n < 0)
    return -1;
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  use (x);
  use (p);
  return x[0];
}

int
main (void)
{
  if (drap_leave (40) != 40 || drap_pops (40, 2) != 40 + 120 + 10 + (40 ^ 2) + 38 + 42
      || drap_two_returns (40) != 40 || drap_two_returns (41) != 40
      || drap_nested (40) != 41 || drap_ssp (40) != 40 || drap_shrink_wrapped (40) != 40
      || drap_shrink_wrapped (-1) != -1)
    abort ();
  return 0;
}
