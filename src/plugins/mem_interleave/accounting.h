/* accounting.h - the placement record of a step (slurmstepd side, root).
 *
 * The step side calls these in order: begin after planning, task_begin per task,
 * end at step exit. Pages are sampled from the tasks while they live; at the end the
 * record is merged into the job's AdminComment under "mempolicy".
 */
#ifndef MEM_INTERLEAVE_ACCOUNTING_H
#define MEM_INTERLEAVE_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel.h"
#include "plan.h"
#include "spec.h"

struct step_placement {
	uint32_t job_id;
	uint32_t step_id;
	const struct mpol_spec *spec;          /* as requested */
	const struct mpol_plan *plans;         /* one per initiator */
	int nplans;
	const struct mpol_kernel_caps *caps;
	enum mpol_kernel_path path;            /* what the tasks apply */
	bool sysfs_written;                    /* the step held the weights lease */
	const char *note;                      /* fallback or error sentence, or NULL */
	unsigned sample_interval;              /* seconds, 0 = only the final sample */
};

/* slurmstepd (root), slurm_spank_init_post_opt, after planning. */
int accounting_step_begin(const struct step_placement *sp, char *err, size_t errlen);
/* slurmstepd (root), slurm_spank_task_post_fork. */
void accounting_task_begin(pid_t pid);
/* slurmstepd (root), slurm_spank_exit: last sample, write the record. */
void accounting_step_end(void);

#endif
