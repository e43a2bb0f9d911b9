/* entry-constructor.c's library: its constructor walks its own stack
   (ld.so calls it from _dl_init, which its _start calls) and keeps what
   the walk gave for the test's main.  libgorc comes from the program
   (dg-gorc-runtime shared): declared here, resolved at the call.  */
int gorc_backtrace2(void **ips, int max, int *count);

#define CTOR_MAX 64
void *ctor_ips[CTOR_MAX];
int ctor_rc, ctor_count;

__attribute__((constructor)) static void walk_in_constructor(void)
{
  ctor_rc = gorc_backtrace2(ctor_ips, CTOR_MAX, &ctor_count);
}
