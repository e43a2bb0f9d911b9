/* gorc plugin: the records pass.

   Runs after GCC's dwarf2 pass.  Walks the insn stream, replays the
   NOTE_INSN_CFI notes through the interpreter and, wherever the state
   gorc records changes, inserts a NOTE_INSN_DELETED_LABEL: final prints it
   as a label and nothing else, so the code is unchanged.

   With -fno-asynchronous-unwind-tables (and no -g) GCC skips the dwarf2
   pass.  Then this pass runs GCC's own CFI computation itself, reads its
   notes and deletes them again, so the object gets exact records and the
   user still gets no unwind tables.

   (Why notes and not an asm insn carrying the label: insns inserted after
   branch shortening have no length or address, and final ICEs on them.
   Notes are what the dwarf2 pass itself inserts at this point.)  */

#include "records.h"
#include "cfi-interp.h"
#include "bp-restore.h"
#include "arch.h"

struct gorc_function_records gorc_pending;

/* GCC's dwarf2 pass, for functions it would skip.  */
static opt_pass *own_dwarf2_pass;

/* ---- the begin_prologue hook: a label at the first byte ----

   With unwind tables GCC labels each function's first byte (.LFB<n>).
   Without them the only hook between the function's label and its first
   byte (a -pg call or patchable-entry nops may come before the first
   insn) is the debug hook begin_prologue, which final_start_function
   calls right after the function's label.  */

static struct gcc_debug_hooks gorc_debug_hooks;
static const struct gcc_debug_hooks *wrapped_debug_hooks;

static void hook_start_label(char *buf, unsigned funcdef_no)
{
  ASM_GENERATE_INTERNAL_LABEL(buf, "Lgorc_fb", funcdef_no);
}

static bool hook_covers_current_function(void)
{
  /* final_start_function calls debug_hooks->begin_prologue under exactly
     this condition.  */
  return wrapped_debug_hooks && !DECL_IGNORED_P(current_function_decl);
}

static void gorc_begin_prologue(unsigned int line, unsigned int column, const char *file)
{
  if (!dwarf2out_do_frame() && GORC_ARCH_TARGET_OK()) {
    char label[GORC_LABEL_MAX];
    hook_start_label(label, current_function_funcdef_no);
    ASM_OUTPUT_LABEL(asm_out_file, label);
  }
  wrapped_debug_hooks->begin_prologue(line, column, file);
}

/* Installed from the first function's records pass: debug_hooks is final
   only once the front end has set up debug output.  */
static void install_debug_hook(void)
{
  if (wrapped_debug_hooks)
    return;
  wrapped_debug_hooks = debug_hooks;
  gorc_debug_hooks = *debug_hooks;
  gorc_debug_hooks.begin_prologue = gorc_begin_prologue;
  debug_hooks = &gorc_debug_hooks;
}

bool gorc_function_start_label(char *buf)
{
  if (dwarf2out_do_frame()) {
    ASM_GENERATE_INTERNAL_LABEL(buf, GORC_GCC_FUNC_BEGIN_LABEL, current_function_funcdef_no);
    return true;
  }
  if (hook_covers_current_function()) {
    hook_start_label(buf, current_function_funcdef_no);
    return true;
  }
  return false;
}

/* ---- the records ---- */

static bool emits_code_before_first_insn(void)
{
  return crtl->profile || crtl->patch_area_size > 0;
}

/* Can final print bytes for INSN?  Errs towards yes: a needless label
   costs two bytes, a missing one a wrong record.  */
static bool may_emit_code(rtx_insn *insn)
{
  if (LABEL_P(insn))
    return label_to_alignment(insn).levels[0].log > 0; /* padding */
  if (!NOTE_P(insn))
    return !DEBUG_INSN_P(insn) && !BARRIER_P(insn);
  switch (NOTE_KIND(insn)) {
  case NOTE_INSN_PROLOGUE_END:
  case NOTE_INSN_BASIC_BLOCK:
  case NOTE_INSN_FUNCTION_BEG:
    return crtl->profile; /* the mcount call goes here */
  default:
    return false;
  }
}

/* The label at the first byte of the function (before any -pg call or
   patchable-entry nops, like GCC's FDE).  */
static bool start_label(char *buf)
{
  if (gorc_function_start_label(buf))
    return true;
  if (!emits_code_before_first_insn()) {
    gorc_label_note(buf, get_insns(), false);
    return true;
  }
  return false;
}

static struct gorc_partition_rec *open_partition(const char *start_label)
{
  if (gorc_pending.n_partitions == ARRAY_SIZE(gorc_pending.partitions))
    return NULL; /* GCC splits a function into a hot and a cold part only */
  struct gorc_partition_rec *p = &gorc_pending.partitions[gorc_pending.n_partitions++];
  gorc_partition_open(p, start_label, gorc_entry_state(GORC_ARCH_MACHINE));
  return p;
}

/* End the partition being filled at a label note before or AFTER WHERE.
   A range covers at least one byte (readers reject an empty one): a last
   entry with no code after it is dropped, and so is the whole partition
   when it has no code at all (a body GCC reduced to nothing, e.g. only
   __builtin_unreachable).  The label note stays; it costs nothing.  If the
   hot partition goes, the cold one takes its slot; the emit pass then
   gives it the group of the function's section, which is right because
   GCC never partitions a function in a COMDAT group (bb-reorder.cc,
   pass_partition_blocks::gate): both groups are NULL.  */
static void close_partition(struct gorc_partition_rec *part, bool code_since_last_entry,
                            rtx_insn *where, bool after)
{
  gorc_label_note(part->end_label, where, after);
  if (code_since_last_entry)
    return;
  if (part->entries.length() > 1) {
    part->entries.pop();
    return;
  }
  part->entries.release();
  gorc_pending.n_partitions--;
}

