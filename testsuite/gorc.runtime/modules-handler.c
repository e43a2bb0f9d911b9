/* Walks from signal handlers that interrupt the loader.  dlopen and
   dlclose of libgorc-dltest.so are single-stepped (support/rt-step.h):
   at every instruction of the loader (mapping, relocating, running the
   library's constructors and destructors, unmapping), the SIGTRAP
   handler walks the interrupted context with gorc_backtrace_ucontext and
   then walks its own stack with gorc_backtrace.  libgorc asks glibc's
   _dl_find_object, which is async-signal-safe, for modules: no walk may
   crash, deadlock or return anything but a count or an error code; a
   complete walk from the interrupted context must end with the frames
   below the stepped call (known before stepping), and gorc_backtrace's
   trace from the interrupted instruction on must equal it.  Between the
   stepped calls, the first walk from inside the library must be
   complete.  Two rounds, so that the library is new to libgorc at an
   address it has seen before.  The only walks that may stop early are
   those through code without unwind information (crtstuff's
   __do_global_dtors_aux and friends, run by the loader): -GORC_ENORECORD.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include "support/rt-step.h"

#define ROUNDS 2
#define DEPTH 6
#define MAX 128

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

/* The frames below the stepped call: the return address of the function
   rt_step_run calls, and its callers'.  */
static void *tail[MAX];
static int ntail;
static volatile sig_atomic_t in_loader;   /* set around dlopen/dlclose */
static long walks, complete, errors[GORC_ECORRUPT + 1];

static void
dump (const char *what, void **ips, int n)
{
  rt_puts (what);
  for (int i = 0; i < n; i++) {
    char b[20];
    uintptr_t v = (uintptr_t) ips[i];
    int k = 19;
    b[k] = 0;
    do b[--k] = "0123456789abcdef"[v & 15]; while (v >>= 4);
    rt_puts (" 0x");
    rt_puts (b + k);
  }
  rt_puts ("\n");
}

static void
on_step (ucontext_t *uc)
{
  void *ours[MAX], *all[MAX + 16];
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 1 && n <= MAX, n);
  CHECK (rc == n || (rc <= -GORC_ENORECORD && rc >= -GORC_ECORRUPT && rc != -GORC_EINVAL
                     && rc != -GORC_EINIT), rc);
  int arc = gorc_backtrace (all, MAX + 16);
  int an = gorc_backtrace_count ();
  CHECK (an >= 1 && an <= MAX + 16, an);
  walks++;
  if (!in_loader)
    return;   /* the stepping harness itself */
  if (rc < 0) {
    errors[-rc]++;
    return;
  }
  /* Complete: it ends with the frames below the stepped call...  */
  int ends_right = n > ntail;
  for (int i = 0; i < ntail && ends_right; i++)
    ends_right = ours[n - ntail + i] == tail[i];
  if (!ends_right) {
    dump ("gorc: ", ours, n);
    dump ("tail: ", tail, ntail);
    FAIL ("a complete walk from the loader does not end with the caller's frames", n);
  }
  /* ... and the handler's own walk, complete as well, continues with the
     same frames from the signal frame on.  */
  CHECK (arc == an, arc);
  int j = 0;
  while (j < an && all[j] != ours[0])
    j++;
  CHECK (j < an && an - j == n, an - j - n);
  for (int i = 0; i < n; i++)
    if (all[j + i] != ours[i])
      FAIL ("gorc_backtrace from the handler differs at frame", i);
  complete++;
}

static void *handle;
static int lib_walk_rc;
static void *lib_main_ra;

static int
walk_cb (void *arg)
{
  void *ips[MAX];
  int rc = gorc_backtrace (ips, MAX), seen = 0;
  (void) arg;
  for (int i = 0; i < rc; i++)
    seen |= ips[i] == lib_main_ra;
  lib_walk_rc = seen ? rc : -100;
  return 1;
}

/* The frames from the stepped function's return address on.  */
__attribute__((noinline, noclone)) static void
note_tail (void)
{
  void *ips[MAX];
  int rc = gorc_backtrace (ips, MAX);
  CHECK (rc >= 4, rc);
  /* ips[0]: in note_tail; ips[1]: in the stepped function; ips[2]: its
     return address */
  ntail = rc - 2;
  memcpy (tail, ips + 2, ntail * sizeof *tail);
}

__attribute__((noinline, noclone)) static void
load (void *arg)
{
  (void) arg;
  note_tail ();
  in_loader = 1;
  handle = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  in_loader = 0;
}

__attribute__((noinline, noclone)) static void
unload (void *arg)
{
  (void) arg;
  note_tail ();
  in_loader = 1;
  int rc = dlclose (handle);
  in_loader = 0;
  CHECK (rc == 0, rc);
}

__attribute__((noinline, noclone)) static void
rounds (void)
{
  long steps = 0;
  lib_main_ra = __builtin_return_address (0);
  for (int i = 0; i < ROUNDS; i++) {
    steps += rt_step_run (load, NULL, on_step);
    CHECK (handle != NULL, i);
    dl_work_fn work = (dl_work_fn) dlsym (handle, "dl_work");
    CHECK (work != NULL && work (DEPTH, walk_cb, NULL) >= 1, i);
    CHECK (lib_walk_rc >= DEPTH + 4, lib_walk_rc);
    steps += rt_step_run (unload, NULL, on_step);
  }
  printf ("modules-handler: %ld steps, %ld walks, %ld complete in dlopen/dlclose; errors:",
          steps, walks, complete);
  for (int e = GORC_ENORECORD; e <= GORC_ECORRUPT; e++)
    printf (" %ld", errors[e]);
  printf ("\n");
  CHECK (walks == steps, walks);
  for (int e = GORC_EUNDEFINED; e <= GORC_ECORRUPT; e++)
    CHECK (errors[e] == 0, e);
}

int
main (void)
{
  rounds ();
  return 0;
}
