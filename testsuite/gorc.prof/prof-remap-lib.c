/* gorc-prof test library: two builds of one size whose code lies at the
   same file offsets, for prof-dlopen LIB MS LIB2 (a library mapped where
   another was).  Both export lib_chain (-> lib_work), spinning MS times
   a fixed count.  All in one block of assembly, so that no compiler's
   ordering of functions moves it.

   -DREMAP_NEW: lib_work first, then lib_chain, frameless.  Else: first
   a function that pushes rbx and runs on for 4,000 bytes, so that at
   the new build's lib_work its table says the return address is 16
   bytes up, where the new build's stack has lib_chain's own: the old
   table walks the new code wrong and complete (main;lib_work),
   lib_chain left out.  */

/* lib_work: spins MS (edi) times 2,000,000; lib_chain: calls it.  */
#define REMAP_CHAIN \
  ".globl lib_work\n.type lib_work, @function\n" \
  "lib_work:\n.cfi_startproc\n" \
  "  movslq %edi, %rcx\n" \
  "  imul $2000000, %rcx, %rcx\n" \
  "1: dec %rcx\n" \
  "  jnz 1b\n" \
  "  ret\n.cfi_endproc\n.size lib_work, .-lib_work\n" \
  ".globl lib_chain\n.type lib_chain, @function\n" \
  "lib_chain:\n.cfi_startproc\n" \
  "  call lib_work\n" \
  "  ret\n.cfi_endproc\n.size lib_chain, .-lib_chain\n"

/* 4,000 bytes with rbx pushed: the return address 16 bytes up.  */
#define REMAP_PUSHED \
  ".type lib_pushed, @function\n" \
  "lib_pushed:\n.cfi_startproc\n" \
  "  push %rbx\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbx, -16\n" \
  "  .skip 4000, 0x90\n" \
  "  pop %rbx\n.cfi_adjust_cfa_offset -8\n" \
  "  ret\n.cfi_endproc\n.size lib_pushed, .-lib_pushed\n"

#ifdef REMAP_NEW
__asm__(".text\n" REMAP_CHAIN ".skip 4002, 0x90\n");
#else
__asm__(".text\n" REMAP_PUSHED REMAP_CHAIN);
#endif
