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
     so no two adjacent frames share a return address or a state (the
     return addresses repeat every eight frames: mutual recursion).
   - DISTINCT_NAME: DEPTH frames of 136 different functions of the same
     eight shapes: no return address repeats up to depth 134, as in a
     call chain through different code.  */

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
/* The registers are named as on x86-64; cross-built for aarch64
   (bench/unwind/aarch64.sh) they are callee-saved x19-x23 and x29.  */
#ifdef __aarch64__
#define RBX "x19"
#define R12 "x20"
#define R13 "x21"
#define R14 "x22"
#define R15 "x23"
#define FRAME_REG "x29"
#else
#define RBX "rbx"
#define R12 "r12"
#define R13 "r13"
#define R14 "r14"
#define R15 "r15"
#define FRAME_REG "rbp"
#endif
#ifdef CHAIN_FP
#define RBP "memory"
#else
#define RBP FRAME_REG
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

MIXED(0, 8, RBX)
MIXED(1, 40, RBX, R12)
MIXED(2, 16, RBX, RBP)
MIXED(3, 200, R12, R13, R14)
MIXED(4, 24, RBP)
MIXED(5, 72, RBX, RBP, R12, R13)
MIXED(6, 8, "memory")
MIXED(7, 520, RBX, R15)

static mixed_fn const mixed_next[8] = { m1, m2, m3, m4, m5, m6, m7, m0 };

int MIXED_NAME(int depth, chain_leaf_fn leaf, void *arg)
{
  return m0(depth, leaf, arg);
}

/* The distinct chain: 17 groups of the eight shapes, each function
   calling the next directly (group g's function 7 calls group G's 0).
   Built with -fno-ipa-icf so that no two are merged.  */
#define DISTINCT(g, i, G, I, bufsize, ...)                                    \
  __attribute__((noinline)) static int d_##g##i(int depth, chain_leaf_fn leaf, void *arg) \
  {                                                                           \
    volatile char buf[bufsize];                                               \
    buf[depth % (bufsize)] = (char)depth;                                     \
    __asm__ volatile("" ::: __VA_ARGS__);                                     \
    int r = depth <= 1 ? leaf(arg) : d_##G##I(depth - 1, leaf, arg);         \
    __asm__ volatile("" ::: "memory");                                        \
    return r + buf[depth % (bufsize)];                                        \
  }
#define DISTINCT_DECL(g)                                                      \
  static int d_##g##0(int, chain_leaf_fn, void *), d_##g##1(int, chain_leaf_fn, void *), \
    d_##g##2(int, chain_leaf_fn, void *), d_##g##3(int, chain_leaf_fn, void *), \
    d_##g##4(int, chain_leaf_fn, void *), d_##g##5(int, chain_leaf_fn, void *), \
    d_##g##6(int, chain_leaf_fn, void *), d_##g##7(int, chain_leaf_fn, void *);
#define DISTINCT_GROUP(g, G)                                                  \
  DISTINCT(g, 0, g, 1, 8, RBX)                                             \
  DISTINCT(g, 1, g, 2, 40, RBX, R12)                                     \
  DISTINCT(g, 2, g, 3, 16, RBX, RBP)                                       \
  DISTINCT(g, 3, g, 4, 200, R12, R13, R14)                             \
  DISTINCT(g, 4, g, 5, 24, RBP)                                              \
  DISTINCT(g, 5, g, 6, 72, RBX, RBP, R12, R13)                         \
  DISTINCT(g, 6, g, 7, 8, "memory")                                          \
  DISTINCT(g, 7, G, 0, 520, RBX, R15)

DISTINCT_DECL(a) DISTINCT_DECL(b) DISTINCT_DECL(c) DISTINCT_DECL(d) DISTINCT_DECL(e)
DISTINCT_DECL(f) DISTINCT_DECL(g) DISTINCT_DECL(h) DISTINCT_DECL(i) DISTINCT_DECL(j)
DISTINCT_DECL(k) DISTINCT_DECL(l) DISTINCT_DECL(m) DISTINCT_DECL(n) DISTINCT_DECL(o)
DISTINCT_DECL(p) DISTINCT_DECL(q)
DISTINCT_GROUP(a, b) DISTINCT_GROUP(b, c) DISTINCT_GROUP(c, d) DISTINCT_GROUP(d, e)
DISTINCT_GROUP(e, f) DISTINCT_GROUP(f, g) DISTINCT_GROUP(g, h) DISTINCT_GROUP(h, i)
DISTINCT_GROUP(i, j) DISTINCT_GROUP(j, k) DISTINCT_GROUP(k, l) DISTINCT_GROUP(l, m)
DISTINCT_GROUP(m, n) DISTINCT_GROUP(n, o) DISTINCT_GROUP(o, p) DISTINCT_GROUP(p, q)
DISTINCT_GROUP(q, a)

int DISTINCT_NAME(int depth, chain_leaf_fn leaf, void *arg)
{
  return d_a0(depth, leaf, arg);
}
