/* libgorc: module discovery (dl_iterate_phdr, normal context only), the
   per-module entry arrays and their fast-lookup index, and the registry
   that the unwind path reads without locks.  */

#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

uint64_t gorc_rt_main_lo, gorc_rt_main_hi;
unsigned long gorc_rt_main_self;
int gorc_rt_main_self_known;

/* Published modules: gorc_rt_slots [0, gorc_rt_n_slots) may hold a module pointer.  A
   writer (normal context, under scan_lock) fills a slot, then raises
   gorc_rt_n_slots with release; readers load gorc_rt_n_slots and each slot with acquire.
   A module that went away is unpublished (slot set to NULL) but its memory
   is never unmapped: a signal handler may still be reading it.  */
struct gorc_rt_module *_Atomic gorc_rt_slots[GORC_RT_MAX_MODULES];
_Atomic unsigned gorc_rt_n_slots;
_Atomic unsigned gorc_rt_generation = 1;

/* Store M into slot I and tell the walks' view caches (unwind.c) that
   the registry changed.  Under the scan lock.  */
static void publish_slot(unsigned i, struct gorc_rt_module *m)
{
  atomic_store_explicit(&gorc_rt_slots[i], m, memory_order_release);
  unsigned g = atomic_load_explicit(&gorc_rt_generation, memory_order_relaxed) + 1;
  atomic_store_explicit(&gorc_rt_generation, g ? g : 1, memory_order_release);
}
_Atomic int gorc_rt_initialized_flag;
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds, seen_subs;
static int seen_valid;


/* ---- reading a module's headers (registration only) ---- */

struct scan_module {
  uint64_t base;
  const ElfW(Phdr) *phdr;
  unsigned phnum;
  uint64_t ident;             /* module_ident() */
};

/* Is [addr, addr+len) inside one PT_LOAD of the module?  */
static int in_load(const struct scan_module *sm, uint64_t addr, uint64_t len)
{
  for (unsigned i = 0; i < sm->phnum; i++) {
    const ElfW(Phdr) *p = &sm->phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_R))
      continue;
    uint64_t lo = sm->base + p->p_vaddr, hi = lo + p->p_memsz;
    if (addr >= lo && addr <= hi && len <= hi - addr)
      return 1;
  }
  return 0;
}

/* The end of the PT_LOAD holding ADDR, or 0.  */
static uint64_t load_end(const struct scan_module *sm, uint64_t addr)
{
  for (unsigned i = 0; i < sm->phnum; i++) {
    const ElfW(Phdr) *p = &sm->phdr[i];
    if (p->p_type != PT_LOAD)
      continue;
    uint64_t lo = sm->base + p->p_vaddr, hi = lo + p->p_filesz;
    if (addr >= lo && addr < hi)
      return hi;
  }
  return 0;
}

