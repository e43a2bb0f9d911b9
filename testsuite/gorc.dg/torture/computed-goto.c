/* Computed goto (a threaded interpreter): indirect jumps between blocks
   that GCC may duplicate, with a frame around them.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

/* noipa: no IPA register allocation, so callers save what they keep.  */
__attribute__((noipa)) long
ext (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x;
}

__attribute__((noinline, noclone)) long
run (const unsigned char *code)
{
  static void *ops[] = { &&op_add, &&op_dbl, &&op_call, &&op_end };
  long acc = 0;
  goto *ops[*code++];
op_add:
  acc += 1;
  goto *ops[*code++];
op_dbl:
  acc *= 2;
  goto *ops[*code++];
op_call:
  acc = ext (acc) + 3;
  goto *ops[*code++];
op_end:
  return acc;
}

int
main (void)
{
  static const unsigned char prog[] = { 0, 0, 1, 2, 1, 0, 3 };
  if (run (prog) != ((1 + 1) * 2 + 3) * 2 + 1)
    abort ();
  return 0;
}
