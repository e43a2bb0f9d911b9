/* gorc-prof --unwind=bpf: the walker's kernel types as a minimal BTF
   (see prof-btf.h).  The running kernel's BTF is mapped (Linux 6.16 and
   later allow it; older kernels: read into memory), its types walked
   for the wanted structs up to the last of them, their names and their
   members' names compared in place.  Nothing of it is kept.  */

#define _GNU_SOURCE
#include "prof-btf.h"
#include "prof-data.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/btf.h>

/* The header's first fields, up to the strings' length: all that is
   read, and all that is written.  Newer headers go on (a layout
   section, in struct btf_header of Linux 6.19's uapi), and hdr_len says
   how far.  */
#define BTF_BASE_HDR_LEN (offsetof(struct btf_header, str_len) + sizeof(uint32_t))

/* The kernel types prof-bpf.bpf.c declares with preserve_access_index,
   and the fields of them it reads: the same names, the same kinds.  A
   struct's fields may lie in its anonymous members (vm_area_struct's
   vm_start).  OPTIONAL: the fields of bpf_find_vma's lookup, which a
   kernel may lack (inode's i_ctime_sec is Linux 6.11's): left out, the
   walker does without (PROF_BTF_NO_VMA).  */
#define MAX_FIELDS 5
enum field_kind { FIELD_ULONG, FIELD_U32, FIELD_POINTER };
struct wanted_field {
  const char *name;
  enum field_kind kind;
};
static const struct wanted_struct {
  const char *name;
  unsigned nfields;
  struct wanted_field fields[MAX_FIELDS];
  int optional;
} wanted[] = {
  { "pt_regs", 4, { { "bp", FIELD_ULONG }, { "bx", FIELD_ULONG }, { "ip", FIELD_ULONG },
                    { "sp", FIELD_ULONG } }, 0 },
  { "task_struct", 2, { { "mm", FIELD_POINTER }, { "self_exec_id", FIELD_ULONG } }, 0 },
  { "mm_struct", 3, { { "start_code", FIELD_ULONG }, { "end_code", FIELD_ULONG },
                      { "exe_file", FIELD_POINTER } }, 1 },
  { "vm_area_struct", 5, { { "vm_start", FIELD_ULONG }, { "vm_end", FIELD_ULONG },
                           { "vm_flags", FIELD_ULONG }, { "vm_pgoff", FIELD_ULONG },
                           { "vm_file", FIELD_POINTER } }, 1 },
  { "file", 1, { { "f_inode", FIELD_POINTER } }, 1 },
  { "inode", 4, { { "i_ino", FIELD_ULONG }, { "i_sb", FIELD_POINTER },
                  { "i_ctime_sec", FIELD_ULONG }, { "i_ctime_nsec", FIELD_U32 } }, 1 },
  { "super_block", 1, { { "s_dev", FIELD_U32 } }, 1 },
};
#define NWANTED (sizeof wanted / sizeof wanted[0])

/* An anonymous struct or union member of a wanted struct: its members
   are the struct's too.  */
struct anon_member {
  uint32_t type_id;
  size_t w;                      /* the wanted struct */
  uint32_t bit_offset;           /* where it lies in that struct */
};
#define MAX_ANON 8
/* (bounds the anonymous members looked in: a corrupt BTF's cycle ends) */
#define MAX_ANON_SEEN 64

/* What was found of each wanted struct in the kernel's BTF.  */
struct found_struct {
  int seen;                      /* the struct itself met */
  uint32_t size;
  uint32_t bit_offset[MAX_FIELDS];
  int field_seen[MAX_FIELDS];
};

/* What the walk over the kernel's types finds.  */
struct finding {
  struct found_struct found[NWANTED];
  struct anon_member anon[MAX_ANON];   /* to look in */
  size_t nanon, anon_seen;
  uint64_t *type_at;             /* each type walked: its offset, by id */
  size_t ntypes, cap_types;
};

/* The kernel's BTF in memory, and where its sections lie in it.  */
struct btf_view {
  const uint8_t *p;
  size_t len;
  int mapped;                    /* else read into a buffer of ours */
  uint64_t types, strs;          /* offsets in p */
  uint32_t type_len, str_len;
};

/* Is string OFF of V's strings NAME?  */
static int name_is(const struct btf_view *v, uint32_t off, const char *name)
{
  size_t n = strlen(name);
  return off < v->str_len && v->str_len - off > n
         && memcmp(v->p + v->strs + off, name, n + 1) == 0;
}

