/* plugin.c - the SPANK entry points: each hands its context to the file that owns it. */
#include <slurm/spank.h>

#include "plugin.h"
#include "record_courier.h"
#include "release.h"

/* plugin_name, plugin_type and plugin_version (SPANK_PLUGIN's symbols) are in release.c. */

#if HAVE_DECL_SLURM_SPANK_INIT_FAILURE_MODE
/* Where spank.h declares it (25.11 and 26.05 do, 24.11 does not). slurm_spank_init
 * fails only when Slurm refuses one of the options, which says nothing about the node:
 * without this, slurmd drains the node of a batch job whose slurmstepd could not start
 * the plugin (every job there then waits for an admin). */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

/* This process's step (slurmstepd only; unused in srun, sbatch and salloc). */
static struct mi_step step;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_REMOTE:
	case S_CTX_ALLOCATOR:
		return options_register(sp);
	case S_CTX_SLURMD:
		release_log_mismatch(sp);
		if (!release_mismatch())
			record_courier_start(ac, av);
		return 0;
	default:
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return local_init_post_opt(options_value());
	case S_CTX_REMOTE:
		return step_init_post_opt(sp, &step, options_value(), ac, av);
	default:
		return 0;
	}
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? task_init(sp, &step, options_value()) : 0;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? step_task_post_fork(sp, &step) : 0;
}

/* Runs before slurmstepd reports the task's exit to srun: the job is still running,
 * so the record written when the last task ends is accepted by slurmctld. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? step_task_exit(sp, &step) : 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	int rc;

	(void)sp;
	(void)ac;
	(void)av;
	rc = spank_context() == S_CTX_REMOTE ? step_exit(&step) : 0;
	options_free();
	return rc;
}

/* slurmd's shutdown. */
int slurm_spank_slurmd_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	record_courier_stop();
	return 0;
}
