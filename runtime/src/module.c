/* libgorc: the module of an address, found at walk time (see module.h).  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "gorc.h"
#include "arch.h"
#include "elfsym.h"
#include "lookup.h"
#include "module.h"

struct module_slot {
  _Atomic uint32_t seq;            /* 0: empty; odd: being written */
  struct gorc_rt_module m;
};

static struct module_slot slots[GORC_RT_MODULE_SLOTS];
static _Atomic unsigned next_victim;
_Atomic unsigned gorc_rt_main_slot = GORC_RT_MODULE_SLOTS;
_Atomic uint64_t gorc_rt_permanent_slots[GORC_RT_MODULE_SLOTS / 64];

/* What tells one loaded module from another: what _dl_find_object says
   of it, and a hash of its file name (glibc reuses link_maps and
   addresses).  PERMANENT: the main program (found without
   _dl_find_object's link_map in static programs).  */
struct module_id {
  uint64_t map_lo, map_hi;
  const void *link_map;
  uint64_t eh_hdr;
  int permanent;
};

/* ---- reading a module's headers in place ---- */

/* The loaded segments of one module, from its program headers.  */
struct phdrs {
  const ElfW(Phdr) *ph;
  unsigned n;
  uint64_t bias;
  uint64_t entry;             /* the ELF header's e_entry where it was read, else 0 */
};

/* Is [addr, addr + len) inside one loaded segment?  Only such bytes are
   read: they are mapped as long as the module is.  */
static int loaded(const struct phdrs *p, uint64_t addr, uint64_t len)
{
  for (unsigned i = 0; i < p->n; i++) {
    const ElfW(Phdr) *ph = &p->ph[i];
    uint64_t lo = p->bias + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && addr >= lo
        && addr - lo <= ph->p_memsz && len <= ph->p_memsz - (addr - lo))
      return 1;
  }
  return 0;
}

/* The loaded segment holding ADDR, as [*lo, *hi).  */
static int segment_of(const struct phdrs *p, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
  for (unsigned i = 0; i < p->n; i++) {
    const ElfW(Phdr) *ph = &p->ph[i];
    uint64_t start = p->bias + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && addr - start < ph->p_memsz) {
      *lo = start;
      *hi = start + ph->p_memsz;
      return 0;
    }
  }
  return -1;
}

/* Check M's index once: are its starts in order (only then may it be
   bisected: ld -r merges pieces the final link cannot reorder,
   docs/FORMAT.md), and is every start code of M?  An index with a start
   outside the code is scanned, passing over such entries, and a lookup
   that finds nothing there says the records are corrupt.  */
static void check_index(struct gorc_rt_module *m)
{
  uint64_t prev = 0;
  int sorted = 1;
  for (uint64_t e = m->index_lo; e < m->index_hi; e += GORC_INDEX_ENTRY_SIZE) {
    uint64_t start = gorc_index_start((const uint8_t *)(uintptr_t)e, e);
    if (!gorc_rt_module_has_code(m, start, 1))
      m->index_bad_starts = 1;
    if (start < prev)
      sorted = 0;
    prev = start;
  }
  m->records = sorted && !m->index_bad_starts ? GORC_RT_RECORDS_SORTED
                                              : GORC_RT_RECORDS_UNSORTED;
}

/* The gorc note DESC (DESCSZ bytes at its run-time address) into M.  A
   note this runtime cannot use (version 1, another machine, tables
   outside the module) makes the records BAD: they are ignored, never
   misread.  */
static void use_note(struct gorc_rt_module *m, const struct phdrs *p, const uint8_t *desc,
                     uint32_t descsz)
{
  struct gorc_note_info info;
  m->records = GORC_RT_RECORDS_BAD;
  if (gorc_note_parse(desc, descsz, (uint64_t)(uintptr_t)desc, &info) != GORC_DECODE_OK
      || info.machine != GORC_RT_MACHINE
      || !loaded(p, info.index_start, info.index_end - info.index_start)
      || !loaded(p, info.records_start, info.records_end - info.records_start))
    return;
  m->machine = info.machine;
  m->index_lo = info.index_start;
  m->index_hi = info.index_end;
  m->bodies_lo = info.records_start;
  m->bodies_hi = info.records_end;
  check_index(m);
}

