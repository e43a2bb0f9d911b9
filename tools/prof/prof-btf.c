/* gorc-prof --unwind=bpf: the walker's kernel types as a minimal BTF
   (see prof-btf.h).  The running kernel's BTF is read as a stream in
   pieces: first its strings, for the offsets of the names wanted, then
   its types, for those structs and their members' bit offsets.  Nothing
   of it is kept.  */

#define _GNU_SOURCE
#include "prof-btf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
  uint32_t name_off;             /* in the kernel's strings; 0: not there */
  uint32_t field_off[MAX_FIELDS];  /* the fields' names, the same way */
  int seen;                      /* the struct itself met */
  uint32_t size;
  uint32_t bit_offset[MAX_FIELDS];
  int field_seen[MAX_FIELDS];
};

/* A window of the file, refilled by pread where a read falls outside.  */
struct reader {
  int fd;
  uint64_t base;                 /* the file offset of buf[0] */
  size_t len;
  uint8_t buf[64 * 1024];
};

/* N bytes of the file at OFF, or NULL past its end or when N exceeds
   the window.  */
static const uint8_t *at(struct reader *r, uint64_t off, size_t n)
{
  if (off >= r->base && off + n <= r->base + r->len)
    return r->buf + (off - r->base);
  if (n > sizeof r->buf)
    return NULL;
  r->base = off;
  r->len = 0;
  /* (sysfs gives a page a read) */
  for (ssize_t got; r->len < sizeof r->buf; r->len += (size_t)got) {
    got = pread(r->fd, r->buf + r->len, sizeof r->buf - r->len, (off_t)(off + r->len));
    if (got < 0 && errno == EINTR)
      got = 0;
    else if (got <= 0)
      break;
  }
  return n <= r->len ? r->buf : NULL;
}

/* The offset of each wanted name in the kernel's strings STR..STR+LEN:
   the strings walked whole, one window at a time.  */
static int find_names(struct reader *r, uint64_t str, uint32_t len, struct found_struct *found)
{
  uint64_t off = str + 1;              /* (string 0 is the empty one) */
  while (off < str + len) {
    size_t want = str + len - off < sizeof r->buf ? (size_t)(str + len - off) : sizeof r->buf;
    const uint8_t *p = at(r, off, want);
    if (!p)
      return -1;
    size_t used = 0;
    for (const uint8_t *nul; (nul = memchr(p + used, 0, want - used)) != NULL;
         used = (size_t)(nul - p) + 1) {
      const char *s = (const char *)p + used;
      uint32_t s_off = (uint32_t)(off + used - str);
      for (size_t w = 0; w < NWANTED; w++) {
        if (!found[w].name_off && strcmp(s, wanted[w].name) == 0)
          found[w].name_off = s_off;
        for (unsigned f = 0; f < wanted[w].nfields; f++)
          if (!found[w].field_off[f] && strcmp(s, wanted[w].fields[f]) == 0)
            found[w].field_off[f] = s_off;
      }
    }
    if (used == 0)
      return -1;                       /* a string longer than the window */
    off += used;
  }
  return 0;
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
static void note_fields(const struct btf_member *members, unsigned vlen, int kflag,
                        const struct wanted_struct *w, struct found_struct *f)
{
  for (unsigned m = 0; m < vlen; m++)
    for (unsigned k = 0; k < w->nfields; k++) {
      uint32_t off = members[m].offset;
      if (!f->field_off[k] || members[m].name_off != f->field_off[k] || f->field_seen[k])
        continue;
      if (kflag && BTF_MEMBER_BITFIELD_SIZE(off))
        continue;                      /* a bitfield is not the field read */
      f->bit_offset[k] = kflag ? BTF_MEMBER_BIT_OFFSET(off) : off;
      f->field_seen[k] = 1;
    }
}

/* The wanted structs in the kernel's types TYPES..TYPES+LEN, one type
   at a time.  */
static int find_structs(struct reader *r, uint64_t types, uint32_t len, struct found_struct *found)
{
  uint64_t off = types;
  while (off < types + len) {
    const struct btf_type *t = (const void *)at(r, off, sizeof *t);
    if (!t)
      return -1;
    unsigned kind = BTF_INFO_KIND(t->info), vlen = BTF_INFO_VLEN(t->info);
    int kflag = (int)BTF_INFO_KFLAG(t->info);
    uint32_t name_off = t->name_off, size = t->size;
    long more = trailing(kind, vlen);
    if (more < 0)
      return -1;
    for (size_t w = 0; w < NWANTED && kind == BTF_KIND_STRUCT; w++) {
      if (!found[w].name_off || name_off != found[w].name_off || found[w].seen)
        continue;
      const void *members = at(r, off + sizeof *t, (size_t)more);
      if (!members)
        return -1;
      found[w].seen = 1;
      found[w].size = size;
      note_fields(members, vlen, kflag, &wanted[w], &found[w]);
    }
    off += sizeof *t + (uint64_t)more;
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

/* The kernel's BTF read for the wanted structs into FOUND.  */
static int read_kernel_btf(struct found_struct *found)
{
  struct reader *r = malloc(sizeof *r);
  int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
  int err = -1;
  if (r && fd >= 0) {
    r->fd = fd;
    r->base = r->len = 0;
    const struct btf_header *h = (const void *)at(r, 0, sizeof *h);
    if (h && h->magic == BTF_MAGIC && h->version == BTF_VERSION && h->hdr_len >= BTF_BASE_HDR_LEN) {
      uint64_t types = h->hdr_len + (uint64_t)h->type_off, strs = h->hdr_len + (uint64_t)h->str_off;
      uint32_t type_len = h->type_len, str_len = h->str_len;
      err = find_names(r, strs, str_len, found) || find_structs(r, types, type_len, found);
    }
  }
  if (fd >= 0)
    close(fd);
  free(r);
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

int prof_btf_minimal(char *path, size_t pathlen, FILE *out)
{
  struct found_struct found[NWANTED];
  memset(found, 0, sizeof found);
  if (read_kernel_btf(found) != 0) {
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
