/* gorc plugin: records for code GCC writes as text, outside RTL.

   Two kinds of function never reach the RTL passes (cfun->is_thunk):
     - C++ "this"-adjusting thunks printed by the target's output_mi_thunk
       hook.  On x86-64 they adjust rdi (using r10/r11 for virtual offsets)
       and jump: the stack never moves, so the entry state holds throughout.
     - The retpoline thunks of -mindirect-branch=thunk / -mfunction-return=
       thunk, printed by i386.cc as a fixed sequence (GCC 12):
           call  L2          (5 bytes)
       L1: pause; lfence; jmp L1   (speculation trap, entry state)
       L2: mov %reg,(%rsp) (4 bytes) / lea 8(%rsp),%rsp (5 bytes, return thunk)
           ret
       From L2 the call's return address is on the stack: cfa = sp+16.  The
       return thunk's lea pops it again, so its final ret is at cfa = sp+8.
       (GCC's own CFI keeps sp+16 there; the records are exact instead, so
       gorc-check reports that one byte.)
   Both are printed between final_start_function and final_end_function,
   so the function-epilogue target hook, which final_end_function calls
   after the last instruction, is where the end label goes.  */

#include "records.h"
#include "arch.h"

static void (*wrapped_function_epilogue)(FILE *);

#define GORC_THUNK_REG_PREFIX "__x86_indirect_thunk_"
#define GORC_THUNK_RETURN_NAME "__x86_return_thunk"
#define GORC_THUNK_TAIL_REG 5     /* mov %reg,(%rsp); ret */
#define GORC_THUNK_TAIL_RETURN 6  /* lea 8(%rsp),%rsp; ret */

static struct gorc_state state_sp(int off)
{
  struct gorc_state s = gorc_entry_state(GORC_ARCH_MACHINE);
  s.cfa_off = off;
  return s;
}

static void push_entry(struct gorc_partition_rec *p, const char *label, struct gorc_state s)
{
  struct gorc_entry_rec e;
  memset(&e, 0, sizeof e);
  snprintf(e.label, sizeof e.label, "%s", label);
  e.state = s;
  p->entries.safe_push(e);
}

static void thunk_records(FILE *f)
{
  char start[GORC_LABEL_MAX], tail[GORC_LABEL_MAX];
  const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(cfun->decl));
  struct gorc_partition_rec part;

  if (dwarf2out_do_frame())
    ASM_GENERATE_INTERNAL_LABEL(start, GORC_GCC_FUNC_BEGIN_LABEL, current_function_funcdef_no);
  else if (gorc_hook_covers_current_function())
    gorc_hook_start_label(start, current_function_funcdef_no);
  else
    return; /* no label at its first byte: it stays without records */

  memset(&part, 0, sizeof part);
  part.entries.create(4);
  ASM_GENERATE_INTERNAL_LABEL(part.end_label, "Lgorc_te", current_function_funcdef_no);
  ASM_OUTPUT_LABEL(f, part.end_label);
  part.group = gorc_section_group(in_section);
  push_entry(&part, start, state_sp(GORC_ARCH_ENTRY_CFA_OFFSET));

  if (strncmp(name, GORC_THUNK_REG_PREFIX, strlen(GORC_THUNK_REG_PREFIX)) == 0) {
    snprintf(tail, sizeof tail, "%s-%d", part.end_label, GORC_THUNK_TAIL_REG);
    push_entry(&part, tail, state_sp(2 * GORC_ARCH_ENTRY_CFA_OFFSET));
  } else if (strcmp(name, GORC_THUNK_RETURN_NAME) == 0) {
    snprintf(tail, sizeof tail, "%s-%d", part.end_label, GORC_THUNK_TAIL_RETURN);
    push_entry(&part, tail, state_sp(2 * GORC_ARCH_ENTRY_CFA_OFFSET));
    snprintf(tail, sizeof tail, "%s-1", part.end_label);
    push_entry(&part, tail, state_sp(GORC_ARCH_ENTRY_CFA_OFFSET));
  } else if (strncmp(name, "__x86_", 6) == 0) {
    warning(0, "gorc: thunk %qs has an unknown layout; it gets no records", name);
    part.entries.release();
    return;
  }
  /* Otherwise a C++ thunk: the entry state throughout.  */
  gorc_emit_partition(f, &part);
  part.entries.release();
}

static void gorc_function_epilogue(FILE *f)
{
  wrapped_function_epilogue(f);
  if (cfun && cfun->is_thunk && gorc_pending.fun != cfun && GORC_ARCH_TARGET_OK())
    thunk_records(f);
}

void gorc_install_thunk_hook(void)
{
  wrapped_function_epilogue = targetm.asm_out.function_epilogue;
  targetm.asm_out.function_epilogue = gorc_function_epilogue;
}
