/* gorc-prof: unwinding a copied user stack outside the process (see
   prof-unwind.h).  The step rules are libgorc's (gorc/step.h), over the
   stack copy in place of the live stack.  */

#define _GNU_SOURCE
#include "prof-unwind.h"

#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include "common.h"
#include "gorc/eh_frame.h"
#include "elfload.h"
#include "gorc/elf_symbols.h"
#include "gorc/sigreturn.h"
#include "mapped.h"
#include "gopclntab.h"

/* A state a module was asked for (module_state).  */
struct state_entry {
  const struct prof_module *mod;  /* NULL: empty */
  uint64_t pc;                /* the file address */
  int found;
  struct gorc_state st;
};

/* The cache of states of every module: direct-mapped, by module and
   address.  One for all: the first touch of a page costs more than a
   lookup on the VM of this project's figures, and a small profile met
   six modules (a 16 KB cache each was 23 of its 257 page faults, this
   one 13 fewer in all).  */
#define STATE_CACHE_SIZE 512

static struct state_entry state_cache[STATE_CACHE_SIZE];

/* One source of a module's CFI, read by the one reader
   (include/gorc/eh_frame.h) in its "pointer space" (see eh_open_hdr).  */
struct cfi {
  struct gorc_eh_frame eh;
  uint64_t bias;              /* pointer space = file address + bias */
  int ok;
  uint8_t *table;             /* a search table gorc-prof built, or NULL */
  uint8_t *bytes;             /* the CFI's own copy (.debug_frame's), or NULL */
};

/* A module's CFI sources, in the order they are asked.  */
enum { CFI_EH_FRAME, CFI_DEBUG_FRAME, NCFI };

struct prof_module {
  char *path;
  int ok;                     /* an ELF file that could be read */
  struct gorc_elf elf;
  struct gorc_table table;
  int has_table;
  /* .eh_frame, then .debug_frame where .eh_frame has no FDE (see
     cfi_open) */
  struct cfi cfi[NCFI];
  /* a Go program's .gopclntab: the frames' sizes where no CFI covers an
     address (a program built with -ldflags=-s -w) */
  struct gorc_go go;
  int has_go;
  /* code whose frame ends a walk: Go's runtime functions that start a
     stack or switch to another (go_tops) */
  struct top {
    uint64_t lo, hi;
    int start;                /* a stack starts there (else: switched to) */
  } tops[64];               /* (prof-go.go: 17 of them with Go 1.19, 19 with 1.27) */
  size_t ntops;
  GElf_Phdr *loads;           /* PT_LOAD headers */
  size_t nloads;
  /* PATH names another file now (prof_modules_path_changed): a mapping
     of PATH gets another module; this one's symbols are read from
     NAMES_FROM, its copy (NULL: none, the file was written in place) */
  int retired;
  const char *names_from;
  struct prof_module *next;
};

static struct prof_module *modules;

/* Build IDs the files must have (prof_modules_expect_build_id).  */
struct expected_id {
  char *path;
  uint8_t id[20];
  size_t len;
  struct expected_id *next;
};

static struct expected_id *expected_ids;

void prof_modules_expect_build_id(const char *path, const uint8_t *id, size_t len)
{
  /* a file mapped again (by each process, or perf.data's MMAP2 records
     naming it by build ID) is expected once */
  for (const struct expected_id *e = expected_ids; e; e = e->next)
    if (e->len == len && memcmp(e->id, id, len) == 0 && strcmp(e->path, path) == 0)
      return;
  struct expected_id *e = calloc(1, sizeof *e);
  if (!e || len > sizeof e->id || !(e->path = strdup(path))) {
    free(e);
    return;
  }
  memcpy(e->id, id, len);
  e->len = len;
  e->next = expected_ids;
  expected_ids = e;
}

/* The GNU build ID note of M's file, or 0 bytes.  */
static size_t file_build_id(const struct prof_module *m, const uint8_t **id)
{
  for (size_t i = 1; i < m->elf.shnum; i++) {
    const struct gorc_sec *sec = &m->elf.secs[i];
    struct gorc_elf_note n;
    size_t pos = 0;
    if (sec->shdr.sh_type != SHT_NOTE || !sec->data)
      continue;
    while (gorc_es_note_next(sec->data, sec->size, &pos, &n))
      if (n.type == NT_GNU_BUILD_ID && n.namesz == 4 && memcmp(n.name, "GNU", 4) == 0) {
        *id = n.desc;
        return n.descsz;
      }
  }
  return 0;
}

/* Is M's file the one that was profiled (when that is known)?  */
static int build_id_matches(const struct prof_module *m)
{
  for (const struct expected_id *e = expected_ids; e; e = e->next) {
    if (strcmp(e->path, m->path) != 0)
      continue;
    const uint8_t *id = NULL;
    size_t len = file_build_id(m, &id);
    if (len == e->len && memcmp(id, e->id, len) == 0)
      return 1;
    fprintf(stderr, "gorc-prof: %s: not the file that was profiled (its build ID differs): its "
            "frames are neither unwound nor named\n", m->path);
    return 0;
  }
  return 1;
}

/* .eh_frame read in place by the shared reader (include/gorc/eh_frame.h,
   libgorc's too), which takes the bytes' own addresses for their
   addresses: the file's bytes are the reader's memory, so every file
   address is shifted by the buffer's address minus the address of the
   segment holding .eh_frame_hdr.  All the reader does with addresses is
   compare and subtract them, so a constant shift changes nothing.  */
