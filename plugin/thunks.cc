/* gorc plugin: records for code GCC writes as text, outside RTL.

   Two kinds of function never reach the RTL passes (cfun->is_thunk):
     - C++ "this"-adjusting thunks printed by the target's output_mi_thunk
       hook.  They adjust the first argument (x86-64: rdi, using r10/r11
       for virtual offsets; aarch64: x0, using x16/x17) and jump: the stack
       never moves, so the entry state holds throughout.
     - x86-64 only: the retpoline thunks of -mindirect-branch=thunk /
       -mfunction-return=thunk, printed by i386.cc as a fixed sequence
       (GCC 11 and 12; the names and tail lengths are in arch-x86_64.h,
       which defines GORC_ARCH_THUNK_FAMILY_PREFIX):
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

#ifdef GORC_ARCH_THUNK_FAMILY_PREFIX
static struct gorc_state state_sp(int off)
{
  struct gorc_state s = gorc_entry_state(GORC_ARCH_MACHINE);
  s.cfa_off = off;
  return s;
}

/* The entry 'BYTES before the end label' (the end is a label, the tail
   lengths are known).  */
static void add_tail_entry(struct gorc_partition_rec *p, int bytes, int cfa_off)
{
  /* Room for the label and the suffix; gorc_partition_add checks that
     the whole fits an entry's label.  */
  char tail[GORC_LABEL_MAX + 16];
  snprintf(tail, sizeof tail, "%s-%d", p->end_label, bytes);
  gorc_partition_add(p, tail, state_sp(cfa_off));
}

/* The tail entries of the retpoline thunk NAME; false for a thunk of the
   family whose layout gorc does not know.  */
static bool add_retpoline_tails(struct gorc_partition_rec *p, const char *name)
{
  if (strncmp(name, GORC_ARCH_THUNK_REG_PREFIX, strlen(GORC_ARCH_THUNK_REG_PREFIX)) == 0) {
    add_tail_entry(p, GORC_ARCH_THUNK_TAIL_REG, 2 * GORC_ARCH_ENTRY_CFA_OFFSET);
  } else if (strcmp(name, GORC_ARCH_THUNK_RETURN_NAME) == 0) {
    add_tail_entry(p, GORC_ARCH_THUNK_TAIL_RETURN, 2 * GORC_ARCH_ENTRY_CFA_OFFSET);
    add_tail_entry(p, GORC_ARCH_RET_LENGTH, GORC_ARCH_ENTRY_CFA_OFFSET);
  } else if (strncmp(name, GORC_ARCH_THUNK_FAMILY_PREFIX,
                     strlen(GORC_ARCH_THUNK_FAMILY_PREFIX)) == 0) {
    return false;
  }
  return true;
}
#endif

static void thunk_records(FILE *f)
{
  char start[GORC_LABEL_MAX];
  struct gorc_partition_rec part;

  if (!gorc_function_start_label(start))
    return; /* no label at its first byte: it stays without records */

  gorc_partition_open(&part, start, gorc_entry_state(GORC_ARCH_MACHINE));
  ASM_GENERATE_INTERNAL_LABEL(part.end_label, "Lgorc_te", current_function_funcdef_no);
  ASM_OUTPUT_LABEL(f, part.end_label);
  part.group = gorc_section_group(in_section);

#ifdef GORC_ARCH_THUNK_FAMILY_PREFIX
  const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(cfun->decl));
  if (!add_retpoline_tails(&part, name)) {
    warning(0, "gorc: thunk %qs has an unknown layout; it gets no records", name);
    part.entries.release();
    return;
  }
#endif
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
