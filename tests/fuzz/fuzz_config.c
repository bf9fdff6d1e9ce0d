/* fuzz_config.c - smpol_config_parse on any text split into argv words (as slurmstepd
 * splits a plugstack.conf line); what is accepted must hold the documented ranges. */
#include <ctype.h>
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "site_config.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *argv[MAX_WORDS + 1], *save = NULL, *w;
	char err[SMPOL_ERRLEN] = "", canon[8192];
	struct smpol_site_config cfg;
	struct smpol_spec again;
	int argc = 0, rc;

	for (w = strtok_r(text, " \t\n", &save); w && argc < MAX_WORDS; w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	fuzz_check(smpol_config_default(&cfg) == 0, "out of memory");
	rc = smpol_config_parse(argc, argv, &cfg, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EINVAL || rc == -ENAMETOOLONG, "rc %d", rc);
		fuzz_check(err[0] != '\0', "no error sentence");
		goto out;
	}
	fuzz_check(cfg.host.statedir[0] == '/', "statedir '%s' is not absolute", cfg.host.statedir);
	fuzz_check(cfg.host.fsroot[0] == '/', "fsroot '%s' is not absolute", cfg.host.fsroot);
	fuzz_check(cfg.decide.precision > 0 && cfg.decide.precision <= 1, "precision %g", cfg.decide.precision);
	fuzz_check(cfg.decide.max_weight_sum >= 1 && cfg.decide.max_weight_sum <= 1024, "max_weight_sum %u", cfg.decide.max_weight_sum);
	fuzz_check(cfg.decide.sample_interval <= 86400, "sample_interval %u", cfg.decide.sample_interval);
	fuzz_check(cfg.default_spec.mode != SMPOL_MODE_HELP, "default=help accepted");
	rc = smpol_spec_format(&cfg.default_spec, canon, sizeof(canon));
	fuzz_check(rc == 0, "default spec does not format (%d)", rc);
	rc = smpol_spec_parse(canon, &again, err, sizeof(err));
	fuzz_check(rc == 0, "default spec's canonical '%s' is refused: %s", canon, err);
	smpol_spec_free(&again);
out:
	smpol_config_free(&cfg);
	free(text);
	return 0;
}
