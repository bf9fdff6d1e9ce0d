/* record_fold.h - keep a placement record within its budget without dropping a step.
 *
 * record.h has the format. While our object is over the budget, one thing is folded
 * at a time, each the least recent that can go:
 *   1. the oldest step (but the one being written) joins the group of steps identical
 *      to it in "folded"."same": same nodes, and on each node the same request, modes,
 *      kernel path, plans, policy, node kinds and note. A group's entry per node keeps
 *      all of that once and adds up what differs from step to step: tasks, samples,
 *      last pages, expected pages ("exp", from the target shares), the latest sample
 *      time; "peak" is the largest of the steps', "drift_max" the largest drift;
 *   2. the group whose newest step is the oldest goes into "by_node": per node, across
 *      steps, the steps counted ("nsteps"), modes ("mixed" when they differ), pages
 *      and notes added up as above, plans no longer;
 *   3. "by_node" goes into "job": one total for the whole job, with the node names;
 *   4. the step being written: its nodes into one summary "*" (node count and names,
 *      pages summed per NUMA node over the nodes); then the job's node names go;
 *      then the step too goes the way of 1-3;
 *   5. the last resorts: the job's step list (the count stays), then the node names
 *      of the summaries left.
 * What is folded says so by where it is; every folded part lists its steps ("ids",
 * step_ids.h) and counts them ("nsteps").
 */
#ifndef SMPOL_RECORD_FOLD_H
#define SMPOL_RECORD_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * smpol_record_fit - fold record (our object) until its compact text takes at most
 * budget bytes, keep_step last, and set its "v" to what it now needs. 0, or -E2BIG
 * (or -ENOMEM) with a sentence when even the job's total does not fit.
 */
int smpol_record_fit(json_object *record, const char *keep_step, size_t budget, char *err, size_t errlen);

/* smpol_record_summary_add - fold node's entry into a step's summary "*" (an empty
 * object starts one). A node the summary names already is not counted again. */
void smpol_record_summary_add(json_object *summary, const char *node, json_object *entry);

/* What the folded part of a record says of one step's entry on one node. */
enum smpol_folded {
	SMPOL_FOLDED_NO,        /* nothing: the step or the node is not there */
	SMPOL_FOLDED_NAMED,     /* a part lists the step and names the node */
	SMPOL_FOLDED_NAMELESS,  /* a part counts steps or nodes it no longer names: it
	                         * neither shows nor denies the entry */
};

enum smpol_folded smpol_record_folded_has(json_object *record, const char *step, const char *node);

#endif
