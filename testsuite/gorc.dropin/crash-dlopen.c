/* A crash in a library dlopened after gorc_install_crash_handler(),
   called from a program whose symbols were stripped: the library's
   functions are named (symbols are read from the files at crash time,
   whatever was loaded when the handler was installed), the program's
   frames show module+offset.  lib_fault is local: only the library's
   .symtab (or its debug file's) has it.  Built twice: with -DLIB it is
   the library (-DOTHER: the same code with another build ID).

     crash-dlopen LIBRARY  */
#ifdef LIB
#ifdef OTHER
int other_build = 1;   /* another build: another build ID */
#endif

__attribute__((noinline)) static int lib_fault(int *volatile *p)
{
  return **p + 1;
}

__attribute__((noinline)) int lib_enter(int *volatile *p)
{
  return lib_fault(p) + 1;
}
#else
#include <dlfcn.h>
#include <stdio.h>
#include <gorc.h>

__attribute__((noinline)) static int call_lib(int (*enter)(int *volatile *))
{
  static int *volatile null;
  return enter(&null) + 1;
}

int main(int argc, char **argv)
{
  if (argc < 2 || gorc_install_crash_handler() != 0)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  int (*enter)(int *volatile *) = h ? (int (*)(int *volatile *))dlsym(h, "lib_enter") : NULL;
  if (!enter) {
    fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 2;
  }
  printf("no crash: %d\n", call_lib(enter));
  return 0;
}
#endif
