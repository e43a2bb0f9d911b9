/* gorc plugin: print the records of a function, and the module note.

   Runs right after final, when every label the records name has been
   written.  Each partition becomes one range in its own piece of the
   gorc_unwind section:
     - SHF_LINK_ORDER ("o") linked to the partition's first label, so
       --gc-sections drops the range with the code and the linker orders
       ranges by address;
     - in the code's COMDAT group ("G") when the code is in one, so a
       discarded duplicate takes its records with it.
   Everything is PC-relative or a difference of two labels in one section:
   no dynamic relocation, valid in executables, PIEs and shared objects.  */

#include "records.h"
#include "arch.h"

static bool unit_has_records;

/* The COMDAT group of code section SEC, as GCC's .section directive names
   it (varasm.cc default_elf_asm_named_section), or NULL.  */
const char *gorc_section_group(section *sec)
{
  if (!sec || !(sec->common.flags & SECTION_NAMED)
      || !(sec->common.flags & SECTION_LINKONCE) || !sec->named.decl)
    return NULL;
  tree decl = sec->named.decl;
  if (TREE_CODE(decl) == IDENTIFIER_NODE)
    return IDENTIFIER_POINTER(decl);
  tree group = DECL_COMDAT_GROUP(decl);
  return group ? IDENTIFIER_POINTER(group) : NULL;
}

static void print_label(FILE *f, const char *label)
{
  assemble_name_raw(f, label[0] == '*' ? label + 1 : label);
}

/* The first number of an entry: uleb128((TO - FROM) << 3 | OP), which the
   assembler computes once it knows where the labels are.  A label may be
   an expression (thunks.cc: "end-5"), hence the parentheses.  */
static void print_entry_word(FILE *f, const char *to, const char *from, unsigned op)
{
  fputs("\t.uleb128\t(((", f);
  print_label(f, to);
  fputs(")-(", f);
  print_label(f, from);
  fprintf(f, "))<<%d)|%u\n", GORC_OP_BITS, op);
}

static void print_bytes(FILE *f, const uint8_t *bytes, size_t n)
{
  if (n == 0)
    return;
  fputs("\t.byte\t", f);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%#x", i ? ", " : "", bytes[i]);
  fputc('\n', f);
}

/* ".pushsection NAME" for a piece linked to the code at LINK (and in its
   COMDAT GROUP): pieces with one name and one link label are one section
   to the assembler, so a run's body is printed piece by piece.  */
static void push_linked_section(FILE *f, const char *name, const char *link, const char *group)
{
  fprintf(f, "\t.pushsection\t%s,\"ao%s\",@progbits,", name, group ? "G" : "");
  print_label(f, link);
  if (group)
    fprintf(f, ",%s,comdat", group);
  fputc('\n', f);
}

/* The index entry of a range that starts at START and whose body is at
   BODY: in gorc_unwind_index, linked to the code like the body, so the
   linker sorts both by the address of the code.  */
static void print_index_entry(FILE *f, const char *group, const char *start, const char *body)
{
  push_linked_section(f, GORC_INDEX_SECTION_NAME, start, group);
  fputs("\t.p2align\t2\n\t.long\t", f);
  print_label(f, start);
  fprintf(f, "-.\n\t.long\t%s-.\n\t.popsection\n", body);
}

/* ---- runs: one range for consecutive functions of one code section ----

   The code of one section of one object stays together through every
   link (the linker moves input sections, never bytes inside one), so the
   functions of a section can share a range: at a function's end a gap
   entry (gorc_gap_state: no records) covers whatever the assembler puts
   before the next one (padding, toplevel asm, functions without records),
   the next one starts with an explicit entry state, and END comes once,
   when the run ends.  That saves an index entry and an END per function.
   A run ends at the end of the unit, before a range of its own (thunks
   and trampolines: they may lie in a run's section), and once it holds
   GORC_RUN_MAX_ENTRIES entries, since a lookup decodes its range's body
   from the start.  Functions in sections of their own
   (-ffunction-sections, COMDAT) are runs of one.  */

