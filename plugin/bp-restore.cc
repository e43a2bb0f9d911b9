/* gorc plugin: where the caller's rbp is once the epilogue restored it
   (see bp-restore.h).  */

#include "bp-restore.h"
#include "tm_p.h"   /* DWARF_FRAME_REGNUM: aarch64 declares its function there */

void gorc_bp_watch_reset(struct gorc_bp_watch *w)
{
  w->override = GORC_BP_AS_CFI;
  w->sp_known = false;
  w->sp_minus_bp = 0;
  w->after_barrier = false;
}

/* The hard register with DWARF number DWARF_REGNO, or INVALID_REGNUM.  */
static unsigned hard_regno_of_dwarf(unsigned dwarf_regno)
{
  for (unsigned r = 0; r < FIRST_PSEUDO_REGISTER; r++)
    if ((unsigned)DWARF_FRAME_REGNUM(r) == dwarf_regno)
      return r;
  return INVALID_REGNUM;
}

/* The SET in INSN's pattern (alone or in a PARALLEL) whose destination is
   hard register REGNO, or NULL.  */
static rtx set_of_hard_reg(rtx_insn *insn, unsigned regno)
{
  rtx pat = PATTERN(insn);
  int n = GET_CODE(pat) == PARALLEL ? XVECLEN(pat, 0) : 1;
  for (int i = 0; i < n; i++) {
    rtx x = GET_CODE(pat) == PARALLEL ? XVECEXP(pat, 0, i) : pat;
    if (GET_CODE(x) == SET && REG_P(SET_DEST(x)) && REGNO(SET_DEST(x)) == regno)
      return x;
  }
  return NULL_RTX;
}

/* The address MEM reads, as hard register *BASE + *OFF with the values
   registers have before the insn (a pop's (post_inc sp) reads at sp).
   False for any other form.  */
static bool mem_address(rtx mem, unsigned *base, HOST_WIDE_INT *off)
{
  rtx addr = XEXP(mem, 0);
  *off = 0;
  if (GET_CODE(addr) == POST_INC || GET_CODE(addr) == POST_DEC)
    addr = XEXP(addr, 0);
  if (GET_CODE(addr) == PLUS && CONST_INT_P(XEXP(addr, 1))) {
    *off = INTVAL(XEXP(addr, 1));
    addr = XEXP(addr, 0);
  }
  if (!REG_P(addr) || !HARD_REGISTER_P(addr))
    return false;
  *base = REGNO(addr);
  return true;
}

/* Does INSN load rbp from the slot RULE names (rbp saved at
   BASE + RULE->bp_off)?  The address is compared as the insn sees it:
   leave reads at rbp, a pop at rsp, which W knows relative to rbp.  */
static bool loads_bp_from_slot(const struct gorc_bp_watch *w, rtx_insn *insn, unsigned base,
                               const struct gorc_state *rule)
{
  rtx set = set_of_hard_reg(insn, HARD_FRAME_POINTER_REGNUM);
  unsigned reg;
  HOST_WIDE_INT off;

  if (!set || !MEM_P(SET_SRC(set)) || !mem_address(SET_SRC(set), &reg, &off))
    return false;
  if (reg == base)
    return off == rule->bp_off;
  return reg == STACK_POINTER_REGNUM && base == HARD_FRAME_POINTER_REGNUM && w->sp_known
         && w->sp_minus_bp + off == rule->bp_off;
}

/* How much INSN moves rsp as a push or a pop (a MEM addressed by an
   auto-increment of rsp): *DELTA.  False when it is neither.  */
static bool push_pop_delta(rtx_insn *insn, HOST_WIDE_INT *delta)
{
  rtx pat = PATTERN(insn);
  if (GET_CODE(pat) != SET)
    return false;
  rtx mem = MEM_P(SET_DEST(pat)) ? SET_DEST(pat) : SET_SRC(pat);
  if (!MEM_P(mem))
    return false;
  rtx addr = XEXP(mem, 0);
  if (GET_RTX_CLASS(GET_CODE(addr)) != RTX_AUTOINC || !REG_P(XEXP(addr, 0))
      || REGNO(XEXP(addr, 0)) != STACK_POINTER_REGNUM)
    return false;
  HOST_WIDE_INT size = GET_MODE_SIZE(GET_MODE(mem)).to_constant();
  switch (GET_CODE(addr)) {
  case PRE_DEC: case POST_DEC: *delta = -size; return true;
  case PRE_INC: case POST_INC: *delta = size; return true;
  default: return false;
  }
}