/* Look through the PT_NOTE segment PH for the gorc note.  */
static void find_note(struct gorc_rt_module *m, const struct phdrs *p, const ElfW(Phdr) *ph)
{
  const uint8_t *notes = (const uint8_t *)(uintptr_t)(p->bias + ph->p_vaddr);
  struct gorc_elf_note n;
  size_t pos = 0;
  if (!loaded(p, (uint64_t)(uintptr_t)notes, ph->p_memsz))
    return;
  while (gorc_elf_note_next(notes, ph->p_memsz, &pos, &n))
    if (n.type == GORC_NOTE_TABLE && n.namesz == sizeof GORC_NOTE_NAME
        && memcmp(n.name, GORC_NOTE_NAME, sizeof GORC_NOTE_NAME) == 0) {
      use_note(m, p, n.desc, n.descsz);
      return;
    }
}

/* Everything M needs from the program headers P.  */
static void read_phdrs(struct gorc_rt_module *m, const struct phdrs *p)
{
  m->bias = p->bias;
  for (unsigned i = 0; i < p->n; i++) {
    const ElfW(Phdr) *ph = &p->ph[i];
    uint64_t at = p->bias + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && m->nexec < GORC_RT_MAX_EXEC) {
      m->exec_lo[m->nexec] = at;
      m->exec_hi[m->nexec++] = at + ph->p_memsz;
    } else if (ph->p_type == PT_GNU_EH_FRAME && loaded(p, at, ph->p_memsz)
               && segment_of(p, at, &m->eh.lo, &m->eh.hi) == 0) {
      m->eh.hdr = at;
      m->eh.hdr_size = ph->p_memsz;
    }
  }
  if (p->entry)
    m->eh.entry = p->bias + p->entry;
  for (unsigned i = 0; i < p->n && m->records == GORC_RT_RECORDS_NONE; i++)
    if (p->ph[i].p_type == PT_NOTE)
      find_note(m, p, &p->ph[i]);
}

/* The program headers of the module mapped at [lo, hi): its ELF header
   is at LO (the first PT_LOAD maps file offset 0).  */
static int phdrs_at(uint64_t lo, uint64_t hi, uint64_t bias, struct phdrs *p)
{
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)lo;
  if (hi - lo < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0
      || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(ElfW(Phdr)))
    return -1;
  /* The headers must lie in the first page, which is mapped: nothing
     else of the module is read before its segments are known.  */
  if (eh->e_phoff > 4096 || (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr)) > 4096 - eh->e_phoff)
    return -1;
  p->ph = (const ElfW(Phdr) *)(uintptr_t)(lo + eh->e_phoff);
  p->n = eh->e_phnum;
  p->bias = bias;
  p->entry = eh->e_entry;
  return loaded(p, lo, sizeof *eh) ? 0 : -1;
}

/* ---- the main program without _dl_find_object (static programs) ---- */

/* The load bias of the program whose headers are PH (from the auxiliary
   vector): from PT_PHDR, else (static-pie has none) from the ELF header
   at the start of the page holding them, the first PT_LOAD's file offset
   0.  Returns -1 when neither says.  */
static int main_bias(const struct phdrs *p, uint64_t *bias)
{
  uint64_t at = (uint64_t)(uintptr_t)p->ph;
  for (unsigned i = 0; i < p->n; i++)
    if (p->ph[i].p_type == PT_PHDR) {
      *bias = at - p->ph[i].p_vaddr;
      return 0;
    }
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)(at & ~4095ull);
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || (uint64_t)(uintptr_t)eh + eh->e_phoff != at)
    return -1;
  for (unsigned i = 0; i < p->n; i++)
    if (p->ph[i].p_type == PT_LOAD && p->ph[i].p_offset == 0) {
      *bias = (uint64_t)(uintptr_t)eh - p->ph[i].p_vaddr;
      return 0;
    }
  return -1;
}

/* The main program, from the auxiliary vector, if PC is in it: static
   programs too, where _dl_find_object does not describe it fully.  Only
   its identity (its span, its .eh_frame_hdr) into *M and its program
   headers into *P: the rest is read once, when no slot holds it yet.  */
