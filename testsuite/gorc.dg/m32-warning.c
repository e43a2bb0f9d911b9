/* 32-bit code gets no records, and the plugin says so instead of staying
   silent.  (The tools read 64-bit files only, so no dump check.)  */
/* { dg-do assemble } */
/* { dg-options "-O2 -m32 -fdiagnostics-plain-output" } */

int
f (int x)
{
  return x + 1;
} /* { dg-warning "records are made for x86-64 \\(LP64\\) code only" } */
