/* The call chains the unwinders walk, then the measured call.  Built
   twice: with -fomit-frame-pointer and the plugin (for gorc, glibc,
   libgcc, libunwind) and with -fno-omit-frame-pointer (for the frame
   pointer walk, the floor).  CHAIN_NAME and MIXED_NAME rename the entry
   points.

   - CHAIN_NAME: DEPTH frames of one recursive function of a realistic
     shape (callee-saved registers, a stack buffer).  Every frame has the
     same return address.
   - MIXED_NAME: DEPTH frames cycling through eight different functions
     (different frame sizes, some saving rbp as a callee-saved register),
     so no two adjacent frames share a return address or a state.  */

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

/* The mixed chain: m0 -> m1 -> ... -> m7 -> m0 ...  The asm clobbers
   force callee-saved registers (rbp among them in some) to be saved;
   the frame-pointer build (CHAIN_FP) cannot clobber rbp.  */
#ifdef CHAIN_FP
#define RBP "memory"
#else
#define RBP "rbp"
#endif
typedef int (*mixed_fn)(int, chain_leaf_fn, void *);
static mixed_fn const mixed_next[8];

#define MIXED(i, bufsize, ...)                                           \
  __attribute__((noinline)) static int m##i(int depth, chain_leaf_fn leaf, void *arg) \
  {                                                                           \
    volatile char buf[bufsize];                                               \
    buf[depth % (bufsize)] = (char)depth;                                     \
    __asm__ volatile("" ::: __VA_ARGS__);                                        \
    int r = depth <= 1 ? leaf(arg) : mixed_next[i](depth - 1, leaf, arg);     \
    __asm__ volatile("" ::: "memory");                                        \
    return r + buf[depth % (bufsize)];                                        \
  }

MIXED(0, 8, "rbx")
MIXED(1, 40, "rbx", "r12")
MIXED(2, 16, "rbx", RBP)
MIXED(3, 200, "r12", "r13", "r14")
MIXED(4, 24, RBP)
MIXED(5, 72, "rbx", RBP, "r12", "r13")
MIXED(6, 8, "memory")
MIXED(7, 520, "rbx", "r15")

static mixed_fn const mixed_next[8] = { m1, m2, m3, m4, m5, m6, m7, m0 };

int MIXED_NAME(int depth, chain_leaf_fn leaf, void *arg)
{
  return m0(depth, leaf, arg);
}
