/* Built with the plugin (-O2 -fPIC) into libgorc-dlifunc.so by the
   dg-additional-options line of resolver-ifunc.c and
   resolver-ifunc-direct.c, which link against it lazily.  dl_ifunc_0 ..
   dl_ifunc_3 are IFUNCs whose resolver (code with gorc records, which do
   not describe rbx) spins for a while, so that SIGPROF samples land in it
   while glibc's lazy-binding resolver (_dl_runtime_resolve_*: CFA = rbx +
   16) waits for it in _dl_fixup.  dl_ifunc_hooked's resolver calls
   dl_ifunc_hook (set by the test: it walks from there).  */

typedef int (*dl_ifunc_fn) (int);

volatile unsigned long dl_ifunc_sink;

static int
impl (int x)
{
  return x + 1;
}

__attribute__((noinline, noclone)) static dl_ifunc_fn
resolve_spin (void)
{
  for (unsigned long i = 0; i < 20000; i++)
    dl_ifunc_sink += i ^ (dl_ifunc_sink >> 3);
  return impl;
}

int dl_ifunc_0 (int) __attribute__((ifunc ("resolve_spin")));
int dl_ifunc_1 (int) __attribute__((ifunc ("resolve_spin")));
int dl_ifunc_2 (int) __attribute__((ifunc ("resolve_spin")));
int dl_ifunc_3 (int) __attribute__((ifunc ("resolve_spin")));

void (*dl_ifunc_hook) (void);

__attribute__((noinline, noclone)) static dl_ifunc_fn
resolve_hooked (void)
{
  dl_ifunc_hook ();
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return impl;
}

int dl_ifunc_hooked (int) __attribute__((ifunc ("resolve_hooked")));

/* The address range of the resolver's code, for the test.  */
void
dl_ifunc_resolver_range (void **lo, void **hi)
{
  *lo = (void *) resolve_spin;
  *hi = (void *) ((char *) resolve_spin + 256);
}