static uint32_t rd32(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Decode every range of the table at [p, end) into B.  A malformed range
   is dropped (its entries removed) and decoding stops there.  */
static void decode_records(struct gorc_rt_builder *b, uint64_t base,
                           const uint8_t *p, const uint8_t *end)
{
  while (p < end && !b->failed) {
    struct gorc_range r;
    struct gorc_entry e;
    size_t mark = b->count;
    int rc;
    if (gorc_range_open(&r, p, end, (uint64_t)(uintptr_t)p) != GORC_DECODE_OK)
      break;
    while ((rc = gorc_range_next(&r, &e)) == 1)
      gorc_rt_builder_add(b, base, e.addr, &e.state, GORC_RT_RBX_UNKNOWN, 0);
    if (rc < 0) {
      if (!b->failed)
        b->count = mark;
      break;
    }
    p = gorc_range_table_end(&r);
  }
}

/* The first note in the module's PT_NOTE segments with owner OWNER
   (OWNERSZ bytes with the NUL) and type TYPE whose descriptor ACCEPT
   takes; NULL if none.  *DESCSZ gets the descriptor's size.  */
static const uint8_t *find_note(const struct scan_module *sm, const char *owner, uint32_t ownersz,
                                uint32_t type, int (*accept)(const uint8_t *desc, uint32_t descsz),
                                uint32_t *descsz_out)
{
  for (unsigned i = 0; i < sm->phnum; i++) {
    const ElfW(Phdr) *ph = &sm->phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    uint64_t lo = sm->base + ph->p_vaddr, len = ph->p_memsz;
    if (!in_load(sm, lo, len))
      continue;
    uint64_t align = ph->p_align == 8 ? 8 : 4;
    const uint8_t *n = (const uint8_t *)(uintptr_t)lo, *nend = n + len;
    while (nend - n >= 12) {
      uint32_t namesz = rd32(n), descsz = rd32(n + 4), ntype = rd32(n + 8);
      uint64_t nsz = (namesz + align - 1) & ~(align - 1);
      uint64_t dsz = (descsz + align - 1) & ~(align - 1);
      if (nsz > (uint64_t)(nend - n) - 12 || dsz > (uint64_t)(nend - n) - 12 - nsz)
        break;
      const uint8_t *name = n + 12, *desc = name + nsz;
      if (namesz == ownersz && ntype == type && memcmp(name, owner, ownersz) == 0
          && accept(desc, descsz)) {
        *descsz_out = descsz;
        return desc;
      }
      n = desc + dsz;
    }
  }
  return NULL;
}

static int is_gorc_table_note(const uint8_t *desc, uint32_t descsz)
{
  return descsz == GORC_NOTE_DESC_SIZE && rd32(desc) == GORC_FORMAT_VERSION;
}

/* Find the gorc note (one per module); decode the table it points to.  */
static void find_records(const struct scan_module *sm, struct gorc_rt_builder *b)
{
  uint32_t descsz;
  const uint8_t *desc = find_note(sm, GORC_NOTE_NAME, sizeof GORC_NOTE_NAME, GORC_NOTE_TABLE,
                                  is_gorc_table_note, &descsz);
  if (!desc)
    return;
  uint64_t start = (uint64_t)(uintptr_t)(desc + 4) + (uint64_t)(int64_t)(int32_t)rd32(desc + 4);
  uint64_t stop = (uint64_t)(uintptr_t)(desc + 8) + (uint64_t)(int64_t)(int32_t)rd32(desc + 8);
  if (start <= stop && in_load(sm, start, stop - start))
    decode_records(b, sm->base, (const uint8_t *)(uintptr_t)start,
                   (const uint8_t *)(uintptr_t)stop);
}

/* An encoded pointer of .eh_frame_hdr (no indirection).  */
static int read_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc,
                        uint64_t datarel, uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v;
  size_t n;
  switch (enc & 0x0f) {
  case 0x00: case 0x04: case 0x0c: n = 8; break;
  case 0x03: case 0x0b: n = 4; break;
  case 0x02: case 0x0a: n = 2; break;
  default: return -1;
  }
  if ((size_t)(end - p) < n)
    return -1;
  if (n == 8) {
    memcpy(&v, p, 8);
  } else if (n == 4) {
    uint32_t w = rd32(p);
    v = (enc & 0x08) ? (uint64_t)(int64_t)(int32_t)w : w;
  } else {
    uint16_t h;
    memcpy(&h, p, 2);
    v = (enc & 0x08) ? (uint64_t)(int64_t)(int16_t)h : h;
  }
  switch (enc & 0x70) {
  case 0x00: break;
  case 0x10: v += (uint64_t)(uintptr_t)p; break;
  case 0x30: v += datarel; break;
  default: return -1;
  }
  if (enc & 0x80)
    return -1;
  *pp = p + n;
  *out = v;
  return 0;
}

int gorc_rt_convert_eh_frame(struct gorc_rt_builder *b, uint64_t base,
                             const uint8_t *eh_frame, size_t len,
                             uint64_t eh_frame_addr);

