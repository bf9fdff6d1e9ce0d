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

int local_init_post_opt(const struct mi_option *opt)
{
	char text[4096];   /* its canonical form: weights for many nodes run long */

	if (opt->given && smpol_spec_format(&opt->spec, text, sizeof(text)) == 0)
		slurm_verbose(MI_LOG "requesting %s", text);
	return 0;
}
