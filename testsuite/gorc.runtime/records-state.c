/* libgorc's in-place record lookup, checked byte by byte: for every
   range of this program's own gorc records, decoded here independently
   (the note found through dl_iterate_phdr, every range's body walked with
   format.h's gorc_range_next), gorc_rt_module_state at every address
   the range covers must give the state of the entry in effect there; and
   at an address no range covers, or in a gap between two functions of a
   range, "nothing" (0).  The module's .eh_frame is hidden from the
   lookup, so that only the records answer.  The program is linked
   with libgorc.a and its internal headers (dg-gorc-runtime internal).  */
/* { dg-do run } */
/* { dg-gorc-runtime internal } */

#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "gorc.h"
#include "lookup.h"
#include "support/rt-test.h"

static struct gorc_note_info note;
static int have_note;

/* This program's gorc note, from its PT_NOTE segments.  */
static int
find_note (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (info->dlpi_name && info->dlpi_name[0])
    return 0;   /* not the main program */
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const uint8_t *n = (const uint8_t *) (info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = n + ph->p_memsz;
    while (end - n >= 12) {
      uint32_t namesz = gorc_get_le32 (n), descsz = gorc_get_le32 (n + 4);
      uint32_t name_len = (namesz + 3) & ~3u, desc_len = (descsz + 3) & ~3u;
      if (gorc_get_le32 (n + 8) == GORC_NOTE_TABLE && namesz == sizeof GORC_NOTE_NAME
          && memcmp (n + 12, GORC_NOTE_NAME, namesz) == 0) {
        const uint8_t *desc = n + 12 + name_len;
        CHECK (gorc_note_parse (desc, descsz, (uint64_t) (uintptr_t) desc, &note)
               == GORC_DECODE_OK, 0);
        have_note = 1;
        return 1;
      }
      n += 12 + name_len + desc_len;
    }
  }
  return 0;
}

struct span {
  uint64_t lo, hi;
};

static int
by_lo (const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int
main (void)
{
  struct gorc_rt_module m;
  dl_iterate_phdr (find_note, NULL);
  CHECK (have_note, 0);
  CHECK (gorc_rt_module_find ((uint64_t) (uintptr_t) main, &m) == 0, 0);
  CHECK (m.records == GORC_RT_RECORDS_SORTED, m.records);
  CHECK (m.index_lo == note.index_start && m.index_hi == note.index_end, 0);
  m.eh.hdr = 0;

  size_t nranges = (note.index_end - note.index_start) / GORC_INDEX_ENTRY_SIZE;
  struct span *spans = calloc (nranges, sizeof *spans);
  /* main's (.text.startup) and the one find_note and by_lo share (.text),
     with a gap between them, at least.  */
  CHECK (nranges >= 2 && spans, nranges);
  long checked = 0, gaps = 0;
  for (size_t i = 0; i < nranges; i++) {
    uint64_t e = note.index_start + i * GORC_INDEX_ENTRY_SIZE;
    uint64_t start = gorc_index_start ((const uint8_t *) (uintptr_t) e, e);
    uint64_t body = gorc_index_body ((const uint8_t *) (uintptr_t) e, e);
    struct gorc_range r;
    struct gorc_entry cur, next;
    gorc_range_open (&r, note.machine, start, (const uint8_t *) (uintptr_t) body,
                     (const uint8_t *) (uintptr_t) note.records_end);
    CHECK (gorc_range_next (&r, &cur) == 1, i);
    CHECK (cur.addr == start && cur.state.cfa_kind != GORC_CFA_END, i);
    for (;;) {
      CHECK (gorc_range_next (&r, &next) == 1, i);
      CHECK (next.addr >= cur.addr, i);
      for (uint64_t pc = cur.addr; pc < next.addr; pc++) {
        struct gorc_state s;
        int rc = gorc_rt_module_state (&m, pc, &s);
        /* A gap between two functions of a range: no records there.  */
        int gap = gorc_state_is_gap (&cur.state);
        if (gap ? rc != 0 : rc != 1 || !gorc_state_equal (&s, &cur.state)) {
          printf ("range %zu at %#lx: address %#lx: rc %d\n", i, (unsigned long) start,
                  (unsigned long) pc, rc);
          FAIL ("gorc_rt_module_state differs from the decoded range", rc);
        }
        if (gap)
          gaps++;
        else
          checked++;
      }
      if (next.state.cfa_kind == GORC_CFA_END)
        break;
      cur = next;
    }
    spans[i].lo = start;
    spans[i].hi = next.addr;
  }
  /* Between ranges (alignment padding, code without records): nothing.  */
  qsort (spans, nranges, sizeof *spans, by_lo);
  for (size_t i = 0; i + 1 < nranges; i++)
    for (uint64_t pc = spans[i].hi; pc < spans[i + 1].lo; pc++) {
      struct gorc_state s;
      CHECK (gorc_rt_module_state (&m, pc, &s) == 0, (long) i);
      gaps++;
    }
  CHECK (gaps > 0, gaps);
  printf ("records-state: %zu ranges, %ld addresses with records and %ld without checked\n",
          nranges, checked, gaps);
  free (spans);
  return 0;
}
