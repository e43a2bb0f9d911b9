/* A shared library and its user, built by gorc-gcc.  */
#ifdef MAIN
#include <stdio.h>
int shlib_sum(int);
int main(void) { printf("sum %d\n", shlib_sum(10)); return shlib_sum(10) == 55 ? 0 : 1; }
#else
__attribute__((noinline)) static int add(int a, int b) { return a + b; }
int shlib_sum(int n) { int s = 0; for (int i = 1; i <= n; i++) s = add(s, i); return s; }
#endif
