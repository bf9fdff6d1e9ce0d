/* region_place.h - the sampler's part of region-aware placement: a running task's
 * large mappings, one sample at a time (placement.h says why; slurmstepd's sampler
 * calls it, sample_regions.c; child_place.c for processes a task starts elsewhere). The
 * interposer (src/interpose/) places large allocations as they are made; this places
 * what it could not (a static program, a container without the library, an allocation
 * it missed, a child pinned to another plan's CPUs).
 *
 * At each sample the task's private anonymous mappings are read from /proc/PID/maps,
 * and those of at least min_region bytes are known by what /proc/PID/numa_maps says of
 * them, never by their address alone (an array freed and mapped again at the same
 * address is a new mapping with the task's own policy):
 *   - its policy is the plan's (mode and nodes): placed, nothing to do. Placed as it
 *     was allocated, unless process_mbind gave it that policy at an earlier sample.
 *   POLICY  any other gets the plan's policy by process_mbind (its later faults follow
 *           it), then the pages it already holds move by the minimal-move planner.
 *   MOVE    no kernel call sets another task's policy: one whose pages per node are
 *           more than SMPOL_REGION_SLACK_PERMILLE off the weights has them moved by
 *           the minimal-move planner; one within it is left (kept by the sampler).
 *           One whose pages could not move at all is walked again only once its
 *           counts change (it faulted more, or was mapped again and touched).
 * Each mapping is balanced on its own, in slices of min_region bytes, so that every
 * large array is spread by the weights, also where the kernel merged adjacent arrays
 * into one mapping (a static program's malloc'ed arrays).
 * A sample costs one maps and one numa_maps read per task (numa_maps walks the page
 * tables: bench/regions), plus the walks of the mappings that need placing.
 * What the sampler sees are mappings, not allocations: adjacent mappings the kernel
 * merged are one, and an allocator's arena or chunk is one whatever it holds.
 */
#ifndef SMPOL_REGION_PLACE_H
#define SMPOL_REGION_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pages.h"
#include "placement.h"
#include "rebalance.h"
#include "task_ref.h"

/* Leave a mapping whose pages are at most this share off the plan (2 = 0.2%): well
 * inside the 1% a placed array is held to, so that what the sampler leaves is placed. */
#define SMPOL_REGION_SLACK_PERMILLE 2
/* A mapping is walked in at most this many slices (smpol_region_slices). */
#define SMPOL_REGION_MAX_SLICES 4096

/* A mapping whose pages could not move at all (a full node, a node the task may not
 * use), as numa_maps counted them then: walked again only once they differ. */
struct smpol_region_stuck {
	uintptr_t start, end;
	uint64_t counts;               /* a hash of its pages per node */
};

/* What is kept of one task between samples. Zeroed = nothing placed yet. */
struct smpol_region_memory {
	struct smpol_region *placed;   /* the mappings process_mbind gave the policy (start, end):
	                                * only to tell them from those placed as allocated */
	int nplaced;
	struct smpol_region_stuck *stuck;
	int nstuck;
};

struct smpol_region_opts {
	enum smpol_regions_by by;      /* POLICY or MOVE */
	uint64_t min_region;           /* bytes */
	bool weighted;                 /* the plan's policy: weighted interleave, else interleave */
	struct smpol_bitmap nodes;     /* over the plan's nodes (as numa_maps prints them) */
	/* the task's plan: weights (weight[]), and for POLICY the process_mbind number,
	 * mode and mask (smpol_plan_policy); backend and min_region are set here */
	struct smpol_rebalance_opts move;
};

/* One sample of one task: its large mappings, by how they are placed. */
struct smpol_region_sample {
	int large;                     /* large mappings seen */
	int at_allocation;             /* with the plan's policy, not given it by the sampler */
	int kept;                      /* on the plan by the sampler's earlier work, or by chance */
	int placed;                    /* placed in this sample */
	int unmoved;                   /* of them, with pages that could not all move */
	int policies;                  /* of them, given the policy by process_mbind */
	bool policy_refused;           /* process_mbind failed (not for a mapping gone meanwhile) */
	uint64_t pages;                /* pages counted in the mappings placed */
	uint64_t minimum;              /* the fewest pages that could bring them on the plan */
	uint64_t moved, not_moved;
	bool exited;                   /* the task ended during the sample (not an error) */
};

/*
 * smpol_region_opts_for - the options for a task of a region-aware placement pl that
 * took plan p: its weights, and with POLICY the plan's policy (smpol_plan_policy) and
 * process_mbind's number. -EINVAL with a sentence when pl is not region-aware.
 */
int smpol_region_opts_for(const struct smpol_placement *pl, const struct smpol_plan *p, long pmbind_nr,
			  struct smpol_region_opts *o, char *err, size_t errlen);

/* The options to place mappings of at least min_region bytes (0: all, each balanced
 * as one whole) by `by` onto plan p, whose tasks take `path`. 0 or -errno with a sentence. */
int smpol_region_opts_make(enum smpol_regions_by by, uint64_t min_region, enum smpol_kernel_path path,
			   const struct smpol_plan *p, long pmbind_nr, struct smpol_region_opts *o, char *err, size_t errlen);

/* How one large mapping stands, from its numa_maps line. */
enum smpol_region_state {
	SMPOL_REGION_PLANNED,          /* its policy is the plan's */
	SMPOL_REGION_ON_PLAN,          /* MOVE: its pages are within the slack of the weights */
	SMPOL_REGION_OFF_PLAN,         /* it needs placing */
};

/*
 * smpol_region_state - a large mapping by its numa_maps policy (as printed) and its
 * anonymous pages per node (count[SMPOL_MAX_NODES]). With POLICY a mapping not
 * PLANNED is always OFF_PLAN: it needs the policy for the pages it faults later. Pure.
 */
enum smpol_region_state smpol_region_state(const struct smpol_region_opts *o, const char *policy,
					   const uint64_t *count);

/*
 * smpol_regions_to_place - of `now` (the task's private anonymous mappings, as read
 * from maps) and its numa_maps text, the large ones that need placing into todo[]
 * and a hash of their pages per node into counts[] (room for n each), their number
 * into *ntodo; s->large, s->at_allocation and s->kept count the others (m tells
 * process_mbind's from the interposer's, and which are stuck). A large mapping
 * numa_maps does not show (gone meanwhile) is neither. Pure.
 */
void smpol_regions_to_place(const struct smpol_region *now, int n, const char *numa_maps,
			    const struct smpol_region_opts *o, const struct smpol_region_memory *m,
			    struct smpol_region *todo, uint64_t *counts, int *ntodo, struct smpol_region_sample *s);

/*
 * smpol_region_slices - r cut into page-aligned slices of `size` bytes, the last one
 * taking the rest, so that each is at least `size` (larger slices when r would need
 * more than SMPOL_REGION_MAX_SLICES): into out[] (room for SMPOL_REGION_MAX_SLICES),
 * their count returned. r itself when it is shorter than two slices. Pure.
 */
int smpol_region_slices(const struct smpol_region *r, uint64_t size, struct smpol_region *out);

/*
 * smpol_region_place_task - one sample of the pinned task t (see above); m is updated.
 * 0 also when the task exited (s->exited) or a mapping went away meanwhile (placed
 * again at the next sample if it came back); -errno with a sentence otherwise (what
 * failed is tried again at the next sample).
 */
int smpol_region_place_task(const struct smpol_task_ref *t, const struct smpol_region_opts *o,
			    struct smpol_region_memory *m, struct smpol_region_sample *s, char *err, size_t errlen);

void smpol_region_memory_free(struct smpol_region_memory *m);

#endif