static int eh_open_hdr(struct prof_module *m, struct cfi *c)
{
  size_t nph = 0;
  GElf_Phdr ph, hdr = { 0 };
  int have_hdr = 0;
  if (elf_getphdrnum(m->elf.elf, &nph) != 0)
    return 0;
  for (size_t i = 0; i < nph; i++)
    if (gelf_getphdr(m->elf.elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
      hdr = ph;
      have_hdr = 1;
    }
  if (!have_hdr)
    return 0;
  for (size_t i = 0; i < m->nloads; i++) {
    const GElf_Phdr *l = &m->loads[i];
    if (hdr.p_offset < l->p_offset || hdr.p_offset - l->p_offset >= l->p_filesz
        || l->p_offset > m->elf.size || l->p_filesz > m->elf.size - l->p_offset)
      continue;
    c->bias = (uint64_t)(uintptr_t)m->elf.buf + l->p_offset - l->p_vaddr;
    c->eh.lo = (uint64_t)(uintptr_t)m->elf.buf + l->p_offset;
    c->eh.hi = c->eh.lo + l->p_filesz;
    c->eh.machine = GORC_MACHINE_X86_64;
    c->eh.hdr = hdr.p_vaddr + c->bias;
    c->eh.hdr_size = hdr.p_filesz;
    if (c->eh.hdr + c->eh.hdr_size > c->eh.hi)
      c->eh.hdr_size = c->eh.hi - c->eh.hdr;
    return 1;
  }
  return 0;
}

/* A .eh_frame search table built for a file without .eh_frame_hdr (a
   static program: GCC links those without --eh-frame-hdr), in the form
   the reader searches: 8-byte fields relative to the table.  */
struct eh_entry {
  int64_t loc, fde;
};

static int eh_entry_cmp(const void *a, const void *b)
{
  const struct eh_entry *x = a, *y = b;
  return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* The initial location of FDE R (in the reader's address space), or 0
   when its CIE is one the reader does not take.  */
static int fde_location(const struct gorc_eh_section *sec, const struct gorc_eh_record *r,
                        int64_t *loc)
{
  struct gorc_eh_cie cie;
  struct gorc_eh_record cr;
  uint64_t v;
  const uint8_t *p = r->body;
  if (r->id == 0 || r->id > (uint64_t)(r->id_field - sec->start)
      || gorc_eh_rd_record(sec, r->id_field - r->id, &cr) != GORC_EH_OK
      || gorc_eh_parse_cie(&cr, &cie) != GORC_EH_OK
      || gorc_eh_rd_encoded(&p, r->end, cie.fde_enc, 1, 0, &v) != GORC_EH_OK)
    return 0;
  *loc = (int64_t)v;
  return 1;
}

/* Every FDE of the .eh_frame bytes [start, end), in *OUT.  */
static size_t eh_collect(const uint8_t *start, const uint8_t *end, struct eh_entry **out)
{
  struct gorc_eh_section sec = { start, end };
  struct gorc_eh_record r;
  struct eh_entry *v = NULL;
  size_t n = 0, cap = 0;
  for (const uint8_t *p = start; p < end && gorc_eh_rd_record(&sec, p, &r) == GORC_EH_OK;
       p = r.end) {
    int64_t loc;
    if (r.id == 0 || !fde_location(&sec, &r, &loc))
      continue;               /* a CIE */
    struct eh_entry *nv = gorc_grow_array(v, &cap, n + 1, sizeof *v, 256, SIZE_MAX);
    if (!nv)
      break;
    v = nv;
    v[n++] = (struct eh_entry){ loc, (int64_t)(uintptr_t)r.start };
  }
  *out = v;
  return n;
}

/* C, the CFI bytes [DATA, DATA + SIZE) with a search table built, its
   pointer space the file's addresses + BIAS: 1, or 0 when it has no FDE
   the reader takes.  */
static int eh_build_table(struct cfi *c, const uint8_t *data, size_t size, uint64_t bias)
{
  struct eh_entry *v;
  size_t n = eh_collect(data, data + size, &v);
  if (n == 0) {
    free(v);
    return 0;
  }
  qsort(v, n, sizeof *v, eh_entry_cmp);
  uint8_t *t = malloc(12 + n * 16);
  if (!t) {
    free(v);
    return 0;
  }
  int64_t base = (int64_t)(uintptr_t)t;
  t[0] = 1;                                                 /* version */
  t[1] = GORC_EH_PE_OMIT;                                   /* no eh_frame_ptr */
  t[2] = GORC_EH_PE_UDATA8;                                 /* fde_count */
  t[3] = GORC_EH_PE_DATAREL | GORC_EH_PE_SDATA8;            /* the table */
  uint64_t count = n;
  memcpy(t + 4, &count, 8);
  for (size_t i = 0; i < n; i++) {
    int64_t f[2] = { v[i].loc - base, v[i].fde - base };
    memcpy(t + 12 + 16 * i, f, 16);
  }
  free(v);
  c->table = t;
  c->eh.machine = GORC_MACHINE_X86_64;
  c->eh.hdr = (uint64_t)base;
  c->eh.hdr_size = 12 + n * 16;
  c->eh.lo = (uint64_t)(uintptr_t)data;
  c->eh.hi = c->eh.lo + size;
  c->bias = bias;
  return 1;
}

/* .eh_frame without .eh_frame_hdr (a static program: GCC links those
   without --eh-frame-hdr): its pc-relative pointers are relative to the
   bytes' place in the file's buffer.  */
static int eh_frame_table(const struct prof_module *m, struct cfi *c)
{
  const struct gorc_sec *sec = gorc_elf_section_named(&m->elf, ".eh_frame");
  return sec && eh_build_table(c, sec->data, sec->size,
                               (uint64_t)(uintptr_t)sec->data - sec->shdr.sh_addr);
}

/* SEC's bytes in a buffer of their own (*SIZE of them): a copy, or the
   section uncompressed (SHF_COMPRESSED, zlib: Go's linker compresses its
   DWARF).  NULL when there are none or they cannot be read.  */
static uint8_t *section_bytes(const struct gorc_sec *sec, size_t *size)
{
  Elf64_Chdr ch;
  uint8_t *out;
  if (!(sec->shdr.sh_flags & SHF_COMPRESSED)) {
    if (sec->size == 0 || !(out = malloc(sec->size)))
      return NULL;
    memcpy(out, sec->data, sec->size);
    *size = sec->size;
    return out;
  }
  if (sec->size < sizeof ch)
    return NULL;
  memcpy(&ch, sec->data, sizeof ch);
  /* (a bound on what a corrupt header can make us allocate) */
  if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size == 0 || ch.ch_size > (256u << 20)
      || !(out = malloc(ch.ch_size)))
    return NULL;
  uLongf len = (uLongf)ch.ch_size;
  if (uncompress(out, &len, sec->data + sizeof ch, (uLong)(sec->size - sizeof ch)) != Z_OK
      || len != ch.ch_size) {
    free(out);
    return NULL;
  }
  *size = len;
  return out;
}

/* .debug_frame (see cfi_open).  The same CFI as .eh_frame,
   but for two header fields: a CIE's id is all ones, not 0, and an FDE
   names its CIE by the CIE's offset in the section, not by its distance
   back from the FDE.  Its addresses are absolute, as a CIE without
   augmentation has them in .eh_frame too.  So a copy with .eh_frame's
   headers is read by the one reader, its pointer space the file's
   addresses.  An FDE whose CIE does not come before it has no .eh_frame
   form: it points before the section, and the reader leaves it out.  */
static int debug_frame_table(const struct prof_module *m, struct cfi *c)
{
  const struct gorc_sec *sec = gorc_elf_section_named(&m->elf, ".debug_frame");
  size_t size;
  if (!sec || !(c->bytes = section_bytes(sec, &size)))
    return 0;
  uint8_t *d = c->bytes, *end = d + size;
  for (uint8_t *p = d; end - p >= 4;) {
    uint64_t len = 0, id = 0;
    unsigned idsize = 4;
    memcpy(&len, p, 4);
    p += 4;
    if (len == 0xffffffff && end - p >= 8) {
      memcpy(&len, p, 8);
      p += 8;
      idsize = 8;
    }
    if (len < idsize || len > (uint64_t)(end - p))
      break;
    uint64_t at = (uint64_t)(p - d), ones = idsize == 4 ? 0xffffffffu : UINT64_MAX;
    memcpy(&id, p, idsize);
    id = id == ones ? 0 : id < at ? at - id : at + 1;
    memcpy(p, &id, idsize);
    p += len;
  }
  return eh_build_table(c, d, size, 0);
}

/* Go's functions where a walk ends, as Go's own traceback stops at them
   (runtime's funcFlag in .gopclntab, Go 1.17 and later): those that
   start a goroutine's or a thread's stack (TOPFRAME: the outermost
   frame), and those that write SP (SPWRITE: mcall, systemstack,
   morestack, asmcgocall, nanotime1 and time.now around the vdso, ...).
   Code running on a thread's own stack (g0: the garbage collector, the
   scheduler, cgo calls) was called through one of those from a
   goroutine's stack, which DWARF does not describe; read through the
   switch's frame, the walk took stale words of g0's stack for return
   addresses (runtime.newproc under a GC worker, [unknown] under
   time.now), or ended at one as if complete (runtime.nanotime1 under
   the vdso).  The walk stops there, as at code without unwind
   information.  So it does in Go's signal return trampoline, whose sp
   is the signal frame (a handler's frame returning to it is crossed as
   glibc's __restore_rt: the same bytes).  The signal handler's entry is
   TOPFRAME for Go, but its caller is that signal frame: crossed, not an
   end.  By name too, for Go 1.16 (no flags): Go 1.19's names, less
   their ABI suffix (".abi0").  The program's entry and the stub it
   jumps to (_rt0_amd64_linux, _rt0_amd64) start the process's stack
   too, below argc: their CFI, a caller's return address at the CFA,
   took argc for one (a sample in the kernel paging in the entry's
   code, each exec's first).  */
static const char *const go_starts[] = {
  "runtime.goexit", "runtime.mstart", "runtime.rt0_go",
  "_rt0_amd64_linux", "_rt0_amd64", "_rt0_arm64_linux", "_rt0_arm64",
};
static const char *const go_switches[] = {
  "runtime.mcall", "runtime.systemstack", "runtime.morestack", "runtime.asmcgocall",
  "runtime.cgocallback", "runtime.nanotime1", "runtime.walltime", "runtime.walltime1",
  "time.now", "runtime.sigreturn__sigaction", "runtime.sigreturn",
};
static const char *const go_signal_entries[] = { "runtime.sigtramp", "runtime.cgoSigtramp" };

/* Is NAME (less ".abi0") one of the N names of LIST?  */
static int go_named(const char *name, const char *const *list, size_t n)
{
  size_t len = strlen(name);
  if (len > 5 && strcmp(name + len - 5, ".abi0") == 0)
    len -= 5;
  for (size_t k = 0; k < n; k++)
    if (strlen(list[k]) == len && memcmp(name, list[k], len) == 0)
      return 1;
  return 0;
}

#define GO_NAMED(name, list) go_named(name, list, sizeof list / sizeof *list)

/* A function of a Go program (gorc_go_each_function), its FLAGS: into
   M->tops where a walk ends there.  */
static void go_top(void *arg, const char *name, uint64_t lo, uint64_t hi, unsigned flags)
{
  struct prof_module *m = arg;
  int start = ((flags & GORC_GO_TOPFRAME) && !GO_NAMED(name, go_signal_entries))
              || GO_NAMED(name, go_starts);
  int end = start || (flags & GORC_GO_SPWRITE) || GO_NAMED(name, go_switches);
  if (end && lo < hi && m->ntops < sizeof m->tops / sizeof *m->tops)
    m->tops[m->ntops++] = (struct top){ lo, hi, start };
}

/* M's Go runtime functions where a walk ends, into M->tops: named by
   its .gopclntab, which a stripped program keeps too.  */
static void go_tops(struct prof_module *m)
{
  gorc_go_each_function(&m->go, go_top, m);
}

/* The state at file address PC of M when it is in M->tops (*NEXT: where
   that answer ends), else 0 (*NEXT: the first of them above PC, or
   UINT64_MAX): the outermost frame where a stack starts, no unwind
   information where it was switched to.  */
static int top_state(const struct prof_module *m, uint64_t pc, struct gorc_state *st,
                     uint64_t *next)
{
  *next = UINT64_MAX;
  for (size_t i = 0; i < m->ntops; i++) {
    if (pc >= m->tops[i].lo && pc < m->tops[i].hi) {
      gorc_eh_undefined_state(st, m->tops[i].start);
      *next = m->tops[i].hi;
      return 1;
    }
    if (m->tops[i].lo > pc && m->tops[i].lo < *next)
      *next = m->tops[i].lo;
  }
  return 0;
}

/* M's CFI: .eh_frame (through .eh_frame_hdr, else a search table
   built), then .debug_frame for the code .eh_frame has no FDE for: Go's
   linker writes only .debug_frame, and GCC with
   -fno-asynchronous-unwind-tables -g writes it for its code while the C
   runtime's objects bring .eh_frame for _start.  A Go program's
   .gopclntab (tools/lib/gopclntab.h) for what neither covers (a Go
   program built with -ldflags=-s -w has no .debug_frame), and the Go
   runtime's functions where a walk ends (go_tops).  A Go program whose
   .gopclntab is of a layout not read here (Go 1.15 and older) has its
   .debug_frame left out: walked through its stack switches, it would
   give wrong frames (its cgo code's .eh_frame is read).  The module's
   entry point, whose code without CFI is the outermost frame
   (gorc_eh_in_entry: ld.so's _start), is the last CFI source's: the
   rule reads that source's FDEs, and an earlier one's answer comes
   first.  */
static void cfi_open(struct prof_module *m)
{
  GElf_Ehdr ehdr;
  const struct gorc_sec *pcln = gorc_elf_section_named(&m->elf, ".gopclntab");
  const struct gorc_sec *text = gorc_elf_section_named(&m->elf, ".text");
  m->has_go = pcln && text && gorc_go_open(&m->go, pcln->data, pcln->size, text->shdr.sh_addr) == 0;
  struct cfi *eh = &m->cfi[CFI_EH_FRAME], *debug = &m->cfi[CFI_DEBUG_FRAME];
  eh->ok = eh_open_hdr(m, eh) || eh_frame_table(m, eh);
  debug->ok = (!pcln || m->has_go) && debug_frame_table(m, debug);
  if (m->has_go)
    go_tops(m);
  struct cfi *last = debug->ok ? debug : eh->ok ? eh : NULL;
  if (last && gelf_getehdr(m->elf.elf, &ehdr) && ehdr.e_entry)
    last->eh.entry = ehdr.e_entry + last->bias;
}

/* Files gorc-prof writes for code that has no file of its own any more
   (the vdso, a file deleted since it was mapped), in
   TMPDIR/gorc-prof.XXXXXX/ under the name frames show, removed at the
   end.  KEY says which file a copy is of.  */
struct scratch {
  char *key, *path;
  /* the file copied, as fstat gave it (ino 0: not a file's copy) */
  dev_t dev;
  ino_t ino;
  struct timespec ctime, mtime;
  struct scratch *next;
};

static char scratch_dir[PATH_MAX];
static struct scratch *scratches;

/* The copy of KEY written so far, or NULL.  */
static const char *scratch_find(const char *key)
{
  for (struct scratch *c = scratches; c; c = c->next)
    if (strcmp(c->key, key) == 0)
      return c->path;
  return NULL;
}

/* The copy of KEY, written as NAME from the LEN bytes at DATA when it
   is new, of the file ORIGIN read (NULL: not a file's bytes); NULL when
   it cannot be written.  */
static const char *scratch_write(const char *key, const char *name, const void *data, size_t len,
                                 const struct gorc_elf *origin)
{
  const char *known = scratch_find(key);
  if (known)
    return known;
  if (!scratch_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/gorc-prof.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch_dir)) {
      scratch_dir[0] = 0;
      return NULL;
    }
  }
  /* each copy in a directory of its own: two files of one name (two
     containers' libc.so.6) keep it, and frames are shown by it */
  static unsigned next_dir;
  struct scratch *c = calloc(1, sizeof *c);
  /* the directory, then the file in it, in one buffer (two were 8.5 KB
     of frame: a sample in the write, copied by gorc-prof -a before its
     own table was loaded, ended [truncated] here) */
  char path[PATH_MAX + 300];
  int dir_len = snprintf(path, sizeof path, "%s/%u", scratch_dir, next_dir++);
  int made = c && mkdir(path, 0700) == 0;
  snprintf(path + dir_len, sizeof path - (size_t)dir_len, "/%s", name);
  int fd = made ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
  int ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
  if (fd >= 0)
    close(fd);
  if (!ok || !(c->key = strdup(key)) || !(c->path = strdup(path))) {
    if (fd >= 0)
      unlink(path);
    path[dir_len] = 0;
    if (made)
      rmdir(path);
    if (c)
      free(c->key);
    free(c);
    return NULL;
  }
  if (origin) {
    c->dev = origin->dev;
    c->ino = origin->ino;
    c->ctime = origin->ctime;
    c->mtime = origin->mtime;
  }
  c->next = scratches;
  scratches = c;
  return c->path;
}

