/* A translation unit without functions (only data): the plugin must cope
   (no gorc_unwind ranges of its own), and the program it is linked into
   checks out.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-additional-sources "support/empty-main.c" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {^range \S+ main } } } */

int data[4] = { 1, 2, 3, 4 };
extern int decl_only (int);