static int main_program(uint64_t pc, struct module_id *id, struct phdrs *p)
{
  uint64_t lo = UINT64_MAX, hi = 0, eh_hdr = 0;
  p->ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
  p->n = (unsigned)getauxval(AT_PHNUM);
  if (!p->ph || getauxval(AT_PHENT) != sizeof(ElfW(Phdr)) || main_bias(p, &p->bias) != 0)
    return -1;
  uint64_t entry = getauxval(AT_ENTRY);
  p->entry = entry > p->bias ? entry - p->bias : 0;
  for (unsigned i = 0; i < p->n; i++) {
    uint64_t start = p->bias + p->ph[i].p_vaddr;
    if (p->ph[i].p_type == PT_LOAD) {
      lo = start < lo ? start : lo;
      hi = start + p->ph[i].p_memsz > hi ? start + p->ph[i].p_memsz : hi;
    } else if (p->ph[i].p_type == PT_GNU_EH_FRAME) {
      eh_hdr = start;
    }
  }
  if (pc < lo || pc >= hi)
    return -1;
  id->map_lo = lo;
  id->map_hi = hi;
  id->link_map = NULL;
  id->eh_hdr = eh_hdr;
  id->permanent = 1;
  return 0;
}

/* ---- slots ---- */

static int same_id(const struct module_id *a, const struct gorc_rt_module *b)
{
  return a->map_lo == b->map_lo && a->map_hi == b->map_hi && a->link_map == b->link_map
         && a->eh_hdr == b->eh_hdr;
}

/* A hash of a module's file name, read from the link_map _dl_find_object
   gives now (never from the module's own memory, which may be another
   module's gap by now).  A walk computes it once per module that may be
   unloaded, so it goes 16 bytes at a time in two independent lanes, and
   reads the last bytes as one word that ends at the name's end.  */
static uint64_t fingerprint(const struct link_map *lm)
{
  const uint64_t k = 0x9e3779b97f4a7c15ull;
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull, w;
  if (!lm || !lm->l_name)
    return a;
  const char *name = lm->l_name;
  size_t n = strnlen(name, PATH_MAX), i = 0;
  for (; i + 16 <= n; i += 16) {
    memcpy(&w, name + i, 8);
    a = (a ^ w) * k;
    memcpy(&w, name + i + 8, 8);
    b = (b ^ w) * k;
  }
  if (n >= 8) {
    if (n - i > 8) {
      memcpy(&w, name + i, 8);
      b = (b ^ w) * k;
    }
    memcpy(&w, name + n - 8, 8);
    a = (a ^ w) * k;
  } else {
    for (w = 0; i < n; i++)
      w = w << 8 | (uint8_t)name[i];
    a = (a ^ w) * k;
  }
  return a ^ (b << 29 | b >> 35) ^ n;
}

/* Is the module now at PC (ID, from _dl_find_object) the one slot copy
   HELD describes?  The same map, link map and .eh_frame_hdr, and the
   same file name (glibc reuses link_maps and addresses).  Nothing of the
   module's own memory is read: another thread's dlclose may be unmapping
   it.  */
static int still_held(const struct gorc_rt_module *held, const struct module_id *id)
{
  return same_id(id, held) && (held->permanent || fingerprint(id->link_map) == held->fingerprint);
}

/* Copy slot I into *M if it holds a module and was not being rewritten.  */
static int read_slot(unsigned i, struct gorc_rt_module *m)
{
  struct module_slot *s = &slots[i];
  uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
  if (seq == 0 || (seq & 1))
    return -1;
  memcpy(m, &s->m, sizeof *m);
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&s->seq, memory_order_relaxed) != seq)
    return -1;
  m->slot = i;
  m->seq = seq;
  return 0;
}

/* The slot module_find looks at first for a module mapped at MAP_LO (a
   hint: the slot is checked whole).  Slot number + 1, 0 for none.  */
#define HINTS 1024
static _Atomic uint16_t hints[HINTS];

static _Atomic uint16_t *hint_of(uint64_t map_lo)
{
  return &hints[(map_lo >> 12) * 0x9e3779b97f4a7c15ull >> 54];
}
_Static_assert(HINTS == 1u << (64 - 54), "hint_of indexes all of hints[]");

