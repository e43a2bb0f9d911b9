/* Helpers for the aarch64 static-call tests: reading a trampoline's
   state instruction and a b's destination (as data), code mapped far
   from the program, the update mode, no writable+executable mapping.  */
#ifndef A64_SC_H
#define A64_SC_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../../../gorc.static/support/sc-test.h"

#define A64_NOP 0xd503201fu

/* The trampoline of the variable with external linkage NAME.  */
#define A64_TRAMP(name)                                                     \
  extern const uint32_t name##_tramp[] __asm__ (GORC_SC_TRAMP_PREFIX #name) \
    __attribute__ ((visibility ("hidden")))

static inline uint32_t
a64_insn (const void *at)
{
  return *(const volatile uint32_t *) at;
}

/* Where the b or bl at AT goes, or 0 when it holds neither.  */
static inline uintptr_t
a64_branch_dest (const void *at)
{
  uint32_t insn = a64_insn (at);
  if ((insn & 0x7c000000u) != 0x14000000u)
    return 0;
  int32_t imm = (int32_t) (insn << 6) >> 6;
  return (uintptr_t) at + (intptr_t) imm * 4;
}

/* Updates patch with mprotect from the first one on.  qemu-user does not
   see stores through libgorc's memfd alias in code it has translated
   (it notices writes at the translated address only, and ic ivau is a
   no-op there), so tests that check calls after updates use this mode;
   the alias mode is checked by what it writes (alias.c, fork.c).  */
static inline void
a64_mprotect_mode (void)
{
  CHECK (setenv ("GORC_STATIC_CALL_NO_ALIAS", "1", 1) == 0, 0);
}

/* `mov w0, #42; ret` mapped more than 256 MB from NEAR (beyond a b's
   +-128 MB).  */
static inline int (*a64_far_code (uintptr_t near)) (void)
{
  static const uint32_t code[] = { 0x52800540u, 0xd65f03c0u };
  void *p = MAP_FAILED;
  for (uintptr_t d = (uintptr_t) 1 << 28; p == MAP_FAILED && d <= (uintptr_t) 1 << 40; d <<= 1)
    {
      uintptr_t want = near > d + ((uintptr_t) 1 << 28) ? near - d : near + d;
      want &= ~(uintptr_t) 0xfff;
      p = mmap ((void *) want, 4096, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    }
  CHECK (p != MAP_FAILED, 0);
  int64_t dist = (int64_t) ((uintptr_t) p - near);
  CHECK (dist > (1l << 27) || dist < -(1l << 27), dist);
  memcpy (p, code, sizeof code);
  __builtin___clear_cache ((char *) p, (char *) p + sizeof code);
  CHECK (mprotect (p, 4096, PROT_READ | PROT_EXEC) == 0, 0);
  return (int (*) (void)) p;
}

/* No mapping is writable and executable.  */
static inline void
a64_no_wx (void)
{
  FILE *maps = fopen ("/proc/self/maps", "r");
  CHECK (maps != NULL, 0);
  char line[512];
  while (fgets (line, sizeof line, maps))
    {
      char perm[8];
      if (sscanf (line, "%*s %7s", perm) == 1 && perm[1] == 'w' && perm[2] == 'x')
	FAIL (line, 0);
    }
  fclose (maps);
}
#endif
