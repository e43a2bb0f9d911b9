/* The oracle's test executable: compiler-made CFI of the kinds gorc maps
   (CFA on rsp, on rbp, on the DRAP register, dereferenced after stack
   realignment; rbp saved at CFA+k and at rbp+0) plus frames-asm.S, whose
   hand-written CFI uses the other opcodes and augmentations.  Never run:
   only its .eh_frame is read.  */

#include <alloca.h>
#include <string.h>

void asm_cfi_opcodes(void);
void asm_cfi_signal(void);
void asm_cfi_personality(void);
void asm_cfi_outermost(void);
void raw_fn1(void);
void raw_fn2(void);
void raw_fn3(void);

__attribute__((noinline)) int with_alloca(int n)
{
  char *p = alloca(n);
  memset(p, 1, n);
  return p[n / 2];
}

/* A VLA with an over-aligned element: GCC realigns the stack with a DRAP
   register (CFA = r10, then CFA = *(rbp - 8), rbp saved at rbp + 0).  */
__attribute__((noinline)) int realigned(int n)
{
  struct { char c[64]; } __attribute__((aligned(64))) v[n];
  memset(v, 2, sizeof v);
  return v[n - 1].c[3] + with_alloca(n);
}

__attribute__((noinline)) void use(void *p)
{
  __asm__ volatile("" : : "r"(p) : "memory");
}

/* An over-aligned local plus alloca: the DRAP form (CFA = r10 + 0 after
   "lea 8(%rsp), %r10", then CFA = *(rbp - 8), rbp saved at rbp + 0).  */
__attribute__((noinline)) int drap(int n)
{
  int x[8] __attribute__((aligned(32)));
  char *p = __builtin_alloca(n);
  x[0] = n;
  use(x);
  use(p);
  return x[0];
}

__attribute__((noinline)) long many_pushes(long a, long b, long c)
{
  long x[6];
  __asm__ volatile("" ::: "rbx", "r12", "r13", "r14", "r15", "memory");
  for (int i = 0; i < 6; i++)
    x[i] = a * i + b - c;
  return x[a & 3] + x[5];
}

int main(int argc, char **argv)
{
  (void)argv;
  void (*volatile fns[])(void) = { asm_cfi_opcodes, asm_cfi_signal, asm_cfi_personality,
                                   asm_cfi_outermost, raw_fn1, raw_fn2, raw_fn3 };
  if (argc > 100)
    fns[argc & 7]();
  return realigned(argc) + drap(argc) + (int)many_pushes(argc, 2, 3) == 1234;
}
