/* gorc plugin: the records of the function being compiled.

   The records pass (records-pass.cc) runs after GCC's dwarf2 pass, places
   code-free label notes where the unwind state changes and fills in one
   gorc_function_records; the emit pass (records-emit.cc) runs after final,
   when every label has been written, and prints the gorc_unwind ranges.  */

#ifndef GORC_RECORDS_H
#define GORC_RECORDS_H

#include "gcc-compat.h"
#include "gorc/format.h"

#define GORC_LABEL_MAX 48

struct gorc_entry_rec {
  char label[GORC_LABEL_MAX];   /* assembler label at the entry's address */
  struct gorc_state state;
};

/* One range: a hot or a cold part of a function.  */
struct gorc_partition_rec {
  vec<gorc_entry_rec> entries;  /* entries[0] is at the partition start */
  char end_label[GORC_LABEL_MAX];
  const char *group;            /* COMDAT group of its code section, or NULL */
};

struct gorc_function_records {
  function *fun;                /* which function these are for */
  int n_partitions;
  struct gorc_partition_rec partitions[2];
};

/* The records of the function between the two passes.  */
extern struct gorc_function_records gorc_pending;

/* The label a function's first byte gets when GCC writes no .LFB label
   (unwind tables off): written by the begin_prologue debug hook.  */
void gorc_hook_start_label(char *buf, unsigned funcdef_no);

/* Set up the begin_prologue debug hook (once debug_hooks is final).  */
void gorc_install_debug_hook(void);

/* True when the begin_prologue hook runs for the current function.  */
bool gorc_hook_covers_current_function(void);

/* Create the two passes.  */
opt_pass *gorc_make_records_pass(gcc::context *ctxt);
opt_pass *gorc_make_emit_pass(gcc::context *ctxt);

/* Print one range (and, with the unit's first range, the module note).  */
void gorc_emit_partition(FILE *f, const struct gorc_partition_rec *p);
void gorc_emit_module_note(void);

/* The COMDAT group of code section SEC, or NULL.  */
const char *gorc_section_group(section *sec);

/* Records for thunks GCC prints as text (thunks.cc).  */
void gorc_install_thunk_hook(void);

#endif