/* The bytes that follow a type of kind KIND with VLEN entries, or -1 for
   a kind this reader does not know.  */
static long trailing(unsigned kind, unsigned vlen)
{
  switch (kind) {
  case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
    return 4;
  case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
  case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
  case BTF_KIND_TYPE_TAG:
    return 0;
  case BTF_KIND_ARRAY:
    return sizeof(struct btf_array);
  case BTF_KIND_STRUCT: case BTF_KIND_UNION:
    return (long)vlen * (long)sizeof(struct btf_member);
  case BTF_KIND_ENUM:
    return (long)vlen * (long)sizeof(struct btf_enum);
  case BTF_KIND_FUNC_PROTO:
    return (long)vlen * (long)sizeof(struct btf_param);
  case BTF_KIND_DATASEC:
    return (long)vlen * (long)sizeof(struct btf_var_secinfo);
  case BTF_KIND_ENUM64:
    return (long)vlen * (long)sizeof(struct btf_enum64);
  default:
    return -1;
  }
}

/* The members MEMBERS[0..VLEN) (KFLAG: bitfield sizes in their offsets)
   of wanted struct W, BASE bits into it: the bit offsets of its wanted
   fields, and its anonymous struct and union members to look in.  */
static void note_fields(const struct btf_view *v, const uint8_t *members, unsigned vlen,
                        int kflag, size_t w, uint32_t base, struct finding *fd)
{
  struct found_struct *f = &fd->found[w];
  for (unsigned m = 0; m < vlen; m++) {
    struct btf_member member;
    memcpy(&member, members + m * sizeof member, sizeof member);
    uint32_t off = member.offset;
    if (kflag && BTF_MEMBER_BITFIELD_SIZE(off))
      continue;                        /* a bitfield is not a field read */
    off = base + (kflag ? BTF_MEMBER_BIT_OFFSET(off) : off);
    if (member.name_off == 0 && fd->nanon < MAX_ANON)
      fd->anon[fd->nanon++] = (struct anon_member){ member.type, w, off };
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      if (!f->field_seen[k] && name_is(v, member.name_off, wanted[w].fields[k].name)) {
        f->bit_offset[k] = off;
        f->field_seen[k] = 1;
      }
  }
}

/* Is all that is looked for found: every struct, and every field or
   every anonymous member it might be in?  */
static int all_found(const struct finding *fd)
{
  int fields = 1;
  for (size_t w = 0; w < NWANTED; w++) {
    if (!fd->found[w].seen)
      return 0;
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      fields &= fd->found[w].field_seen[k];
  }
  return fields || fd->nanon == 0;
}

/* The type at OFF in V, T, when it is a wanted struct, noted in FD.  */
static void note_type(const struct btf_view *v, uint64_t off, const struct btf_type *t,
                      struct finding *fd)
{
  if (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT)
    return;
  for (size_t w = 0; w < NWANTED; w++)
    if (!fd->found[w].seen && name_is(v, t->name_off, wanted[w].name)) {
      fd->found[w].seen = 1;
      fd->found[w].size = t->size;
      note_fields(v, v->p + off + sizeof *t, BTF_INFO_VLEN(t->info),
                  (int)BTF_INFO_KFLAG(t->info), w, 0, fd);
    }
}

/* The anonymous members to look in whose types are walked already (an
   anonymous struct's type may come before or after its parent's), as
   the wanted struct's own members.  */
static void note_anon_walked(const struct btf_view *v, struct finding *fd)
{
  for (size_t a = 0; a < fd->nanon;) {
    struct anon_member am = fd->anon[a];
    if (am.type_id == 0 || am.type_id > fd->ntypes) {
      a++;
      continue;
    }
    fd->anon[a] = fd->anon[--fd->nanon];
    if (++fd->anon_seen > MAX_ANON_SEEN)
      return;
    uint64_t off = fd->type_at[am.type_id - 1];
    struct btf_type t;
    memcpy(&t, v->p + off, sizeof t);
    unsigned kind = BTF_INFO_KIND(t.info);
    if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
      note_fields(v, v->p + off + sizeof t, BTF_INFO_VLEN(t.info), (int)BTF_INFO_KFLAG(t.info),
                  am.w, am.bit_offset, fd);
    a = 0;                       /* (it may have added some) */
  }
}

/* The wanted structs in V's types, one type at a time, up to the last
   of them (and of their anonymous members): a struct's first type of
   its name is the one taken, and the kernel's are among its first
   thousand types of 125,000 (walking them all was 0.8 ms, 7% of the CPU
   of gorc-prof -- true).  */