static void find_eh_frame(const struct scan_module *sm, struct gorc_rt_builder *b)
{
  for (unsigned i = 0; i < sm->phnum; i++) {
    const ElfW(Phdr) *ph = &sm->phdr[i];
    if (ph->p_type != PT_GNU_EH_FRAME)
      continue;
    uint64_t hdr = sm->base + ph->p_vaddr;
    if (ph->p_memsz < 4 || !in_load(sm, hdr, ph->p_memsz))
      return;
    const uint8_t *h = (const uint8_t *)(uintptr_t)hdr, *hend = h + ph->p_memsz;
    if (h[0] != 1 || h[1] == 0xff)
      return;
    const uint8_t *p = h + 4;
    uint64_t ehf;
    if (read_encoded(&p, hend, h[1], hdr, &ehf) != 0)
      return;
    uint64_t lend = load_end(sm, ehf);
    if (!lend)
      return;
    /* .eh_frame has no size in the header: walk its records to the zero
       terminator, inside the segment.  */
    uint64_t q = ehf;
    while (lend - q >= 4) {
      uint32_t l = rd32((const uint8_t *)(uintptr_t)q);
      uint64_t total;
      if (l == 0)
        break;
      if (l == 0xffffffffu) {
        uint64_t l64;
        if (lend - q < 12)
          break;
        memcpy(&l64, (const uint8_t *)(uintptr_t)(q + 4), 8);
        if (l64 > lend - q - 12)
          break;
        total = 12 + l64;
      } else {
        if (l > lend - q - 4)
          break;
        total = 4 + (uint64_t)l;
      }
      q += total;
    }
    if (q > ehf)
      gorc_rt_convert_eh_frame(b, sm->base, (const uint8_t *)(uintptr_t)ehf,
                               (size_t)(q - ehf), ehf);
    return;
  }
}

static int same_entry_state(const struct gorc_rt_entry *a, const struct gorc_rt_entry *b)
{
  return a->cfa_kind == b->cfa_kind && a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off
         && a->bp_kind == b->bp_kind && a->bp_reg == b->bp_reg && a->bp_off == b->bp_off
         && a->rbx_kind == b->rbx_kind && a->rbx_off == b->rbx_off;
}

/* Overlay R (records) on E (.eh_frame rows), both sorted with one entry
   per address: wherever a records range is in effect its state wins,
   elsewhere the eh_frame state (also after a records range ends inside
   an FDE).  Returns the number of entries written to OUT.  */
static size_t overlay(const struct gorc_rt_entry *r, size_t nr,
                      const struct gorc_rt_entry *e, size_t ne,
                      struct gorc_rt_entry *out)
{
  size_t i = 0, j = 0, n = 0;
  const struct gorc_rt_entry *rc = NULL, *ec = NULL;
  static const struct gorc_rt_entry none = { .cfa_kind = GORC_CFA_END };
  while (i < nr || j < ne) {
    uint32_t x;
    if (i < nr && (j >= ne || r[i].pc_off <= e[j].pc_off))
      x = r[i].pc_off;
    else
      x = e[j].pc_off;
    if (i < nr && r[i].pc_off == x)
      rc = &r[i++];
    if (j < ne && e[j].pc_off == x)
      ec = &e[j++];
    const struct gorc_rt_entry *eff = rc && rc->cfa_kind != GORC_CFA_END ? rc : ec ? ec : &none;
    if (n == 0 && eff->cfa_kind == GORC_CFA_END)
      continue;
    if (n > 0 && same_entry_state(&out[n - 1], eff))
      continue;
    out[n] = *eff;
    out[n].pc_off = x;
    n++;
  }
  return n;
}

