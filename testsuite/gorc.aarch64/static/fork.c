/* fork after libgorc aliased the trampoline page through a memfd, on
   aarch64: the child's updates must not reach the parent's trampoline
   (the child handler gives the child its own copy), nor the parent's
   the child's.  Checked by the state instructions read as data
   (support/a64-sc.h: qemu-user and the alias).  Parent and child take
   turns through two pipes.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#include <sys/wait.h>
#include <unistd.h>
#include "support/a64-sc.h"

NOIPA static int ta (void) { return 1; }
NOIPA static int tb (void) { return 2; }
NOIPA static int tc (void) { return 3; }
int (*op) (void) GORC_STATIC_CALL = ta;
A64_TRAMP (op);

int
main (void)
{
  CHECK (gorc_static_call_update (op, tb) == 0, 0);
  CHECK (gorc_static_call_last_method () == GORC_SC_VIA_ALIAS, 0);
  int to_child[2], to_parent[2];
  CHECK (pipe (to_child) == 0 && pipe (to_parent) == 0, 0);
  pid_t p = fork ();
  CHECK (p >= 0, p);
  if (p == 0)
    {
      char c;
      if (a64_branch_dest (op_tramp) != (uintptr_t) tb)
	_exit (10);
      if (gorc_static_call_update (op, tc) != 0
	  || gorc_static_call_last_method () != GORC_SC_VIA_ALIAS)
	_exit (11);
      if (a64_branch_dest (op_tramp) != (uintptr_t) tc || write (to_parent[1], "x", 1) != 1)
	_exit (12);
      /* The parent updates now: not seen here.  */
      if (read (to_child[0], &c, 1) != 1 || a64_branch_dest (op_tramp) != (uintptr_t) tc)
	_exit (13);
      _exit (0);
    }
  int status;
  char c;
  CHECK (read (to_parent[0], &c, 1) == 1, 0);
  /* The child's update to tc never reached this process.  */
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) tb, a64_insn (op_tramp));
  CHECK (gorc_static_call_update (op, ta) == 0, 0);
  CHECK (write (to_child[1], "x", 1) == 1, 0);
  CHECK (waitpid (p, &status, 0) == p, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, status);
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) ta, a64_insn (op_tramp));
  a64_no_wx ();
  return 0;
}
