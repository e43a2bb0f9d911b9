/* The call chain the unwinders walk: DEPTH noinline frames of a realistic
   shape (callee-saved registers, a stack buffer), then the measured call.
   Built twice: with -fomit-frame-pointer and the plugin (for gorc, glibc,
   libgcc, libunwind) and with -fno-omit-frame-pointer (for the frame
   pointer walk, the floor).  CHAIN_NAME renames the entry point.  */

typedef int (*chain_leaf_fn)(void *arg);

__attribute__((noinline)) static int step(int depth, chain_leaf_fn leaf, void *arg)
{
  volatile char scratch[24];
  scratch[depth % 24] = (char)depth;
  if (depth <= 1)
    return leaf(arg) + scratch[depth % 24];
  int r = step(depth - 1, leaf, arg);
  __asm__ volatile("" ::: "memory");
  return r + scratch[depth % 24];
}

int CHAIN_NAME(int depth, chain_leaf_fn leaf, void *arg)
{
  return step(depth, leaf, arg);
}
