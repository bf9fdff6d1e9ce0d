/* local.c - srun, sbatch and salloc (as the user): help, and bad values stop here,
 * before anything is submitted. */
#include <stdio.h>
#include <stdlib.h>

#include "plugin.h"

void local_print_help(void)
{
	fputs(smpol_spec_usage(), stdout);
	fflush(stdout);
	exit(0);
}

int local_reject(const char *why)
{
	/* srun prints "srun: error: mem_interleave: ..." and exits non-zero. */
	slurm_error(MI_LOG "%s", why);
	return -1;
}

int local_init_post_opt(spank_t sp)
{
	struct mi_ctx *c = mi_ctx();

	(void)sp;
	if (c->opt_given)
		slurm_verbose(MI_LOG "requesting %s", c->opt_text);
	return 0;
}
