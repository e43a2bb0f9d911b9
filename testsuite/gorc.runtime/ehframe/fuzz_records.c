/* libFuzzer target for the gorc record decoder (include/gorc/format.h),
   format version 2.  The input is a gorc_unwind section (range bodies
   back to back, as a linked module holds them; the seed is one), decoded
   body after body with gorc_range_open / gorc_range_next for each machine,
   as the runtime and the tools do from an index entry; its first bytes
   are also read as a note descriptor (gorc_note_parse) and as index
   entries (gorc_index_start/body).  Failures: crashes, sanitizer reports,
   and broken promises of the decoder: entry addresses never decrease
   within a range and the end lies after the start, states have valid
   kinds and registers for their machine, the read position only moves
   forward inside the buffer, and re-encoding a decoded entry
   (gorc_encode_entry, as the plugin does) decodes to the same state.

   clang -fsanitize=fuzzer,address,undefined -Iinclude \
     testsuite/gorc.runtime/ehframe/fuzz_records.c  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gorc/format.h"

#define VADDR 0x555555554000ull

static void check_state(unsigned machine, const struct gorc_state *s)
{
  unsigned max_reg = gorc_machine_max_reg(machine);
  if (s->cfa_kind > GORC_CFA_UNDEFINED || s->bp_kind > GORC_BP_UNDEFINED
      || s->ra_kind > GORC_RA_UNDEFINED)
    abort();
  if ((s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF) && s->cfa_reg > max_reg)
    abort();
  if (s->bp_kind == GORC_BP_REG && s->bp_reg > max_reg)
    abort();
  /* x86-64 states never say where the return address is: CFA - 8.  */
  if (!gorc_machine_ra_in_reg(machine) && (s->ra_kind != GORC_RA_CFA || s->ra_off != -8))
    abort();
}

/* Encode S after the states in H as the plugin would, decode the bytes
   after the same states: the same state, every byte used.  */
static void check_round_trip(const struct gorc_history *h, const struct gorc_state *s)
{
  uint8_t buf[GORC_OPERANDS_MAX_BYTES];
  size_t len = 0;
  unsigned op = gorc_encode_entry(h, s, buf, &len);
  const uint8_t *q = buf;
  struct gorc_state back;
  if (len > sizeof buf || gorc_decode_op(&q, buf + len, op, h, &back) != GORC_DECODE_OK
      || q != buf + len || !gorc_state_equal(s, &back))
    abort();
}

/* Decode the bodies in [DATA, END) one after the other as MACHINE's.  */
static void walk_bodies(unsigned machine, const uint8_t *data, const uint8_t *end)
{
  const uint8_t *p = data;
  while (p < end) {
    struct gorc_range r;
    struct gorc_entry e;
    struct gorc_history mirror;   /* the states so far, as the encoder sees them */
    uint64_t start = VADDR + (uint64_t)(p - data), last = start;
    int rc;
    gorc_range_open(&r, machine, start, p, end);
    gorc_history_init(&mirror, machine);
    while ((rc = gorc_range_next(&r, &e)) == 1) {
      if (r.pos < p || r.pos > end || e.addr < last)
        abort();
      last = e.addr;
      if (e.state.cfa_kind == GORC_CFA_END) {
        if (e.addr <= start)
          abort();
        continue;
      }
      check_state(machine, &e.state);
      if (r.entries > 1) {
        check_round_trip(&mirror, &e.state);
        gorc_history_push(&mirror, &e.state);
      }
    }
    if (rc != 0)
      break;                    /* a decode error ends the walk */
    if (r.pos <= p || r.pos > end)
      abort();
    p = r.pos;
  }
}

/* The first bytes as a note descriptor and as index entries.  */
static void check_note_and_index(const uint8_t *data, size_t size)
{
  struct gorc_note_info info;
  uint32_t descsz = size < GORC_NOTE_DESC_SIZE ? (uint32_t)size : GORC_NOTE_DESC_SIZE;
  if (gorc_note_parse(data, descsz, VADDR, &info) == GORC_DECODE_OK
      && (info.version != GORC_FORMAT_VERSION || !gorc_machine_known(info.machine)
          || info.index_end < info.index_start || info.records_end < info.records_start
          || (info.index_end - info.index_start) % GORC_INDEX_ENTRY_SIZE))
    abort();
  for (size_t k = 0; k + GORC_INDEX_ENTRY_SIZE <= size && k < 64; k += GORC_INDEX_ENTRY_SIZE) {
    uint64_t at = VADDR + k;
    int64_t start = (int64_t)(gorc_index_start(data + k, at) - at);
    int64_t body = (int64_t)(gorc_index_body(data + k, at) - (at + 4));
    if (start != (int32_t)gorc_get_le32(data + k) || body != (int32_t)gorc_get_le32(data + k + 4))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* A copy of exactly SIZE bytes, so that ASan sees a read past them
     (zeroed: GCC 16 warns of the uninitialized byte of an empty input) */
  uint8_t *copy = calloc(size ? size : 1, 1);
  if (!copy)
    abort();
  if (size)
    memcpy(copy, data, size);
  walk_bodies(GORC_MACHINE_X86_64, copy, copy + size);
  walk_bodies(GORC_MACHINE_AARCH64, copy, copy + size);
  check_note_and_index(copy, size);
  free(copy);
  return 0;
}
