/* gorc plugin: the records of the function being compiled.

   The records pass (records-pass.cc) runs after GCC's dwarf2 pass, places
   code-free label notes where the unwind state changes and fills in one
   gorc_function_records; the emit pass (records-emit.cc) runs after final,
   when every label has been written, and prints the gorc_unwind ranges.
   Thunks GCC prints as text get theirs from thunks.cc, the static-call
   trampolines from static-calls.cc; ranges.cc holds what they share.  */

#ifndef GORC_RECORDS_H
#define GORC_RECORDS_H

#include "gcc-compat.h"
#include "gorc/format.h"

#define GORC_LABEL_MAX 48

struct gorc_entry_rec {
  char label[GORC_LABEL_MAX];   /* assembler label at the entry's address */
  struct gorc_state state;
};

/* The records of a hot or a cold part of a function (the emit pass puts
   it into a run: one range for consecutive parts in one code section), or
   of a thunk or trampoline (a range of its own).  */
struct gorc_partition_rec {
  vec<gorc_entry_rec> entries;  /* entries[0] is at the partition start */
  char end_label[GORC_LABEL_MAX];
  const char *group;            /* COMDAT group of its code section, or NULL */
  bool after_switch;            /* the part after GCC switched text sections */
};

struct gorc_function_records {
  function *fun;                /* which function these are for */
  int n_partitions;
  struct gorc_partition_rec partitions[2];
};

/* The records of the function between the two passes.  */
extern struct gorc_function_records gorc_pending;

/* ---- records-pass.cc ---- */

opt_pass *gorc_make_records_pass(gcc::context *ctxt);

/* The label GCC or gorc's begin_prologue hook puts at the current
   function's first byte, if there is one (false: none).  */
bool gorc_function_start_label(char *buf);

/* ---- records-emit.cc ---- */

opt_pass *gorc_make_emit_pass(gcc::context *ctxt);

/* Print one range of its own (and, with the unit's first range, the
   module note).  Ends every open run first: the range may lie in a run's
   code section.  */
void gorc_emit_partition(FILE *f, const struct gorc_partition_rec *p);
void gorc_emit_module_note(void);

/* End every open run (its END entry): at the end of the unit, and before
   a range of its own.  */
void gorc_close_runs(FILE *f);

/* The COMDAT group of code section SEC, or NULL.  */
const char *gorc_section_group(section *sec);

/* ---- thunks.cc: records for thunks GCC prints as text ---- */

void gorc_install_thunk_hook(void);

/* ---- ranges.cc ---- */

/* A note final prints as a fresh internal label (its name in BUF) and
   nothing else, before or AFTER the insn WHERE.  */
rtx_insn *gorc_label_note(char *buf, rtx_insn *where, bool after);

/* Start P with its first entry, at START_LABEL in state S; add entries.
   A label may be an expression ("end-5"); "*" starts a name printed as is.  */
void gorc_partition_open(struct gorc_partition_rec *p, const char *start_label,
                         struct gorc_state s);
void gorc_partition_add(struct gorc_partition_rec *p, const char *label, struct gorc_state s);

/* Print the range [START, END) in state S throughout, in COMDAT GROUP (or
   NULL).  */
void gorc_emit_one_entry_range(FILE *f, const char *start, const char *end,
                               const char *group, struct gorc_state s);

/* An ELF note of gorc's in its own COMDAT group: begin, descriptor words
   (e.g. gorc_note_section_bounds), end.  */
void gorc_note_begin(FILE *f, const char *section, const char *group, int type, int desc_size);
void gorc_note_section_bounds(FILE *f, const char *section);
void gorc_note_end(FILE *f);

#endif
