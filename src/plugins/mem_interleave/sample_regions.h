/* sample_regions.h - the sampler's region-aware part (slurmstepd, root): at each sample,
 * before it reads where the memory is, each task's large mappings are placed on its
 * plan (region_place.h). Only the sampler thread calls these. */
#ifndef MEM_INTERLEAVE_SAMPLE_REGIONS_H
#define MEM_INTERLEAVE_SAMPLE_REGIONS_H

#include <stdint.h>

#include "placement.h"
#include "sampling.h"
#include "task_ref.h"
#include "topology.h"

struct sample_regions;

/* NULL (nothing to do) unless pl is region-aware with a way to place its mappings. */
struct sample_regions *sample_regions_new(const struct smpol_placement *pl, const struct smpol_topology *topo,
				      long pmbind_nr, uint32_t job_id, const char *step_key);

/* One sample of the pinned task number `index` (the order tasks started in); its large
 * mappings by how they are placed go into the round of `sampling`. Errors are logged
 * once per task; a task that ended is no error. */
void sample_regions_sample(struct sample_regions *ar, int index, const struct smpol_task_ref *t,
			   struct smpol_sampling *sampling);

void sample_regions_free(struct sample_regions *ar);

#endif