/* FNV-1a, for the state table and module identities.  */
#define FNV_OFFSET 1469598103934665603ull
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* The fast word of E, or 0 if no fast word can hold its state.  */
static uint32_t fast_word(const struct gorc_rt_entry *e)
{
  uint32_t w = GORC_RT_W_FAST, j, k;
  if (e->cfa_kind == GORC_CFA_BP)
    w |= GORC_RT_W_CFA_BP;
  else if (e->cfa_kind != GORC_CFA_SP)
    return 0;
  if (e->cfa_off < 8 || e->cfa_off > (int32_t)GORC_RT_W_OFF_MASK || (e->cfa_off & 7))
    return 0;
  w |= (uint32_t)e->cfa_off;
  if (e->bp_kind == GORC_BP_SAME)
    k = 0;
  else if (e->bp_kind == GORC_BP_CFA && e->bp_off < 0 && !(e->bp_off & 7)
           && -e->bp_off / 8 <= 255)
    k = (uint32_t)(-e->bp_off / 8);
  else
    return 0;
  /* With the CFA on rsp, the walk reads the rbp slot unchecked: it must
     be at or above rsp - 128 (the red zone), i.e. 8k <= off + 128.  */
  if (e->cfa_kind == GORC_CFA_SP && 8 * (int64_t)k > (int64_t)e->cfa_off + 128)
    return 0;
  if (e->rbx_kind == GORC_RT_RBX_SAME)
    j = 0;
  else if (e->rbx_kind == GORC_RT_RBX_UNKNOWN)
    j = GORC_RT_W_RBX_LOST;
  else if (e->rbx_off < 0 && !(e->rbx_off & 7) && -e->rbx_off / 8 < (int32_t)GORC_RT_W_RBX_LOST)
    j = (uint32_t)(-e->rbx_off / 8);
  else
    return 0;
  /* The same for the rbx slot.  */
  if (e->cfa_kind == GORC_CFA_SP && j != GORC_RT_W_RBX_LOST
      && 8 * (int64_t)j > (int64_t)e->cfa_off + 128)
    return 0;
  return w | j << GORC_RT_W_RBX_SHIFT | k << GORC_RT_W_BP_SHIFT;
}

static void state_of(const struct gorc_rt_entry *e, struct gorc_rt_state *s)
{
  memset(s, 0, sizeof *s);
  s->cfa_kind = e->cfa_kind;
  s->cfa_reg = e->cfa_reg;
  s->cfa_off = e->cfa_off;
  s->bp_kind = e->bp_kind;
  s->bp_reg = e->bp_reg;
  s->bp_off = e->bp_off;
  s->rbx_kind = e->rbx_kind;
  s->rbx_off = e->rbx_off;
}

/* The state table: one copy of each state no fast word holds (a few
   dozen per module: DRAP rules, rules gorc cannot follow, the outermost
   frame).  Index 0 is unused so that the word 2*k is never 0.  */
struct state_set {
  struct gorc_rt_state *states;   /* capacity: one per entry, plus 1 */
  uint32_t n;
  uint32_t *hash;                 /* open addressing: 0 empty, else index */
  size_t hash_mask;
};

static uint32_t state_index(struct state_set *ss, const struct gorc_rt_state *s)
{
  uint64_t h = fnv(FNV_OFFSET, (const uint8_t *)s, sizeof *s);
  for (size_t i = h & ss->hash_mask;; i = (i + 1) & ss->hash_mask) {
    uint32_t k = ss->hash[i];
    if (k == 0) {
      k = ++ss->n;
      ss->states[k] = *s;
      ss->hash[i] = k;
      return k;
    }
    if (memcmp(&ss->states[k], s, sizeof *s) == 0)
      return k;
  }
}

static size_t align8(size_t n)
{
  return (n + 7) & ~(size_t)7;
}

