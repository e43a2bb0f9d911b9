/* Main program for gorc.dg/empty-tu.c.  */
extern int data[4];
extern void abort (void);

int
main (void)
{
  if (data[0] + data[3] != 5)
    abort ();
  return 0;
}
