/* gorc-prof: kernel addresses named (see prof-kernel.h).  The addresses
   a profile has are met first (prof_kernel_meet), then named all at
   once, by the kernel's own lookup where BPF may run (prof-ksym.h: well
   under a millisecond), else, and for the addresses that lookup cannot
   name, by one read of /proc/kallsyms.

   That read is a stream against the addresses sorted: each text symbol
   (types t, T, w, W) becomes the candidate of the first address at or
   above it when it lies higher than that address's candidate so far,
   and a sweep up the addresses then hands each one the best of those
   below.  So an address is named by the symbol at or below it, as perf
   does (kallsyms has no sizes); of symbols at one address the first
   listed wins, the one the kernel's lookup gives, so that both ways
   name an address alike.  Nothing of kallsyms is kept but the names
   given: it has over 100,000 text symbols, and keeping them all (then
   sorting them) was most of the cost of a short profile.  */

#define _GNU_SOURCE
#include "prof-kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof-data.h"
#include "prof-ksym.h"

/* The addresses met, by open addressing; NAME NULL until named.  */
struct kaddr {
  uint64_t pc;
  const char *name;      /* with PROF_KERNEL_SUFFIX */
  int used;              /* 0: an empty slot (any pc is an address: no pc marks it) */
};
static struct kaddr *met;
static size_t cap_met, nmet, unnamed;

/* The names given, in chunks of NAME_CHUNK bytes that never move.  */
#define NAME_CHUNK (64 * 1024)
static char **chunks;
static size_t nchunks, cap_chunks, chunk_used = NAME_CHUNK;

/* An address being named: the best symbol at or below it seen so far.  */
struct candidate {
  uint64_t pc, sym;      /* SYM: its address; FOUND 0: none yet */
  int found;
  char *name;            /* name_len bytes, not terminated */
  size_t name_len, name_cap;
  struct kaddr *slot;
};

/* NAME (LEN bytes) with PROF_KERNEL_SUFFIX, kept in the chunks.  */
static const char *keep_name(const char *name, size_t len)
{
  size_t need = len + sizeof PROF_KERNEL_SUFFIX;
  if (need > NAME_CHUNK)
    return PROF_KERNEL_UNNAMED;
  if (chunk_used + need > NAME_CHUNK) {
    chunks = prof_xgrow(chunks, &cap_chunks, nchunks + 1, sizeof *chunks, 16, SIZE_MAX);
    chunks[nchunks++] = prof_xmalloc(NAME_CHUNK);
    chunk_used = 0;
  }
  char *kept = chunks[nchunks - 1] + chunk_used;
  memcpy(kept, name, len);
  memcpy(kept + len, PROF_KERNEL_SUFFIX, sizeof PROF_KERNEL_SUFFIX);
  chunk_used += need;
  return kept;
}

/* The slot of PC in V (CAP slots, a power of two): its own, or the
   empty one where it would go.  */