static void warn_inexact(const char *problem, bool *warned)
{
  if (*warned)
    return;
  *warned = true;
  warning_at(DECL_SOURCE_LOCATION(current_function_decl), 0,
             "gorc: the unwind state of %qD cannot be described exactly (%s); "
             "its records mark that code as not unwindable",
             current_function_decl, problem);
}

static bool is_cfi_note(rtx_insn *insn)
{
  return insn && NOTE_P(insn)
         && (NOTE_KIND(insn) == NOTE_INSN_CFI || NOTE_KIND(insn) == NOTE_INSN_CFI_LABEL);
}

static void release_pending(void)
{
  for (int i = 0; i < gorc_pending.n_partitions; i++)
    gorc_pending.partitions[i].entries.release();
  memset(&gorc_pending, 0, sizeof gorc_pending);
}

/* The state after INSN is NOW: add an entry at a label note after it,
   unless NOW holds there already.  */
static void record_state(struct gorc_partition_rec *part, bool *code_since_last_entry,
                         rtx_insn *insn, struct gorc_state now)
{
  struct gorc_entry_rec *last = &part->entries.last();
  if (gorc_state_identical(&now, &last->state))
    return;
  if (!*code_since_last_entry) {
    last->state = now; /* same address as the last entry */
    return;
  }
  char entry[GORC_LABEL_MAX];
  gorc_label_note(entry, insn, true); /* the caller's NEXT stays the old next */
  gorc_partition_add(part, entry, now);
  *code_since_last_entry = false;
}

/* Walk the insns, place label notes, fill gorc_pending.  The state is
   GCC's CFI (the interpreter) corrected where the RTL shows that rbp was
   restored before GCC's CFI says so (the watch, bp-restore.h).  */
static void collect_records(function *fun)
{
  struct gorc_interp interp;
  struct gorc_bp_watch watch;
  struct gorc_partition_rec *part;
  char label[GORC_LABEL_MAX];
  bool code_since_last_entry, warned = false;

  if (!start_label(label)) {
    warning_at(DECL_SOURCE_LOCATION(current_function_decl), 0,
               "gorc: no label marks the start of %qD (it is compiler-generated "
               "and built without unwind tables); it gets no records",
               current_function_decl);
    return;
  }
  gorc_pending.fun = fun;
  part = open_partition(label);
  gorc_interp_reset(&interp);
  memset(&watch, 0, sizeof watch); /* no problem yet; reset keeps it */
  gorc_bp_watch_reset(&watch);
  code_since_last_entry = emits_code_before_first_insn();

  for (rtx_insn *insn = get_insns(), *next; insn; insn = next) {
    next = NEXT_INSN(insn);

    if (NOTE_P(insn) && NOTE_KIND(insn) == NOTE_INSN_SWITCH_TEXT_SECTIONS) {
      /* The cold partition is its own range and, like GCC's second FDE,
         starts from the entry row again.  */
      close_partition(part, code_since_last_entry, insn, false);
      gorc_label_note(label, insn, true);
      part = open_partition(label);
      if (!part) {
        warning_at(DECL_SOURCE_LOCATION(current_function_decl), 0,
                   "gorc: %qD switches text sections more than once; it gets no records",
                   current_function_decl);
        release_pending();
        return;
      }
      part->after_switch = true;
      gorc_interp_reset(&interp);
      gorc_bp_watch_reset(&watch);
      code_since_last_entry = false;
      continue;
    }
    if (is_cfi_note(insn)) {
      if (NOTE_KIND(insn) == NOTE_INSN_CFI) {
        struct gorc_state before = gorc_interp_state(&interp);
        gorc_interp_apply(&interp, NOTE_CFI(insn));
        struct gorc_state after = gorc_interp_state(&interp);
        gorc_bp_watch_cfi(&watch, &before, &after);
      }
    } else {
      if (may_emit_code(insn))
        code_since_last_entry = true;
      struct gorc_state rule = gorc_interp_state(&interp);
      if (!gorc_bp_watch_insn(&watch, insn, &rule))
        continue;
    }
    if (is_cfi_note(next))
      continue; /* one group of notes describes one address */

    if (interp.problem)
      warn_inexact(interp.problem, &warned);
    if (watch.override == GORC_BP_LOST)
      warn_inexact(watch.problem, &warned);
    struct gorc_state now = gorc_interp_state(&interp);
    gorc_bp_watch_apply(&watch, &now);
    record_state(part, &code_since_last_entry, insn, now);
  }
  close_partition(part, code_since_last_entry, get_last_insn(), true);
}

/* With unwind tables off the user asked for no CFI: take GCC's notes out
   again once they are read (final would print .LCFI labels for some).  */
static void delete_cfi_notes(void)
{
  for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn))
    if (is_cfi_note(insn))
      NOTE_KIND(insn) = NOTE_INSN_DELETED;
}

static unsigned int execute_records(function *fun)
{
  bool forced = !dwarf2out_do_frame();

  release_pending();
  if (!GORC_ARCH_TARGET_OK()) {
    static bool warned_target;
    if (!warned_target)
      warning(0, GORC_ARCH_TARGET_NOT_OK_WARNING);
    warned_target = true;
    return 0;
  }
  install_debug_hook();
  if (forced) {
    if (!own_dwarf2_pass)
      own_dwarf2_pass = make_pass_dwarf2_frame(g);
    own_dwarf2_pass->execute(fun);
  }
  collect_records(fun);
  if (forced)
    delete_cfi_notes();
  return 0;
}

static bool gate_records(function *)
{
  return true;
}

GORC_DEFINE_PASS(records, rtl, "gorc_records", 0, gate_records, execute_records)