/* Lay the module out from the sorted, overlaid entries E[0..N).  */
static struct gorc_rt_module *lay_out(const struct scan_module *sm,
                                      const struct gorc_rt_entry *e, size_t n,
                                      unsigned records_entries, unsigned ehframe_entries)
{
  const uint64_t bsize = 1u << GORC_RT_BLOCK_SHIFT;
  struct state_set ss = { 0 };
  size_t hash_size = 16;
  while (hash_size < 2 * (n + 1))
    hash_size *= 2;
  ss.hash_mask = hash_size - 1;
  ss.hash = gorc_rt_map(hash_size * sizeof *ss.hash);
  ss.states = gorc_rt_map((n + 1) * sizeof *ss.states);
  uint32_t *words = gorc_rt_map((n + 1) * sizeof *words);
  struct gorc_rt_module *m = NULL;
  if (!ss.hash || !ss.states || !words)
    goto out;

  /* Each entry's word; states for the ones a fast word cannot hold.  */
  for (size_t i = 0; i < n; i++) {
    struct gorc_rt_state st;
    words[i] = 0;
    if (e[i].cfa_kind == GORC_CFA_END)
      continue;
    words[i] = fast_word(&e[i]);
    if (!words[i]) {
      state_of(&e[i], &st);
      words[i] = state_index(&ss, &st) << 1;
    }
  }

  uint64_t lo = n ? e[0].pc_off & ~(bsize - 1) : 0;
  uint64_t nblocks = n ? ((uint64_t)e[n - 1].pc_off - lo + bsize - 1) >> GORC_RT_BLOCK_SHIFT : 0;
  size_t nentries = n + 2;
  size_t blocks_off = align8(sizeof *m);
  size_t entries_off = align8(blocks_off + nblocks * 4);
  size_t states_off = align8(entries_off + nentries * sizeof(struct gorc_rt_pc_entry));
  size_t size = states_off + (ss.n + 1) * sizeof(struct gorc_rt_state);
  size_t map_size;
  uint8_t *mem = gorc_rt_map_module(size, &map_size);
  if (!mem)
    goto out;
  m = (struct gorc_rt_module *)mem;
  uint32_t *blocks = (uint32_t *)(mem + blocks_off);
  struct gorc_rt_pc_entry *ent = (struct gorc_rt_pc_entry *)(mem + entries_off);
  struct gorc_rt_state *states = (struct gorc_rt_state *)(mem + states_off);

  /* entries[0] is the dummy, entries[n + 1] the sentinel.  */
  ent[0].pc_off = 0;
  ent[0].word = 0;
  for (size_t i = 0; i < n; i++) {
    ent[i + 1].pc_off = e[i].pc_off;
    ent[i + 1].word = words[i];
  }
  ent[n + 1].pc_off = UINT32_MAX;
  ent[n + 1].word = 0;
  memcpy(states, ss.states, (ss.n + 1) * sizeof *states);

  /* Blocks: i walks the entries; entry i is in effect at the block start.  */
  size_t i = 0;
  for (uint64_t bl = 0; bl < nblocks; bl++) {
    uint64_t start = lo + (bl << GORC_RT_BLOCK_SHIFT);
    while (i + 1 <= n && ent[i + 1].pc_off <= start)
      i++;
    int uniform = ent[i + 1].pc_off >= start + bsize;
    if (uniform && (ent[i].word & GORC_RT_W_FAST))
      blocks[bl] = ent[i].word;
    else if (uniform && ent[i].word == 0)
      blocks[bl] = 0;
    else
      blocks[bl] = (uint32_t)(i + 1) << 1;   /* scan from entry i */
  }

  m->base = sm->base;
  m->lo = sm->base + lo;
  m->span = nblocks << GORC_RT_BLOCK_SHIFT;
  m->blocks_off = (uint32_t)blocks_off;
  m->entries_off = (uint32_t)entries_off;
  m->states_off = (uint32_t)states_off;
  m->nentries = (uint32_t)nentries;
  m->nstates = ss.n + 1;
  m->map_size = map_size;
  m->phdr = sm->phdr;
  m->ident = sm->ident;
  m->records_entries = records_entries;
  m->ehframe_entries = ehframe_entries;
  for (unsigned p = 0; p < sm->phnum && m->nexec < GORC_RT_MAX_EXEC; p++) {
    const ElfW(Phdr) *ph = &sm->phdr[p];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (ph->p_flags & PF_R)) {
      m->exec_lo[m->nexec] = sm->base + ph->p_vaddr;
      m->exec_hi[m->nexec] = sm->base + ph->p_vaddr + ph->p_memsz;
      m->nexec++;
    }
  }
  mprotect(mem, map_size, PROT_READ);
