/* Malformed input for eh_state: the bytes of FILE from
   .eh_frame_hdr to the end of .eh_frame (a "region"), copied into a
   buffer of exactly their size (malloc'd, so valgrind or ASan see any read
   past it) and looked up in place at a set of addresses (each FDE's
   start, its start - 1, and one address inside it).

   - The whole region: every answer is 1 or 0 (never -GORC_ECORRUPT).
   - Cut at every length (or -t MAXCUTS of them): each answer is the whole
     region's, or -GORC_ECORRUPT, or 0 once the cut reaches into the search
     table (the lookup must never give a different state).
   - Copies with 1 to 4 random bytes changed (anywhere: header, table,
     CIEs, FDEs), sometimes cut as well: each answer is 1 with a
     well-formed state, 0 or -GORC_ECORRUPT.

   usage: malformed [-n FLIPS] [-s SEED] [-t MAXCUTS] [-c SEEDFILE] FILE
   prints "truncations: N cuts ... all ok" and "flips: N runs, A rc 1, B rc
   0, C rc -8, D bad" and exits 1 on any failure.  -c writes the region as
   a seed for fuzz_ehframe (its 8-byte head: the header's offset and an
   FDE's offset in the region).  */

#include <gelf.h>
#include <inttypes.h>
#include "eh-test.h"

#define MAX_PCS 4000

struct region {
  const uint8_t *bytes;         /* the mapped file's bytes */
  size_t len, hdr_off, hdr_size;
  uint64_t addr;                /* link-time address of bytes[0] */
  uint64_t pcs[MAX_PCS];        /* link-time addresses looked up */
  size_t npcs;
};

struct answer {
  int rc;
  struct gorc_state st;
};

/* The region of PATH, mapped by eh_map; the addresses from its search
   table (datarel|sdata4, as ld writes it).  */
static int open_region(const char *path, struct region *r)
{
  struct eh_image im;
  int fd = open(path, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  size_t shstrndx;
  GElf_Shdr sh, eh = { 0 };
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || eh_map(path, &im) != 0) {
    fprintf(stderr, "%s: cannot open as ELF\n", path);
    return -1;
  }
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    const char *name;
    if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name))
        && strcmp(name, ".eh_frame") == 0)
      eh = sh;
  }
  uint64_t hdr = im.ef.hdr - im.bias;
  if (!eh.sh_size || !im.ef.hdr_size || hdr > eh.sh_addr || eh.sh_addr + eh.sh_size > im.eh_hi) {
    fprintf(stderr, "%s: no .eh_frame_hdr before .eh_frame in one segment\n", path);
    return -1;
  }
  r->addr = hdr;
  r->bytes = (const uint8_t *)(uintptr_t)im.ef.hdr;
  r->len = eh.sh_addr + eh.sh_size - hdr;
  r->hdr_off = 0;
  r->hdr_size = im.ef.hdr_size;
  const uint8_t *h = r->bytes;
  uint32_t count;
  if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b || r->hdr_size < 12) {
    fprintf(stderr, "%s: not ld's search table\n", path);
    return -1;
  }
  memcpy(&count, h + 8, 4);
  size_t step = count / (MAX_PCS / 3) + 1;
  r->npcs = 0;
  for (uint32_t i = 0; i < count && 12 + 8 * (size_t)i + 8 <= r->hdr_size; i += step) {
    int32_t loc;
    memcpy(&loc, h + 12 + 8 * (size_t)i, 4);
    uint64_t a = hdr + (uint64_t)(int64_t)loc;
    r->pcs[r->npcs++] = a;
    r->pcs[r->npcs++] = a - 1;
    r->pcs[r->npcs++] = a + 1 + i % 13;
  }
  elf_end(elf);
  close(fd);
  return 0;
}

/* Look up every address in the first N bytes of DATA (a copy of the
   region, in an exact-size buffer).  */
static void lookup_all(const struct region *r, const uint8_t *data, size_t n, struct answer *out)
{
  uint8_t *copy = malloc(n ? n : 1);
  memcpy(copy, data, n);
  struct gorc_rt_ehframe ef = { 0 };
  uint64_t at = (uint64_t)(uintptr_t)copy;
  ef.lo = at;
  ef.hi = at + n;
  ef.hdr = at + r->hdr_off;
  ef.hdr_size = n > r->hdr_off ? (n - r->hdr_off < r->hdr_size ? n - r->hdr_off : r->hdr_size)
                               : 0;
  for (size_t i = 0; i < r->npcs; i++) {
    memset(&out[i].st, 0, sizeof out[i].st);
    out[i].rc = eh_state(&ef, r->pcs[i] - r->addr + at, &out[i].st);
  }
  free(copy);
}

static int same_answer(const struct answer *a, const struct answer *b)
{
  return a->rc == b->rc && (a->rc != 1 || gorc_state_equal(&a->st, &b->st));
}

