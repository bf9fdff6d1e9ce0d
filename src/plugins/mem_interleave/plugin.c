/* plugin.c - the SPANK entry points: each hands its context to the file that owns it. */
#include <slurm/spank.h>

#include "plugin.h"
#include "release.h"

/* plugin_name, plugin_type and plugin_version (SPANK_PLUGIN's symbols) are in release.c. */

static struct mi_ctx ctx;

struct mi_ctx *mi_ctx(void)
{
	return &ctx;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_REMOTE:
	case S_CTX_ALLOCATOR:
		return options_register(sp);
	case S_CTX_SLURMD:
		release_log_mismatch(sp);
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
		return local_init_post_opt(sp);
	case S_CTX_REMOTE:
		return step_init_post_opt(sp, ac, av);
	default:
		return 0;
	}
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? task_init(sp) : 0;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? step_task_post_fork(sp) : 0;
}

/* Runs before slurmstepd reports the task's exit to srun: the job is still running,
 * so the record written when the last task ends is accepted by slurmctld. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? step_task_exit(sp) : 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? step_exit(sp) : 0;
}
