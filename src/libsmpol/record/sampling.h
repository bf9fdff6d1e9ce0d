/* sampling.h - what a step's samples add up to on one node: anonymous pages per NUMA
 * node (last sample and peak), the pages each node should hold by the plans in force
 * (the target), the policy seen on the tasks' memory, and a region-aware step's large
 * mappings by how they are placed.
 *
 * The arithmetic of slurmstepd's sampler, apart from its thread and /proc reading, so
 * that it is unit tested: a task's target comes from the plan whose node set is the one
 * in the task's policy (numa_maps), weighted by that plan's weights as the kernel
 * applies them (plain interleave: equal shares), times the task's pages. Arrays are
 * sized by the node ids really seen (the machine's nodes), not by SMPOL_MAX_NODES.
 */
#ifndef SMPOL_SAMPLING_H
#define SMPOL_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "numa_maps.h"
#include "plan.h"

/* A region-aware step's large mappings at one sample, by how they are placed
 * (region_place.h). */
struct smpol_region_ways {
	int allocation;         /* the plan's policy from the interposer, as they were allocated */
	int sampler;            /* on the plan by the sampler (process_mbind or page moves) */
	int pending;            /* not on the plan at the sample: placed at the next one, or not placeable */
};

struct smpol_sampling {
	int n;                  /* samples taken (rounds with at least one task read) */
	int64_t time;           /* Unix time of the last one */
	int max_node;           /* highest node id with pages or a target, -1 = none */
	int span;               /* the arrays below hold nodes 0..span-1 */
	uint64_t *last;         /* anonymous pages per node at the last sample */
	uint64_t *peak;         /* the most pages seen per node */
	double *expect;         /* target pages per node at the last sample */
	bool have_target;       /* some task's policy matched a plan */
	char policy[64];        /* the policy of the task holding most memory, "" = none */
	bool have_regions;      /* a region-aware step's sampler placed some task's mappings */
	struct smpol_region_ways regions;   /* its large mappings at the last sample */
	/* the round being taken */
	uint64_t *cur;
	double *cur_expect;
	int cur_tasks, cur_matched, cur_max;
	uint64_t cur_most;
	char cur_policy[64];
	bool cur_have_regions;
	struct smpol_region_ways cur_regions;
};

/* Empty, with room for nodes 0..span-1 (grown when a higher node shows up). 0 or
 * -ENOMEM with a sentence. */
int smpol_sampling_init(struct smpol_sampling *s, int span, char *err, size_t errlen);
void smpol_sampling_free(struct smpol_sampling *s);

/* Start a round (one sample of every live task). */
void smpol_sampling_begin(struct smpol_sampling *s);

/* Add one task's usage to the round; plans/path are the step's placement. -ENOMEM
 * (the task is then left out). */
int smpol_sampling_add(struct smpol_sampling *s, const struct smpol_numa_usage *u,
		       const struct smpol_plan *plans, int nplans, enum smpol_kernel_path path);

/* The same for a process whose pages are moved onto `plan` whatever its policy says
 * (a child placed by its own CPUs, child_place.h); plan NULL = no target. */
int smpol_sampling_add_on(struct smpol_sampling *s, const struct smpol_numa_usage *u, const struct smpol_plan *plan,
			  enum smpol_kernel_path path);

/* Add one task's large mappings to the round (region-aware steps). */
void smpol_sampling_add_regions(struct smpol_sampling *s, const struct smpol_region_ways *w);

/* End the round: when a task was added, it becomes the last sample (n, time, last,
 * peak, target, policy, regions); a round without tasks changes nothing. */
void smpol_sampling_end(struct smpol_sampling *s, int64_t now);

/* The plan whose node set equals the one in a numa_maps policy, or NULL. */
const struct smpol_plan *smpol_plan_of_policy(const char *policy, const struct smpol_plan *plans, int nplans);

#endif
