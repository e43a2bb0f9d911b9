/* The library of shlib.c: a static-call variable with external linkage,
   and a call through it.  */
__attribute__ ((noipa)) int lib_one (int x) { return x + 1; }
/* GORC_STATIC_CALL, spelled out: the library is built without libgorc's
   include directory.  */
int (*lib_op) (int) __attribute__ ((gorc_static_call)) = lib_one;
int lib_call (int x) { return lib_op (x); }
