/* sample_tree.h - the sampler's walk of each task's process tree (slurmstepd, root): the
 * task and every process it started, sampled one by one; children follow their CPUs.
 *
 * At each sample, each task's plan by its CPUs joins the plans in use (a spanning
 * task's combined plan is then in the record and its pages get a target), and each
 * process the task started (found through the children lists, pinned, checked to be
 * the job's: child_place.h) whose CPUs call for another plan than the policy it
 * inherited is placed on its own plan: its pages moved, and with process_mbind its
 * mappings' policy set. A placed child stays placed (its new pages move at the next
 * samples) until it exits or its CPUs call for yet another plan. Rate: one look per
 * process per sample (sample_interval), at most TREE_MAX processes per task; each
 * child's first placement on a plan is logged with what moved, its errors and a
 * policy of its own once. Only the sampler thread calls these (and the step's end,
 * after joining it, reads the plans).
 */
#ifndef MEM_INTERLEAVE_SAMPLE_TREE_H
#define MEM_INTERLEAVE_SAMPLE_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "placement.h"
#include "sampling.h"
#include "topology.h"

/* processes followed per task (the task and its descendants) */
#define TREE_MAX 256

struct sample_tree;

struct sample_tree_in {
	const struct smpol_placement *pl;
	const struct smpol_topology *topo;
	bool pmbind;                   /* process_mbind configured and probed */
	long pmbind_nr;
	uint32_t job_id;
	uid_t uid;                     /* the job's user: no other process is touched */
	const char *step;              /* the step's record key, for log lines */
};

/* NULL on ENOMEM. */
struct sample_tree *sample_tree_new(const struct sample_tree_in *in);

/* One sample of the trees of the live tasks into s (between smpol_sampling_begin and
 * _end); children that went away are forgotten. */
void sample_tree_sample(struct sample_tree *t, const pid_t *tasks, int ntasks, struct smpol_sampling *s);

/* The plans the step's processes ran on: the placement's, then the combined plans and
 * children's plans seen (for the record). */
const struct smpol_plan *sample_tree_plans(const struct sample_tree *t, int *nplans);

void sample_tree_free(struct sample_tree *t);

#endif