static int valid_answer(const struct answer *a)
{
  return a->rc == 0 || a->rc == -GORC_ECORRUPT || (a->rc == 1 && eh_well_formed(&a->st));
}

static int check_cuts(const struct region *r, const struct answer *full, unsigned long maxcuts)
{
  struct answer *got = calloc(r->npcs, sizeof *got);
  size_t cuts = 0, failures = 0, step = maxcuts < r->len ? r->len / maxcuts + 1 : 1;
  for (size_t n = 0; n <= r->len; n += step) {
    lookup_all(r, r->bytes, n, got);
    for (size_t i = 0; i < r->npcs; i++) {
      int ok = same_answer(&got[i], &full[i]) || got[i].rc == -GORC_ECORRUPT
               || (got[i].rc == 0 && n < r->hdr_off + r->hdr_size);
      if (!ok && failures++ < 10)
        printf("cut at %zu, address %#" PRIx64 ": rc %d, whole region rc %d\n", n, r->pcs[i],
               got[i].rc, full[i].rc);
    }
    cuts++;
  }
  printf("truncations: %zu cuts of a %zu-byte region, %s\n", cuts, r->len,
         failures ? "FAILED" : "all ok");
  free(got);
  return failures == 0;
}

static int check_flips(const struct region *r, unsigned long flips, unsigned long seed)
{
  struct answer *got = calloc(r->npcs, sizeof *got);
  uint8_t *buf = malloc(r->len);
  unsigned long x = seed * 2654435761ul + 1, n1 = 0, n0 = 0, nc = 0, bad = 0;
#define RND() (x = x * 6364136223846793005ul + 1442695040888963407ul, (unsigned)(x >> 33))
  for (unsigned long i = 0; i < flips; i++) {
    memcpy(buf, r->bytes, r->len);
    unsigned k = 1 + RND() % 4;
    for (unsigned j = 0; j < k; j++) {
      size_t at = RND() % r->len;
      switch (RND() % 4) {
      case 0: buf[at] = (uint8_t)RND(); break;
      case 1: buf[at] ^= (uint8_t)(1u << (RND() % 8)); break;
      case 2: buf[at] = 0; break;
      default: buf[at] = 0xff; break;
      }
    }
    size_t n = RND() % 8 ? r->len : RND() % (r->len + 1);
    lookup_all(r, buf, n, got);
    for (size_t j = 0; j < r->npcs; j++) {
      n1 += got[j].rc == 1;
      n0 += got[j].rc == 0;
      nc += got[j].rc == -GORC_ECORRUPT;
      if (!valid_answer(&got[j]) && bad++ < 10)
        printf("flip %lu, address %#" PRIx64 ": rc %d or a malformed state\n", i, r->pcs[j],
               got[j].rc);
    }
  }
#undef RND
  printf("flips: %lu runs, %lu rc 1, %lu rc 0, %lu rc -%d, %lu bad\n", flips, n1, n0, nc,
         GORC_ECORRUPT, bad);
  free(buf);
  free(got);
  return bad == 0;
}

static int write_seed(const struct region *r, const char *file)
{
  FILE *f = fopen(file, "wb");
  uint32_t head[2] = { (uint32_t)r->hdr_off, (uint32_t)(r->pcs[r->npcs / 2] - r->addr) };
  if (!f || fwrite(head, sizeof head, 1, f) != 1 || fwrite(r->bytes, r->len, 1, f) != 1
      || fclose(f) != 0) {
    perror(file);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv)
{
  unsigned long flips = 2000, seed = 1, maxcuts = ~0ul;
  const char *seedfile = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "n:s:t:c:")) != -1) {
    if (opt == 'n')
      flips = strtoul(optarg, NULL, 0);
    else if (opt == 's')
      seed = strtoul(optarg, NULL, 0);
    else if (opt == 't')
      maxcuts = strtoul(optarg, NULL, 0);
    else if (opt == 'c')
      seedfile = optarg;
    else
      return 2;
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "usage: malformed [-n FLIPS] [-s SEED] [-t MAXCUTS] [-c SEEDFILE] FILE\n");
    return 2;
  }
  static struct region r;
  if (open_region(argv[optind], &r) != 0)
    return 2;
  if (seedfile)
    return write_seed(&r, seedfile) ? 0 : 2;

  struct answer *full = calloc(r.npcs, sizeof *full);
  lookup_all(&r, r.bytes, r.len, full);
  size_t found = 0;
  for (size_t i = 0; i < r.npcs; i++) {
    if (full[i].rc != 0 && full[i].rc != 1) {
      printf("FAIL: whole region, address %#" PRIx64 ": rc %d\n", r.pcs[i], full[i].rc);
      return 1;
    }
    found += full[i].rc == 1;
  }
  printf("whole region: %zu of %zu addresses have a state\n", found, r.npcs);
  int ok = found > 0 && check_cuts(&r, full, maxcuts);
  ok = check_flips(&r, flips, seed) && ok;
  free(full);
  return ok ? 0 : 1;
}
