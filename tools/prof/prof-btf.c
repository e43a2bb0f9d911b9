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
   and the fields of them it reads: the same names, the same kinds.  */
#define MAX_FIELDS 4
enum field_kind { FIELD_ULONG, FIELD_POINTER };
static const struct wanted_struct {
  const char *name;
  unsigned nfields;
  const char *fields[MAX_FIELDS];
  enum field_kind kind;
} wanted[] = {
  { "pt_regs", 4, { "bp", "bx", "ip", "sp" }, FIELD_ULONG },
  { "task_struct", 1, { "mm" }, FIELD_POINTER },
};
#define NWANTED (sizeof wanted / sizeof wanted[0])

/* What was found of each wanted struct in the kernel's BTF.  */
struct found_struct {
  int seen;                      /* the struct itself met */
  uint32_t size;
  uint32_t bit_offset[MAX_FIELDS];
  int field_seen[MAX_FIELDS];
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
   of a struct found as F: the bit offsets of the wanted fields.  */
static void note_fields(const struct btf_view *v, const uint8_t *members, unsigned vlen,
                        int kflag, const struct wanted_struct *w, struct found_struct *f)
{
  for (unsigned m = 0; m < vlen; m++)
    for (unsigned k = 0; k < w->nfields; k++) {
      struct btf_member member;
      memcpy(&member, members + m * sizeof member, sizeof member);
      uint32_t off = member.offset;
      if (f->field_seen[k] || !name_is(v, member.name_off, w->fields[k]))
        continue;
      if (kflag && BTF_MEMBER_BITFIELD_SIZE(off))
        continue;                      /* a bitfield is not the field read */
      f->bit_offset[k] = kflag ? BTF_MEMBER_BIT_OFFSET(off) : off;
      f->field_seen[k] = 1;
    }
}

/* Are all the wanted structs found?  */
static int all_found(const struct found_struct *found)
{
  for (size_t w = 0; w < NWANTED; w++)
    if (!found[w].seen)
      return 0;
  return 1;
}

/* The wanted structs in V's types, one type at a time, up to the last
   of them: a struct's first type of its name is the one taken, and the
   kernel's are among its first few hundred types of 125,000 (walking
   them all was 0.8 ms, 7% of the CPU of gorc-prof -- true).  */
static int find_structs(const struct btf_view *v, struct found_struct *found)
{
  uint64_t off = v->types, end = v->types + v->type_len;
  while (off < end && !all_found(found)) {
    struct btf_type t;
    if (end - off < sizeof t)
      return -1;
    memcpy(&t, v->p + off, sizeof t);
    unsigned kind = BTF_INFO_KIND(t.info), vlen = BTF_INFO_VLEN(t.info);
    long more = trailing(kind, vlen);
    if (more < 0 || end - off - sizeof t < (uint64_t)more)
      return -1;
    for (size_t w = 0; w < NWANTED && kind == BTF_KIND_STRUCT; w++)
      if (!found[w].seen && name_is(v, t.name_off, wanted[w].name)) {
        found[w].seen = 1;
        found[w].size = t.size;
        note_fields(v, v->p + off + sizeof t, vlen, (int)BTF_INFO_KFLAG(t.info), &wanted[w],
                    &found[w]);
      }
    off += sizeof t + (uint64_t)more;
  }
  return 0;
}

/* ---- the minimal BTF written ---- */

struct blob {
  uint8_t types[1024];
  char strs[256];
  size_t ntypes, nstrs;
  uint32_t next_id;
};

static uint32_t add_str(struct blob *b, const char *s)
{
  uint32_t off = (uint32_t)b->nstrs;
  size_t n = strlen(s) + 1;
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

/* The BTF of the wanted structs as FOUND: an 8-byte unsigned integer, a
   pointer to a declared struct, and each struct with only its wanted
   fields, at the kernel's offsets.  */
static void write_blob(struct blob *b, const struct found_struct *found)
{
  b->nstrs = 0;
  b->ntypes = 0;
  b->next_id = 1;
  add_str(b, "");
  uint32_t ulong_bits = 64;
  uint32_t ulong = add_type(b, add_str(b, "long unsigned int"), BTF_KIND_INT, 0, 8,
                            &ulong_bits, sizeof ulong_bits);
  uint32_t opaque = add_type(b, add_str(b, "gorc_opaque"), BTF_KIND_FWD, 0, 0, NULL, 0);
  uint32_t pointer = add_type(b, 0, BTF_KIND_PTR, 0, opaque, NULL, 0);
  for (size_t w = 0; w < NWANTED; w++) {
    struct btf_member members[MAX_FIELDS];
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      members[k] = (struct btf_member){
        .name_off = add_str(b, wanted[w].fields[k]),
        .type = wanted[w].kind == FIELD_POINTER ? pointer : ulong,
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
static int read_kernel_btf(struct found_struct *found, unsigned flags, FILE *out)
{
  struct btf_view v;
  int err = view_open(&v, (flags & PROF_BTF_READ) != 0) != 0 || find_structs(&v, found) != 0;
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
                wanted[w].fields[k], found[w].bit_offset[k] / 8);
      else
        fprintf(out, "gorc-prof: kernel BTF: %s.%s not found\n", wanted[w].name,
                wanted[w].fields[k]);
}

int prof_btf_minimal(char *path, size_t pathlen, unsigned flags, FILE *out)
{
  struct found_struct found[NWANTED];
  memset(found, 0, sizeof found);
  if (read_kernel_btf(found, flags, out) != 0) {
    if (out)
      fprintf(out, "gorc-prof: kernel BTF: not read\n");
    return -1;
  }
  if (out)
    describe(out, found);
  for (size_t w = 0; w < NWANTED; w++)
    for (unsigned k = 0; k < wanted[w].nfields; k++)
      if (!found[w].field_seen[k])
        return -1;
  struct blob b;
  write_blob(&b, found);
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
