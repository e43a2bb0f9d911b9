/* The object file's gorc sections: gorc_unwind allocated and read-only
   with only PC-relative relocations, and the .note.gorc note.  */
/* { dg-do compile } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-sections-ok } } */

int g;

int
f (int x)
{
  return x + g;
}

static int __attribute__((noinline))
s (int x)
{
  return x * g;
}

int
h (int x)
{
  return s (x) + f (x);
}
