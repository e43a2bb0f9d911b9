/* The plugin refuses to run in a GCC it was not built for, and says
   which versions are involved (see gorc-version-mismatch in
   lib/gorc-dg.exp: a fake host always, another installed GCC when there
   is one).  The normal build of this file is an ordinary compile.  */
/* { dg-do compile } */
/* { dg-final { gorc-version-mismatch } } */

int f (void) { return 42; }
