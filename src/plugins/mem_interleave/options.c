/* options.c - the --mem-interleave option, registered in every context that has options. */
#include <stdio.h>
#include <string.h>

#include "plugin.h"

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

/* Runs in srun/sbatch/salloc and again in slurmstepd (possibly twice there). */
static int option_cb(int val, const char *optarg, int remote)
{
	struct mi_ctx *c = mi_ctx();
	struct mpol_spec spec;
	char err[MPOL_ERRLEN], text[sizeof(c->opt_text)], why[3 * MPOL_ERRLEN];

	(void)val;
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
	if (c->opt_given && strcmp(text, c->opt_text)) {
		snprintf(why, sizeof(why), "--mem-interleave given twice with different values ('%s', then '%s')",
			 c->opt_text, text);
		return local_reject(why);
	}
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
