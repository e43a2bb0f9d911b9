/* ld's PLT stubs, looked up in place at every instruction a call runs
   through them.  The test builds this program with lazy binding, with
   -z now, and with IBT stubs (.plt.sec) both ways; the oracle also
   compares its .plt/.plt.sec/.plt.got states with libdw.

   Run: single-steps (support/single-step.h) one call of getppid, never
   called before, through its PLT stub (with lazy binding: the stub's
   push, PLT0 and the resolver's first call).  At each instruction in this
   program's text between the call and its return, eh_state
   of that instruction (an interrupted PC: looked up as is) must give a
   CFA, computed from the trapped registers, at which CFA + ra_off holds
   the call's return address, plt_call_ret.

   usage: plt-step N   N: the number of stub instructions the call must
   run through (the stub layouts of ld: lazy 5, -z now 1, IBT lazy 7,
   IBT -z now 2).  Prints "plt-step: S stub instructions, P SP_PLT, W
   wrong" and exits 1 on any failure.  */

#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eh-test.h"
#include "single-step.h"

void plt_call(void);
extern const char plt_call_site[], plt_call_ret[];

/* Written in assembly so that the call site and its return address are
   known exactly and the stack is aligned at the call.  */
__asm__(".text\n"
        ".globl plt_call\n"
        ".type plt_call, @function\n"
        "plt_call:\n"
        ".cfi_startproc\n"
        "endbr64\n"
        "sub $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".globl plt_call_site\n"
        "plt_call_site:\n"
        "call getppid@PLT\n"
        ".globl plt_call_ret\n"
        "plt_call_ret:\n"
        "add $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size plt_call, .-plt_call\n");

#define MAX_WRONG 16

struct step_check {
  struct gorc_rt_ehframe ef;
  uint64_t text_lo, text_hi;    /* this program's executable segment */
  int in_call;
  unsigned stub, plt, wrong;
  uint64_t wrong_pc[MAX_WRONG];
  int wrong_rc[MAX_WRONG];
  struct gorc_state wrong_st[MAX_WRONG];
};

static struct step_check chk;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
  struct step_check *c = data;
  uint64_t ret = (uint64_t)(uintptr_t)plt_call_ret;
  int mine = 0;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && ret >= info->dlpi_addr + p->p_vaddr
        && ret < info->dlpi_addr + p->p_vaddr + p->p_memsz) {
      mine = 1;
      c->text_lo = info->dlpi_addr + p->p_vaddr;
      c->text_hi = c->text_lo + p->p_memsz;
    }
  }
  if (!mine)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *h = &info->dlpi_phdr[i];
    if (h->p_type != PT_GNU_EH_FRAME)
      continue;
    c->ef.hdr = info->dlpi_addr + h->p_vaddr;
    c->ef.hdr_size = h->p_memsz;
    for (int j = 0; j < info->dlpi_phnum; j++) {
      const ElfW(Phdr) *p = &info->dlpi_phdr[j];
      if (p->p_type == PT_LOAD && h->p_vaddr >= p->p_vaddr
          && h->p_vaddr < p->p_vaddr + p->p_filesz) {
        c->ef.lo = info->dlpi_addr + p->p_vaddr;
        c->ef.hi = c->ef.lo + p->p_filesz;
      }
    }
  }
  return 1;
}

/* The return address the state at PC finds in the trapped context.  */
static int state_ra(const ucontext_t *uc, uint64_t pc, struct gorc_state *st, uint64_t *ra)
{
  uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP], cfa;
  int rc = eh_state(&chk.ef, pc, st);
  if (rc != 1 || st->ra_kind != GORC_RA_CFA)
    return rc == 1 ? -1 : rc;
  if (st->cfa_kind == GORC_CFA_SP)
    cfa = sp + (uint64_t)st->cfa_off;
  else if (st->cfa_kind == GORC_CFA_SP_PLT)
    cfa = sp + (uint64_t)st->cfa_off + ((pc & 15) >= st->cfa_reg ? 8 : 0);
  else
    return -1;
  memcpy(ra, (const void *)(uintptr_t)(cfa + (uint64_t)st->ra_off), sizeof *ra);
  return 1;
}

static void on_step(const ucontext_t *uc, void *arg)
{
  struct step_check *c = arg;
  uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], ra = 0;
  struct gorc_state st;

  if (pc == (uint64_t)(uintptr_t)plt_call_site) {
    c->in_call = 1;
    return;
  }
  if (pc == (uint64_t)(uintptr_t)plt_call_ret) {
    c->in_call = 0;
    gorc_ss_active = 0;
    return;
  }
  if (!c->in_call || pc < c->text_lo || pc >= c->text_hi)
    return;                     /* the resolver, libc */
  c->stub++;
  memset(&st, 0, sizeof st);
  int rc = state_ra(uc, pc, &st, &ra);
  c->plt += rc == 1 && st.cfa_kind == GORC_CFA_SP_PLT;
  if (rc != 1 || ra != (uint64_t)(uintptr_t)plt_call_ret) {
    if (c->wrong < MAX_WRONG) {
      c->wrong_pc[c->wrong] = pc;
      c->wrong_rc[c->wrong] = rc;
      c->wrong_st[c->wrong] = st;
    }
    c->wrong++;
  }
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: plt-step N\n");
    return 2;
  }
  unsigned want = (unsigned)strtoul(argv[1], NULL, 0);
  if (!dl_iterate_phdr(find_self, &chk) || chk.ef.hdr == 0) {
    printf("FAIL: plt-step: no PT_GNU_EH_FRAME for this program\n");
    return 1;
  }
  unsigned long steps = gorc_single_step(plt_call, on_step, &chk);
  printf("plt-step: %lu instructions stepped, %u stub instructions, %u SP_PLT, %u wrong\n",
         steps, chk.stub, chk.plt, chk.wrong);
  for (unsigned i = 0; i < chk.wrong && i < MAX_WRONG; i++) {
    printf("  pc %#lx (offset %#lx): rc %d ", (unsigned long)chk.wrong_pc[i],
           (unsigned long)(chk.wrong_pc[i] - chk.text_lo), chk.wrong_rc[i]);
    eh_print_state(stdout, &chk.wrong_st[i]);
    printf("\n");
  }
  int ok = steps > 0 && chk.stub == want && chk.wrong == 0;
  printf("%s: plt-step: %u stub instructions (want %u), each with the call's return address\n",
         ok ? "PASS" : "FAIL", chk.stub, want);
  return ok ? 0 : 1;
}
