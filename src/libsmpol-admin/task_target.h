/* task_target.h - the plan a running task should have now, decided as at its launch.
 *
 * mpolctl rebalance and watch move a task's pages toward this target, so it must be
 * what the task's next allocations follow. It comes from one decision
 * (smpol_place), fed with:
 *   kept     the step's kept placement (step_state.h): the request, site
 *            configuration, job memory, free memory at launch and lease outcome the
 *            step was launched with, over today's topology and weights table;
 *   defaults no kept placement (a process not started by the plugin, or a caller who
 *            may not read the kept placements): the spec the caller gives, the
 *            built-in site configuration and the bandwidth table the caller resolved
 *            as the plugin would; the task runs on the node's weights table, unless
 *            its job holds the weights lease (the journal says so);
 * and a --spec given to mpolctl replaces the request in either case.
 * The task's plan is then the one for its CPUs now (a migrated task gets its new
 * socket's plan).
 */
#ifndef SMPOL_TASK_TARGET_H
#define SMPOL_TASK_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "bitmap.h"
#include "error.h"
#include "placement.h"
#include "step_state.h"
#include "topology.h"
#include "wi.h"

struct smpol_task_target {
	char source[160];              /* "job 12 step 0's kept placement", "defaults: ..." */
	char spec_text[256];           /* the request decided on */
	struct smpol_plan plan;        /* the plan for the task's CPUs, weights as in force (the
	                                * caller's after a 0 return: smpol_plan_free) */
	enum smpol_kernel_path path;
	bool weights_known;
	uint64_t min_region_kb;        /* region-aware: only mappings this large take the plan, 0 = all */
	char note[SMPOL_ERRLEN];       /* the decision's note, "" = none */
};

struct smpol_target_in {
	const struct smpol_topology *topo;       /* today's */
	const struct smpol_wi_table *table;      /* today's */
	const char *table_error;                 /* the table could not be read, or NULL */
	const struct smpol_step_state *kept;     /* NULL = none */
	const struct smpol_spec *spec;           /* a --spec, or the request without kept state; NULL = kept's */
	const char *why_defaults;                /* why there is no kept placement (for source) */
	bool job_holds_lease;                    /* without kept placement: the journal names its job */
	const struct smpol_bw_table *bandwidth;  /* without kept placement; NULL = sysfs HMAT */
	const struct smpol_cpus *cpus;           /* the task's CPUs now */
};

/*
 * smpol_task_target - decide. 0; -EINVAL with a sentence when the request names no
 * interleave (none) or cannot be had (the decision's failure), -ENOENT when no plan
 * fits the CPUs, -ENOMEM.
 */
int smpol_task_target(const struct smpol_target_in *in, struct smpol_task_target *out, char *err, size_t errlen);

/*
 * smpol_step_state_find - the kept placement of a task: the one listing it by pid and
 * start time, else the one of its job and step (a process the task started), else
 * NULL. step_id SMPOL_NO_STEP when unknown.
 */
#define SMPOL_NO_STEP UINT32_MAX
const struct smpol_step_state *smpol_step_state_find(const struct smpol_step_state *states, int n, pid_t pid,
						     uint64_t start, uint32_t job_id, uint32_t step_id);

#endif
