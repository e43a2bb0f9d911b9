/* libFuzzer target for gorc-prof's perf.data reader
   (tools/prof/prof-perfdata.c): the input is a perf.data file (the
   seeds: one recorded by the test with perf record --call-graph dwarf,
   and one with -g, when perf can record here).  It is read as
   gorc-prof --perf-data reads it: the header, the attributes and their
   sample layout, the feature sections (architecture, build IDs), the
   records in rounds (mappings, samples with registers and stack copies
   unwound, callchains), then folded into stacks as for the outputs.
   Failures: crashes, sanitizer reports, and a broken promise: a status
   other than 0 or 2, or samples kept after an error.

   clang -fsanitize=fuzzer,address,undefined -Iinclude -Itools/lib -Itools/prof \
     testsuite/gorc.tools/fuzz/fuzz_perfdata.c tools/prof/prof-*.c \
     tools/prof/profile.pb-c.c tools/lib/{common,elfload,mapped,symtab,arch*}.c \
     -lelf -ldw -lprotobuf-c -lz  */

#include "fuzz-file.h"
#include "prof-data.h"
#include "prof-fold.h"
#include "prof-perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fuzz_file("perf.data", data, size);
  struct prof_data d;
  memset(&d, 0, sizeof d);
  int rc = prof_perfdata_read(path, &d);
  if (rc != 0 && rc != 2)
    abort();
  if (rc == 2 && d.nprocs != 0)
    abort();
  if (rc == 0) {
    size_t n;
    struct prof_fold_counts c;
    struct prof_folded *list = prof_fold(&d, &n, &c);
    prof_folded_free(list, n);
  }
  prof_data_free(&d);
  prof_modules_end();
  return 0;
}