out:
  gorc_rt_unmap(ss.hash, hash_size * sizeof *ss.hash);
  gorc_rt_unmap(ss.states, (n + 1) * sizeof *ss.states);
  gorc_rt_unmap(words, (n + 1) * sizeof *words);
  return m;
}

static struct gorc_rt_module *build_module(const struct scan_module *sm)
{
  struct gorc_rt_builder rb = { 0 }, eb = { 0 };
  struct gorc_rt_module *m = NULL;
  size_t nr = 0, ne = 0;

  find_records(sm, &rb);
  if (rb.failed) {
    gorc_rt_builder_free(&rb);
    rb = (struct gorc_rt_builder){ 0 };
  }
  find_eh_frame(sm, &eb);
  if (eb.failed) {
    gorc_rt_builder_free(&eb);
    eb = (struct gorc_rt_builder){ 0 };
  }
  if (rb.count)
    nr = gorc_rt_sort_entries(rb.entries, rb.count, &rb.failed);
  if (eb.count)
    ne = gorc_rt_sort_entries(eb.entries, eb.count, &eb.failed);
  if (rb.failed)
    nr = 0;
  if (eb.failed)
    ne = 0;
  size_t cap = nr + ne;
  struct gorc_rt_entry *all = cap ? gorc_rt_map(cap * sizeof *all) : NULL;
  if (cap && !all)
    goto out;
  size_t n = overlay(rb.entries, nr, eb.entries, ne, all);
  m = lay_out(sm, all, n, (unsigned)nr, (unsigned)ne);
  gorc_rt_unmap(all, cap * sizeof *all);
out:
  gorc_rt_builder_free(&rb);
  gorc_rt_builder_free(&eb);
  return m;
}

/* ---- the scan ---- */

struct scan_state {
  int changed_check;          /* first callback: compare adds/subs */
  int unchanged;
  unsigned char seen[GORC_RT_MAX_MODULES];
};

static int any_desc(const uint8_t *desc, uint32_t descsz)
{
  (void)desc;
  (void)descsz;
  return 1;
}

/* What tells two modules loaded at one address apart: the file name
   and the GNU build ID (when the module has one).  */
static uint64_t module_ident(const struct scan_module *sm, const char *name)
{
  uint64_t h = FNV_OFFSET;
  if (name)
    h = fnv(h, (const uint8_t *)name, strnlen(name, 4096));
  uint32_t idsz;
  const uint8_t *id = find_note(sm, "GNU", 4, NT_GNU_BUILD_ID, any_desc, &idsz);
  return id ? fnv(h, id, idsz) : h;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  struct scan_state *st = data;
  if (st->changed_check) {
    st->changed_check = 0;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
      if (seen_valid && info->dlpi_adds == seen_adds && info->dlpi_subs == seen_subs) {
        st->unchanged = 1;
        return 1;
      }
      seen_adds = info->dlpi_adds;
      seen_subs = info->dlpi_subs;
      seen_valid = 1;
    }
  }
  struct scan_module sm = { info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, 0 };
  sm.ident = module_ident(&sm, info->dlpi_name);
  unsigned n = atomic_load_explicit(&gorc_rt_n_slots, memory_order_relaxed);
  for (unsigned i = 0; i < n; i++) {
    struct gorc_rt_module *m = atomic_load_explicit(&gorc_rt_slots[i], memory_order_relaxed);
    if (!m || m->base != sm.base || m->phdr != (const void *)sm.phdr)
      continue;
    if (m->ident == sm.ident) {
      st->seen[i] = 1;
      return 0;
    }
    /* Another module at the same address (the old one was closed behind
       libgorc's back): the old tables go now, before the new ones are
       published.  */
    publish_slot(i, NULL);
    gorc_rt_retire_module(m, m->map_size);
  }
  struct gorc_rt_module *m = build_module(&sm);
  if (!m)
    return 0;
  /* A free slot: an empty one below n, else n (the high-water mark).  */
  for (unsigned i = 0; i < n; i++) {
    if (!st->seen[i] && !atomic_load_explicit(&gorc_rt_slots[i], memory_order_relaxed)) {
      st->seen[i] = 1;
      publish_slot(i, m);
      return 0;
    }
  }
  if (n < GORC_RT_MAX_MODULES) {
    st->seen[n] = 1;
    atomic_store_explicit(&gorc_rt_n_slots, n + 1, memory_order_release);
    publish_slot(n, m);
  } else {
    gorc_rt_retire_module(m, m->map_size);   /* registry full: not published */
  }
  return 0;
}

