/* libFuzzer target: the input is an .eh_frame mapped at a fixed address
   (its first 8 bytes, when there are more than 8, choose the module base
   relative to that address, so the 32-bit range check is fuzzed too).
   Crashes, sanitizer reports and these checks are failures: the return
   value is 0 or -1, every FDE's entries strictly increase and end with
   one END entry, kinds and registers are in range.

   clang -fsanitize=fuzzer,address,undefined -Iinclude -Iruntime/src \
     testsuite/gorc.runtime/ehframe/fuzz_ehframe.c runtime/src/ehframe.c \
     runtime/src/builder.c   */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

#define ADDR 0x7f0000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint64_t base = ADDR - 0x100000;
  if (size > 8) {
    int64_t delta;
    memcpy(&delta, data, 8);
    if (delta & 1)              /* half the time: a base near the section */
      base = ADDR - (uint64_t)(delta % 0x200000000ll);
    data += 8;
    size -= 8;
  }
  /* An exact-size copy so that a read past the end is caught.  */
  uint8_t *copy = malloc(size ? size : 1);
  if (size)
    memcpy(copy, data, size);
  struct gorc_rt_builder b = { 0 };
  int rc = gorc_rt_convert_eh_frame(&b, base, copy, size, ADDR);
  if (rc != 0 && rc != -1)
    abort();
  if (!b.failed) {
    int in_fde = 0;
    uint32_t last = 0;
    for (size_t i = 0; i < b.count; i++) {
      const struct gorc_rt_entry *e = &b.entries[i];
      if (e->cfa_kind > GORC_CFA_UNDEFINED || e->bp_kind > GORC_BP_UNDEFINED)
        abort();
      if ((e->cfa_kind == GORC_CFA_REG || e->cfa_kind == GORC_CFA_DEREF) && e->cfa_reg > 15)
        abort();
      if (e->cfa_kind == GORC_CFA_UNDEFINED && e->cfa_reg != 0 && e->cfa_reg != 0xff)
        abort();
      if (e->bp_kind == GORC_BP_REG && e->bp_reg > 15)
        abort();
      if (in_fde ? e->pc_off <= last : e->cfa_kind == GORC_CFA_END)
        abort();
      in_fde = e->cfa_kind != GORC_CFA_END;
      last = e->pc_off;
    }
    if (in_fde)
      abort();
  }
  gorc_rt_builder_free(&b);
  free(copy);
  return 0;
}
