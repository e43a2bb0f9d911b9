/* The chain the ld -r test walks: every function notes its own return
   address before it calls on (rt_push), so the walk at the innermost
   frame knows every return address it must report.  Shared by
   index-partial-link.c and support/partial-b.c.  */
#ifndef PARTIAL_CHAIN_H
#define PARTIAL_CHAIN_H

#define CHAIN_MAX 32
extern void *chain_ra[CHAIN_MAX];
extern int chain_n;
extern volatile int chain_sink;

/* Note this function's return address; rt_pop when it returns.  */
#define rt_push() (chain_ra[chain_n++] = __builtin_return_address (0))
#define rt_pop() (chain_n--)

/* The innermost frame: walks and compares (index-partial-link.c).  */
int probe (int x);

/* Calls the next function of the chain: STEP names it (0: probe).  */
typedef int (*chain_fn) (const char *steps, int x);
int chain_next (const char *steps, int x);

int b_text (const char *steps, int x);
int b_cold (const char *steps, int x);
int b_split (const char *steps, int x);
int a_text (const char *steps, int x);
int a_cold (const char *steps, int x);
int a_split (const char *steps, int x);
#endif
