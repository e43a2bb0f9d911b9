/* libFuzzer target for the tools' ELF reading (tools/lib/): the input
   is an ELF file (the seeds: programs, objects and a library built by the
   test with the plugin).  It is read as gorc-dump and gorc-check read it:
   gorc_elf_open (section headers and names, an object's relocations, the
   symbol tables through include/gorc/elf_symbols.h: .symtab, else a debug
   file found by build ID or .gnu_debuglink, else .dynsym), gorc_table_load
   (the gorc note, gorc_unwind_index and the range bodies of gorc_unwind),
   then every range is looked up and named at its ends; and as gorc-prof
   names addresses: gorc_symtab_name_each.  Failures: crashes, sanitizer
   reports, and broken promises: an open that fails without a message, a
   lookup whose next address does not lie past the address, a name not
   NUL-terminated.

   clang -fsanitize=fuzzer,address,undefined -Iinclude -Itools/lib \
     testsuite/gorc.tools/fuzz/fuzz_elf.c tools/lib/{common,elfload,mapped,symtab,arch*}.c \
     -lelf -ldw  */

#include "fuzz-file.h"
#include "common.h"
#include "elfload.h"
#include "symtab.h"

static void check_name(const char *buf, size_t n)
{
  if (!memchr(buf, 0, n))
    abort();
}

/* Each range looked up and named at its start and its last byte, as
   gorc-dump lists them and gorc-check compares them.  */
static void walk_table(const struct gorc_elf *g, const struct gorc_table *t)
{
  for (size_t k = 0; k < t->nranges && k < 256; k++) {
    const struct gorc_rec_range *r = &t->ranges[k];
    uint64_t pcs[2] = { r->start, r->end - 1 };
    for (int i = 0; i < 2; i++) {
      struct gorc_state st;
      uint64_t next;
      long ri = gorc_table_lookup(t, pcs[i], &st, &next);
      if (ri >= 0 && next <= pcs[i])
        abort();
      if (ri >= 0)
        gorc_table_gap_at(t, ri, pcs[i]);
      char buf[128];
      gorc_elf_symbolize(g, pcs[i], i, buf, sizeof buf);
      check_name(buf, sizeof buf);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fuzz_file("prog", data, size);
  struct gorc_elf g;
  memset(&g, 0, sizeof g);
  if (gorc_elf_open(&g, path) == 0) {
    struct gorc_table t;
    memset(&t, 0, sizeof t);
    gorc_table_load(&t, &g);
    walk_table(&g, &t);
    gorc_table_free(&t);
    uint64_t addrs[4] = { 0, 0x1000, 0x1140, 0x401000 };
    char *names[4];
    if (gorc_symtab_name_each(path, addrs, 4, names) == 0)
      for (int i = 0; i < 4; i++)
        free(names[i]);
  } else if (!g.err[0]) {
    abort();
  }
  gorc_elf_close(&g);
  return 0;
}
