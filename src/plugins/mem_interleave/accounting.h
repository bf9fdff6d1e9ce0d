/* accounting.h - the placement record of a step (slurmstepd side, root).
 *
 * The step side calls these in order: begin after planning, task_begin per task,
 * end at step exit. A thread samples the tasks' /proc/PID/numa_maps (and their
 * descendants') about 1 s after the first task starts, then every sample_interval
 * seconds; it keeps the last sample and the peak per NUMA node. By slurm_spank_exit
 * the tasks have been reaped, so the record holds the last sample taken while they
 * lived, not their final state. When the last task ends the record is merged into the job's
 * AdminComment under "mempolicy" (record.h, record_store.h), through the Slurm API
 * already loaded in slurmstepd.
 */
#ifndef MEM_INTERLEAVE_ACCOUNTING_H
#define MEM_INTERLEAVE_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "placement.h"
#include "spec.h"
#include "topology.h"

struct step_placement {
	uint32_t job_id;
	uint32_t step_id;
	const struct smpol_spec *spec;          /* as requested */
	const struct smpol_placement *pl;       /* the decision: plans, path, note */
	bool sysfs_written;                    /* the step held the weights lease */
	unsigned sample_interval;              /* seconds, 0 = only the first sample */
	/* appended by accounting: */
	const struct smpol_topology *topo;      /* node kinds in the record; NULL = unknown */
	const char *node_name;                 /* Slurm node name; NULL = the host name */
	uint32_t job_nnodes;                   /* nodes of the job (S_JOB_NNODES); 0 = unknown */
	const struct smpol_host *host;         /* for the node-local record lock */
};

/* slurmstepd (root), slurm_spank_init_post_opt, after planning. sp and what it
 * points to are copied: they need to live only during the call. */
int accounting_step_begin(const struct step_placement *sp, char *err, size_t errlen);
/* slurmstepd (root), slurm_spank_task_post_fork. */
void accounting_task_begin(pid_t pid);
/* slurmstepd (root), slurm_spank_task_exit. When the last task of the step on this
 * node has ended, the record is written here: slurmstepd reports the exits to srun
 * only after this callback, so the job is still running and slurmctld still accepts
 * the AdminComment update. (From slurm_spank_exit the job may already have finished
 * when srun was quick, and slurmctld then refuses the update.) */
void accounting_task_end(pid_t pid);
/* slurmstepd (root), slurm_spank_exit: write the record if task_end did not, free all. */
void accounting_step_end(void);

#endif