#define GORC_RUN_MAX_ENTRIES 64
#define GORC_MAX_RUNS 8          /* open at once: .text, .text.unlikely, ... */

struct gorc_run {
  section *sec;                       /* its code section; NULL: slot free */
  const char *group;                  /* that section's COMDAT group, or NULL */
  char start[GORC_LABEL_MAX];         /* its first byte: index start, the pieces' link */
  char last[GORC_LABEL_MAX];          /* the address of the last entry written */
  char end[GORC_LABEL_MAX];           /* the end of its last function */
  unsigned entries;                   /* entries written, the implicit one included */
  unsigned last_use;
  struct gorc_history hist;
};

static struct gorc_run runs[GORC_MAX_RUNS];
static unsigned run_uses;

static void copy_label(char *dst, const char *label)
{
  gcc_assert(strlen(label) < GORC_LABEL_MAX);
  memcpy(dst, label, strlen(label) + 1);
}

/* Write entry S at LABEL into RUN's body (its section pushed).  */
static void print_entry(FILE *f, struct gorc_run *run, const char *label,
                        const struct gorc_state *s)
{
  uint8_t operands[GORC_OPERANDS_MAX_BYTES];
  size_t n;
  unsigned op = gorc_encode_entry(&run->hist, s, operands, &n);
  print_entry_word(f, label, run->last, op);
  print_bytes(f, operands, n);
  gorc_history_push(&run->hist, s);
  copy_label(run->last, label);
  run->entries++;
}

static void note_unit_has_records(void)
{
  if (!unit_has_records)
    gorc_emit_module_note();
  unit_has_records = true;
}

/* Start a run with P: its index entry and the body's label.  The first
   range of a run starts in the entry state for free (the implicit
   entry).  */
static void open_run(FILE *f, struct gorc_run *run, section *sec,
                     const struct gorc_partition_rec *p)
{
  static unsigned bodies;
  char body[32];

  memset(run, 0, sizeof *run);
  run->sec = sec;
  run->group = p->group;
  copy_label(run->start, p->entries[0].label);
  copy_label(run->last, run->start);
  run->entries = 1;
  gorc_history_init(&run->hist, GORC_ARCH_MACHINE);
  snprintf(body, sizeof body, ".LGORCB%u", bodies++);
  print_index_entry(f, run->group, run->start, body);
  push_linked_section(f, GORC_SECTION_NAME, run->start, run->group);
  fprintf(f, "%s:\n\t.popsection\n", body);
  note_unit_has_records();
}

/* Append P's entries to RUN: after the previous function, a gap up to P's
   start; entries[0] needs bytes unless the state before it holds
   already (a run's first function in the entry state).  */
static void append_to_run(FILE *f, struct gorc_run *run, const struct gorc_partition_rec *p)
{
  push_linked_section(f, GORC_SECTION_NAME, run->start, run->group);
  if (run->end[0]) {
    struct gorc_state gap = gorc_gap_state(GORC_ARCH_MACHINE);
    print_entry(f, run, run->end, &gap);
  }
  for (unsigned i = 0; i < p->entries.length(); i++) {
    const struct gorc_entry_rec *e = &p->entries[i];
    if (i == 0 && gorc_state_identical(&e->state, gorc_history_back(&run->hist, 1)))
      continue;
    print_entry(f, run, e->label, &e->state);
  }
  copy_label(run->end, p->end_label);
  fputs("\t.popsection\n", f);
}

static void print_end(FILE *f, const struct gorc_run *run)
{
  push_linked_section(f, GORC_SECTION_NAME, run->start, run->group);
  print_entry_word(f, run->end, run->last, GORC_OP_END);
  fputs("\t.popsection\n", f);
}

