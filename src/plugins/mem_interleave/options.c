/* options.c - the --mem-interleave option, registered in every context that has options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "release.h"

/* The value as parsed in this process; the callback has no other place to put it. */
static struct mi_option parsed;

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option option_table[] = {
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
static int reject(const char *why)
{
	/* srun prints "srun: error: mem_interleave: ..." and exits non-zero. */
	slurm_error(MI_LOG "%s", why);
	return -1;
}

/* The spec's canonical text, where a sentence can hold it. */
static const char *canonical(const struct smpol_spec *spec, char *buf, size_t len)
{
	return smpol_spec_format(spec, buf, len) == 0 ? buf : "a value too long to show";
}

static int option_cb(int val, const char *optarg, int remote)
{
	struct smpol_spec spec;
	char err[SMPOL_ERRLEN], why[3 * SMPOL_ERRLEN], q[SMPOL_QUOTE_LEN], before[SMPOL_ERRLEN], now[SMPOL_ERRLEN];

	(void)val;
	/* Another Slurm release: refused whatever the value (slurmstepd: in step.c). */
	if (release_mismatch()) {
		parsed.given = true;
		return remote ? 0 : reject(release_mismatch());
	}
	if (smpol_spec_parse(optarg ? optarg : "", &spec, err, sizeof(err)) < 0) {
		/* a bounded excerpt: Slurm cuts long messages, and the reason must survive */
		snprintf(why, sizeof(why), "--mem-interleave=%s: %s", smpol_quote(optarg, q, sizeof(q)), err);
		return reject(why);
	}
	if (spec.mode == SMPOL_MODE_HELP) {
		if (!remote)
			local_print_help();
		return 0;
	}
	if (parsed.given && !smpol_spec_equal(&spec, &parsed.spec) && !parsed.from_env) {
		snprintf(why, sizeof(why), "--mem-interleave given twice with different values ('%s', then '%s')",
			 canonical(&parsed.spec, before, sizeof(before)), canonical(&spec, now, sizeof(now)));
		smpol_spec_free(&spec);
		return reject(why);
	}
	parsed.from_env = !parsed.given && from_environment(optarg, remote);
	parsed.given = true;
	smpol_spec_free(&parsed.spec);
	parsed.spec = spec;
	return 0;
}

void options_free(void)
{
	smpol_spec_free(&parsed.spec);
}

const struct mi_option *options_value(void)
{
	return &parsed;
}

int options_register(spank_t sp)
{
	for (size_t i = 0; i < sizeof(option_table) / sizeof(option_table[0]); i++) {
		spank_err_t rc = spank_option_register(sp, &option_table[i]);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(MI_LOG "cannot register --%s: %s", option_table[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}
