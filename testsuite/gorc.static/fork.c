/* fork after libgorc aliased the trampoline page through a memfd: the
   child's updates must not reach the parent (nor the parent's the
   child), in both directions, also in a grandchild.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <sys/wait.h>
#include <unistd.h>
#include "support/sc-test.h"

NOIPA static int ta (void) { return 1; }
NOIPA static int tb (void) { return 2; }
NOIPA static int tc (void) { return 3; }
static int (*op) (void) GORC_STATIC_CALL = ta;
NOIPA static int call_op (void) { return op (); }

static int
child (int depth)
{
  if (call_op () != 2)
    return 10;
  if (gorc_static_call_update (op, tc) != 0
      || gorc_static_call_last_method () != GORC_SC_VIA_ALIAS)
    return 11;
  if (call_op () != 3)
    return 12;
  if (depth == 0)
    {
      pid_t p = fork ();
      if (p == 0)
	{
	  if (call_op () != 3 || gorc_static_call_update (op, ta) != 0 || call_op () != 1)
	    _exit (20);
	  _exit (0);
	}
      int st;
      if (waitpid (p, &st, 0) != p || !WIFEXITED (st) || WEXITSTATUS (st) != 0)
	return 13;
      if (call_op () != 3)	/* the grandchild's update stayed there */
	return 14;
    }
  return 0;
}

int
main (void)
{
  CHECK (gorc_static_call_update (op, tb) == 0, 0);	/* aliases the page */
  CHECK (gorc_static_call_last_method () == GORC_SC_VIA_ALIAS, 0);
  CHECK (call_op () == 2, call_op ());
  for (int round = 0; round < 3; round++)
    {
      pid_t p = fork ();
      CHECK (p >= 0, p);
      if (p == 0)
	_exit (child (0));
      int st;
      CHECK (waitpid (p, &st, 0) == p, 0);
      CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 0, WEXITSTATUS (st));
      /* The child's update to tc did not reach us.  */
      CHECK (call_op () == 2, call_op ());
      CHECK (op == tb, 0);
    }
  /* And ours still works after the forks.  */
  CHECK (gorc_static_call_update (op, tc) == 0, 0);
  CHECK (call_op () == 3, 0);
  gorc_static_call_update (op, tb);
  return 0;
}
