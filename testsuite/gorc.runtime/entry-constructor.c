/* A shared library's constructor is called by ld.so, from _dl_init,
   from ld.so's _start (RTLD_START's _dl_start_user), which has no CFI:
   every walk from a constructor stopped there, GORC_ENORECORD, as
   libunwind's and perf's do.  The entry point of a module (ELF e_entry)
   where no FDE covers it is the outermost frame (gorc_eh_in_entry): the
   kernel starts the process there.  The library's constructor
   (support/ctor-walk.c) walks; the walk must reach the outermost frame,
   and end in ld.so (the interpreter, at AT_BASE).  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */
/* { dg-gorc-runtime-library "support/ctor-walk.c" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/auxv.h>
#include "support/rt-test.h"

extern void *ctor_ips[];
extern int ctor_rc, ctor_count;

int
main (void)
{
  Dl_info lib, last;
  if (ctor_rc < 0) {
    rt_puts (gorc_strerror (ctor_rc));
    FAIL (": the constructor's walk stopped after frames", ctor_count);
  }
  CHECK (ctor_rc >= 3, ctor_rc);
  /* the first frame is the library's (its constructor's caller is ld.so) */
  CHECK (dladdr (ctor_ips[0], &lib) != 0, 0);
  CHECK (dladdr (ctor_ips[ctor_rc - 1], &last) != 0, ctor_rc);
  CHECK ((unsigned long) last.dli_fbase == getauxval (AT_BASE), ctor_rc);
  return 0;
}
