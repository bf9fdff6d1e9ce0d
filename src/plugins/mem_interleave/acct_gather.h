/* acct_gather.h - slurmstepd (root) on a node with children in the step's fan-in tree
 * (record_gather.h): a thread that takes their record entries while the step runs,
 * so that this node hands them on, or on the first node writes them, at once. */
#ifndef MEM_INTERLEAVE_ACCT_GATHER_H
#define MEM_INTERLEAVE_ACCT_GATHER_H

#include <stdint.h>

#include <json-c/json.h>

#include "host.h"

struct acct_gather;

/* Listen for job/step's entries from `expected` nodes in all (this one included:
 * its subtree).
 * 0 or -errno with a sentence (then every node writes its own entry). */
int acct_gather_start(const struct smpol_host *h, uint32_t job, const char *step, uint32_t expected,
		      struct acct_gather **g, char *err, size_t errlen);

/*
 * acct_gather_finish - add this node's entry, wait until every node's entry is in or
 * wait_ms have passed, stop listening (a later sender's delivery then fails and it
 * writes its entries itself), and return the entries ({NODE:ENTRY}, the caller's). The
 * nodes that did not deliver in time are counted in *missing, the messages taken in
 * *deliveries (one per child that delivered: what its slurmd forked for).
 */
json_object *acct_gather_finish(struct acct_gather *g, const char *node, json_object *own, int wait_ms,
				int *missing, int *deliveries);

/* Stop the thread and free (entries not yet returned are dropped). */
void acct_gather_free(struct acct_gather *g);

#endif
