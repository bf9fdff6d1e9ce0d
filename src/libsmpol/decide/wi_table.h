/* wi_table.h - the kernel's weights table as a value: what a decision reads it to hold
 * and what a step's plans need it to hold (kernel/wi.h reads, writes and restores it in
 * sysfs; this is the part a decision uses, so that decide/ needs nothing of kernel/).
 */
#ifndef SMPOL_WI_TABLE_H
#define SMPOL_WI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmap.h"
#include "plan.h"

struct smpol_wi_table {
	bool present;                  /* the directory exists: the kernel has weighted interleave */
	char auto_name[16];            /* "" when the kernel has no auto file */
	int auto_enabled;              /* 1, 0, or -1 when there is no auto file */
	struct smpol_bitmap has_file;   /* nodes with a nodeN file */
	uint8_t weight[SMPOL_MAX_NODES];
};

/*
 * smpol_wi_from_plans - one global table holding every plan's weights, and in `which`
 * the nodes they name. -EINVAL when two plans give one node different weights (the
 * table cannot hold both: scope=all on several sockets).
 */
int smpol_wi_from_plans(const struct smpol_plan *plans, int nplans, struct smpol_wi_table *t,
		       struct smpol_bitmap *which, char *err, size_t errlen);

/* Does the table already give every node in `which` the weight `want` has? A 0 file
 * (6.9-6.15: never set) counts as the kernel's default 1. */
bool smpol_wi_holds(const struct smpol_wi_table *t, const struct smpol_wi_table *want,
		    const struct smpol_bitmap *which);

/*
 * smpol_wi_weigh_plans - give each plan the weights the kernel's table holds for its
 * nodes (a weight of 0, never set, counts as the kernel's 1), with weight sums and
 * modelled efficiency recomputed: what tasks under MPOL_WEIGHTED_INTERLEAVE really
 * get when their step did not write the table (mode auto, a shared node).
 */
void smpol_wi_weigh_plans(const struct smpol_wi_table *t, struct smpol_plan *plans, int nplans);

#endif
