/* site_config.c - plugstack arguments of mem_interleave.so (see site_config.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "site_config.h"

#define MAX_SAMPLE_INTERVAL 86400
#define MAX_WEIGHT_SUM_LIMIT 1024

enum key { KEY_DEFAULT, KEY_SYSFS, KEY_ALGORITHM, KEY_PRECISION, KEY_MAX_SUM, KEY_STATEDIR, KEY_SAMPLE, KEY_FSROOT, NKEYS };

static const char *const keys[NKEYS] = {
	[KEY_DEFAULT] = "default", [KEY_SYSFS] = "sysfs", [KEY_ALGORITHM] = "algorithm",
	[KEY_PRECISION] = "precision", [KEY_MAX_SUM] = "max_weight_sum", [KEY_STATEDIR] = "statedir",
	[KEY_SAMPLE] = "sample_interval", [KEY_FSROOT] = "fsroot",
};
#define KNOWN_KEYS "default, sysfs, algorithm, precision, max_weight_sum, statedir, sample_interval, fsroot"

static const char *const sysfs_names[] = {
	[SMPOL_SYSFS_NEVER] = "never",
	[SMPOL_SYSFS_EXCLUSIVE] = "exclusive",
	[SMPOL_SYSFS_ALWAYS] = "always",
};

const char *smpol_sysfs_policy_name(enum smpol_sysfs_policy p)
{
	return (unsigned)p < sizeof(sysfs_names) / sizeof(sysfs_names[0]) ? sysfs_names[p] : "unknown";
}

void smpol_config_default(struct smpol_site_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_spec.mode = SMPOL_MODE_NONE;
	cfg->sysfs = SMPOL_SYSFS_EXCLUSIVE;
	cfg->algorithm = SMPOL_ALGO_OPTIMAL;
	cfg->precision = SMPOL_DEFAULT_PRECISION;
	cfg->max_weight_sum = SMPOL_DEFAULT_MAX_SUM;
	smpol_host_default(&cfg->host);
	cfg->sample_interval = SMPOL_DEFAULT_SAMPLE_INTERVAL;
}

/* A whole decimal number in [lo, hi]. */
static int parse_uint(const char *text, unsigned long lo, unsigned long hi, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_one(enum key k, const char *value, struct smpol_site_config *cfg, char *err, size_t errlen)
{
	char why[SMPOL_ERRLEN];
	int rc;

	switch (k) {
	case KEY_DEFAULT:
		if (smpol_spec_parse(value, &cfg->default_spec, why, sizeof(why)))
			return smpol_fail(err, errlen, EINVAL, "plugstack argument default='%s': %s", value, why);
		if (cfg->default_spec.mode == SMPOL_MODE_HELP)
			return smpol_fail(err, errlen, EINVAL, "plugstack argument default=help: a default must be a mode that places memory, or none");
		return 0;
	case KEY_SYSFS:
		for (unsigned i = 0; i < sizeof(sysfs_names) / sizeof(sysfs_names[0]); i++) {
			if (!strcmp(value, sysfs_names[i])) {
				cfg->sysfs = i;
				return 0;
			}
		}
		return smpol_fail(err, errlen, EINVAL, "plugstack argument sysfs='%s': use never, exclusive or always",
				 value);
	case KEY_ALGORITHM:
		if (!strcmp(value, "optimal"))
			cfg->algorithm = SMPOL_ALGO_OPTIMAL;
		else if (!strcmp(value, "kernel"))
			cfg->algorithm = SMPOL_ALGO_KERNEL;
		else
			return smpol_fail(err, errlen, EINVAL, "plugstack argument algorithm='%s': use optimal or kernel",
					 value);
		return 0;
	case KEY_PRECISION:
		if (smpol_precision_parse(value, &cfg->precision, why, sizeof(why)))
			return smpol_fail(err, errlen, EINVAL, "plugstack argument precision: %s", why);
		return 0;
	case KEY_MAX_SUM:
		if (parse_uint(value, 1, MAX_WEIGHT_SUM_LIMIT, &cfg->max_weight_sum))
			return smpol_fail(err, errlen, EINVAL, "plugstack argument max_weight_sum='%s': give a whole number 1-%d",
					 value, MAX_WEIGHT_SUM_LIMIT);
		return 0;
	case KEY_STATEDIR:
		rc = smpol_host_set_statedir(&cfg->host, value, why, sizeof(why));
		return rc ? smpol_fail(err, errlen, -rc, "plugstack argument statedir: %s", why) : 0;
	case KEY_SAMPLE:
		if (parse_uint(value, 0, MAX_SAMPLE_INTERVAL, &cfg->sample_interval))
			return smpol_fail(err, errlen, EINVAL,
					 "plugstack argument sample_interval='%s': give whole seconds 0-%d (0 = one sample about 1 s after the tasks start)",
					 value, MAX_SAMPLE_INTERVAL);
		return 0;
	case KEY_FSROOT:
		rc = *value ? smpol_host_set_fsroot(&cfg->host, value, why, sizeof(why)) : -EINVAL;
		return rc ? smpol_fail(err, errlen, -rc, "plugstack argument fsroot: %s",
				       *value ? why : "give an absolute directory") : 0;
	default:
		return smpol_fail(err, errlen, EINVAL, "plugstack argument %s is not handled", keys[k]);
	}
}

int smpol_config_parse(int argc, char *const argv[], struct smpol_site_config *cfg,
		      char *err, size_t errlen)
{
	struct smpol_site_config c = *cfg;
	bool given[NKEYS] = { false };

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		enum key k;
		int rc;

		for (k = 0; k < NKEYS; k++)
			if (strlen(keys[k]) == klen && !strncmp(argv[i], keys[k], klen))
				break;
		if (k == NKEYS)
			return smpol_fail(err, errlen, EINVAL, "unknown plugstack argument '%.*s' (known: %s)", (int)klen,
					 argv[i], KNOWN_KEYS);
		if (!eq || !eq[1])
			return smpol_fail(err, errlen, EINVAL, "plugstack argument '%s' has no value (write %s=VALUE)",
					 argv[i], keys[k]);
		if (given[k])
			return smpol_fail(err, errlen, EINVAL, "plugstack argument %s is given twice", keys[k]);
		given[k] = true;
		rc = parse_one(k, eq + 1, &c, err, errlen);
		if (rc)
			return rc;
	}
	*cfg = c;
	return 0;
}