static void scratch_remove(void)
{
  while (scratches) {
    struct scratch *c = scratches;
    scratches = c->next;
    unlink(c->path);
    *strrchr(c->path, '/') = 0;
    rmdir(c->path);           /* (its own directory) */
    free(c->key);
    free(c->path);
    free(c);
  }
  if (scratch_dir[0])
    rmdir(scratch_dir);
  scratch_dir[0] = 0;
}

/* The kernel's vdso in gorc-prof's memory, the same image as every
   process's (the same kernel), and its size; NULL when not found.  */
static const uint8_t *vdso_image(size_t *size)
{
  char line[512];
  unsigned long long lo = 0, hi = 0;
  const void *image = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!image || !maps) {
    if (maps)
      fclose(maps);
    return NULL;
  }
  while (fgets(line, sizeof line, maps))
    if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2)
      break;
  fclose(maps);
  if ((uint64_t)(uintptr_t)image != lo || hi <= lo)
    return NULL;
  *size = hi - lo;
  return image;
}

/* The vdso as a file, for the symbol reader (which reads files): written
   at the first frame named in it, not for every profile that maps it
   (a directory and a file made and removed: about 0.4 ms).  */
static const char *vdso_file(void)
{
  const char *known = scratch_find("[vdso]");
  if (known)
    return known;
  size_t size;
  const uint8_t *image = vdso_image(&size);
  const char *path = image ? scratch_write("[vdso]", "[vdso]", image, size, NULL) : NULL;
  return path ? path : "[vdso]";
}

