/* region_place.h - region-aware placement of a running task's large mappings, one
 * sample at a time (placement.h says why; slurmstepd's sampler calls it, record_step.c).
 *
 * At each sample the task's private anonymous mappings are read and those of at least
 * min_region bytes placed on the task's plan:
 *   POLICY  a mapping seen for the first time gets the plan's policy by process_mbind
 *           (its later faults follow it), then the pages it already holds (faulted on
 *           the local node before) move by the minimal-move planner. Read from maps,
 *           so a mapping reserved but untouched gets its policy too. Once placed it
 *           costs nothing more: a sample is one read of /proc/PID/maps.
 *   MOVE    no kernel call sets another task's policy: the pages of a mapping move by
 *           the minimal-move planner when it is new or its resident size changed since
 *           it was last balanced (read from smaps). A mapping that stopped growing
 *           costs one smaps line per sample; one that grows is walked again.
 * Each mapping is balanced on its own, so every large array is spread by the weights.
 * A mapping is known by its start and end: one that grew or moved is placed again.
 * Mappings that went away are forgotten.
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

/* What is kept of one task between samples. Zeroed = nothing placed yet. */
struct smpol_region_memory {
	struct smpol_region *placed;   /* the large mappings as placed (start, end, rss_kb) */
	int nplaced;
	bool failed;                   /* an error was reported once: the next ones are not */
};

struct smpol_region_opts {
	enum smpol_regions_by by;      /* POLICY or MOVE */
	uint64_t min_region;           /* bytes */
	/* the task's plan: weights (weight[]), and for POLICY the process_mbind number,
	 * mode and mask (smpol_plan_policy); backend and min_region are set here */
	struct smpol_rebalance_opts move;
};

/* One sample of one task. */
struct smpol_region_sample {
	int large;                     /* large mappings seen */
	int placed;                    /* of them, placed in this sample */
	int policies;                  /* given the policy by process_mbind */
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

/* The options to place mappings of at least min_region bytes (0: all) by `by` onto
 * plan p, whose tasks take `path`. 0 or -errno with a sentence. */
int smpol_region_opts_make(enum smpol_regions_by by, uint64_t min_region, enum smpol_kernel_path path,
			   const struct smpol_plan *p, long pmbind_nr, struct smpol_region_opts *o, char *err, size_t errlen);

/*
 * smpol_regions_to_place - of `now` (the task's private anonymous mappings, as read),
 * the ones of at least min_region bytes that need placing (see above) into todo[]
 * (room for n), their count into *ntodo; *nlarge = the large ones in all. Pure.
 */
void smpol_regions_to_place(const struct smpol_region *now, int n, uint64_t min_region, enum smpol_regions_by by,
			    const struct smpol_region_memory *m, struct smpol_region *todo, int *ntodo, int *nlarge);

/*
 * smpol_region_place_task - one sample of the pinned task t (see above); m is updated.
 * 0 also when the task exited (s->exited) or a mapping went away meanwhile (placed
 * again at the next sample if it came back); -errno with a sentence otherwise.
 */
int smpol_region_place_task(const struct smpol_task_ref *t, const struct smpol_region_opts *o,
			    struct smpol_region_memory *m, struct smpol_region_sample *s, char *err, size_t errlen);

void smpol_region_memory_free(struct smpol_region_memory *m);

#endif
