/* libFuzzer target for eh_state.  The input: 4 bytes, the
   offset of .eh_frame_hdr in the region (its top byte, when not 0, puts
   the module's entry point that many bytes less one below the address
   looked up: gorc_eh_in_entry); 4 bytes, the address looked up
   (signed, relative to the region); then the region itself (header,
   search table, CIEs and FDEs: malformed -c writes real ones as seeds),
   copied into a buffer of exactly its size so that any read past it is
   caught.  Crashes, sanitizer reports and these checks are failures: the
   answer is 1 with a well-formed state, 0 or -GORC_ECORRUPT.

   clang -fsanitize=fuzzer,address,undefined -Iinclude -Iruntime/include \
     -Iruntime/src -Itestsuite/gorc.runtime/ehframe \
     testsuite/gorc.runtime/ehframe/fuzz_ehframe.c testsuite/gorc.runtime/ehframe/eh-lookup.c  */

#include "eh-test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint32_t hdr_off;
  int32_t pc_off;
  if (size < 8)
    return 0;
  memcpy(&hdr_off, data, 4);
  memcpy(&pc_off, data + 4, 4);
  data += 8;
  size -= 8;
  uint8_t *copy = malloc(size ? size : 1);
  if (size)
    memcpy(copy, data, size);
  uint64_t at = (uint64_t)(uintptr_t)copy, pc = at + (uint64_t)(int64_t)pc_off;
  uint32_t entry_below = hdr_off >> 24;
  struct gorc_rt_ehframe ef = { 0, 0, at, at + size, entry_below ? pc - (entry_below - 1) : 0 };
  if (size) {
    hdr_off %= size;
    ef.hdr = at + hdr_off;
    ef.hdr_size = size - hdr_off;
  }
  /* The address and its neighbours: one row and the next.  */
  for (int d = 0; d < 3; d++) {
    struct gorc_state st;
    memset(&st, 0, sizeof st);
    int rc = eh_state(&ef, pc + (uint64_t)d, &st);
    if (rc != 0 && rc != 1 && rc != -GORC_ECORRUPT)
      abort();
    if (rc == 1 && !eh_well_formed(&st))
      abort();
  }
  free(copy);
  return 0;
}