/* A slot to give to a new module: an empty one while there is one, then
   in turn, never a permanent module's.  The victim's cached states are
   forgotten (only past GORC_RT_MODULE_SLOTS modules).  Returns the slot,
   locked for writing (its sequence number made odd: *SEQ the old one),
   or GORC_RT_MODULE_SLOTS when none can be had at once (another
   writer).  */
static unsigned take_slot(uint32_t *old_seq)
{
  static _Atomic unsigned next_empty;
  unsigned first = atomic_load_explicit(&next_empty, memory_order_relaxed);
  for (unsigned tries = 0; tries < 2 * GORC_RT_MODULE_SLOTS; tries++) {
    int filling = first + tries < GORC_RT_MODULE_SLOTS;
    unsigned i = filling ? first + tries
                         : atomic_fetch_add_explicit(&next_victim, 1, memory_order_relaxed)
                               % GORC_RT_MODULE_SLOTS;
    struct module_slot *s = &slots[i];
    uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
    if ((seq & 1) || (filling && seq != 0) || (seq && s->m.permanent))
      continue;
    if (!atomic_compare_exchange_strong_explicit(&s->seq, &seq, seq + 1, memory_order_acquire,
                                                 memory_order_relaxed))
      continue;
    if (filling)
      atomic_store_explicit(&next_empty, i + 1, memory_order_relaxed);
    *old_seq = seq;
    return i;
  }
  return GORC_RT_MODULE_SLOTS;
}

/* Keep M in a slot (take_slot).  A slot that held another module is
   rewritten, and the PC cache forgets that slot's entries.  When no slot
   can be had at once, M stays in no slot.  */
static void store(struct gorc_rt_module *m)
{
  uint32_t seq;
  unsigned i = take_slot(&seq);
  m->slot = i;
  if (i == GORC_RT_MODULE_SLOTS)
    return;
  struct module_slot *s = &slots[i];
  /* A writer of the cache that read this slot before the rewrite sees
     the odd number after its write (cache_put) and takes its entry
     back: the number's change is ordered before the forgetting.  */
  atomic_thread_fence(memory_order_seq_cst);
  if (seq != 0)
    gorc_rt_cache_forget_slot(i);
  memcpy(&s->m, m, sizeof *m);
  /* 0 stays "empty".  */
  uint32_t next = seq + 2 == 0 ? 2 : seq + 2;
  atomic_store_explicit(&s->seq, next, memory_order_release);
  atomic_store_explicit(hint_of(m->map_lo), (uint16_t)(i + 1), memory_order_relaxed);
  m->seq = next;
  if (m->permanent)
    atomic_fetch_or_explicit(&gorc_rt_permanent_slots[i / 64], 1ull << (i % 64),
                             memory_order_release);
  if (m->permanent && !m->link_map)
    atomic_store_explicit(&gorc_rt_main_slot, i, memory_order_release);
}

/* The module _dl_find_object reports for PC (its identity only), or the
   main program from the auxiliary vector (the link_map with an empty
   name, or none: static programs), then *MAIN_PH holds its headers.  */
static int identify(uint64_t pc, struct module_id *id, struct phdrs *main_ph)
{
  /* The main program's link_map, once seen: then a module's need not be
     read to tell it is another.  */
  static const void *_Atomic main_link_map;
  struct dl_find_object f;
  main_ph->ph = NULL;
  if (_dl_find_object((void *)(uintptr_t)pc, &f) != 0)
    return main_program(pc, id, main_ph);
  const void *main_map = atomic_load_explicit(&main_link_map, memory_order_relaxed);
  if (f.dlfo_link_map == main_map
      || (!main_map && ((const struct link_map *)f.dlfo_link_map)->l_name[0] == 0)) {
    atomic_store_explicit(&main_link_map, f.dlfo_link_map, memory_order_relaxed);
    return main_program(pc, id, main_ph);
  }
  id->map_lo = (uint64_t)(uintptr_t)f.dlfo_map_start;
  id->map_hi = (uint64_t)(uintptr_t)f.dlfo_map_end;
  id->link_map = f.dlfo_link_map;
  id->eh_hdr = (uint64_t)(uintptr_t)f.dlfo_eh_frame;
  id->permanent = 0;
  return 0;
}

