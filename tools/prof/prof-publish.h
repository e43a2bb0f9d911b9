/* gorc-prof --unwind=bpf: the walker's new tables put into its map of
   tables by a thread of their own.

   Every update of a map of maps waits for an RCU grace period before it
   returns (the kernel's maybe_wait_bpf_programs): 8-20 ms on the test
   machine, however few tables it puts.  Done by the loop that reads
   the samples, each module met by a running program stopped the loop
   that long: its ring filled (a workload of short processes lost 10-20%
   of its samples) and the processes started meanwhile were told to the
   walker late, so their samples were copied.  The publisher takes that
   wait off the loop: the loop queues a built table and goes on; the
   publisher puts all that is queued in one update, then says which
   tables are in (a descriptor to poll).  */
#ifndef GORC_PROF_PUBLISH_H
#define GORC_PROF_PUBLISH_H

#include <stddef.h>
#include <stdint.h>

struct prof_publisher;

/* A table the publisher is done with: its TAG (the caller's), and
   whether the map of tables took it.  */
struct prof_published {
  size_t tag;
  int ok;
};

/* The publisher of the map of maps MAP_FD (its thread started at the
   first table queued), or NULL when out of memory or no eventfd.  */
struct prof_publisher *prof_publisher_new(int map_fd);
/* Put the inner map INNER_FD at KEY, TAG saying which table it is.  The
   descriptor stays the caller's: close it once the table is done.  */
void prof_publisher_queue(struct prof_publisher *p, uint32_t key, int inner_fd, size_t tag);
/* The tables done since the last call into OUT (at most MAX): how
   many.  */
size_t prof_publisher_done(struct prof_publisher *p, struct prof_published *out, size_t max);
/* Wait until every table queued is done.  */
void prof_publisher_wait(struct prof_publisher *p);
/* A descriptor readable while tables done wait for prof_publisher_done.  */
int prof_publisher_fd(const struct prof_publisher *p);
/* Stop the thread (after what it is putting) and free P; the queued
   tables not put yet are dropped.  */
void prof_publisher_free(struct prof_publisher *p);

#endif
