/* The lookup the ehframe tests drive: the shared .eh_frame interpreter
   (include/gorc/eh_frame.h) over a module's .eh_frame_hdr and .eh_frame
   read in place, as libgorc's walk calls it (runtime/src/lookup.c), with
   its errors as libgorc's.  A file of its own, so that the tests build
   the interpreter alone (it must call nothing) and can swap in a broken
   copy of it.  */

#include "eh-test.h"
#include "gorc/eh_frame.h"

int eh_state(const struct gorc_rt_ehframe *ef, uint64_t pc, struct gorc_state *out)
{
  struct gorc_eh_frame view = { ef->hdr, ef->hdr_size, ef->lo, ef->hi, GORC_RT_MACHINE, ef->entry };
  int rc = gorc_eh_frame_state(&view, pc, out);
  return rc < 0 ? -GORC_ECORRUPT : rc;
}

size_t eh_rows_size(void)
{
  return sizeof(struct gorc_eh_rows);
}

int eh_rows_state(const struct gorc_rt_ehframe *ef, void *w, uint64_t pc, struct gorc_state *out,
                  uint64_t *next)
{
  struct gorc_eh_frame view = { ef->hdr, ef->hdr_size, ef->lo, ef->hi, GORC_RT_MACHINE, ef->entry };
  int rc = gorc_eh_rows_state(&view, w, pc, out, next);
  return rc < 0 ? -GORC_ECORRUPT : rc;
}