static int find_structs(const struct btf_view *v, struct finding *fd)
{
  uint64_t off = v->types, end = v->types + v->type_len;
  while (off < end && !all_found(fd)) {
    struct btf_type t;
    if (end - off < sizeof t)
      return -1;
    memcpy(&t, v->p + off, sizeof t);
    long more = trailing(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
    if (more < 0 || end - off - sizeof t < (uint64_t)more)
      return -1;
    fd->type_at = prof_xgrow(fd->type_at, &fd->cap_types, fd->ntypes + 1, sizeof *fd->type_at,
                             1024, SIZE_MAX);
    fd->type_at[fd->ntypes++] = off;
    note_type(v, off, &t, fd);
    note_anon_walked(v, fd);
    off += sizeof t + (uint64_t)more;
  }
  return 0;
}

/* ---- the minimal BTF written ---- */

/* The types' bytes: the four of every blob (two integers with their
   encoding word, a declaration, a pointer), then at most each wanted
   struct with all its fields: what write_blob can write.  */
#define BLOB_TYPES_MAX (4 * (sizeof(struct btf_type) + 4) \
                        + NWANTED * (sizeof(struct btf_type) + MAX_FIELDS * sizeof(struct btf_member)))

struct blob {
  uint8_t types[BLOB_TYPES_MAX];
  char strs[512];
  size_t ntypes, nstrs;
  uint32_t next_id;
  int strs_full;                 /* a name did not fit in strs (more wanted names) */
};

static uint32_t add_str(struct blob *b, const char *s)
{
  uint32_t off = (uint32_t)b->nstrs;
  size_t n = strlen(s) + 1;
  if (n > sizeof b->strs - b->nstrs) {
    b->strs_full = 1;
    return 0;
  }
  memcpy(b->strs + b->nstrs, s, n);
  b->nstrs += n;
  return off;
}

static uint32_t add_type(struct blob *b, uint32_t name_off, unsigned kind, unsigned vlen,
                         uint32_t size_or_type, const void *more, size_t nmore)
{
  struct btf_type t = { .name_off = name_off, .info = (uint32_t)kind << 24 | vlen,
                        .size = size_or_type };
  memcpy(b->types + b->ntypes, &t, sizeof t);
  if (nmore)
    memcpy(b->types + b->ntypes + sizeof t, more, nmore);
  b->ntypes += sizeof t + nmore;
  return b->next_id++;
}

/* Are all of wanted struct W's fields found?  */
static int complete(const struct found_struct *found, size_t w)
{
  for (unsigned k = 0; k < wanted[w].nfields; k++)
    if (!found[w].field_seen[k])
      return 0;
  return found[w].seen;
}

/* Are all the optional structs' fields found?  */
static int optional_complete(const struct found_struct *found)
{
  for (size_t w = 0; w < NWANTED; w++)
    if (wanted[w].optional && !complete(found, w))
      return 0;
  return 1;
}

/* The BTF of the wanted structs as FOUND (the optional ones only when
   all are complete): 8- and 4-byte unsigned integers, a pointer to a
   declared struct, and each struct with only its wanted fields, at the
   kernel's offsets.  */
static void write_blob(struct blob *b, const struct found_struct *found)
{
  b->nstrs = 0;
  b->ntypes = 0;
  b->next_id = 1;
  b->strs_full = 0;
  add_str(b, "");
  uint32_t ulong_bits = 64, u32_bits = 32;
  uint32_t ulong = add_type(b, add_str(b, "long unsigned int"), BTF_KIND_INT, 0, 8,
                            &ulong_bits, sizeof ulong_bits);
  uint32_t u32 = add_type(b, add_str(b, "unsigned int"), BTF_KIND_INT, 0, 4, &u32_bits,
                          sizeof u32_bits);
  uint32_t opaque = add_type(b, add_str(b, "gorc_opaque"), BTF_KIND_FWD, 0, 0, NULL, 0);
  uint32_t pointer = add_type(b, 0, BTF_KIND_PTR, 0, opaque, NULL, 0);
  const uint32_t of_kind[] = { [FIELD_ULONG] = ulong, [FIELD_U32] = u32,
                               [FIELD_POINTER] = pointer };
  int optional = optional_complete(found);
  for (size_t w = 0; w < NWANTED; w++) {
    struct btf_member members[MAX_FIELDS];
    if (wanted[w].optional && !optional)
      continue;
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      members[k] = (struct btf_member){
        .name_off = add_str(b, wanted[w].fields[k].name),
        .type = of_kind[wanted[w].fields[k].kind],
        .offset = found[w].bit_offset[k],
      };
    add_type(b, add_str(b, wanted[w].name), BTF_KIND_STRUCT, wanted[w].nfields, found[w].size,
             members, wanted[w].nfields * sizeof members[0]);
  }
}
/* The kernel's BTF into V (NO_MAP: read, not mapped), its header
   checked: 0 or -1.  */