const char *prof_module_file(const char *name)
{
  return strcmp(name, "[vdso]") == 0 ? vdso_file() : name;
}

/* M's file opened; the vdso is gorc-prof's own image (no file).  */
static int module_open(struct prof_module *m)
{
  size_t size;
  const uint8_t *image;
  if (strcmp(m->path, "[vdso]") != 0)
    return gorc_elf_open_sections(&m->elf, m->path);
  return (image = vdso_image(&size)) ? gorc_elf_open_image(&m->elf, m->path, image, size) : -1;
}

/* A module read from a copy (prof_modules_save) takes the identity of
   the file copied: what the kernel maps (the walker's files map finds
   it), and what another module of that file has (one table).  */
static void identity_of_copied(struct prof_module *m)
{
  for (const struct scratch *c = scratches; c; c = c->next)
    if (c->ino != 0 && strcmp(c->path, m->path) == 0) {
      m->elf.dev = c->dev;
      m->elf.ino = c->ino;
      m->elf.ctime = c->ctime;
      m->elf.mtime = c->mtime;
      return;
    }
}

static void module_load(struct prof_module *m)
{
  size_t nph = 0;
  GElf_Phdr ph;
  if (module_open(m) != 0 || m->elf.is_rel)
    return;
  identity_of_copied(m);
  if (elf_getphdrnum(m->elf.elf, &nph) != 0)
    return;
  m->loads = calloc(nph ? nph : 1, sizeof *m->loads);
  if (!m->loads)
    return;
  for (size_t i = 0; i < nph; i++)
    if (gelf_getphdr(m->elf.elf, (int)i, &ph) && ph.p_type == PT_LOAD)
      m->loads[m->nloads++] = ph;
  if (!build_id_matches(m))
    return;
  gorc_table_load(&m->table, &m->elf);
  m->has_table = !m->table.decode_error && m->table.nranges > 0;
  cfi_open(m);
  m->ok = 1;
}

