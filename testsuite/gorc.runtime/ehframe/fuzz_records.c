/* libFuzzer target for the gorc record decoder (include/gorc/format.h):
   the input is a gorc_unwind table at a fixed address, walked range by
   range with gorc_range_open / gorc_range_next as the runtime and the
   tools do.  Failures: crashes, sanitizer reports, and broken promises of
   the decoder: entry addresses never decrease within a range, states have
   valid kinds and registers, the table position only moves forward inside
   the buffer, and re-encoding a decoded state (gorc_encode_state) decodes
   to the same state.

   clang -fsanitize=fuzzer,address,undefined -Iinclude \
     testsuite/gorc.runtime/ehframe/fuzz_records.c  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gorc/format.h"

#define VADDR 0x555555554000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint8_t *copy = malloc(size ? size : 1);
  if (size)
    memcpy(copy, data, size);
  const uint8_t *p = copy, *end = copy + size;
  while (p < end) {
    struct gorc_range r;
    struct gorc_entry e;
    struct gorc_state prev = gorc_entry_state();
    uint64_t last = 0;
    int n = 0, rc;
    if (gorc_range_open(&r, p, end, VADDR + (uint64_t)(p - copy)) != GORC_DECODE_OK)
      break;
    while ((rc = gorc_range_next(&r, &e)) == 1) {
      const struct gorc_state *s = &e.state;
      if (r.pos < copy || r.pos > end)
        abort();
      if (n++ && e.addr < last)
        abort();
      last = e.addr;
      if (s->cfa_kind > GORC_CFA_UNDEFINED || s->bp_kind > GORC_BP_UNDEFINED)
        abort();
      if (s->cfa_kind == GORC_CFA_END)
        continue;
      if ((s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF)
          && s->cfa_reg > GORC_DWARF_MAX_GPR)
        abort();
      if (s->bp_kind == GORC_BP_REG && s->bp_reg > GORC_DWARF_MAX_GPR)
        abort();
      if (n > 1) {
        /* Round trip: encode after PREV, decode after PREV.  */
        uint8_t buf[GORC_STATE_MAX_BYTES];
        size_t len = gorc_encode_state(s, &prev, buf);
        const uint8_t *q = buf;
        struct gorc_state back;
        if (len > sizeof buf
            || gorc_decode_state(&q, buf + len, &prev, &back) != GORC_DECODE_OK
            || q != buf + len || !gorc_state_equal(s, &back))
          abort();
      }
      prev = *s;
    }
    if (rc != 0)
      break;                    /* a decode error ends the walk */
    const uint8_t *next = gorc_range_table_end(&r);
    if (next <= p || next > end)
      abort();
    p = next;
  }
  free(copy);
  return 0;
}