static void rescan_locked(void);

int gorc_rt_rescan(void)
{
  /* trylock: a signal handler interrupting a scan in this thread must
     not deadlock on our lock.  */
  if (pthread_mutex_trylock(&scan_lock) != 0)
    return 0;
  rescan_locked();
  return 1;
}

void gorc_rt_rescan_wait(void)
{
  pthread_mutex_lock(&scan_lock);
  rescan_locked();
}

static void rescan_locked(void)
{
  static struct scan_state st;
  memset(&st, 0, sizeof st);
  st.changed_check = 1;
  dl_iterate_phdr(scan_cb, &st);
  if (!st.unchanged) {
    unsigned n = atomic_load_explicit(&gorc_rt_n_slots, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++) {
      struct gorc_rt_module *m = atomic_load_explicit(&gorc_rt_slots[i], memory_order_relaxed);
      if (st.seen[i] || !m)
        continue;
      /* Unpublish, then give the memory back.  A walk that found the
         module just before reads zeros from now on (the mapping stays).  */
      publish_slot(i, NULL);
      gorc_rt_retire_module(m, m->map_size);
    }
  }
  atomic_store_explicit(&gorc_rt_initialized_flag, 1, memory_order_release);
  pthread_mutex_unlock(&scan_lock);
}

extern void *__libc_stack_end;

static void main_stack_bounds(void)
{
  if (syscall(SYS_gettid) == getpid()) {
    pthread_attr_t a;
    void *addr;
    size_t size;
    gorc_rt_main_self = (unsigned long)pthread_self();
    gorc_rt_main_self_known = 1;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      if (pthread_attr_getstack(&a, &addr, &size) == 0) {
        gorc_rt_main_lo = (uint64_t)(uintptr_t)addr;
        gorc_rt_main_hi = (uint64_t)(uintptr_t)addr + size;
      }
      pthread_attr_destroy(&a);
    }
  }
  if (!gorc_rt_main_hi && __libc_stack_end) {
    /* Not on the main thread (libgorc dlopened from another thread), or
       pthread_getattr_np failed: the page holding __libc_stack_end is
       the top we know is mapped, RLIMIT_STACK below it.  */
    struct rlimit rl;
    uint64_t hi = ((uint64_t)(uintptr_t)__libc_stack_end + 4095) & ~(uint64_t)4095;
    uint64_t sz = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      sz = rl.rlim_cur;
    gorc_rt_main_hi = hi;
    gorc_rt_main_lo = hi > sz ? hi - sz : 0;
  }
}

void gorc_rt_init(void)
{
  static _Atomic int bounds_done;
  if (!atomic_exchange(&bounds_done, 1))
    main_stack_bounds();
  gorc_rt_rescan();
}

__attribute__((constructor)) static void gorc_rt_constructor(void)
{
  gorc_rt_init();
}

