/* A switch compiled to an indirect jump through a table (in .rodata, or
   in .text at some option sets), with a frame around it.  */
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
dispatch (int op, long a, long b)
{
  long r;
  switch (op)
    {
    case 0: r = a + b; break;
    case 1: r = ext (a) - b; break;
    case 2: r = a * ext (b); break;
    case 3: r = ext (a) / (b ? b : 1); break;
    case 4: r = a % (ext (b) | 1); break;
    case 5: r = ext (a << 2); break;
    case 6: r = a >> 1; break;
    case 7: r = ext (a ^ b) + ext (b); break;
    case 8: r = -a; break;
    case 9: r = ext (~b); break;
    default: return ext (-1);
    }
  return ext (r) + 1;
}

int
main (void)
{
  long t = 0;
  for (int i = -1; i < 12; i++)
    t += dispatch (i, 20, 3);
  if (t != 207)
    abort ();
  return 0;
}
