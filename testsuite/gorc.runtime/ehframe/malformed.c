/* Malformed input for gorc_rt_convert_eh_frame: the .eh_frame of FILE
   cut at every length, then copies with random byte changes.  Every input
   sits in a buffer of exactly its size (malloc'd, so valgrind or ASan see
   any read past it).  Checks: the return value is 0 or -1, the builder
   never fails, the output is well formed (each FDE's entries strictly
   increase and end with one END entry; kinds, registers in range; a
   cfa_reg of 0xff only on UNDEFINED), and a cut section yields a prefix
   of the whole section's entries (FDEs are converted whole or not).

   usage: malformed [-n FLIPS] [-s SEED] [-t MAXCUTS] FILE
   prints "truncations: N ok" and "flips: N ok (A rc 0, B rc -1)" and
   exits 1 on any failure.  */

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eh-test.h"

#define ADDR 0x400000u

static int well_formed(const struct gorc_rt_builder *b, char *why, size_t whylen)
{
  int in_fde = 0;
  uint32_t last = 0;
  for (size_t i = 0; i < b->count; i++) {
    const struct gorc_rt_entry *e = &b->entries[i];
    if (e->cfa_kind > GORC_CFA_UNDEFINED || e->bp_kind > GORC_BP_UNDEFINED) {
      snprintf(why, whylen, "entry %zu: bad kind", i);
      return 0;
    }
    if ((e->cfa_kind == GORC_CFA_REG || e->cfa_kind == GORC_CFA_DEREF) && e->cfa_reg > 15) {
      snprintf(why, whylen, "entry %zu: bad cfa_reg", i);
      return 0;
    }
    if (e->cfa_kind == GORC_CFA_UNDEFINED && e->cfa_reg != 0 && e->cfa_reg != 0xff) {
      snprintf(why, whylen, "entry %zu: bad undefined marker", i);
      return 0;
    }
    if (e->bp_kind == GORC_BP_REG && e->bp_reg > 15) {
      snprintf(why, whylen, "entry %zu: bad bp_reg", i);
      return 0;
    }
    if (in_fde && e->pc_off <= last) {
      snprintf(why, whylen, "entry %zu: address does not increase", i);
      return 0;
    }
    if (!in_fde && e->cfa_kind == GORC_CFA_END) {
      snprintf(why, whylen, "entry %zu: END without a start", i);
      return 0;
    }
    in_fde = e->cfa_kind != GORC_CFA_END;
    last = e->pc_off;
  }
  if (in_fde) {
    snprintf(why, whylen, "last FDE has no END");
    return 0;
  }
  return 1;
}

static int run_one(const uint8_t *data, size_t n, struct gorc_rt_builder *out, char *why,
                   size_t whylen)
{
  uint8_t *copy = malloc(n ? n : 1);
  memcpy(copy, data, n);
  struct gorc_rt_builder b = { 0 };
  int rc = gorc_rt_convert_eh_frame(&b, 0, copy, n, ADDR);
  int ok = 1;
  if (rc != 0 && rc != -1) {
    snprintf(why, whylen, "returned %d", rc);
    ok = 0;
  } else if (b.failed) {
    snprintf(why, whylen, "builder failed");
    ok = 0;
  } else if (!well_formed(&b, why, whylen)) {
    ok = 0;
  }
  free(copy);
  if (out)
    *out = b;
  else
    gorc_rt_builder_free(&b);
  return ok ? rc : -2;
}

int main(int argc, char **argv)
{
  unsigned long flips = 2000, seed = 1, maxcuts = ~0ul;
  int opt;
  while ((opt = getopt(argc, argv, "n:s:t:")) != -1) {
    if (opt == 'n')
      flips = strtoul(optarg, NULL, 0);
    else if (opt == 's')
      seed = strtoul(optarg, NULL, 0);
    else if (opt == 't')
      maxcuts = strtoul(optarg, NULL, 0);
    else
      return 2;
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "usage: malformed [-n FLIPS] [-s SEED] [-t MAXCUTS] FILE\n");
    return 2;
  }
  const char *path = argv[optind];
  int fd = open(path, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  size_t shstrndx;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    fprintf(stderr, "%s: cannot open as ELF\n", path);
    return 2;
  }
  Elf_Data *d = NULL;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    const char *name;
    if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name))
        && strcmp(name, ".eh_frame") == 0)
      d = elf_rawdata(scn, NULL);
  }
  if (!d || !d->d_size) {
    fprintf(stderr, "%s: no .eh_frame\n", path);
    return 2;
  }
  const uint8_t *eh = d->d_buf;
  size_t len = d->d_size;
  char why[128];
  int failures = 0;

  struct gorc_rt_builder full;
  int rc = run_one(eh, len, &full, why, sizeof why);
  if (rc != 0) {
    printf("FAIL: whole section: rc %d %s\n", rc, rc == -2 ? why : "");
    return 1;
  }

  /* Every cut: a prefix of the whole section's entries.  */
  size_t cuts = 0;
  size_t step = maxcuts < len ? len / maxcuts + 1 : 1;
  for (size_t n = 0; n <= len; n += step) {
    struct gorc_rt_builder b;
    rc = run_one(eh, n, &b, why, sizeof why);
    int ok = rc != -2 && b.count <= full.count
             && (b.count == 0
                 || memcmp(b.entries, full.entries, b.count * sizeof *b.entries) == 0);
    if (!ok && failures++ < 10)
      printf("cut at %zu: %s\n", n, rc == -2 ? why : "not a prefix of the whole");
    gorc_rt_builder_free(&b);
    cuts++;
  }
  printf("truncations: %zu cuts of a %zu-byte .eh_frame, %s\n", cuts, len,
         failures ? "FAILED" : "all ok");

  /* Random changes: 1-4 bytes each, a random value, a bit flip, or a
     0x00/0xff.  */
  unsigned long x = seed * 2654435761ul + 1;
#define RND() (x = x * 6364136223846793005ul + 1442695040888963407ul, (unsigned)(x >> 33))
  uint8_t *buf = malloc(len);
  unsigned long rc0 = 0, rcm1 = 0, bad = 0;
  for (unsigned long i = 0; i < flips; i++) {
    memcpy(buf, eh, len);
    unsigned k = 1 + RND() % 4;
    for (unsigned j = 0; j < k; j++) {
      size_t at = RND() % len;
      switch (RND() % 4) {
      case 0: buf[at] = (uint8_t)RND(); break;
      case 1: buf[at] ^= (uint8_t)(1u << (RND() % 8)); break;
      case 2: buf[at] = 0; break;
      default: buf[at] = 0xff; break;
      }
    }
    size_t n = RND() % 8 ? len : RND() % (len + 1);
    rc = run_one(buf, n, NULL, why, sizeof why);
    if (rc == 0)
      rc0++;
    else if (rc == -1)
      rcm1++;
    else if (bad++ < 10)
      printf("flip %lu: %s\n", i, why);
  }
  printf("flips: %lu runs, %lu rc 0, %lu rc -1, %lu bad\n", flips, rc0, rcm1, bad);
  free(buf);
  gorc_rt_builder_free(&full);
  elf_end(elf);
  close(fd);
  return failures || bad ? 1 : 0;
}