static struct kaddr *slot_of(struct kaddr *v, size_t cap, uint64_t pc)
{
  size_t i = (size_t)((pc ^ pc >> 17) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
  while (v[i].used && v[i].pc != pc)
    i = (i + 1) & (cap - 1);
  return &v[i];
}

static void grow_met(void)
{
  size_t cap = cap_met ? cap_met * 2 : 1024;
  struct kaddr *v = prof_xmalloc(cap * sizeof *v);
  memset(v, 0, cap * sizeof *v);
  for (size_t i = 0; i < cap_met; i++)
    if (met[i].used)
      *slot_of(v, cap, met[i].pc) = met[i];
  free(met);
  met = v;
  cap_met = cap;
}

/* The slot of PC, added (not named yet) when new; the table at most
   half full.  */
static struct kaddr *meet(uint64_t pc)
{
  if (2 * (nmet + 1) > cap_met)
    grow_met();
  struct kaddr *k = slot_of(met, cap_met, pc);
  if (!k->used) {
    k->used = 1;
    k->pc = pc;
    nmet++;
    unnamed++;
  }
  return k;
}

void prof_kernel_meet(uint64_t pc)
{
  meet(pc);
}

/* Is the symbol at SYM a better name for the candidate's address than
   the one it has?  (Of several at one address, the first listed stays.)  */
static int better(const struct candidate *c, uint64_t sym)
{
  return !c->found || sym > c->sym;
}

static void take(struct candidate *c, uint64_t sym, const char *name, size_t len)
{
  if (len > c->name_cap) {
    c->name_cap = len;
    c->name = prof_xrealloc(c->name, len);
  }
  memcpy(c->name, name, len);
  c->name_len = len;
  c->sym = sym;
  c->found = 1;
}

/* The first of CANDS[0..N) (by address) at or above ADDR, or N.  */
static size_t first_at_or_above(const struct candidate *cands, size_t n, uint64_t addr)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cands[mid].pc < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* One line of kallsyms, "ADDR TYPE NAME[\tMODULE]" (LINE, LEN bytes, no
   newline): a text symbol becomes the candidate of the first of
   CANDS[0..N) (by address) at or above it, if better.  Returns 1 when
   its address was hidden (0), 2 when it was a visible text symbol.  */
static int read_line(const char *line, size_t len, struct candidate *cands, size_t n)
{
  char *after;
  /* (the hex digits end at the space: strtoull stays inside the line) */
  uint64_t addr = strtoull(line, &after, 16);
  size_t i = (size_t)(after - line);
  if (i == 0 || i + 3 > len || line[i] != ' ' || line[i + 2] != ' ')
    return 0;
  char type = line[i + 1];
  if (type != 't' && type != 'T' && type != 'w' && type != 'W')
    return 0;
  if (addr == 0)
    return 1;
  size_t lo = first_at_or_above(cands, n, addr);
  if (lo == n || !better(&cands[lo], addr))
    return 2;
  const char *name = line + i + 3;
  size_t name_len = len - (i + 3);
  const char *end = memchr(name, '\t', name_len);   /* (a module's name follows) */
  if (end)
    name_len = (size_t)(end - name);
  if (name_len)
    take(&cands[lo], addr, name, name_len);
  return 2;
}

/* /proc/kallsyms read in large pieces, each whole line given to
   read_line.  Returns -1 when it cannot be read, else how many of its
   text symbols were visible; *HIDDEN: how many were listed as 0.  */
static long stream(struct candidate *cands, size_t n, size_t *hidden)
{
  static char buf[64 * 1024];
  size_t have = 0;
  long visible = 0;
  ssize_t got;
  int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  for (;;) {
    got = read(fd, buf + have, sizeof buf - have);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    size_t end = have + (size_t)got, start = 0;
    for (char *nl; (nl = memchr(buf + start, '\n', end - start)) != NULL;
         start = (size_t)(nl - buf) + 1) {
      int seen = read_line(buf + start, (size_t)(nl - (buf + start)), cands, n);
      *hidden += seen == 1;
      visible += seen == 2;
    }
    have = end - start;
    /* a line longer than the buffer (none is) is dropped */
    if (have == sizeof buf)
      have = 0;
    memmove(buf, buf + start, have);
  }
  close(fd);
  return visible;
}

static int candidate_cmp(const void *a, const void *b)
{
  const struct candidate *x = a, *y = b;
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Why kernel frames go unnamed, said once per run.  */
static void say_unnamed(long visible, size_t hidden)
{
  static int said;
  if (said || visible > 0)
    return;
  said = 1;
  if (visible < 0)
    fprintf(stderr, "gorc-prof: cannot read /proc/kallsyms: kernel frames are shown as %s\n",
            PROF_KERNEL_UNNAMED);
  else if (hidden > 0)
    fprintf(stderr, "gorc-prof: /proc/kallsyms hides the kernel's addresses "
            "(kernel.kptr_restrict, or no CAP_SYSLOG): kernel frames are shown as %s\n",
            PROF_KERNEL_UNNAMED);
}

/* Is the symbol NAME (LEN bytes) the end of the kernel's text or init
   text, not a function?  An address past every function but such a
   mark lies in no function kallsyms lists: code loaded and gone since
   (a BPF program of another run, in the memory for modules and BPF),
   as the kernel's own lookup finds no name for it.  */
static int text_end(const char *name, size_t len)
{
  return (len == 6 && memcmp(name, "_etext", 6) == 0)
         || (len == 10 && memcmp(name, "_einittext", 10) == 0);
}

/* Is the test hook GORC_PROF_TEST_KALLSYMS set to VALUE?  */
static int kallsyms_test(const char *value)
{
  const char *test = getenv("GORC_PROF_TEST_KALLSYMS");
  return test && strcmp(test, value) == 0;
}

/* GORC_PROF_TEST_KALLSYMS=left: each address the kernel's lookup left
   to kallsyms, told with the name kallsyms gave it, so that a test can
   see which those were (only code gone or replaced since the sample, in
   the memory for BPF and modules, may be).  */
static void tell_left(const struct candidate *cands, size_t n)
{
  if (!kallsyms_test("left"))
    return;
  for (size_t i = 0; i < n; i++)
    fprintf(stderr, "gorc-prof: test: left to kallsyms: %#llx %s\n",
            (unsigned long long)cands[i].pc, cands[i].slot->name);
}

/* Every address met and not named yet named by one read of kallsyms.  */
static void name_by_kallsyms(void)
{
  struct candidate *cands = prof_xmalloc(unnamed * sizeof *cands);
  size_t n = 0, hidden = 0;
  for (size_t i = 0; i < cap_met; i++)
    if (met[i].used && !met[i].name)
      cands[n++] = (struct candidate){ .pc = met[i].pc, .slot = &met[i] };
  prof_sort(cands, n, sizeof *cands, candidate_cmp);
  long visible = stream(cands, n, &hidden);
  say_unnamed(visible, hidden);
  /* each candidate was the best only among the symbols between the
     address below it and its own: the best at or below it is the best
     of its own and the one below's */
  for (size_t i = 0; i < n; i++) {
    struct candidate *c = &cands[i];
    if (i > 0 && cands[i - 1].found && better(c, cands[i - 1].sym))
      take(c, cands[i - 1].sym, cands[i - 1].name, cands[i - 1].name_len);
    c->slot->name = c->found && !text_end(c->name, c->name_len) ? keep_name(c->name, c->name_len)
                                                                 : PROF_KERNEL_UNNAMED;
  }
  tell_left(cands, n);
  for (size_t i = 0; i < n; i++)
    free(cands[i].name);
  free(cands);
  unnamed = 0;
}

static void named_by_kernel(void *arg, size_t i, const char *name, size_t len)
{
  struct kaddr **slots = arg;
  slots[i]->name = keep_name(name, len);
  unnamed--;
}

/* Every address met and not named yet named by the kernel's lookup, as
   many as it can (GORC_PROF_TEST_KALLSYMS=1: none, for the tests that
   compare the two ways; =left: all it can, then tell_left).  */
static void name_by_kernel(void)
{
  if (kallsyms_test("1"))
    return;
  uint64_t *pcs = prof_xmalloc(unnamed * sizeof *pcs);
  struct kaddr **slots = prof_xmalloc(unnamed * sizeof *slots);
  size_t n = 0;
  for (size_t i = 0; i < cap_met; i++)
    if (met[i].used && !met[i].name) {
      pcs[n] = met[i].pc;
      slots[n++] = &met[i];
    }
  prof_ksym_name(pcs, n, named_by_kernel, slots);
  free(pcs);
  free(slots);
}

/* Every address met and not named yet named.  */
static void name_met(void)
{
  name_by_kernel();
  if (unnamed)
    name_by_kallsyms();
}

const char *prof_kernel_name(uint64_t pc)
{
  struct kaddr *k = meet(pc);
  if (!k->name)
    name_met();        /* (the table does not move) */
  return k->name;
}

int prof_kernel_frame(const char *name, size_t len)
{
  size_t n = sizeof PROF_KERNEL_SUFFIX - 1;
  return len >= n && memcmp(name + len - n, PROF_KERNEL_SUFFIX, n) == 0;
}

void prof_kernel_end(void)
{
  prof_ksym_end();
  for (size_t i = 0; i < nchunks; i++)
    free(chunks[i]);
  free(chunks);
  free(met);
  met = NULL;
  chunks = NULL;
  cap_met = nmet = unnamed = nchunks = cap_chunks = 0;
  chunk_used = NAME_CHUNK;
}
