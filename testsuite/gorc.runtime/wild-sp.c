/* Contexts whose stack pointer points at memory that is not there
   (issue 12 item 2): a ucontext copied from a real one (getcontext in a
   plugin-built function: rip there, where the CFA is rsp + the frame
   size), with rsp and rbp replaced by
   - 64 bytes into a page just munmapped,
   - 16 bytes below the end of a mapped page followed by an unmapped one
     (the return address slot lies in the unmapped page),
   - 0x1000,
   - 64 bytes into a PROT_NONE page.
   Each is walked 2000 times with gorc_backtrace_ucontext and 2000 times
   with gorc_cursor_init_ucontext / gorc_cursor_step: never a fault,
   always an error code (the context's stack is not known to be mapped,
   so libgorc may read only what the kernel shows readable).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>
#include "support/rt-test.h"

#define WALKS 2000
#define MAX 64

static ucontext_t real;
volatile int sink;

/* A plugin-built function with a frame: the context is taken inside it.  */
__attribute__((noinline, noclone)) static void
take_context (void)
{
  volatile char frame[200];
  frame[0] = 1;
  CHECK (getcontext (&real) == 0, 0);
  sink += frame[0];
}

static int
is_error (int rc)
{
  return rc <= -GORC_ENORECORD && rc >= -GORC_ECORRUPT && rc != -GORC_EINVAL
         && rc != -GORC_EINIT;
}

/* Walk the real context with rsp = rbp = SP, both ways, WALKS times.  */
static void
walk_with_sp (uintptr_t sp, const char *what)
{
  ucontext_t uc = real;
  void *ips[MAX];
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t) sp;
  uc.uc_mcontext.gregs[REG_RBP] = (greg_t) sp;
  for (int i = 0; i < WALKS; i++) {
    int rc = gorc_backtrace_ucontext (&uc, ips, MAX);
    if (!is_error (rc)) {
      rt_puts (what);
      FAIL (": gorc_backtrace_ucontext did not fail", rc);
    }
    CHECK (gorc_backtrace_count () == 1, gorc_backtrace_count ());
    CHECK (ips[0] == (void *) real.uc_mcontext.gregs[REG_RIP], 0);

    struct gorc_cursor c;
    rc = gorc_cursor_init_ucontext (&c, &uc);
    int steps = 0;
    while (rc == 0 || rc == 1) {
      rc = gorc_cursor_step (&c);
      if (rc == 0 || ++steps > MAX)
        break;
    }
    if (!is_error (rc)) {
      rt_puts (what);
      FAIL (": the cursor did not fail", rc);
    }
  }
  printf ("wild-sp: %s: %d walks each way, every one an error code\n", what, WALKS);
}

int
main (void)
{
  long page = sysconf (_SC_PAGESIZE);
  take_context ();
  /* The copied context itself walks (with its own stack).  */
  void *ips[MAX];
  CHECK (gorc_backtrace_ucontext (&real, ips, MAX) >= 3, 0);

  char *gone = mmap (NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK (gone != MAP_FAILED && munmap (gone, page) == 0, 0);
  walk_with_sp ((uintptr_t) gone + 64, "a page just unmapped");

  char *two = mmap (NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK (two != MAP_FAILED && munmap (two + page, page) == 0, 0);
  memset (two, 0x41, page);   /* garbage, not zeros (a 0 return address ends a walk) */
  walk_with_sp ((uintptr_t) two + page - 16, "the end of a page followed by an unmapped one");

  walk_with_sp (0x1000, "0x1000");

  char *none = mmap (NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK (none != MAP_FAILED, 0);
  walk_with_sp ((uintptr_t) none + 64, "PROT_NONE");
  return 0;
}
