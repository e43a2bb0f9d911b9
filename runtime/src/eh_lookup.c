/* libgorc: the unwind state of an address from .eh_frame, read in place
   at walk time: the interpreter of include/gorc/eh_frame.h (shared with
   gorc-prof), over the module's loaded segments.  See ehframe.h.  */

#include "arch.h"
#include "ehframe.h"
#include "gorc.h"
#include "gorc/eh_frame.h"

int gorc_rt_ehframe_state(const struct gorc_rt_ehframe *ef, uint64_t pc,
                          struct gorc_state *out)
{
  struct gorc_eh_frame view = { ef->hdr, ef->hdr_size, ef->lo, ef->hi, GORC_RT_MACHINE };
  int rc = gorc_eh_frame_state(&view, pc, out);
  return rc < 0 ? -GORC_ECORRUPT : rc;
}
