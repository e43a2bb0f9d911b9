/* One walk through more modules than libgorc has slots (256): 300 copies
   of libgorc-dltest.so (distinct modules) are dlopened, and a chain of
   calls goes through every one of them (copy i's dl_work calls back into
   the program, which calls copy i + 1's), then walks.  Slots are taken
   over inside the walk itself.  gorc_backtrace must give libunwind's
   trace, address for address, on the first walk, again (the cache warm,
   slots taken in turn), and after half the copies were dlclosed and
   loaded again (other modules, maybe at the same addresses, in slots that
   held the old ones); so must a walk from a signal context.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-copies.h"

#define COPIES 300
#define MAX 2048

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

static char tmpdir[] = "/tmp/gorc-many-XXXXXX";
static char paths[COPIES][128];
static void *handles[COPIES];
static dl_work_fn work[COPIES];

static void *gorc_ips[MAX], *unw_ips[MAX];
static int gorc_n, unw_n, walks;

static void
load (int i)
{
  handles[i] = dlopen (paths[i], RTLD_NOW | RTLD_LOCAL);
  CHECK (handles[i] != NULL, i);
  work[i] = (dl_work_fn) dlsym (handles[i], "dl_work");
  CHECK (work[i] != NULL, i);
}

/* gorc's trace against libunwind's, but their first addresses (each its
   own call site).  */
static void
compare (const char *what)
{
  CHECK (gorc_n > COPIES, gorc_n);   /* a frame in each copy, and main's */
  if (gorc_n != unw_n)
    {
      fprintf (stderr, "%s: gorc %d frames, libunwind %d\n", what, gorc_n, unw_n);
      FAIL ("frame counts differ", walks);
    }
  for (int i = 1; i < gorc_n; i++)
    if (gorc_ips[i] != unw_ips[i])
      {
        fprintf (stderr, "%s: frame %d: gorc %p, libunwind %p\n", what, i, gorc_ips[i],
                 unw_ips[i]);
        FAIL ("traces differ", i);
      }
  walks++;
}

__attribute__((noinline, noclone)) static void
walk_here (void)
{
  gorc_n = gorc_backtrace (gorc_ips, MAX);
  unw_n = unw_backtrace (unw_ips, MAX);
  compare ("gorc_backtrace");
}

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  unw_context_t ctx;
  unw_cursor_t cur;
  (void) sig, (void) si;
  gorc_n = gorc_backtrace_ucontext (uc, gorc_ips, MAX);
  unw_n = 0;
  CHECK (unw_getcontext (&ctx) == 0 && unw_init_local2 (&cur, uc, UNW_INIT_SIGNAL_FRAME) == 0, 0);
  do
    {
      unw_word_t ip;
      unw_get_reg (&cur, UNW_REG_IP, &ip);
      unw_ips[unw_n++] = (void *) ip;
    }
  while (unw_n < MAX && unw_step (&cur) > 0);
}

static int in_signal;

/* The bottom of the chain: walk from here, or from a signal raised
   here.  */
static int
bottom (void)
{
  if (!in_signal)
    {
      walk_here ();
      return 1;
    }
  raise (SIGPROF);
  compare ("gorc_backtrace_ucontext");
  return 1;
}

/* Level I of the chain: copy I's dl_work calls back here.  */
static int
next_level (void *arg)
{
  int i = (int) (intptr_t) arg;
  if (i == COPIES)
    return bottom ();
  return work[i] (0, next_level, (void *) (intptr_t) (i + 1));
}

int
main (void)
{
  rt_on_signal (SIGPROF, on_sigprof, 0);
  rt_dltest_copies (tmpdir, "m", COPIES, paths);
  for (int i = 0; i < COPIES; i++)
    load (i);
  next_level ((void *) 0);      /* cold */
  next_level ((void *) 0);      /* warm */
  for (int i = 0; i < COPIES; i += 2)
    CHECK (dlclose (handles[i]) == 0, i);
  for (int i = 0; i < COPIES; i += 2)
    load (i);
  next_level ((void *) 0);      /* half the modules are new */
  in_signal = 1;
  next_level ((void *) 0);
  for (int i = 0; i < COPIES; i++)
    dlclose (handles[i]);
  rt_dltest_copies_remove (tmpdir, COPIES, paths);
  printf ("modules-many: %d walks through %d modules, equal to libunwind's\n", walks, COPIES);
  return 0;
}
