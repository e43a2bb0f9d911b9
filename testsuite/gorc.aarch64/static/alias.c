/* The memfd alias on aarch64 (the default update mode): the first update
   maps the trampoline page from a memfd, every update then writes one
   aligned 32-bit word through a read+write view elsewhere, followed by
   the cache maintenance; no page is ever writable and executable.
   Checked by what it writes (the state instruction read as data) and
   the mappings it leaves: qemu-user does not see such stores in code it
   has already translated (support/a64-sc.h).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#include "support/a64-sc.h"

NOIPA static int one (void) { return 1; }
NOIPA static int two (void) { return 2; }
int (*op) (void) GORC_STATIC_CALL = one;
A64_TRAMP (op);

int
main (void)
{
  int (*far) (void) = a64_far_code ((uintptr_t) op_tramp);
  int (*const targets[]) (void) = { two, NULL, far, one };
  for (int i = 0; i < 4; i++)
    {
      CHECK (gorc_static_call_update (op, targets[i]) == 0, i);
      CHECK (gorc_static_call_last_method () == GORC_SC_VIA_ALIAS, i);
      CHECK (op == targets[i], i);
      a64_no_wx ();
    }
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) one, a64_insn (op_tramp));
  CHECK (gorc_static_call_update (op, far) == 0, 0);
  CHECK (a64_insn (op_tramp) == A64_NOP, a64_insn (op_tramp));
  CHECK (gorc_static_call_update (op, two) == 0, 0);
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) two, a64_insn (op_tramp));
  /* The page holding the trampoline is the memfd's now.  */
  FILE *maps = fopen ("/proc/self/maps", "r");
  CHECK (maps != NULL, 0);
  char line[512];
  int found = 0;
  while (fgets (line, sizeof line, maps))
    {
      unsigned long lo, hi;
      if (sscanf (line, "%lx-%lx", &lo, &hi) == 2 && lo <= (uintptr_t) op_tramp
	  && (uintptr_t) op_tramp < hi)
	found = strstr (line, "gorc-static-calls") != NULL;
    }
  fclose (maps);
  CHECK (found, 0);
  return 0;
}
