/* libgorc: static-call updates (gorc_static_call_set, <gorc/static_call.h>).

   The plugin gives every module (executable or shared library) that
   defines static-call variables a descriptor set, found through a note
   (docs/STATIC_CALLS.md).  An update:
     1. takes the update mutex (updates are rare; callers never lock);
     2. finds the variable's descriptor with dl_iterate_phdr, inside the
        callback, so the module cannot be unloaded meanwhile; dlopened
        libraries are found like any other module;
     3. stores the new target into the variable (release), then replaces
        the trampoline's state with one aligned store of the port's word
        (static_call_arch.h): every state is one instruction at offset 0
        (x86-64: jmp rel32 to the target or, for NULL, to the unit's
        return-0 stub, jmp *var(%rip) when rel32 cannot reach, int3
        padded in an 8-byte word; aarch64: b, or nop into a fixed tail
        through the variable, a 32-bit word), so a caller executes the
        old or the new instruction, never a mix, and never resumes inside
        the word; then the port's cache maintenance (aarch64: dc cvau,
        ic ivau, dsb, isb);
     4. membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) so every
        thread serialises its instruction stream before it returns to
        user space.
   Writing the trampoline: the first update in a module copies the
   module's trampoline pages into a memfd, maps it read+exec over the
   original pages (MAP_SHARED|MAP_FIXED via mremap, after a test mapping
   proved the system allows executable memfd mappings) and keeps a second
   read+write view elsewhere: no page is ever writable and executable.
   Where that is refused (or GORC_STATIC_CALL_NO_ALIAS=1), the page is
   made writable+executable for the one store and read+exec again.
   fork: the fork handlers are registered before the update mutex is
   first taken (sc_lock_updates), so every fork, in either mode, holds
   the mutex across fork and the child finds it free; the child handler
   also gives the child its own copy of aliased pages, which would
   otherwise still share the parent's memfd.  */

#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "static_call_arch.h"
#include "gorc/format.h"
#include "gorc/static_call.h"
#include "gorc/static_call_desc.h"

#define SC_EXPORT __attribute__((visibility("default")))
#define SC_PAGE 4096u
#define SC_MAX_PAGES 16   /* per module; beyond that, mprotect patching */
#define SC_MAX_MODULES 64 /* aliased modules; beyond that, mprotect */

struct sc_desc {
  int32_t tramp;
  int32_t var;
  uint8_t version;
  uint8_t size;
  uint16_t flags;
  int32_t ret0;
};

/* One module whose trampoline pages were looked at.  */
struct sc_module {
  uintptr_t first_page;        /* lowest trampoline page (its header) */
  uint64_t cookie;             /* in that header once aliased */
  int npages;
  uintptr_t page[SC_MAX_PAGES];
  unsigned char aliased[SC_MAX_PAGES];
  unsigned char *rw;           /* npages * SC_PAGE, MAP_SHARED view */
  int failed;                  /* aliasing was refused: mprotect */
};

static pthread_mutex_t sc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_module sc_modules[SC_MAX_MODULES];
static int sc_nmodules;
static int sc_no_alias = -1;   /* GORC_STATIC_CALL_NO_ALIAS, read once */
static int sc_membarrier;      /* 0 not tried, 1 registered, -1 unavailable */
static int sc_last_method;
static int sc_patch_sites = -1;  /* GORC_STATIC_CALL_SITES, or the API */
static long sc_sites_patched;   /* call sites rewritten by the last update */
static int sc_sites_ever;       /* some call site was ever patched */
static uint64_t sc_cookie_seq;
static pthread_once_t sc_atfork_once = PTHREAD_ONCE_INIT;

static inline uint32_t rd32(const void *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* ---- serialisation of other threads ---- */

static void sc_sync_cores(void)
{
  if (sc_membarrier == 0) {
    long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)
        && syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
                   0, 0) == 0)
      sc_membarrier = 1;
    else
      sc_membarrier = -1;
  }
  if (sc_membarrier > 0)
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
  /* Without it: the store is one aligned word, and every thread
     serialises at its next interrupt or system call return.  */
}

