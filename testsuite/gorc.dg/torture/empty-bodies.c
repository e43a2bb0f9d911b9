/* Bodies GCC reduces to nothing or to a single call (issue 12, item 7):
   an empty function, one whose test folds away and leaves only
   __builtin_unreachable (at -fwrapv, x / 1 != x is false), one that only
   calls a noreturn function, the same in .text.unlikely (cold), and a
   function whose cold partition is a noreturn call alone.  Each gets
   exact ranges, or none when it has no code: one empty range used to make
   every reader reject the module's whole gorc_unwind ("malformed range"),
   gorc-check among them.  */
/* { dg-do run } */
/* { dg-additional-options "-fwrapv" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
empty_fn (int x)
{
  (void) x;
  __builtin_unreachable ();
}

__attribute__((noinline, noclone)) int
never (int x)
{
  if (x / 1 != x)
    abort ();
  __builtin_unreachable ();
}

__attribute__((noinline, noclone, noreturn)) void
die_now (void)
{
  abort ();
}

__attribute__((noinline, noclone, cold)) void
cold_empty (void)
{
  __builtin_unreachable ();
}

__attribute__((noinline, noclone, cold, noreturn)) void
cold_die (void)
{
  abort ();
}

__attribute__((noinline, noclone)) int
split (int x)
{
  if (__builtin_expect (x < 0, 0))
    abort ();
  return x + 1;
}

int
main (int argc, char **argv)
{
  (void) argv;
  if (argc > 5)
    {
      empty_fn (argc);
      cold_empty ();
      never (argc);
      if (argc > 6)
	cold_die ();
      die_now ();
    }
  return split (0) != 1;
}
