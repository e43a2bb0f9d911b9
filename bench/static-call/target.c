/* The called function, alone in its unit so that no call is inlined.  */
__attribute__ ((noipa)) int bench_target (int x) { return x + 1; }
__attribute__ ((noipa)) int bench_other (int x) { return x + 2; }
int (*bench_plain_ptr) (int) = bench_target;