static int view_open(struct btf_view *v, int no_map)
{
  struct stat st;
  int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
  memset(v, 0, sizeof *v);
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) == 0 && st.st_size >= (off_t)BTF_BASE_HDR_LEN) {
    v->len = (size_t)st.st_size;
    void *m = no_map ? MAP_FAILED : mmap(NULL, v->len, PROT_READ, MAP_PRIVATE, fd, 0);
    v->mapped = m != MAP_FAILED;
    v->p = v->mapped ? m : prof_read_whole(fd, v->len);
  }
  close(fd);
  if (!v->p)
    return -1;
  struct btf_header h;
  memset(&h, 0, sizeof h);
  memcpy(&h, v->p, BTF_BASE_HDR_LEN);
  v->types = h.hdr_len + (uint64_t)h.type_off;
  v->strs = h.hdr_len + (uint64_t)h.str_off;
  v->type_len = h.type_len;
  v->str_len = h.str_len;
  if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < BTF_BASE_HDR_LEN
      || v->types + v->type_len > v->len || v->strs + v->str_len > v->len)
    return -1;
  return 0;
}

static void view_close(struct btf_view *v)
{
  if (v->mapped)
    munmap((void *)v->p, v->len);
  else
    free((void *)v->p);
}

/* The kernel's BTF read for the wanted structs into FOUND (FLAGS:
   prof_btf_minimal's); OUT, unless NULL: how it was read.  */
static int read_kernel_btf(struct finding *fd, unsigned flags, FILE *out)
{
  struct btf_view v;
  int err = view_open(&v, (flags & PROF_BTF_READ) != 0) != 0 || find_structs(&v, fd) != 0;
  free(fd->type_at);
  fd->type_at = NULL;
  if (out && v.p)
    fprintf(out, "gorc-prof: kernel BTF: %s\n", v.mapped ? "mapped" : "read");
  view_close(&v);
  return err ? -1 : 0;
}

/* FOUND described on OUT, one line a field.  */
static void describe(FILE *out, const struct found_struct *found)
{
  for (size_t w = 0; w < NWANTED; w++)
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      if (found[w].field_seen[k])
        fprintf(out, "gorc-prof: kernel BTF: %s.%s at byte %u\n", wanted[w].name,
                wanted[w].fields[k].name, found[w].bit_offset[k] / 8);
      else
        fprintf(out, "gorc-prof: kernel BTF: %s.%s not found\n", wanted[w].name,
                wanted[w].fields[k].name);
}

int prof_btf_minimal(char *path, size_t pathlen, unsigned flags, FILE *out, int *vma)
{
  struct finding finding;
  memset(&finding, 0, sizeof finding);
  *vma = 0;
  if (read_kernel_btf(&finding, flags, out) != 0) {
    if (out)
      fprintf(out, "gorc-prof: kernel BTF: not read\n");
    return -1;
  }
  const struct found_struct *found = finding.found;
  if (out)
    describe(out, found);
  for (size_t w = 0; w < NWANTED; w++)
    if (!wanted[w].optional && !complete(found, w))
      return -1;
  *vma = optional_complete(found);
  struct blob b;
  write_blob(&b, found);
  if (b.strs_full) {
    if (out)
      fprintf(out, "gorc-prof: kernel BTF: the wanted names are more than %zu bytes\n",
              sizeof b.strs);
    return -1;
  }
  struct btf_header h = {
    .magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = BTF_BASE_HDR_LEN,
    .type_off = 0, .type_len = (uint32_t)b.ntypes,
    .str_off = (uint32_t)b.ntypes, .str_len = (uint32_t)b.nstrs,
  };
  int fd = memfd_create("gorc-prof-btf", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  if (write(fd, &h, BTF_BASE_HDR_LEN) != (ssize_t)BTF_BASE_HDR_LEN
      || write(fd, b.types, b.ntypes) != (ssize_t)b.ntypes
      || write(fd, b.strs, b.nstrs) != (ssize_t)b.nstrs) {
    close(fd);
    return -1;
  }
  snprintf(path, pathlen, "/proc/self/fd/%d", fd);
  return fd;
}
