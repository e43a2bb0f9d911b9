/* Shared by the ehframe test programs: a file's loadable segments mapped
   read-only (never run) so that eh_state (eh-lookup.c) reads its
   .eh_frame_hdr and .eh_frame in place, and printing/checking states.  */

#ifndef GORC_EH_TEST_H
#define GORC_EH_TEST_H

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "arch.h"
#include "ehframe.h"
#include "gorc.h"

/* The state at PC from EF's tables, as libgorc's walk looks it up
   (eh-lookup.c): 1 with *OUT, 0 when no FDE covers PC, -GORC_ECORRUPT
   when the tables are malformed where the lookup went.  */
int eh_state(const struct gorc_rt_ehframe *ef, uint64_t pc, struct gorc_state *out);

/* The same answers from a walk over EF's rows in address order
   (gorc_eh_rows_state, as gorc-prof's table builder walks a module):
   the state at PC in *OUT, and in *NEXT where it may change.  W:
   eh_rows_size() bytes, zeroed before the walk, kept through it.  */
size_t eh_rows_size(void);
int eh_rows_state(const struct gorc_rt_ehframe *ef, void *w, uint64_t pc, struct gorc_state *out,
                  uint64_t *next);

/* A file mapped as the loader would place it: link-time address A is at
   A + bias.  */
struct eh_image {
  uint64_t bias;
  struct gorc_rt_ehframe ef;    /* from PT_GNU_EH_FRAME and its PT_LOAD */
  uint64_t eh_lo, eh_hi;        /* link-time bounds of that PT_LOAD's file bytes */
};

/* Map PATH's PT_LOAD segments read-only (ET_EXEC at their addresses,
   ET_DYN anywhere).  0, or -1 with a message.  */
static inline int eh_map(const char *path, struct eh_image *im)
{
  Elf64_Ehdr eh;
  Elf64_Phdr ph[64];
  int fd = open(path, O_RDONLY);
  if (fd < 0 || pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, 4) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phnum > 64
      || pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff)
             != (ssize_t)(eh.e_phnum * sizeof *ph)) {
    fprintf(stderr, "%s: cannot read the ELF program headers\n", path);
    return -1;
  }
  uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), lo = UINT64_MAX, hi = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD) {
      lo = ph[i].p_vaddr < lo ? ph[i].p_vaddr : lo;
      hi = ph[i].p_vaddr + ph[i].p_memsz > hi ? ph[i].p_vaddr + ph[i].p_memsz : hi;
    }
  lo &= ~(pg - 1);
  hi = (hi + pg - 1) & ~(pg - 1);
  void *want = eh.e_type == ET_EXEC ? (void *)(uintptr_t)lo : NULL;
  void *base = mmap(want, hi - lo, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0);
  if (base == MAP_FAILED || (want && base != want)) {
    fprintf(stderr, "%s: cannot reserve its address range\n", path);
    return -1;
  }
  im->bias = (uint64_t)(uintptr_t)base - lo;
  memset(&im->ef, 0, sizeof im->ef);
  im->eh_lo = im->eh_hi = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD || ph[i].p_filesz == 0)
      continue;
    uint64_t skew = ph[i].p_vaddr & (pg - 1);
    if (mmap((void *)(uintptr_t)(im->bias + ph[i].p_vaddr - skew), ph[i].p_filesz + skew,
             PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, (off_t)(ph[i].p_offset - skew))
        == MAP_FAILED) {
      perror("mmap");
      return -1;
    }
  }
  for (unsigned i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_GNU_EH_FRAME) {
      im->ef.hdr = ph[i].p_vaddr + im->bias;
      im->ef.hdr_size = ph[i].p_memsz;
      for (unsigned j = 0; j < eh.e_phnum; j++)
        if (ph[j].p_type == PT_LOAD && ph[j].p_vaddr <= ph[i].p_vaddr
            && ph[i].p_vaddr < ph[j].p_vaddr + ph[j].p_filesz) {
          im->eh_lo = ph[j].p_vaddr;
          im->eh_hi = ph[j].p_vaddr + ph[j].p_filesz;
          im->ef.lo = im->eh_lo + im->bias;
          im->ef.hi = im->eh_hi + im->bias;
        }
    }
  close(fd);
  return 0;
}

static inline void eh_print_state(FILE *f, const struct gorc_state *s)
{
  static const char *ck[] = { "END", "SP", "BP", "REG", "DEREF", "UNDEFINED", "SP_PLT" };
  static const char *bk[] = { "SAME", "CFA", "REG", "UNDEFINED" };
  static const char *rk[] = { "CFA", "SAME", "UNDEFINED" };
  static const char *xk[] = { "UNKNOWN", "SAME", "CFA" };
  fprintf(f, "cfa %s", s->cfa_kind < 7 ? ck[s->cfa_kind] : "?");
  if (gorc_cfa_has_reg(s->cfa_kind))
    fprintf(f, " r%u", s->cfa_reg);
  if (gorc_cfa_has_off(s->cfa_kind))
    fprintf(f, "%+lld", (long long)s->cfa_off);
  fprintf(f, ", bp %s", s->bp_kind < 4 ? bk[s->bp_kind] : "?");
  if (s->bp_kind == GORC_BP_REG)
    fprintf(f, " r%u", s->bp_reg);
  if (s->bp_kind == GORC_BP_CFA || s->bp_kind == GORC_BP_REG)
    fprintf(f, "%+lld", (long long)s->bp_off);
  fprintf(f, ", ra %s", s->ra_kind < 3 ? rk[s->ra_kind] : "?");
  if (s->ra_kind == GORC_RA_CFA)
    fprintf(f, "%+lld", (long long)s->ra_off);
  fprintf(f, ", rbx %s", s->aux_kind < 3 ? xk[s->aux_kind] : "?");
  if (s->aux_kind == GORC_AUX_CFA)
    fprintf(f, "%+lld", (long long)s->aux_off);
}

/* Is S a state the lookup may return at all?  */
static inline int eh_well_formed(const struct gorc_state *s)
{
  if (s->cfa_kind < GORC_CFA_SP || s->cfa_kind > GORC_CFA_SP_PLT
      || s->cfa_kind == GORC_CFA_END || s->bp_kind > GORC_BP_UNDEFINED
      || s->ra_kind > GORC_RA_UNDEFINED || s->ra_kind == GORC_RA_SAME
      || s->aux_kind > GORC_AUX_CFA)
    return 0;
  if ((s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF) && s->cfa_reg > 15)
    return 0;
  if (s->cfa_kind == GORC_CFA_SP_PLT && s->cfa_reg > 31)
    return 0;
  if (s->bp_kind == GORC_BP_REG && s->bp_reg > 15)
    return 0;
  if (s->cfa_kind == GORC_CFA_UNDEFINED
      && (s->bp_kind != GORC_BP_UNDEFINED || s->aux_kind != GORC_AUX_UNKNOWN))
    return 0;
  return 1;
}

#endif