/* Follow rsp - rbp through INSN: set by "rsp = rbp + c" (an epilogue's
   mov or lea), moved by pushes, pops and "rsp += c"; anything else
   (and any change of rbp) makes it unknown.  */
static void track_sp(struct gorc_bp_watch *w, rtx_insn *insn)
{
  rtx set = set_of_hard_reg(insn, STACK_POINTER_REGNUM);
  HOST_WIDE_INT delta;
  bool was_known = w->sp_known;

  w->sp_known = false;
  if (reg_set_p(hard_frame_pointer_rtx, insn))
    return;
  if (set) {
    rtx reg = SET_SRC(set);
    HOST_WIDE_INT c = 0;
    if (GET_CODE(reg) == PLUS && CONST_INT_P(XEXP(reg, 1))) {
      c = INTVAL(XEXP(reg, 1));
      reg = XEXP(reg, 0);
    }
    if (!REG_P(reg))
      return;
    if (REGNO(reg) == HARD_FRAME_POINTER_REGNUM) {
      w->sp_known = true;
      w->sp_minus_bp = c;
    } else if (REGNO(reg) == STACK_POINTER_REGNUM && was_known) {
      w->sp_known = true;
      w->sp_minus_bp += c;
    }
    return;
  }
  if (push_pop_delta(insn, &delta)) {
    w->sp_known = was_known;
    w->sp_minus_bp += delta;
    return;
  }
  w->sp_known = was_known && !reg_set_p(stack_pointer_rtx, insn);
}

static void lose(struct gorc_bp_watch *w, const char *why)
{
  w->override = GORC_BP_LOST;
  if (!w->problem)
    w->problem = why;
}

/* An insn that changes registers: does it restore rbp, or make the rule
   describing it stale?  */
static void watch_real_insn(struct gorc_bp_watch *w, rtx_insn *insn,
                            const struct gorc_state *rule)
{
  bool writes_bp = reg_set_p(hard_frame_pointer_rtx, insn);

  if (w->override == GORC_BP_RESTORED) {
    if (writes_bp)
      lose(w, "rbp changes after the epilogue restored it");
  } else if (w->override == GORC_BP_AS_CFI && rule->bp_kind == GORC_BP_REG) {
    unsigned base = hard_regno_of_dwarf(rule->bp_reg);
    bool writes_base = base != INVALID_REGNUM
                       && reg_set_p(gen_rtx_REG(Pmode, base), insn);
    if (writes_bp && loads_bp_from_slot(w, insn, base, rule))
      w->override = GORC_BP_RESTORED;
    else if (writes_bp || writes_base)
      lose(w, "a register the saved rbp is found through changes and GCC's CFI "
              "does not say where rbp is then");
  }
  track_sp(w, insn);
}

bool gorc_bp_watch_insn(struct gorc_bp_watch *w, rtx_insn *insn, const struct gorc_state *rule)
{
  enum gorc_bp_override before = w->override;

  if (BARRIER_P(insn)) {
    w->sp_known = false;
    w->after_barrier = true;
  } else if (w->after_barrier && (LABEL_P(insn) || NONDEBUG_INSN_P(insn))) {
    /* Nothing falls through a barrier: the code after it is reached by
       jumps, and GCC's CFI describes it.  Ended here rather than at the
       barrier, so that the alignment padding before the label (never
       run) costs no entry of its own.  */
    gorc_bp_watch_reset(w);
    if (NONDEBUG_INSN_P(insn))
      watch_real_insn(w, insn, rule);
  } else if (LABEL_P(insn)) {
    /* Other paths join here; only GCC's CFI speaks for all of them.  */
    w->sp_known = false;
    if (w->override == GORC_BP_RESTORED)
      lose(w, "code paths join after the epilogue restored rbp");
  } else if (NONDEBUG_INSN_P(insn)) {
    watch_real_insn(w, insn, rule);
  }
  return w->override != before;
}

void gorc_bp_watch_cfi(struct gorc_bp_watch *w, const struct gorc_state *before,
                       const struct gorc_state *after)
{
  if (!gorc_bp_rule_equal(before, after))
    w->override = GORC_BP_AS_CFI;
}

void gorc_bp_watch_apply(const struct gorc_bp_watch *w, struct gorc_state *s)
{
  if (w->override == GORC_BP_AS_CFI)
    return;
  s->bp_kind = w->override == GORC_BP_RESTORED ? GORC_BP_SAME : GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->bp_off = 0;
}