/* ---- the memfd alias ---- */

static void sc_atfork_prepare(void) { pthread_mutex_lock(&sc_lock); }
static void sc_atfork_parent(void) { pthread_mutex_unlock(&sc_lock); }
static void sc_atfork_child(void);

static void sc_register_atfork(void)
{
  pthread_atfork(sc_atfork_prepare, sc_atfork_parent, sc_atfork_child);
}

/* Every path that takes the update mutex: the fork handlers exist before
   the mutex can ever be held, whatever the mode.  A fork that starts
   before they are registered finds the mutex free (pthread_atfork waits
   for a running fork; glibc's pthread_once runs again in a child forked
   while it was in progress).  */
static void sc_lock_updates(void)
{
  pthread_once(&sc_atfork_once, sc_register_atfork);
  pthread_mutex_lock(&sc_lock);
}

/* Map a fresh memfd holding the current contents of M's pages over them
   (read+exec) and make M->rw its read+write view.  Pages that cannot be
   replaced stay as they are (aliased[i] = 0: patched with mprotect).
   Returns the number of aliased pages.  */
static int sc_alias_pages(struct sc_module *m, const unsigned char *src)
{
  size_t len = (size_t)m->npages * SC_PAGE;
  int fd = memfd_create("gorc-static-calls", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  unsigned char *rw = MAP_FAILED;
  if (ftruncate(fd, (off_t)len) == 0)
    rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (rw == MAP_FAILED) {
    close(fd);
    return 0;
  }
  for (int i = 0; i < m->npages; i++)
    memcpy(rw + (size_t)i * SC_PAGE, src ? src + (size_t)i * SC_PAGE : (void *)m->page[i],
           SC_PAGE);
  for (int i = 0; i < m->npages; i++)
    if (m->page[i] == m->first_page)
      memcpy(rw + (size_t)i * SC_PAGE, &m->cookie, sizeof m->cookie);

  /* First every executable view at an address of the kernel's choice: if
     the system refuses executable memfd mappings, nothing was touched.  */
  void *x[SC_MAX_PAGES];
  int ok = 1;
  for (int i = 0; i < m->npages; i++) {
    x[i] = mmap(NULL, SC_PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, (off_t)i * SC_PAGE);
    if (x[i] == MAP_FAILED)
      ok = 0;
  }
  close(fd);
  int n = 0;
  for (int i = 0; i < m->npages; i++) {
    if (x[i] == MAP_FAILED)
      continue;
    if (!ok) {
      munmap(x[i], SC_PAGE);
      continue;
    }
    /* Replaces the page atomically (under the kernel's mmap lock): a
       thread running in it faults and resumes in the identical copy.  */
    if (mremap(x[i], SC_PAGE, SC_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
               (void *)m->page[i]) == MAP_FAILED) {
      munmap(x[i], SC_PAGE);
      m->aliased[i] = 0;
    } else {
      m->aliased[i] = 1;
      n++;
    }
  }
  if (n == 0) {
    munmap(rw, len);
    m->rw = NULL;
    return 0;
  }
  m->rw = rw;
  return n;
}

/* Child after fork: the prepare handler's lock is released (the child's
   one thread is the thread that took it); the aliased pages are shared
   with the parent: give them a memfd of their own (or private anonymous
   copies).  */
static void sc_atfork_child(void)
{
  pthread_mutex_unlock(&sc_lock);
  for (int k = 0; k < sc_nmodules; k++) {
    struct sc_module *m = &sc_modules[k];
    if (!m->rw)
      continue;
    unsigned char *old = m->rw;
    size_t len = (size_t)m->npages * SC_PAGE;
    unsigned char was[SC_MAX_PAGES];
    memcpy(was, m->aliased, sizeof was);
    int n = sc_alias_pages(m, old);
    for (int i = 0; i < m->npages; i++) {
      if (!was[i] || m->aliased[i])
        continue;
      /* No memfd in the child: a private anonymous copy, read+exec.  */
      void *p = mmap(NULL, SC_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        abort(); /* would share the parent's code: never continue so */
      memcpy(p, old + (size_t)i * SC_PAGE, SC_PAGE);
      if (mprotect(p, SC_PAGE, PROT_READ | PROT_EXEC) != 0
          || mremap(p, SC_PAGE, SC_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
                    (void *)m->page[i]) == MAP_FAILED)
        abort();
    }
    munmap(old, len);
    if (n == 0)
      m->rw = NULL;
  }
}

/* ---- finding the variable ---- */

struct sc_find {
  uintptr_t var;
  uintptr_t fn;
  int result;   /* 1 = not found yet */
  const unsigned char *sites, *sites_end;  /* this module's call sites */
};

static struct sc_module *sc_module_for(const struct sc_desc *start, const struct sc_desc *stop)
{
  uintptr_t pages[SC_MAX_PAGES];
  int n = 0;
  uintptr_t lo = UINTPTR_MAX;
  for (const struct sc_desc *d = start; d < stop; d++) {
    uintptr_t t = (uintptr_t)&d->tramp + (intptr_t)d->tramp;
    uintptr_t pg = t & ~(uintptr_t)(SC_PAGE - 1);
    if (pg < lo)
      lo = pg;
    int seen = 0;
    for (int i = 0; i < n; i++)
      seen |= pages[i] == pg;
    if (seen)
      continue;
    if (n == SC_MAX_PAGES)
      return NULL;
    pages[n++] = pg;
  }
  if (n == 0)
    return NULL;
  /* Known and still the same mapping (its header holds our cookie)?  */
  for (int k = 0; k < sc_nmodules; k++) {
    struct sc_module *m = &sc_modules[k];
    if (m->first_page != lo)
      continue;
    if (m->failed || (m->rw && *(volatile uint64_t *)lo == m->cookie))
      return m;
    /* A module unloaded and another loaded at its address: forget it.  */
    if (m->rw)
      munmap(m->rw, (size_t)m->npages * SC_PAGE);
    *m = sc_modules[--sc_nmodules];
    break;
  }
  if (sc_nmodules == SC_MAX_MODULES)
    return NULL;
  struct sc_module *m = &sc_modules[sc_nmodules];
  memset(m, 0, sizeof *m);
  m->first_page = lo;
  m->npages = n;
  memcpy(m->page, pages, sizeof pages);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  m->cookie = 0x676f72635f736300ull ^ ((uint64_t)++sc_cookie_seq << 40)
              ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)m;
  if (m->cookie == 0x0101010101010101ull * GORC_RT_SC_PAD)
    m->cookie++;
  sc_nmodules++;
  if (sc_alias_pages(m, NULL) == 0)
    m->failed = 1; /* refused here: mprotect patching from now on */
  return m;
}

/* Store WORD at CODE (through the alias W when it has one) and make the
   instruction fetch of this thread see it.  */
static void sc_store_code(uintptr_t w, uintptr_t code, gorc_rt_sc_word word)
{
  __atomic_store_n((gorc_rt_sc_word *)w, word, __ATOMIC_RELEASE);
  gorc_rt_sc_sync_icache(w, code);
}

/* Write WORD at TRAMP.  Returns a GORC_SC_VIA_* method or -errno.  */
static int sc_patch(const struct sc_desc *start, const struct sc_desc *stop,
                    uintptr_t tramp, gorc_rt_sc_word word)
{
  uintptr_t pg = tramp & ~(uintptr_t)(SC_PAGE - 1);
  if (!sc_no_alias) {
    struct sc_module *m = sc_module_for(start, stop);
    for (int i = 0; m && i < m->npages; i++) {
      if (m->page[i] == pg && m->aliased[i]) {
        sc_store_code((uintptr_t)(m->rw + (size_t)i * SC_PAGE + (tramp - pg)), tramp, word);
        return GORC_SC_VIA_ALIAS;
      }
    }
  }
  /* The page stays executable while it is writable: other threads may be
     running the trampoline right now.  */
  if (mprotect((void *)pg, SC_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
    return -errno;
  sc_store_code(tramp, tramp, word);
  if (mprotect((void *)pg, SC_PAGE, PROT_READ | PROT_EXEC) != 0)
    return -errno;
  return GORC_SC_VIA_MPROTECT;
}

/* ---- call sites in place ---- */

struct sc_site {
  int32_t site;
  int32_t tramp;
};

/* Point every patchable call site of TRAMP at DEST (the new target, the
   return-0 stub, or TRAMP itself when DEST is out of the call's range),
   each with one aligned store of the port's word (gorc_rt_sc_site_word:
   x86-64, a call/jmp rel32 whose rel32 lies inside one aligned 8-byte
   word; aarch64, every bl/b).  Sites are grouped by page: one mprotect
   pair per page.  Returns the number of sites rewritten.  */
static long sc_patch_sites_of(const struct sc_find *f, uintptr_t tramp, uintptr_t dest)
{
  long n = 0;
  uintptr_t open_page = 0;
  int page_ok = 0;
  for (const unsigned char *p = f->sites; p + sizeof(struct sc_site) <= f->sites_end;
       p += GORC_SC_SITE_SIZE) {
    const struct sc_site *s = (const void *)p;
    uintptr_t t = (uintptr_t)&s->tramp + (intptr_t)s->tramp;
    if (t != tramp)
      continue;
    uintptr_t site = (uintptr_t)&s->site + (intptr_t)s->site;
    uintptr_t at;
    gorc_rt_sc_word w;
    if (gorc_rt_sc_site_word(site, dest, tramp, &at, &w) != 0)
      continue;
    uintptr_t pg = site & ~(uintptr_t)(SC_PAGE - 1);
    if (pg != open_page) {
      if (open_page && page_ok)
        mprotect((void *)open_page, SC_PAGE, PROT_READ | PROT_EXEC);
      open_page = pg;
      /* Stays executable: other threads may be running this page.  */
      page_ok = mprotect((void *)pg, SC_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) == 0;
    }
    if (!page_ok)
      continue;
    sc_store_code(at, at, w);
    n++;
  }
  if (open_page && page_ok)
    mprotect((void *)open_page, SC_PAGE, PROT_READ | PROT_EXEC);
  return n;
}

static int sc_update_in(const struct sc_desc *start, const struct sc_desc *stop,
                        struct sc_find *f)
{
  for (const struct sc_desc *d = start; d < stop; d++) {
    if (d->version != GORC_SC_VERSION || d->size != GORC_SC_DESC_SIZE)
      return -EINVAL; /* a format this libgorc does not know */
    uintptr_t var = (uintptr_t)&d->var + (intptr_t)d->var;
    if (var != f->var)
      continue;
    uintptr_t tramp = (uintptr_t)&d->tramp + (intptr_t)d->tramp;
    gorc_rt_sc_word word;
    if (tramp % GORC_RT_SC_TRAMP_SIZE != 0 || !gorc_rt_sc_tramp_ok(tramp))
      return -EINVAL;
    uintptr_t ret0 = (uintptr_t)&d->ret0 + (intptr_t)d->ret0;
    /* NULL: the unit's return-0 stub (x86-64: xor %eax,%eax; ret;
       aarch64: mov x0, xzr; ret).  */
    int r = gorc_rt_sc_encode(tramp, var, f->fn ? f->fn : ret0, &word);
    if (r < 0)
      return r;
    void *old = __atomic_load_n((void **)var, __ATOMIC_RELAXED);
    __atomic_store_n((void **)var, (void *)f->fn, __ATOMIC_RELEASE);
    r = sc_patch(start, stop, tramp, word);
    if (r < 0) {
      __atomic_store_n((void **)var, old, __ATOMIC_RELEASE);
      return r;
    }
    /* Sites after the trampoline: a site pointing at the trampoline is
       always right, one pointing at the old target is not any more.  */
    sc_sites_patched = 0;
    if (sc_patch_sites > 0 && f->sites) {
      sc_sites_ever = 1;
      sc_sites_patched = sc_patch_sites_of(f, tramp, f->fn ? f->fn : ret0);
    } else if (sc_sites_ever && f->sites) {
      /* Turned off again: sites patched before go back to the trampoline.  */
      sc_patch_sites_of(f, tramp, tramp);
    }
    sc_sync_cores();
    sc_last_method = r;
    return 0;
  }
  return 1;
}

static int sc_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  struct sc_find *f = data;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    size_t align = ph->p_align == 8 ? 8 : 4;
    while (end - p >= 12) {
      uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
      const unsigned char *name = p + 12;
      const unsigned char *desc = name + ((namesz + align - 1) & ~(align - 1));
      const unsigned char *next = desc + ((descsz + align - 1) & ~(align - 1));
      if (next > end || next <= p)
        break;
      if (type == GORC_SC_NOTE_TYPE && namesz == sizeof GORC_NOTE_NAME
          && memcmp(name, GORC_NOTE_NAME, sizeof GORC_NOTE_NAME) == 0
          && descsz == GORC_SC_NOTE_DESC_SIZE && rd32(desc) == GORC_SC_VERSION) {
        const struct sc_desc *start =
          (const void *)(desc + 4 + (int32_t)rd32(desc + 4));
        const struct sc_desc *stop =
          (const void *)(desc + 8 + (int32_t)rd32(desc + 8));
        f->sites = desc + 12 + (int32_t)rd32(desc + 12);
        f->sites_end = desc + 16 + (int32_t)rd32(desc + 16);
        int r = sc_update_in(start, stop, f);
        if (r <= 0) {
          f->result = r;
          return 1;
        }
      }
      p = next;
    }
  }
  return 0;
}

SC_EXPORT int gorc_static_call_set(void *var, void (*fn)(void))
{
  if (!var || (uintptr_t)var % sizeof(void *) != 0)
    return -EINVAL;
  sc_lock_updates();
  if (sc_no_alias < 0) {
    const char *e = getenv("GORC_STATIC_CALL_NO_ALIAS");
    sc_no_alias = e && *e && *e != '0';
  }
  if (sc_patch_sites < 0) {
    const char *e = getenv("GORC_STATIC_CALL_SITES");
    sc_patch_sites = e && *e && *e != '0';
  }
  struct sc_find f = { (uintptr_t)var, (uintptr_t)fn, 1, NULL, NULL };
  dl_iterate_phdr(sc_phdr_cb, &f);
  if (f.result == 1) {
    /* No trampoline: its defining unit was built without the rewrite.  */
    __atomic_store_n((void **)var, (void *)fn, __ATOMIC_RELEASE);
    sc_last_method = GORC_SC_VIA_NONE;
    f.result = GORC_SC_NOT_PATCHED;
  }
  pthread_mutex_unlock(&sc_lock);
  return f.result;
}

SC_EXPORT int gorc_static_call_patch_sites(int on)
{
  sc_lock_updates();
  int old = sc_patch_sites > 0;
  sc_patch_sites = on != 0;
  pthread_mutex_unlock(&sc_lock);
  return old;
}

SC_EXPORT long gorc_static_call_sites_patched(void)
{
  return __atomic_load_n(&sc_sites_patched, __ATOMIC_RELAXED);
}

SC_EXPORT int gorc_static_call_last_method(void)
{
  return __atomic_load_n(&sc_last_method, __ATOMIC_RELAXED);
}