/* Read what a new slot for the module ID needs from its headers into M.  */
static void read_module(struct gorc_rt_module *m, const struct module_id *id,
                        const struct phdrs *main_ph)
{
  const struct link_map *lm = id->link_map;
  struct phdrs p;
  memset(m, 0, sizeof *m);
  m->map_lo = id->map_lo;
  m->map_hi = id->map_hi;
  m->link_map = id->link_map;
  m->eh_hdr = id->eh_hdr;
  m->permanent = id->permanent;
  if (!lm) {
    read_phdrs(m, main_ph);
    return;
  }
  if (phdrs_at(m->map_lo, m->map_hi, lm->l_addr, &p) == 0)
    read_phdrs(m, &p);
  else
    m->bias = lm->l_addr;
  m->fingerprint = fingerprint(lm);
  m->permanent = gorc_rt_module_is_permanent(lm);
}

/* The slot holding the module ID into *M: the hinted slot first, then
   every slot whose start matches (a racy first look, so that only a
   likely slot is copied; the copy is then checked whole).  */
static int find_slot(const struct module_id *id, struct gorc_rt_module *m)
{
  unsigned hinted = atomic_load_explicit(hint_of(id->map_lo), memory_order_relaxed);
  if (hinted && read_slot(hinted - 1, m) == 0 && still_held(m, id))
    return 0;
  for (unsigned i = 0; i < GORC_RT_MODULE_SLOTS; i++) {
    if (__atomic_load_n(&slots[i].m.map_lo, __ATOMIC_RELAXED) != id->map_lo)
      continue;
    if (read_slot(i, m) == 0 && still_held(m, id))
      return 0;
  }
  return -1;
}

int gorc_rt_module_find(uint64_t pc, struct gorc_rt_module *m)
{
  struct phdrs main_ph;
  struct module_id id;
  if (identify(pc, &id, &main_ph) != 0)
    return -1;
  if (find_slot(&id, m) == 0)
    return 0;
  read_module(m, &id, &main_ph);
  store(m);
  return 0;
}

int gorc_rt_module_slot_current(unsigned slot, uint64_t pc)
{
  struct module_slot *s = &slots[slot];
  struct module_id now;
  struct phdrs main_ph;
  uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
  if (seq == 0 || (seq & 1))
    return 0;
  /* Only the identity is read, in place; a rewrite meanwhile shows in
     the number.  */
  struct gorc_rt_module held;
  held.map_lo = s->m.map_lo;
  held.map_hi = s->m.map_hi;
  held.link_map = s->m.link_map;
  held.eh_hdr = s->m.eh_hdr;
  held.fingerprint = s->m.fingerprint;
  held.permanent = s->m.permanent;
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&s->seq, memory_order_relaxed) != seq)
    return 0;
  return held.permanent || (identify(pc, &now, &main_ph) == 0 && still_held(&held, &now));
}

int gorc_rt_module_slot_holds(unsigned slot, uint32_t seq)
{
  return atomic_load_explicit(&slots[slot].seq, memory_order_acquire) == seq;
}

int gorc_rt_module_has_code(const struct gorc_rt_module *m, uint64_t addr, uint64_t len)
{
  for (unsigned i = 0; i < m->nexec; i++)
    if (addr >= m->exec_lo[i] && addr < m->exec_hi[i] && len <= m->exec_hi[i] - addr)
      return 1;
  return 0;
}

const char *gorc_rt_module_span_and_path(const struct dl_phdr_info *info, uint64_t *lo,
                                         uint64_t *hi, char *buf, size_t bufsize)
{
  *lo = UINT64_MAX;
  *hi = 0;
  for (unsigned i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
      continue;
    uint64_t a = info->dlpi_addr + ph->p_vaddr;
    *lo = a < *lo ? a : *lo;
    *hi = a + ph->p_memsz > *hi ? a + ph->p_memsz : *hi;
  }
  return *lo < *hi ? gorc_rt_module_file(info->dlpi_name, buf, bufsize) : NULL;
}

const char *gorc_rt_module_file(const char *name, char *buf, size_t bufsize)
{
  if (name && name[0])
    return name;
  ssize_t n = readlink("/proc/self/exe", buf, bufsize - 1);
  if (n <= 0)
    return NULL;
  buf[n] = 0;
  return buf;
}
