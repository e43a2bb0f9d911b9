/* libgorc: the general step, one frame at a time: the state of the
   frame's address (gorc_rt_state: records, else .eh_frame), then a signal
   frame (signal.c) or the step rules of gorc/step.h (gorc-prof's too)
   over the cursor's checked reads (cursor.h).  Any state: DRAP rules,
   the aux register, a return address in the link register, the
   outermost frame.  */

#include "cursor.h"

/* A step rule's error as the API's (or -WALK_AGAIN: aux is needed, and
   only not known because the inner loop skipped it).  */
static int step_error(const struct gorc_cursor *c, int rc)
{
  switch (rc) {
  case GORC_STEP_EAUX:
    return (cstate(c)->flags & F_AUX_SKIPPED) ? -WALK_AGAIN : -GORC_EBADFRAME;
  case GORC_STEP_EUNDEFINED:
    return -GORC_EUNDEFINED;
  case GORC_STEP_EDIRECTION:
    return -GORC_EDIRECTION;
  default:
    return -GORC_EBADFRAME;
  }
}

__attribute__((noinline)) int gorc_rt_cursor_step(struct gorc_cursor *c)
{
  uint64_t flags = cstate(c)->flags;
  struct gorc_rt_module m;
  struct gorc_state st;
  int has_module;

  if (flags & F_END)
    return 0;
  if (cstate(c)->frames >= GORC_MAX_FRAMES)
    return -GORC_EDIRECTION;
  uint64_t pc = (flags & F_NOADJ) ? c->ip : c->ip - 1;
  int found = gorc_rt_state(pc, &st, &m, &has_module);
  if (found == 1)
    gorc_rt_cache_keep(&m, pc, &st);
  /* A return address must be code of a loaded module: anything else is
     a corrupt stack (or record), not a frame.  */
  if (!(flags & F_NOADJ) && (!has_module || !gorc_rt_module_has_code(&m, pc, 1))) {
    if (!has_module && gorc_rt_is_sigreturn(NULL, c->ip, 0))
      return gorc_rt_signal_frame(c);
    cstate(c)->flags |= F_NOT_CODE;
    return -GORC_EBADFRAME;
  }
  /* A signal frame: the return address is the signal trampoline (or an
     interrupted context stands in it).  glibc's .eh_frame rule for it is
     an expression (UNDEFINED here), and code without any rule has none,
     so only then are its bytes compared (and only inside the module's
     code), and in a vDSO whose trampoline has CFI of its own.  */
  if ((found != 1 || st.cfa_kind == GORC_CFA_UNDEFINED || (has_module && gorc_rt_vdso_with_sigreturn(&m)))
      && gorc_rt_is_sigreturn(has_module ? &m : NULL, c->ip, (flags & F_NOADJ) != 0))
    return gorc_rt_signal_frame(c);
  if (found < 0)
    return found;
  if (found == 0)
    return -GORC_ENORECORD;
  return gorc_rt_step_by_state(c, &st);
}

/* The general step of C's frame, whose state is ST (gorc/step.h).  */
int gorc_rt_step_by_state(struct gorc_cursor *c, const struct gorc_state *st)
{
  struct gorc_frame_regs f = cursor_regs(c);
  int rc = gorc_step_by_state(c, &f, st);
  if (rc == GORC_STEP_OUTERMOST) {
    cstate(c)->flags |= F_END;
    return 0;
  }
  if (rc < 0)
    return step_error(c, rc);
  /* A rule other than "same" decides aux, whatever the loop skipped.  */
  uint64_t flags = cstate(c)->flags;
  if (st->aux_kind != GORC_AUX_SAME)
    flags &= ~(uint64_t)F_AUX_SKIPPED;
  cursor_take(c, &f, flags);
  return 1;
}
