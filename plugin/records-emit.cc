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

/* The index entry of a range that starts at START and whose body is at
   BODY: in gorc_unwind_index, linked to the code like the body, so the
   linker sorts both by the address of the code.  */
static void print_index_entry(FILE *f, const struct gorc_partition_rec *p, const char *start,
                              const char *body)
{
  fprintf(f, "\t.pushsection\t%s,\"ao%s\",@progbits,", GORC_INDEX_SECTION_NAME,
          p->group ? "G" : "");
  print_label(f, start);
  if (p->group)
    fprintf(f, ",%s,comdat", p->group);
  fputs("\n\t.p2align\t2\n\t.long\t", f);
  print_label(f, start);
  fprintf(f, "-.\n\t.long\t%s-.\n\t.popsection\n", body);
}

/* The entries of P after its implicit first one, then the end.  Every
   range starts in the entry state for free; entries[0] needs bytes only
   when a CFI at the very start changed it.  */
static void print_body(FILE *f, const struct gorc_partition_rec *p)
{
  struct gorc_history hist;
  uint8_t operands[GORC_OPERANDS_MAX_BYTES];
  size_t n;

  gorc_history_init(&hist, GORC_ARCH_MACHINE);
  for (unsigned i = 0; i < p->entries.length(); i++) {
    const struct gorc_entry_rec *e = &p->entries[i];
    if (i == 0 && gorc_state_identical(&e->state, gorc_history_back(&hist, 1)))
      continue;
    unsigned op = gorc_encode_entry(&hist, &e->state, operands, &n);
    print_entry_word(f, e->label, p->entries[i ? i - 1 : 0].label, op);
    print_bytes(f, operands, n);
    gorc_history_push(&hist, &e->state);
  }
  print_entry_word(f, p->end_label, p->entries[p->entries.length() - 1].label, GORC_OP_END);
}

void gorc_emit_partition(FILE *f, const struct gorc_partition_rec *p)
{
  static unsigned bodies;
  char body[32];

  snprintf(body, sizeof body, ".LGORCB%u", bodies++);
  print_index_entry(f, p, p->entries[0].label, body);
  fprintf(f, "\t.pushsection\t%s,\"ao%s\",@progbits,", GORC_SECTION_NAME, p->group ? "G" : "");
  print_label(f, p->entries[0].label);
  if (p->group)
    fprintf(f, ",%s,comdat", p->group);
  fprintf(f, "\n%s:\n", body);
  print_body(f, p);
  fputs("\t.popsection\n", f);
  if (!unit_has_records)
    gorc_emit_module_note();
  unit_has_records = true;
}

static unsigned int execute_emit(function *fun)
{
  struct gorc_function_records *r = &gorc_pending;

  if (r->fun != fun || r->n_partitions == 0)
    return 0;
  /* Section names are final now (final chose the cold one).  */
  r->partitions[0].group = gorc_section_group(function_section(fun->decl));
  if (r->n_partitions > 1)
    r->partitions[1].group = gorc_section_group(unlikely_text_section());
  for (int i = 0; i < r->n_partitions; i++) {
    gorc_emit_partition(asm_out_file, &r->partitions[i]);
    r->partitions[i].entries.release();
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
