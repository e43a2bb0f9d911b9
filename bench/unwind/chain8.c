/* The short chain of a typical backtrace call: main -> f1 -> f2 -> f3 ->
   leaf (walk-to-start.c's main and leaf).  Each function keeps a little
   state across its call, as real code does, so that no call is a tail
   call.  DEPTH is ignored: the chain is three frames.  */

typedef int (*chain_leaf_fn)(void *arg);

__attribute__((noinline)) static int f3(chain_leaf_fn leaf, void *arg)
{
  volatile int local = 3;
  int r = leaf(arg);
  return r + local;
}

__attribute__((noinline)) static int f2(chain_leaf_fn leaf, void *arg)
{
  volatile char buf[40];
  buf[0] = 2;
  int r = f3(leaf, arg);
#ifdef __aarch64__
  __asm__ volatile("" ::: "x19", "x20", "memory");
#else
  __asm__ volatile("" ::: "rbx", "r12", "memory");
#endif
  return r + buf[0];
}

__attribute__((noinline)) int f1(int depth, chain_leaf_fn leaf, void *arg)
{
  (void)depth;
  volatile long local = 1;
  int r = f2(leaf, arg);
  return r + (int)local;
}