const char *gorc_rt_module_span_and_path(const struct dl_phdr_info *info, uint64_t *lo,
                                         uint64_t *hi, char *buf, size_t bufsize)
{
  *lo = UINT64_MAX;
  *hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
      continue;
    uint64_t a = info->dlpi_addr + p->p_vaddr;
    if (a < *lo)
      *lo = a;
    if (a + p->p_memsz > *hi)
      *hi = a + p->p_memsz;
  }
  if (*lo >= *hi)
    return NULL;
  if (info->dlpi_name && *info->dlpi_name)
    return info->dlpi_name;
  ssize_t r = readlink("/proc/self/exe", buf, bufsize - 1);
  if (r <= 0)
    return NULL;
  buf[r] = 0;
  return buf;
}

/* ---- the unwind path: lock-free reads only ---- */

/* The slot of the module found last, tried first (a hint only: any
   value is safe).  */
static _Atomic unsigned last_slot;

static int view_of_slot(struct gorc_rt_view *v, unsigned s, uint64_t pc)
{
  const struct gorc_rt_module *m = atomic_load_explicit(&gorc_rt_slots[s], memory_order_acquire);
  if (!m || pc - GORC_RT_LOAD(m->lo) >= GORC_RT_LOAD(m->span))
    return -1;
  return gorc_rt_view_load(v, m) == 0 && pc - v->lo < v->span ? 0 : -1;
}

int gorc_rt_find_view(struct gorc_rt_view *v, uint64_t pc)
{
  unsigned n = atomic_load_explicit(&gorc_rt_n_slots, memory_order_acquire);
  unsigned hint = atomic_load_explicit(&last_slot, memory_order_relaxed);
  if (hint < n && view_of_slot(v, hint, pc) == 0)
    return 0;
  for (unsigned s = 0; s < n; s++) {
    if (view_of_slot(v, s, pc) == 0) {
      atomic_store_explicit(&last_slot, s, memory_order_relaxed);
      return 0;
    }
  }
  v->m = NULL;
  v->span = 0;
  v->lo = 0;
  return -1;
}

int gorc_rt_decode_word(const struct gorc_rt_view *v, uint32_t w, struct gorc_rt_state *s)
{
  if (w & GORC_RT_W_FAST) {
    uint32_t j = (w & GORC_RT_W_RBX_MASK) >> GORC_RT_W_RBX_SHIFT, k = w >> GORC_RT_W_BP_SHIFT;
    memset(s, 0, sizeof *s);
    s->cfa_kind = (w & GORC_RT_W_CFA_BP) ? GORC_CFA_BP : GORC_CFA_SP;
    s->cfa_off = (int32_t)(w & GORC_RT_W_OFF_MASK);
    s->bp_kind = k ? GORC_BP_CFA : GORC_BP_SAME;
    s->bp_off = -8 * (int32_t)k;
    s->rbx_kind = j == 0 ? GORC_RT_RBX_SAME
                  : j == GORC_RT_W_RBX_LOST ? GORC_RT_RBX_UNKNOWN : GORC_RT_RBX_CFA;
    s->rbx_off = s->rbx_kind == GORC_RT_RBX_CFA ? -8 * (int32_t)j : 0;
    return 0;
  }
  uint32_t k = w >> 1;
  if (k == 0 || k >= v->nstates)
    return -1;
  *s = v->states[k];
  return 0;
}

int gorc_rt_module_has_text(const struct gorc_rt_module *m, uint64_t addr, size_t len)
{
  /* The header may be zero-filled or reused under us: stay inside it.  */
  unsigned n = GORC_RT_LOAD(m->nexec);
  if (n > GORC_RT_MAX_EXEC)
    n = GORC_RT_MAX_EXEC;
  for (unsigned i = 0; i < n; i++) {
    uint64_t lo = GORC_RT_LOAD(m->exec_lo[i]), hi = GORC_RT_LOAD(m->exec_hi[i]);
    if (addr >= lo && addr < hi && len <= hi - addr)
      return 1;
  }
  return 0;
}

