/* The cursor API: ip, sp and bp of each frame against what the compiler
   says (__builtin_return_address, __builtin_dwarf_cfa,
   __builtin_frame_address), stepping to the end; argument checks;
   gorc_strerror.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <alloca.h>
#include "support/rt-test.h"

volatile int sink;
static void *g_ra, *g_cfa, *f_ra, *f_cfa, *f_fp;

__attribute__((noinline, noclone)) static void
g (void)
{
  struct gorc_cursor c;
  g_ra = __builtin_return_address (0);
  g_cfa = __builtin_dwarf_cfa ();
  CHECK (gorc_cursor_init (&c) == 0, 0);
  CHECK ((char *) c.ip > (char *) g && (char *) c.ip < (char *) g + 1024, 0);
  CHECK (c.sp < (unsigned long) g_cfa && c.sp + 4096 > (unsigned long) g_cfa, 0);
  CHECK ((c.sp & 7) == 0, c.sp);
  /* Frame f: exact registers at its call to g.  */
  CHECK (gorc_cursor_step (&c) == 1, 1);
  CHECK ((void *) c.ip == g_ra, 1);
  CHECK ((void *) c.sp == g_cfa, 1);
  CHECK ((void *) c.bp == f_fp, 1);
  /* Frame main: f's return address, f's CFA, the rbp f saved.  */
  CHECK (gorc_cursor_step (&c) == 1, 2);
  CHECK ((void *) c.ip == f_ra, 2);
  CHECK ((void *) c.sp == f_cfa, 2);
  CHECK ((void *) c.bp == *(void **) f_fp, 2);
  /* To the outermost frame, sp going up.  */
  int n = 2, s;
  unsigned long sp = c.sp;
  while ((s = gorc_cursor_step (&c)) == 1)
    {
      CHECK (c.sp > sp, n);
      sp = c.sp;
      CHECK (++n < 100, n);
    }
  CHECK (s == 0, s);
  CHECK (n >= 3, n);
  CHECK (gorc_cursor_step (&c) == 0, 0);
  sink++;
}

__attribute__((noinline, noclone)) static void
f (int n)
{
  char *p = alloca (16 + n);	/* a frame pointer */
  p[0] = 1;
  __asm__ volatile ("" : : "r" (p) : "memory");
  f_ra = __builtin_return_address (0);
  f_cfa = __builtin_dwarf_cfa ();
  f_fp = __builtin_frame_address (0);
  g ();
  sink += p[0];
}

int
main (void)
{
  void *ips[4];
  struct gorc_cursor c;

  f (8);

  CHECK (gorc_cursor_step (0) == -GORC_EINVAL, 0);
  CHECK (gorc_cursor_init (0) == -GORC_EINVAL, 0);
  CHECK (gorc_cursor_init_ucontext (&c, 0) == -GORC_EINVAL, 0);
  CHECK (gorc_backtrace (0, 3) == -GORC_EINVAL, 0);
  CHECK (gorc_backtrace (ips, -1) == -GORC_EINVAL, 0);
  CHECK (gorc_backtrace (ips, 0) == 0 && gorc_backtrace_count () == 0, 0);
  CHECK (gorc_backtrace (ips, 1) == 1 && gorc_backtrace_count () == 1, 0);
  CHECK ((char *) ips[0] > (char *) main && (char *) ips[0] < (char *) main + 4096, 0);
  CHECK (gorc_backtrace (ips, 2) == 2, 0);

  for (int i = 0; i <= GORC_EINIT; i++)
    {
      const char *s = gorc_strerror (i);
      CHECK (s && *s, i);
      CHECK (strcmp (s, gorc_strerror (-i)) == 0, i);
      for (int j = 0; j < i; j++)
	CHECK (strcmp (s, gorc_strerror (j)) != 0, i);
    }
  CHECK (gorc_strerror (99) != 0, 0);
  return 0;
}