const char *prof_modules_save(const char *from, const char *key, const char *name)
{
  const char *known = scratch_find(key);
  if (known)
    return known;
  struct gorc_elf copy;
  memset(&copy, 0, sizeof copy);
  const char *path = NULL;
  /* read whole (and checked to be ELF) by the tools' loader */
  if (gorc_elf_open_sections(&copy, from) == 0)
    path = scratch_write(key, name, copy.buf, copy.size, &copy);
  gorc_elf_close(&copy);
  return path;
}

/* PATH's module (not retired), or NULL: none read yet.  */
static struct prof_module *module_find(const char *path)
{
  for (struct prof_module *m = modules; m; m = m->next)
    if (strcmp(m->path, path) == 0 && !m->retired)
      return m;
  return NULL;
}

/* The module of PATH, read at its first use.  */
static struct prof_module *module_get(const char *path)
{
  struct prof_module *m = module_find(path);
  if (m)
    return m;
  m = calloc(1, sizeof *m);
  if (!m || !(m->path = strdup(path))) {
    free(m);
    return NULL;
  }
  if (path[0] == '/' || strcmp(path, "[vdso]") == 0)
    module_load(m);
  m->next = modules;
  modules = m;
  return m;
}

void prof_modules_end(void)
{
  scratch_remove();
}

struct prof_module *prof_module_of(const char *path)
{
  return module_get(path);
}

/* Is E read from the file of device DEV, inode INO, change time CTIME?  */
static int read_from(const struct gorc_elf *e, dev_t dev, ino_t ino, struct timespec ctime)
{
  return e->ino == ino && e->dev == dev && e->ctime.tv_sec == ctime.tv_sec
         && e->ctime.tv_nsec == ctime.tv_nsec;
}

void prof_modules_path_changed(const char *path, const struct stat *now)
{
  struct prof_module *m = module_find(path);
  if (!m || m->elf.ino == 0 || read_from(&m->elf, now->st_dev, now->st_ino, now->st_ctim))
    return;
  m->retired = 1;
  /* another file at PATH, or this one with other attributes (chmod):
     the module still maps the bytes it read, which name its frames; the
     same file written since (its modification time) maps the new
     bytes, and names none */
  if (m->elf.ino != now->st_ino || m->elf.dev != now->st_dev
      || (m->elf.mtime.tv_sec == now->st_mtim.tv_sec
          && m->elf.mtime.tv_nsec == now->st_mtim.tv_nsec && m->elf.size == (size_t)now->st_size)) {
    char key[96];
    snprintf(key, sizeof key, "%llx:%llu:%lld.%09ld", (unsigned long long)m->elf.dev,
             (unsigned long long)m->elf.ino, (long long)m->elf.ctime.tv_sec,
             m->elf.ctime.tv_nsec);
    m->names_from = scratch_write(key, strrchr(path, '/') + 1, m->elf.buf, m->elf.size, NULL);
  }
}

int prof_module_same_file(const struct prof_module *a, const struct prof_module *b)
{
  return a->ok && b->ok && a->elf.ino != 0
         && read_from(&a->elf, b->elf.dev, b->elf.ino, b->elf.ctime) && a->elf.size == b->elf.size;
}

int prof_module_function(const struct prof_module *m, uint64_t addr, uint64_t *entry)
{
  struct gorc_eh_fde fde;
  uint64_t loc, next;
  for (size_t k = 0; k < NCFI; k++) {
    const struct cfi *c = &m->cfi[k];
    if (c->ok && gorc_eh_fde_at(&c->eh, addr + c->bias, &fde, &loc, &next) == 1) {
      *entry = fde.pc_begin - c->bias;
      return 1;
    }
  }
  return 0;
}

const char *prof_module_names_file(const struct prof_module *m)
{
  return m->retired ? m->names_from : prof_module_file(m->path);
}

/* ---- the files a program maps as it starts ---- */

/* FN with the real path (as the kernel reports a mapping's file) of
   the regular file DIR/NAME (DIR NULL: NAME alone), when there is one:
   1, else 0.  */
static int found_file(const char *dir, const char *name, prof_path_fn *fn, void *arg)
{
  char path[PATH_MAX], real[PATH_MAX];
  if (snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name)
      >= (int)sizeof path)
    return 0;
  if (!realpath(path, real) || access(real, R_OK) != 0)
    return 0;
  fn(arg, real);
  return 1;
}

/* The library NAME (a DT_NEEDED) of the program at PROGRAM: in the
   program's DT_RUNPATH or DT_RPATH (RUNPATH, ':'-separated, $ORIGIN the
   program's folder), else in the usual folders of this machine's
   libraries (ld.so.cache is not read: a library elsewhere is found
   from its mapping instead, later).  */
