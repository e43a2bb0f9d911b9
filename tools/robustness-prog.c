/* The small program tools/robustness.sh corrupts and scripts/fuzz.sh
   seeds the ELF readers with: a leaf, a frame with a buffer, a VLA.  */
#include <string.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int frame(int n) {
  char buf[256];
  memset(buf, n, sizeof buf);
  int s = 0;
  for (int i = 0; i < n && i < 256; i++)
    s += leaf(buf[i]);
  return s;
}
__attribute__((noinline)) int vla(int n) {
  int a[n];
  for (int i = 0; i < n; i++)
    a[i] = frame(i);
  return a[n / 2];
}
int main(int argc, char **argv) { (void)argv; return vla(argc + 8) == 12345; }
