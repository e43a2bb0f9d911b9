/* fork while another thread updates a static call (issue 12, item 1):
   the child's own update must not find the update mutex held by a
   thread that does not exist in the child.  Each round is a fresh
   "subject" process (so its first update, the one that maps the memfd
   alias, is raced too): a thread updating in a loop, and the main
   thread forking children that update once and check the call.  A
   child stuck on the mutex is killed by its alarm and the test fails.
   fork-race-mprotect.c runs the same with GORC_STATIC_CALL_NO_ALIAS=1.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support/sc-test.h"

#define SUBJECTS 40
#define FORKS 8
#define CHILD_ALARM 20	/* seconds: only ever reached by a hung child */

NOIPA static long ta (long x) { return x + 1; }
NOIPA static long tb (long x) { return x + 2; }
static long (*fp) (long) GORC_STATIC_CALL = ta;
NOIPA static long call_fp (long x) { return fp (x); }

static atomic_int started, stop;

static void *
updater (void *arg)
{
  atomic_store (&started, 1);
  while (!atomic_load_explicit (&stop, memory_order_relaxed))
    gorc_static_call_update (fp, tb);
  return arg;
}

/* The forked child: one update of its own, then the call reaches it.  */
static void
child (void)
{
  alarm (CHILD_ALARM);
  if (gorc_static_call_update (fp, ta) != 0)
    _exit (3);
  _exit (call_fp (10) == 11 ? 0 : 4);
}

/* Exit status 0 when every child ended well.  */
static int
subject (void)
{
  pthread_t t;
  if (pthread_create (&t, NULL, updater, NULL) != 0)
    return 2;
  while (!atomic_load (&started))
    ;
  int bad = 0;
  for (int i = 0; i < FORKS && !bad; i++)
    {
      pid_t p = fork ();
      if (p < 0)
	return 2;
      if (p == 0)
	child ();
      int st;
      if (waitpid (p, &st, 0) != p)
	return 2;
      if (WIFSIGNALED (st) && WTERMSIG (st) == SIGALRM)
	{
	  fprintf (stderr, "fork %d: the child hung in its update\n", i);
	  bad = 1;
	}
      else if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
	{
	  fprintf (stderr, "fork %d: child status %#x\n", i, st);
	  bad = 1;
	}
    }
  atomic_store (&stop, 1);
  pthread_join (t, NULL);
  return bad;
}

int
main (void)
{
#ifdef SC_SETUP
  SC_SETUP;
#endif
  for (int s = 0; s < SUBJECTS; s++)
    {
      fflush (stderr);
      pid_t p = fork ();
      CHECK (p >= 0, p);
      if (p == 0)
	_exit (subject ());
      int st;
      CHECK (waitpid (p, &st, 0) == p, 0);
      if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
	FAIL ("a child of this subject failed", s);
    }
  /* Not updated here: every subject started from the initial state.  */
  CHECK (call_fp (10) == 11, call_fp (10));
  return 0;
}
