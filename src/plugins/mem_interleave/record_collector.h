/* record_collector.h - slurmstepd (root) on a node with children in the step's fan-in tree
 * (record_gather.h): a thread that takes their record entries while the step runs,
 * so that this node hands them on as they come, or on the first node writes them, at
 * once. */
#ifndef MEM_INTERLEAVE_RECORD_COLLECTOR_H
#define MEM_INTERLEAVE_RECORD_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "host.h"

struct record_collector;

/* Listen for job/step's entries from `expected` nodes in all (this one included:
 * its subtree); on_delivery(on_delivery_arg) is called, from the collector's thread,
 * after each batch of deliveries (NULL: not called).
 * 0 or -errno with a sentence (then every node writes its own entry). */
int record_collector_start(const struct smpol_host *h, uint32_t job, const char *step, uint32_t expected,
		      void (*on_delivery)(void *), void *on_delivery_arg, struct record_collector **g,
		      char *err, size_t errlen);

/* While the step runs: the entries so far with this node's own (own may be NULL)
 * ({NODE:ENTRY}, the caller's; NULL when out of memory), whether that is the whole
 * subtree, and in *mark the deliveries they hold, for record_collector_handed_on. */
json_object *record_collector_peek(struct record_collector *g, const char *node, json_object *own, bool *complete,
			      int *mark);

/* The entries of the deliveries up to mark (record_collector_peek's) reached this node's parent. */
void record_collector_handed_on(struct record_collector *g, int mark);

/* Deliveries taken since the entries were last handed on (all of them before that). */
int record_collector_new_deliveries(struct record_collector *g);

struct record_collector_end {
	int early;              /* entries in when the finish began: handed over while the step ran */
	int missing;            /* nodes that did not deliver in time */
	int deliveries;         /* messages taken, one per child delivery (a slurmd fork each) */
	int new_deliveries;     /* of them, since the entries were last handed on */
};

/*
 * record_collector_finish - add this node's entry, wait until every node's entry is in or
 * wait_ms have passed, stop listening (a later sender's delivery then fails and it
 * writes its entries itself), and return the entries ({NODE:ENTRY}, the caller's),
 * with the counts in *end.
 */
json_object *record_collector_finish(struct record_collector *g, const char *node, json_object *own, int wait_ms,
				struct record_collector_end *end);

/* Stop the thread and free (entries not yet returned are dropped). */
void record_collector_free(struct record_collector *g);

#endif
