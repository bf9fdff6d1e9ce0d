/* rebalance.h - move one pinned task's pages toward a plan's weights.
 *
 * Three walks over the task's private anonymous memory, in address order and in
 * bounded batches: count (move_pages query), move (the minimal-move planner picks
 * the pages; move_pages moves each batch), and count again to report the result.
 * Between batches: the stop flag (SIGINT) ends the walk after the current batch,
 * the pidfd is re-checked (a task that exits ends its walk cleanly), and the rate
 * limit sleeps. Pages that cannot move are counted by reason and never retried, so
 * a second run resumes: the planner counts what already moved toward the target.
 *
 * With the process_mbind backend the policy of the task's mappings is set first
 * (every private anonymous mapping, touched or not, so that the pages they fault
 * later follow the plan), then the pages already there move as above.
 *
 * With min_region only the mappings of at least that size take part (region-aware
 * placement: the rest stays where the task's own policy put it), and each is
 * balanced on its own, so that every large array is spread by the weights.
 * slurmstepd's sampler walks a region-aware step's new large mappings the same way
 * (smpol_rebalance_some, region_place.h).
 */
#ifndef SMPOL_REBALANCE_H
#define SMPOL_REBALANCE_H

#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "kernel.h"
#include "pages.h"
#include "task_ref.h"

#define SMPOL_REBALANCE_BATCH 512      /* pages per syscall (2 MiB of base pages) */

struct smpol_rebalance_opts {
	enum smpol_backend backend;        /* already chosen (smpol_backend_choose) */
	long pmbind_nr;                   /* for SMPOL_BACKEND_PROCESS_MBIND, probed */
	int pmbind_mode;                  /* the policy it sets, with its MPOL_F_* flags */
	unsigned long pmbind_mask[SMPOL_MASK_LONGS];  /* over these nodes (smpol_plan_policy) */
	uint64_t min_region;              /* bytes; 0 = every mapping as one whole */
	unsigned slack_permille;          /* leave a region whose minimum is at most this
	                                   * share of its pages (0 = move any surplus) */
	bool dry_run;                     /* plan and count, move nothing */
	double rate_mb_s;                 /* 0 = as fast as the kernel goes */
	unsigned batch;                   /* pages per syscall, 0 = SMPOL_REBALANCE_BATCH */
	const volatile sig_atomic_t *stop; /* non-zero: stop after the current batch (may be NULL) */
	unsigned weight[SMPOL_MAX_NODES];  /* the target: weight per node, 0 = not in the plan */
};

struct smpol_rebalance_result {
	int max_node;                     /* highest node in any array below */
	uint64_t before[SMPOL_MAX_NODES];  /* pages per node at the first count */
	uint64_t target[SMPOL_MAX_NODES];
	uint64_t after[SMPOL_MAX_NODES];   /* at the last count (== before on a dry run) */
	uint64_t pages;                   /* present pages counted */
	uint64_t minimum;                 /* sum of positive surpluses */
	uint64_t planned;                 /* pages the planner chose */
	uint64_t moved;                   /* pages the kernel moved */
	uint64_t busy, shared, nomem, vanished, other; /* pages that did not move, by reason */
	int regions;                      /* mappings walked */
	int policies;                     /* mappings given the policy (process_mbind) */
	int balanced;                     /* regions within the slack: nothing moved */
	double seconds;
	bool interrupted;                 /* the stop flag ended the walk */
	bool exited;                      /* the task exited during the walk */
	char note[256];                   /* what the backend could not do, "" = nothing */
};

/*
 * smpol_rebalance_task - see above. The caller checked permissions (root, or the
 * task's owner). Returns 0 also when the task exited before or during the walk
 * (r->exited) or the stop flag was raised (r->interrupted); -errno with a sentence
 * when nothing could be done.
 */
int smpol_rebalance_task(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			struct smpol_rebalance_result *r, char *err, size_t errlen);

/*
 * smpol_rebalance_some - the same walks over the given mappings only (the caller read
 * them and chose them: the sampler's region-aware placement, region_place.h), each
 * balanced on its own when o->min_region is set; sets no policy. A mapping gone
 * meanwhile counts its pages as vanished. Returns as smpol_rebalance_task.
 */
int smpol_rebalance_some(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			const struct smpol_region *regions, int nregions, struct smpol_rebalance_result *r,
			char *err, size_t errlen);

/* Pages that did not move, whatever the reason. */
uint64_t smpol_rebalance_not_moved(const struct smpol_rebalance_result *r);

#endif