static void find_library(const char *name, const char *runpath, const char *program,
                         prof_path_fn *fn, void *arg)
{
  static const char *const usual[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                       "/lib64", "/usr/lib64", "/lib", "/usr/lib" };
  if (strchr(name, '/')) {
    found_file(NULL, name, fn, arg);
    return;
  }
  for (const char *p = runpath; p && *p;) {
    size_t n = strcspn(p, ":");
    char dir[PATH_MAX];
    if (n >= 7 && strncmp(p, "$ORIGIN", 7) == 0) {
      const char *slash = strrchr(program, '/');
      snprintf(dir, sizeof dir, "%.*s%.*s", (int)(slash - program), program, (int)(n - 7), p + 7);
    } else {
      snprintf(dir, sizeof dir, "%.*s", (int)n, p);
    }
    if (found_file(dir, name, fn, arg))
      return;
    p += n + (p[n] == ':');
  }
  for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++)
    if (found_file(usual[i], name, fn, arg))
      return;
}

/* The interpreter and the DT_NEEDED libraries of module M (its file at
   PROGRAM), to FN.  */
static void program_needs(const struct prof_module *m, const char *program, prof_path_fn *fn,
                          void *arg)
{
  const char *runpath = NULL;
  const struct gorc_sec *interp = gorc_elf_section_named(&m->elf, ".interp");
  if (interp && memchr(interp->data, 0, interp->size))
    found_file(NULL, (const char *)interp->data, fn, arg);
  for (int pass = 0; pass < 2; pass++) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(m->elf.elf, scn)) != NULL) {
      GElf_Shdr sh;
      Elf_Data *data;
      GElf_Dyn dyn;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(data = elf_getdata(scn, NULL)))
        continue;
      /* the first pass finds the search path (DT_RUNPATH over
         DT_RPATH), the second the libraries */
      for (int k = 0; gelf_getdyn(data, k, &dyn); k++) {
        int wanted = pass == 0 ? dyn.d_tag == DT_RUNPATH || (dyn.d_tag == DT_RPATH && !runpath)
                               : dyn.d_tag == DT_NEEDED;
        const char *str = wanted ? elf_strptr(m->elf.elf, sh.sh_link, dyn.d_un.d_val) : NULL;
        if (str && pass == 0)
          runpath = str;
        else if (str)
          find_library(str, runpath, program, fn, arg);
      }
    }
  }
}

void prof_program_files(const char *cmd, prof_path_fn *fn, void *arg)
{
  char program[PATH_MAX];
  const char *path = getenv("PATH");
  int found = 0;
  if (strchr(cmd, '/')) {
    found = realpath(cmd, program) != NULL;
  } else {
    /* as execvp looks: each folder of PATH in turn */
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p && !found;) {
      size_t n = strcspn(p, ":");
      char file[PATH_MAX];
      if (snprintf(file, sizeof file, "%.*s/%s", (int)n, p, cmd) < (int)sizeof file
          && access(file, X_OK) == 0)
        found = realpath(file, program) != NULL;
      p += n + (p[n] == ':');
    }
  }
  if (!found)
    return;
  fn(arg, program);
  const struct prof_module *m = module_get(program);
  if (m && m->ok)
    program_needs(m, program, fn, arg);
}

/* The bias of a mapping of M at START from file offset PGOFF: the
   PT_LOAD that holds PGOFF numbers it.  */
static int map_bias(const struct prof_module *m, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
  for (size_t i = 0; i < m->nloads; i++) {
    const GElf_Phdr *l = &m->loads[i];
    uint64_t seg_off = l->p_offset & ~(uint64_t)0xfff;
    if (pgoff >= seg_off && pgoff < l->p_offset + l->p_filesz) {
      *bias = start - pgoff + l->p_offset - l->p_vaddr;
      return 1;
    }
  }
  return 0;
}

/* ---- a process's mappings ---- */

/* Room for N mappings in SP.  */
static void space_reserve(struct prof_space *sp, size_t n)
{
  sp->maps = gorc_grow_array(sp->maps, &sp->cap, n, sizeof *sp->maps, 8, SIZE_MAX);
  if (!sp->maps)
    abort();
}

/* The mappings of SP with [start, end) replaced by the new one, in
   place: those it overlaps [i0, i1) give way to what is left of the
   first and of the last of them around it.  (Made anew each call, 64
   entries at first, the arrays were 38 of a small profile's 246 page
   faults.)  */
void prof_space_map(struct prof_space *sp, uint64_t start, uint64_t len, uint64_t pgoff,
                    const char *path)
{
  uint64_t end = start + len;
  struct prof_map add = { start, end, pgoff, 0, module_get(path), NULL };
  if (!add.mod)
    return;
  add.path = add.mod->path;
  if (!add.mod->ok || !map_bias(add.mod, start, pgoff, &add.bias))
    add.mod = NULL;
  size_t i0 = 0, i1, k = 0;
  while (i0 < sp->n && sp->maps[i0].end <= start)
    i0++;
  for (i1 = i0; i1 < sp->n && sp->maps[i1].start < end; i1++)
    continue;
  struct prof_map pieces[3];
  if (i0 < i1 && sp->maps[i0].start < start) {
    pieces[k] = sp->maps[i0];
    pieces[k++].end = start;
  }
  pieces[k++] = add;
  if (i0 < i1 && sp->maps[i1 - 1].end > end) {
    struct prof_map hi = sp->maps[i1 - 1];
    hi.pgoff += end - hi.start;
    hi.start = end;
    pieces[k++] = hi;
  }
  size_t n = sp->n - (i1 - i0) + k;
  space_reserve(sp, n);
  memmove(sp->maps + i0 + k, sp->maps + i1, (sp->n - i1) * sizeof *sp->maps);
  memcpy(sp->maps + i0, pieces, k * sizeof *pieces);
  sp->n = n;
}

void prof_space_clear(struct prof_space *sp)
{
  sp->n = 0;
}

void prof_space_copy(struct prof_space *dst, const struct prof_space *src)
{
  dst->n = 0;
  if (src->n == 0)
    return;
  space_reserve(dst, src->n);
  memcpy(dst->maps, src->maps, src->n * sizeof *src->maps);
  dst->n = src->n;
}

