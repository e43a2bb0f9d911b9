/* gorc-prof test program: work in a shared library's constructor.

     prof-ctor

   Built with -DPROF_CTOR_LIB -shared -fPIC: the library, whose
   constructor burns a fixed amount of CPU in ctor_work.  Without: the
   program, linked against it, which does nothing else.  ld.so calls the
   constructor from _dl_init, which its _start calls: code without CFI
   (gorc_eh_in_entry, include/gorc/eh_frame.h).  */
#ifdef PROF_CTOR_LIB
volatile unsigned long ctor_sink;

__attribute__((noipa)) static unsigned long ctor_work(long steps)
{
  unsigned long x = 1;
  for (long i = 0; i < steps; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

__attribute__((constructor)) static void lib_ctor(void)
{
  ctor_sink = ctor_work(300000000);
}

unsigned long ctor_result(void)
{
  return ctor_sink;
}
#else
unsigned long ctor_result(void);

int main(void)
{
  return ctor_result() == 1;   /* (never: the work's result, kept) */
}
#endif
