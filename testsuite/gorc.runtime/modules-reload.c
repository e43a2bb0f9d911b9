/* A module replaced at the same address: dlopen libgorc-dlpadA.so, walk
   from inside it, dlclose it, and dlopen libgorc-dlpadB.so, which the
   loader maps at the same address (both are support/dl-many.c built with
   the plugin, with 8 and 1500 bytes of padding: the same segments and the
   same dl_many_f* functions, but B's many_work lies past the end of A's
   code).  libgorc has cached states of A at those addresses; a walk must
   see that the module there is another one (lookup.h: an entry names its
   module's slot, checked once per walk): every walk from inside B, the
   first one too, must be complete, through B's frames to main, with as
   many frames as from A.  If the loader does not put B where A was, the
   program says "UNSUPPORTED: ..." and dg-final reports that.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin -DDL_MANY_PAD=8 [file dirname $prog]/support/dl-many.c -o $::gorc_dltest_dir/libgorc-dlpadA.so][exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin -DDL_MANY_PAD=1500 [file dirname $prog]/support/dl-many.c -o $::gorc_dltest_dir/libgorc-dlpadB.so]" } */
/* { dg-final { upvar 1 output out name tn; if { [info exists out] && [regexp {UNSUPPORTED: ([^\n]*)} $out -> why] } { unsupported "$tn same-address reload: $why" } } } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "support/rt-test.h"

#define DEPTH 4
#define MAX 64

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

struct walk {
  void *main_ra;
  uintptr_t lo, hi;          /* the library's code */
  int rc[3], frames[3], in_lib[3], main_seen[3];
};

static int
walk_cb (void *arg)
{
  struct walk *w = arg;
  for (int k = 0; k < 3; k++) {
    void *ips[MAX];
    w->rc[k] = gorc_backtrace (ips, MAX);
    w->frames[k] = gorc_backtrace_count ();
    w->in_lib[k] = w->main_seen[k] = 0;
    for (int i = 0; i < w->frames[k]; i++) {
      w->in_lib[k] += (uintptr_t) ips[i] > w->lo && (uintptr_t) ips[i] <= w->hi;
      w->main_seen[k] |= ips[i] == w->main_ra;
    }
  }
  return 1;
}

static void
code_range (void *h, struct walk *w, uintptr_t *base)
{
  struct link_map *lm;
  CHECK (dlinfo (h, RTLD_DI_LINKMAP, &lm) == 0, 0);
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *) lm->l_addr;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *) (lm->l_addr + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
      w->lo = lm->l_addr + ph[i].p_vaddr;
      w->hi = w->lo + ph[i].p_memsz;
    }
  *base = lm->l_addr;
}

__attribute__((noinline, noclone)) static int
rounds (void)
{
  uintptr_t first_base = 0;
  int frames_a = 0;
  for (int i = 0; i < 2; i++) {
    const char *name = i % 2 ? "libgorc-dlpadB.so" : "libgorc-dlpadA.so";
    void *h = dlopen (name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      rt_puts (dlerror ());
      FAIL (" (dlopen)", i);
    }
    struct walk w;
    uintptr_t base;
    memset (&w, 0, sizeof w);
    w.main_ra = __builtin_return_address (0);
    code_range (h, &w, &base);
    if (i == 0)
      first_base = base;
    else if (base != first_base) {
      printf ("UNSUPPORTED: round %d: %s loaded at %#lx, not at %#lx\n", i, name,
              (unsigned long) base, (unsigned long) first_base);
      return 0;
    }
    dl_work_fn work = (dl_work_fn) dlsym (h, "dl_many_work");
    CHECK (work != NULL, i);
    CHECK (work (DEPTH, walk_cb, &w) >= 1, i);
    printf ("round %d, %s at %#lx: walks %d, %d, %d (%d, %d, %d frames, %d, %d, %d in the library)\n",
            i, name, (unsigned long) base, w.rc[0], w.rc[1], w.rc[2], w.frames[0],
            w.frames[1], w.frames[2], w.in_lib[0], w.in_lib[1], w.in_lib[2]);
    fflush (stdout);
    for (int k = 0; k < 3; k++) {
      if (w.rc[k] < 0)
        FAIL ("a walk from the reloaded module failed", w.rc[k]);
      CHECK (w.main_seen[k], k);
      CHECK (w.in_lib[k] >= DEPTH + 1, w.in_lib[k]);
    }
    if (i == 0)
      frames_a = w.frames[1];
    for (int k = 0; k < 3; k++)
      CHECK (w.frames[k] == frames_a, w.frames[k] - frames_a);
    CHECK (dlclose (h) == 0, i);
  }
  return 1;
}

int
main (void)
{
  rounds ();
  return 0;
}