const struct prof_map *prof_space_find(const struct prof_space *sp, uint64_t addr)
{
  size_t lo = 0, hi = sp->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sp->maps[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && addr < sp->maps[lo - 1].end ? &sp->maps[lo - 1] : NULL;
}

/* ---- the walk ---- */

/* The stack copy: the bytes of [base, base + size).  */
struct stack_copy {
  uint64_t base, size;
  const uint8_t *bytes;
};

/* The step rules (gorc/step.h, libgorc's too) over the stack copy.  */
static inline __attribute__((always_inline)) int rd(const struct stack_copy *s, uint64_t a,
                                                    uint64_t *out);
#define GORC_STEP_CTX const struct stack_copy *
#define GORC_STEP_READ(s, a, out) rd(s, a, out)
/* gorc-prof walks x86-64 stacks, whose states never sign a return address.  */
#define GORC_STEP_STRIP_RA(s, ra) (ra)
#include "gorc/step.h"

/* An 8-byte read of the copy: 0, GORC_STEP_ETRUNCATED beyond the copy,
   GORC_STEP_EREAD below the stack pointer.  */
static inline __attribute__((always_inline)) int rd(const struct stack_copy *s, uint64_t a,
                                                    uint64_t *out)
{
  if (a < s->base)
    return GORC_STEP_EREAD;
  if (a - s->base > s->size || s->size - (a - s->base) < 8)
    return GORC_STEP_ETRUNCATED;
  memcpy(out, s->bytes + (a - s->base), 8);
  return 0;
}

/* How a walk ends on a step rule's result RC (not GORC_STEP_NEXT).  */
static enum prof_walk_end walk_end(int rc)
{
  switch (rc) {
  case GORC_STEP_OUTERMOST:
    return PROF_WALK_COMPLETE;
  case GORC_STEP_ETRUNCATED:
    return PROF_WALK_TRUNCATED;
  case GORC_STEP_EREAD:
  case GORC_STEP_EDIRECTION:
    return PROF_WALK_BAD;
  default:
    return PROF_WALK_NO_INFO;
  }
}

/* The state at PC of module M (records first, then .eh_frame): 1, or 0
   when neither describes PC.  A gap between the functions of a range is
   no records, as in the runtime (lookup.c).  */
static int module_lookup(const struct prof_module *m, uint64_t pc, struct gorc_state *st)
{
  uint64_t next;
  if (m->has_table && gorc_table_lookup(&m->table, pc, st, &next) >= 0
      && !gorc_state_is_gap(st))
    return 1;
  if (top_state(m, pc, st, &next))
    return 1;
  for (size_t k = 0; k < NCFI; k++)
    if (m->cfi[k].ok && gorc_eh_frame_state(&m->cfi[k].eh, pc + m->cfi[k].bias, st) == 1)
      return 1;
  return m->has_go && gorc_go_state(&m->go, pc, st, &next) == 1;
}

/* module_lookup through M's cache: the samples' return addresses are
   mostly ones met before, and a lookup (a search of the records or of
   .eh_frame_hdr, then the CIE and the FDE's program) costs more than the
   rest of a step.  */
static int module_state(const struct prof_module *m, uint64_t pc, struct gorc_state *st)
{
  uint64_t key = pc ^ pc >> 10 ^ (uint64_t)(uintptr_t)m >> 4;
  struct state_entry *e = &state_cache[key & (STATE_CACHE_SIZE - 1)];
  if (e->mod != m || e->pc != pc) {
    memset(&e->st, 0, sizeof e->st);
    e->found = module_lookup(m, pc, &e->st);
    e->mod = m;
    e->pc = pc;
  }
  *st = e->st;
  return e->found;
}

/* module_lookup, and in *NEXT the first address above PC where the
   answer may change.  ROWS: a walk over each CFI source's rows that the
   calls for ascending PCs share (each row goes on from the last).  */
static int module_span(const struct prof_module *m, struct gorc_eh_rows rows[NCFI], uint64_t pc,
                       struct gorc_state *st, uint64_t *next)
{
  uint64_t rec_next = UINT64_MAX, top_next;
  if (m->has_table && gorc_table_lookup(&m->table, pc, st, &rec_next) >= 0
      && !gorc_state_is_gap(st)) {
    *next = rec_next;
    return 1;
  }
  if (top_state(m, pc, st, &top_next)) {
    *next = top_next < rec_next ? top_next : rec_next;
    return 1;
  }
  if (top_next < rec_next)
    rec_next = top_next;
  /* between ranges, or in a gap: each CFI source's answer in turn, up to
     the next change of the records' or an earlier source's */
  for (size_t k = 0; k < NCFI; k++) {
    const struct cfi *c = &m->cfi[k];
    uint64_t cfi_next = UINT64_MAX;
    if (!c->ok)
      continue;
    int found = gorc_eh_rows_state(&c->eh, &rows[k], pc + c->bias, st, &cfi_next) == 1;
    if (cfi_next != UINT64_MAX && cfi_next - c->bias < rec_next)
      rec_next = cfi_next - c->bias;
    if (found) {
      *next = rec_next;
      return 1;
    }
  }
  /* then a Go program's frame sizes */
  uint64_t go_next = UINT64_MAX;
  int found = m->has_go && gorc_go_state(&m->go, pc, st, &go_next) == 1;
  *next = go_next < rec_next ? go_next : rec_next;
  return found;
}

/* The first copy of glibc's __restore_rt in [P, END), or NULL.  Found by
   its last byte (syscall's 0x05), rarer in code than its first (a REX
   prefix): memmem took 0.44 ms over libc's 1.9 MB, this 0.08.  */
static const uint8_t *next_restore_rt(const uint8_t *p, const uint8_t *end)
{
  static const uint8_t code[GORC_SIGRETURN_X86_64_LEN] = GORC_SIGRETURN_X86_64;
  const size_t last = sizeof code - 1;
  if (end - p < (ptrdiff_t)sizeof code)
    return NULL;
  for (const uint8_t *q = p + last; q < end && (q = memchr(q, code[last], (size_t)(end - q)));
       q++)
    if (memcmp(q - last, code, last) == 0)
      return q - last;
  return NULL;
}

void prof_module_rows(const struct prof_module *m, prof_row_fn *fn, void *arg)
{
  struct gorc_eh_rows rows[NCFI];
  memset(rows, 0, sizeof rows);
  for (size_t i = 0; m->ok && i < m->nloads; i++) {
    const GElf_Phdr *l = &m->loads[i];
    if (!(l->p_flags & PF_X))
      continue;
    uint64_t end = l->p_vaddr + l->p_memsz;
    for (uint64_t pc = l->p_vaddr, next; pc < end; pc = next) {
      struct gorc_state st;
      int found = module_span(m, rows, pc, &st, &next);
      if (next <= pc || next > end)
        next = end;
      fn(arg, pc, found ? &st : NULL);
    }
    /* glibc's __restore_rt, wherever it is: its return addresses */
    if (l->p_offset > m->elf.size || l->p_filesz > m->elf.size - l->p_offset)
      continue;
    const uint8_t *seg = m->elf.buf + l->p_offset, *p = seg;
    while ((p = next_restore_rt(p, seg + l->p_filesz))) {
      fn(arg, l->p_vaddr + (uint64_t)(p - seg), PROF_ROW_SIGRETURN);
      p++;
    }
  }
}

size_t prof_module_identity(const struct prof_module *m, const uint8_t **id, uint64_t *size)
{
  *size = m->ok ? m->elf.size : 0;
  return m->ok ? file_build_id(m, id) : 0;
}

int prof_module_text(const struct prof_module *m, struct prof_module_text *t)
{
  const GElf_Phdr *text = NULL;
  if (!m->ok || m->elf.ino == 0)
    return -1;
  for (size_t i = 0; i < m->nloads; i++)
    if (m->loads[i].p_flags & PF_X) {
      if (text)
        return -1;
      text = &m->loads[i];
    }
  if (!text)
    return -1;
  *t = (struct prof_module_text){
    .dev_major = major(m->elf.dev), .dev_minor = minor(m->elf.dev), .ino = m->elf.ino,
    .ctime_sec = m->elf.ctime.tv_sec, .ctime_nsec = (uint32_t)m->elf.ctime.tv_nsec,
    .offset = text->p_offset, .filesz = text->p_filesz, .vaddr = text->p_vaddr,
  };
  return 0;
}

void prof_module_sizes(const struct prof_module *m, uint64_t *record_bytes, uint64_t *eh_bytes)
{
  *record_bytes = m->has_table ? m->table.bytes + m->table.index_bytes : 0;
  *eh_bytes = 0;
  for (size_t i = 1; m->ok && i < m->elf.shnum; i++)
    if (strcmp(m->elf.secs[i].name, ".eh_frame") == 0
        || strcmp(m->elf.secs[i].name, ".eh_frame_hdr") == 0
        || (m->cfi[CFI_DEBUG_FRAME].ok && strcmp(m->elf.secs[i].name, ".debug_frame") == 0)
        /* (a stripped Go program's frames are all .gopclntab's) */
        || (m->has_go && !m->cfi[CFI_DEBUG_FRAME].ok
            && strcmp(m->elf.secs[i].name, ".gopclntab") == 0))
      *eh_bytes += m->elf.secs[i].size;
}

/* Does the code at file address PC of M start with glibc's __restore_rt?  */
static int is_restore_rt(const struct prof_module *m, uint64_t pc)
{
  static const uint8_t code[GORC_SIGRETURN_X86_64_LEN] = GORC_SIGRETURN_X86_64;
  for (size_t i = 0; i < m->nloads; i++) {
    const GElf_Phdr *l = &m->loads[i];
    if (pc < l->p_vaddr || pc - l->p_vaddr >= l->p_filesz)
      continue;
    uint64_t off = l->p_offset + (pc - l->p_vaddr);
    return off <= m->elf.size && m->elf.size - off >= sizeof code
           && memcmp(m->elf.buf + off, code, sizeof code) == 0;
  }
  return 0;
}

/* One step from frame F to its caller: 1, or how the walk ends.  The
   state lookup and the signal trampoline are gorc-prof's (the module's
   file); the rules are gorc/step.h's.  */
static int step(const struct prof_space *sp, const struct stack_copy *s,
                struct gorc_frame_regs *f)
{
  uint64_t pc = gorc_step_lookup_pc(f);
  const struct prof_map *map = prof_space_find(sp, pc);
  struct gorc_frame_regs interrupted;
  struct gorc_state st;
  int rc;

  if (!map)                     /* a return address must be code */
    return (f->known & GORC_FRAME_INTERRUPTED) ? PROF_WALK_NO_INFO : PROF_WALK_BAD;
  if (!map->mod)
    return PROF_WALK_NO_INFO;
  int found = module_state(map->mod, pc - map->bias, &st);
  if ((!found || st.cfa_kind == GORC_CFA_UNDEFINED) && is_restore_rt(map->mod, f->ip - map->bias)) {
    if ((rc = gorc_step_signal_frame(s, f, &interrupted)) != 0)
      return walk_end(rc);
    *f = interrupted;
    return 1;
  }
  if (!found)
    return PROF_WALK_NO_INFO;
  rc = gorc_step_by_state(s, f, &st);
  return rc == GORC_STEP_NEXT ? 1 : walk_end(rc);
}

enum prof_walk_end prof_unwind(const struct prof_space *sp, const struct gorc_perf_regs *regs,
                               const uint8_t *stack, uint64_t stack_size, uint64_t *ips,
                               unsigned max, unsigned *n)
{
  uint32_t known = GORC_FRAME_INTERRUPTED;
  if ((regs->have >> GORC_PERF_REG_BP) & 1)
    known |= GORC_FRAME_FP;
  if ((regs->have >> GORC_PERF_REG_BX) & 1)
    known |= GORC_FRAME_AUX;
  return prof_unwind_from(sp, regs, known, stack, stack_size, ips, max, n);
}

enum prof_walk_end prof_unwind_from(const struct prof_space *sp, const struct gorc_perf_regs *regs,
                                    uint32_t known, const uint8_t *stack, uint64_t stack_size,
                                    uint64_t *ips, unsigned max, unsigned *n)
{
  struct stack_copy s = { regs->sp, stack ? stack_size : 0, stack };
  struct gorc_frame_regs f = { regs->ip, regs->sp, regs->bp, regs->bx, 0, known };
  *n = 0;
  if (max == 0)
    return PROF_WALK_DEEPER;
  ips[(*n)++] = f.ip;
  for (;;) {
    int rc = step(sp, &s, &f);
    if (rc != 1)
      return (enum prof_walk_end)rc;
    if (*n == max)
      return PROF_WALK_DEEPER;
    ips[(*n)++] = f.ip;
  }
}
