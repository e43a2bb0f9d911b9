/* Main program for gorc.dg/shared-lib.c.  */
extern long lib_entry (long);
extern long (*lib_fp) (long);
extern long lib_counter;
extern void abort (void);

int
main (void)
{
  if (lib_entry (7) != 28 || lib_counter != 7 || lib_fp (2) != 7)
    abort ();
  return 0;
}
