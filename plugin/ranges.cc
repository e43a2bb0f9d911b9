/* gorc plugin: the pieces every producer of records shares.

   The records pass (records-pass.cc), the thunk hook (thunks.cc) and the
   static-call trampolines and call sites (static-calls.cc) all place
   labels, build ranges from them and print ELF notes; they do it here.  */

#include "records.h"

/* A note that final prints as the label BUF and nothing else, so the code
   is unchanged.  GCC makes NOTE_INSN_DELETED_LABEL only by turning a label
   into a note (see delete_insn), so do the same.  */
rtx_insn *gorc_label_note(char *buf, rtx_insn *where, bool after)
{
  rtx_code_label *label = gen_label_rtx();
  rtx_insn *note = after ? emit_label_after(label, where) : emit_label_before(label, where);
  PUT_CODE(note, NOTE);
  NOTE_KIND(note) = NOTE_INSN_DELETED_LABEL;
  NOTE_DELETED_LABEL_NAME(note) = NULL;
  ASM_GENERATE_INTERNAL_LABEL(buf, "L", CODE_LABEL_NUMBER(note));
  return note;
}

void gorc_partition_add(struct gorc_partition_rec *p, const char *label, struct gorc_state s)
{
  struct gorc_entry_rec e;
  memset(&e, 0, sizeof e);
  gcc_assert(strlen(label) < sizeof e.label);
  memcpy(e.label, label, strlen(label) + 1);
  e.state = s;
  p->entries.safe_push(e);
}

void gorc_partition_open(struct gorc_partition_rec *p, const char *start_label,
                         struct gorc_state s)
{
  memset(p, 0, sizeof *p);
  p->entries.create(8);
  gorc_partition_add(p, start_label, s);
}

void gorc_emit_one_entry_range(FILE *f, const char *start, const char *end,
                               const char *group, struct gorc_state s)
{
  struct gorc_partition_rec p;
  gorc_partition_open(&p, start, s);
  gcc_assert(strlen(end) < sizeof p.end_label);
  memcpy(p.end_label, end, strlen(end) + 1);
  p.group = group;
  gorc_emit_partition(f, &p);
  p.entries.release();
}

/* An ELF note owned by GORC_NOTE_NAME, alone in its COMDAT group GROUP
   (one copy per linked module) and kept from --gc-sections ("R"): the
   header and the name; the caller prints DESC_SIZE bytes of descriptor
   (4-byte words) and then gorc_note_end.  */
void gorc_note_begin(FILE *f, const char *section, const char *group, int type, int desc_size)
{
  fprintf(f,
          "\t.pushsection\t%s,\"aGR\",@note,%s,comdat\n"
          "\t.p2align\t2\n"
          "\t.long\t%d, %d, %d\n"
          "\t.string\t\"%s\"\n"
          "\t.p2align\t2\n",
          section, group, (int)sizeof GORC_NOTE_NAME, desc_size, type, GORC_NOTE_NAME);
}

void gorc_note_end(FILE *f)
{
  fputs("\t.popsection\n", f);
}

/* Two descriptor words: the bounds of SECTION (the linker's hidden
   __start_/__stop_ symbols), PC-relative.  */
void gorc_note_section_bounds(FILE *f, const char *section)
{
  fprintf(f,
          "\t.hidden\t__start_%s\n"
          "\t.hidden\t__stop_%s\n"
          "\t.long\t__start_%s - .\n"
          "\t.long\t__stop_%s - .\n",
          section, section, section, section);
}
