/* options.c - the --mem-interleave option, registered in every context that has options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "release.h"

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option options[] = {
	{
		"mem-interleave", "SPEC",
		"Interleave memory over the node's memory by bandwidth: "
		"[quiet|verbose,]MODE[,nodes=LIST][,weights=N:W[:N:W...]][,scope=socket|all]"
		"[,precision=P][,strict], MODE weighted|auto|interleave|none; "
		"--mem-interleave=help for details (mem_interleave(8))",
		1, 0, option_cb,
	},
};

/* How sbatch/salloc hand the option to the steps inside the job. */
#define OPTION_ENV "SLURM_SPANK__SLURM_SPANK_OPTION_mem_interleave_mem_interleave"

/*
 * srun inside a job first sees the job's value from OPTION_ENV, then its own command
 * line: that one wins, as with Slurm's own options. Two different values on one
 * command line are a mistake.
 */
static bool from_environment(const char *optarg, int remote)
{
	const char *env = remote ? NULL : getenv(OPTION_ENV);

	return env && optarg && !strcmp(env, optarg);
}

/* Runs in srun/sbatch/salloc and again in slurmstepd (possibly twice there). */
static int option_cb(int val, const char *optarg, int remote)
{
	struct mi_ctx *c = mi_ctx();
	struct mpol_spec spec;
	char err[MPOL_ERRLEN], text[sizeof(c->opt_text)], why[3 * MPOL_ERRLEN];

	(void)val;
	/* Another Slurm release: refused whatever the value (slurmstepd: in step.c). */
	if (release_mismatch()) {
		c->opt_given = true;
		return remote ? 0 : local_reject(release_mismatch());
	}
	if (mpol_spec_parse(optarg ? optarg : "", &spec, err, sizeof(err)) < 0) {
		snprintf(why, sizeof(why), "--mem-interleave=%s: %s", optarg ? optarg : "", err);
		return local_reject(why);
	}
	if (spec.mode == MPOL_MODE_HELP) {
		if (!remote)
			local_print_help();
		return 0;
	}
	if (mpol_spec_format(&spec, text, sizeof(text)) < 0)
		return local_reject("--mem-interleave: the value is too long");
	if (c->opt_given && strcmp(text, c->opt_text) && !c->opt_from_env) {
		snprintf(why, sizeof(why), "--mem-interleave given twice with different values ('%s', then '%s')",
			 c->opt_text, text);
		return local_reject(why);
	}
	c->opt_from_env = !c->opt_given && from_environment(optarg, remote);
	c->opt_given = true;
	c->opt_spec = spec;
	memcpy(c->opt_text, text, sizeof(text));
	return 0;
}

int options_register(spank_t sp)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		spank_err_t rc = spank_option_register(sp, &options[i]);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(MI_LOG "cannot register --%s: %s", options[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}