static void close_run(FILE *f, struct gorc_run *run)
{
  if (!run->sec)
    return;
  print_end(f, run);
  run->sec = NULL;
}

void gorc_close_runs(FILE *f)
{
  for (unsigned i = 0; i < GORC_MAX_RUNS; i++)
    close_run(f, &runs[i]);
}

/* The open run of SEC, else a slot for a new one (the least recently
   used run ends if none is free).  */
static struct gorc_run *run_slot(FILE *f, section *sec)
{
  struct gorc_run *lru = &runs[0];
  for (unsigned i = 0; i < GORC_MAX_RUNS; i++) {
    if (runs[i].sec == sec)
      return &runs[i];
    if (!runs[i].sec || (lru->sec && runs[i].last_use < lru->last_use))
      lru = &runs[i];
  }
  close_run(f, lru);
  return lru;
}

/* Print P, a part of the function being compiled whose code is in SEC,
   into SEC's run.  */
static void emit_in_run(FILE *f, const struct gorc_partition_rec *p, section *sec)
{
  struct gorc_run *run = run_slot(f, sec);
  /* Two more: the gap and the entry state.  */
  if (run->sec && run->entries + p->entries.length() + 2 > GORC_RUN_MAX_ENTRIES)
    close_run(f, run);
  if (!run->sec)
    open_run(f, run, sec, p);
  run->last_use = ++run_uses;
  append_to_run(f, run, p);
}

/* A range of its own: one index entry, one body, END.  */
void gorc_emit_partition(FILE *f, const struct gorc_partition_rec *p)
{
  struct gorc_run run;
  gorc_close_runs(f);
  open_run(f, &run, NULL, p);
  append_to_run(f, &run, p);
  print_end(f, &run);
}

/* The section final put partition P of the current function in: the
   function's section, or after NOTE_INSN_SWITCH_TEXT_SECTIONS the other
   one of the hot/cold pair (varasm.cc, current_function_section with
   in_cold_section_p as final_scan_insn sets it).  */
static section *partition_section(const struct gorc_partition_rec *p)
{
  bool saved = in_cold_section_p;
  in_cold_section_p = first_function_block_is_cold != p->after_switch;
  section *sec = current_function_section();
  in_cold_section_p = saved;
  return sec;
}

static unsigned int execute_emit(function *fun)
{
  struct gorc_function_records *r = &gorc_pending;

  if (r->fun != fun || r->n_partitions == 0)
    return 0;
  /* Section names are final now (final chose the cold one).  */
  for (int i = 0; i < r->n_partitions; i++) {
    struct gorc_partition_rec *p = &r->partitions[i];
    section *sec = partition_section(p);
    p->group = gorc_section_group(sec);
    emit_in_run(asm_out_file, p, sec);
    p->entries.release();
  }
  r->n_partitions = 0;
  r->fun = NULL;
  return 0;
}

/* One note per linked module: its COMDAT group keeps one copy, SHF_GNU_RETAIN
   ("R") keeps it from --gc-sections.  The linker defines the hidden
   __start_/__stop_ symbols of both sections.  */
void gorc_emit_module_note(void)
{
  FILE *f = asm_out_file;
  char group[32];
  snprintf(group, sizeof group, "gorc.module.v%d", GORC_FORMAT_VERSION);
  gorc_note_begin(f, GORC_NOTE_SECTION_NAME, group, GORC_NOTE_TABLE, GORC_NOTE_DESC_SIZE);
  fprintf(f, "\t.long\t%d, %d\n", GORC_FORMAT_VERSION, GORC_ARCH_MACHINE);
  gorc_note_section_bounds(f, GORC_INDEX_SECTION_NAME);
  gorc_note_section_bounds(f, GORC_SECTION_NAME);
  gorc_note_end(f);
}

static bool gate_emit(function *)
{
  return true;
}

GORC_DEFINE_PASS(emit, rtl, "gorc_emit", 0, gate_emit, execute_emit)
