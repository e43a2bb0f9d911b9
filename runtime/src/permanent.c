/* libgorc: which modules are never unloaded, so that a walk need not ask
   _dl_find_object, once per walk, whether they still are (module.h).

   Two kinds, both told apart once per module, when its slot is filled:
   - the modules libgorc's own code is bound to (libc, the dynamic
     linker): a symbol reference from one module into another keeps the
     other loaded as long as the first is (glibc counts it as a
     dependency);
   - the modules the program loaded at start-up as what its main
     program needs (DT_NEEDED, and what those need): glibc never unloads
     them.  They are found once, by libgorc's constructor, which walks
     the base namespace's list of modules (_r_debug) while nothing can
     unload one: at start-up, or inside the dlopen that loads libgorc,
     which holds the loader's lock.  The list is in load order, and each
     needed name is met by the first module in it that bears that name
     (its DT_SONAME, or its file's base name, as the loader looked it
     up): a module loaded later under the same name is not one of them.
   Everything else (modules dlopened, LD_PRELOADed ones, another
   namespace's) is checked once per walk.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "module.h"

#define MAX_INITIAL GORC_RT_MODULE_SLOTS
#define MAX_NEEDED 1024

/* Written by the constructor only, before any walk can see it (a walk
   in another thread of a program that dlopens libgorc may run
   meanwhile: it reads a count that only grows, of entries written
   first).  */
static const void *initial_maps[MAX_INITIAL];
static _Atomic unsigned n_initial;

extern struct r_debug _r_debug __attribute__((weak));

/* What one module's dynamic section says of its names.  */
struct dyn_names {
  const char *strtab;
  const char *soname;
  const ElfW(Dyn) *dyn;
};

/* An address in LM's dynamic section: relocated in place by the loader,
   except where the section is read-only (the vDSO's).  */
static const char *dyn_address(const struct link_map *lm, ElfW(Addr) ptr)
{
  return (const char *)(uintptr_t)(ptr < lm->l_addr ? ptr + lm->l_addr : ptr);
}

static int read_names(const struct link_map *lm, struct dyn_names *n)
{
  ElfW(Addr) strtab = 0;
  ElfW(Xword) soname = 0;
  int has_soname = 0;
  n->dyn = lm->l_ld;
  n->soname = NULL;
  if (!n->dyn)
    return -1;
  for (const ElfW(Dyn) *d = n->dyn; d->d_tag != DT_NULL; d++)
    if (d->d_tag == DT_STRTAB)
      strtab = d->d_un.d_ptr;
    else if (d->d_tag == DT_SONAME)
      soname = d->d_un.d_val, has_soname = 1;
  if (!strtab)
    return -1;
  n->strtab = dyn_address(lm, strtab);
  if (has_soname)
    n->soname = n->strtab + soname;
  return 0;
}

/* Is LM what the loader found for the needed name NAME?  */
static int bears_name(const struct link_map *lm, const struct dyn_names *n, const char *name)
{
  const char *file = lm->l_name, *base;
  if (n->soname && strcmp(n->soname, name) == 0)
    return 1;
  if (!file || !file[0])
    return 0;
  if (strchr(name, '/'))
    return strcmp(file, name) == 0;
  base = strrchr(file, '/');
  return strcmp(base ? base + 1 : file, name) == 0;
}

/* The needed names met so far, and whether a module answered each.  */
struct needed {
  const char *name[MAX_NEEDED];
  unsigned char met[MAX_NEEDED];
  unsigned count;
};

static void add_needed(struct needed *nd, const struct dyn_names *n)
{
  for (const ElfW(Dyn) *d = n->dyn; d->d_tag != DT_NULL; d++)
    if (d->d_tag == DT_NEEDED && nd->count < MAX_NEEDED) {
      nd->met[nd->count] = 0;
      nd->name[nd->count++] = n->strtab + d->d_un.d_val;
    }
}

/* Does LM answer a needed name no earlier module answered?  */
static int answers(struct needed *nd, const struct link_map *lm, const struct dyn_names *n)
{
  int answered = 0;
  for (unsigned i = 0; i < nd->count; i++)
    if (!nd->met[i] && bears_name(lm, n, nd->name[i]))
      nd->met[i] = 1, answered = 1;
  return answered;
}

/* Static: the walk of the constructor's own (too big for a stack that
   may be small, and used once).  */
static struct needed needed;

__attribute__((constructor)) static void find_initial_modules(void)
{
  const struct link_map *main_map = &_r_debug ? _r_debug.r_map : NULL;
  struct dyn_names n;
  unsigned count = 0;
  if (!main_map || read_names(main_map, &n) != 0)
    return;
  needed.count = 0;
  add_needed(&needed, &n);
  for (const struct link_map *lm = main_map->l_next; lm && count < MAX_INITIAL; lm = lm->l_next) {
    if (read_names(lm, &n) != 0 || !answers(&needed, lm, &n))
      continue;
    initial_maps[count++] = lm;
    add_needed(&needed, &n);
  }
  atomic_store_explicit(&n_initial, count, memory_order_release);
}

/* The modules libgorc's code is bound to.  (In a program built without
   -fPIE these addresses are its own PLT's: then the main program is
   found, which is permanent anyway.)  */
static int bound_to_libgorc(const void *link_map)
{
  static void *const anchors[] = { (void *)&getpid, (void *)&_dl_find_object };
  struct dl_find_object f;
  for (unsigned i = 0; i < sizeof anchors / sizeof anchors[0]; i++)
    if (_dl_find_object(anchors[i], &f) == 0 && f.dlfo_link_map == link_map)
      return 1;
  return 0;
}

int gorc_rt_module_is_permanent(const void *link_map)
{
  unsigned count = atomic_load_explicit(&n_initial, memory_order_acquire);
  for (unsigned i = 0; i < count; i++)
    if (initial_maps[i] == link_map)
      return 1;
  return bound_to_libgorc(link_map);
}
