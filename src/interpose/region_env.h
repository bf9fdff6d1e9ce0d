/* region_env.h - what the plugin hands the interposer (mem_interleave_regions.so):
 * the one environment variable that says which allocations it places, and how.
 *
 *   SLURM_MEM_INTERLEAVE_REGION_POLICY="MIN_BYTES MODE NODES"
 *     MIN_BYTES  the smallest allocation placed (min_region= in bytes)
 *     MODE       weighted | interleave, with "=static" when NODES names nodes that have
 *                no memory yet (MPOL_F_STATIC_NODES: they join when it appears)
 *     NODES      the node list in the kernel's syntax ("0,2", "0-3")
 *   e.g. "67108864 weighted 0,2"
 *
 * slurm_spank_task_init writes it (and puts the library into LD_PRELOAD) for a task of
 * a step that asked for min_region=, and removes both from a task that did not, so a
 * step inherits neither from the batch script that ran it. The interposer reads it
 * once, before it places anything; unset or malformed means it places nothing.
 * Both sides compile this file, so the format has one definition. Base only.
 */
#ifndef SMPOL_REGION_ENV_H
#define SMPOL_REGION_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmap.h"

#define SMPOL_REGION_ENV "SLURM_MEM_INTERLEAVE_REGION_POLICY"

struct smpol_region_env {
	uint64_t min_bytes;            /* >= 1 */
	bool weighted;                 /* MPOL_WEIGHTED_INTERLEAVE, else MPOL_INTERLEAVE */
	bool static_nodes;             /* MPOL_F_STATIC_NODES */
	struct smpol_bitmap nodes;     /* not empty, ids < SMPOL_MAX_NODES */
};

/* The variable's value for e. -ENOSPC when buf is short, -EINVAL for an empty node set. */
int smpol_region_env_format(const struct smpol_region_env *e, char *buf, size_t len);

/* Parse a value written by smpol_region_env_format. 0, or -EINVAL with a sentence. */
int smpol_region_env_parse(const char *text, struct smpol_region_env *e, char *err, size_t errlen);

#endif
