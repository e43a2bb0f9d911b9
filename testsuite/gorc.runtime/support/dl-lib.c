/* Built by runtime.exp into libgorc-dltest.so (with the plugin, -O2
   -fPIC), dlopened and dlclosed in a loop by dlopen-sampling.c.  */

typedef int (*dl_callback)(void *arg);

__attribute__((noinline, noclone)) static int
dl_level (int depth, dl_callback cb, void *arg)
{
  volatile char frame[40];
  frame[depth % 40] = (char) depth;
  int r = depth == 0 ? cb (arg) : dl_level (depth - 1, cb, arg);
  return r + frame[depth % 40];
}

int
dl_work (int depth, dl_callback cb, void *arg)
{
  return dl_level (depth, cb, arg);
}
