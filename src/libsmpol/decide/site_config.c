/* site_config.c - plugstack arguments of mem_interleave.so (see site_config.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw_file.h"
#include "error.h"
#include "kernel.h"
#include "number.h"
#include "site_config.h"
#include "text.h"

#define MAX_SAMPLE_INTERVAL 86400
#define MAX_WEIGHT_SUM_LIMIT 1024

enum key {
	KEY_DEFAULT, KEY_SYSFS, KEY_ALGORITHM, KEY_PRECISION, KEY_MAX_SUM, KEY_STATEDIR, KEY_SAMPLE, KEY_FSROOT,
	KEY_LOCK_TIMEOUT, KEY_RECORD, KEY_PROMETHEUS, KEY_BANDWIDTH, KEY_PMBIND_NR, KEY_PRELOAD, KEY_DBD_CLIENT,
	NKEYS
};

static const char *const keys[NKEYS] = {
	[KEY_DEFAULT] = "default", [KEY_SYSFS] = "sysfs", [KEY_ALGORITHM] = "algorithm",
	[KEY_PRECISION] = "precision", [KEY_MAX_SUM] = "max_weight_sum", [KEY_STATEDIR] = "statedir",
	[KEY_SAMPLE] = "sample_interval", [KEY_FSROOT] = "fsroot", [KEY_LOCK_TIMEOUT] = "lock_timeout",
	[KEY_RECORD] = "record", [KEY_PROMETHEUS] = "prometheus_dir", [KEY_BANDWIDTH] = "bandwidth",
	[KEY_PMBIND_NR] = "process_mbind_nr", [KEY_PRELOAD] = "preload",
	[KEY_DBD_CLIENT] = "dbd_client",
};
#define KNOWN_KEYS "default, sysfs, algorithm, precision, max_weight_sum, statedir, sample_interval, fsroot, " \
	"lock_timeout, record, prometheus_dir, bandwidth, process_mbind_nr, preload, dbd_client"

static const char *const record_names[] = {
	[SMPOL_RECORD_ADMIN_COMMENT] = "admincomment",
	[SMPOL_RECORD_EXTRA] = "extra",
	[SMPOL_RECORD_NONE] = "none",
};

const char *smpol_record_target_name(enum smpol_record_target t)
{
	return (unsigned)t < sizeof(record_names) / sizeof(record_names[0]) ? record_names[t] : "unknown";
}

static const char *const sysfs_names[] = {
	[SMPOL_SYSFS_NEVER] = "never",
	[SMPOL_SYSFS_EXCLUSIVE] = "exclusive",
	[SMPOL_SYSFS_ALWAYS] = "always",
};

const char *smpol_sysfs_policy_name(enum smpol_sysfs_policy p)
{
	return (unsigned)p < sizeof(sysfs_names) / sizeof(sysfs_names[0]) ? sysfs_names[p] : "unknown";
}

void smpol_site_decision_default(struct smpol_site_decision *d)
{
	*d = (struct smpol_site_decision){
		.sysfs = SMPOL_SYSFS_EXCLUSIVE,
		.algorithm = SMPOL_ALGO_OPTIMAL,
		.precision = SMPOL_DEFAULT_PRECISION,
		.max_weight_sum = SMPOL_DEFAULT_MAX_SUM,
		.sample_interval = SMPOL_DEFAULT_SAMPLE_INTERVAL,
	};
}

void smpol_config_free(struct smpol_site_config *cfg)
{
	smpol_spec_free(&cfg->default_spec);
	smpol_host_free(&cfg->host);
	free(cfg->prometheus_dir);
	free(cfg->bandwidth_file);
	free(cfg->preload);
	free(cfg->dbd_client);
	cfg->prometheus_dir = cfg->bandwidth_file = cfg->preload = cfg->dbd_client = NULL;
}

int smpol_config_default(struct smpol_site_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_spec.mode = SMPOL_MODE_NONE;
	smpol_site_decision_default(&cfg->decide);
	if (smpol_host_default(&cfg->host) < 0 || smpol_text_set(&cfg->prometheus_dir, "") < 0 ||
	    smpol_text_set(&cfg->bandwidth_file, SMPOL_BW_FILE_DEFAULT) < 0 ||
	    smpol_text_set(&cfg->preload, SMPOL_PRELOAD_DEFAULT) < 0 ||
	    smpol_text_set(&cfg->dbd_client, SMPOL_DBD_CLIENT_DEFAULT) < 0) {
		smpol_config_free(cfg);
		return -ENOMEM;
	}
	return 0;
}

/* dst = src with strings of its own (dst holds nothing before). 0 or -ENOMEM (dst empty). */
static int config_copy(struct smpol_site_config *dst, const struct smpol_site_config *src)
{
	*dst = *src;
	dst->default_spec.weights = NULL;
	dst->host.fsroot = dst->host.statedir = NULL;
	dst->prometheus_dir = dst->bandwidth_file = dst->preload = dst->dbd_client = NULL;
	if (smpol_spec_copy(&dst->default_spec, &src->default_spec) < 0 || smpol_host_copy(&dst->host, &src->host) < 0 ||
	    smpol_text_set(&dst->prometheus_dir, src->prometheus_dir) < 0 ||
	    smpol_text_set(&dst->bandwidth_file, src->bandwidth_file) < 0 ||
	    smpol_text_set(&dst->preload, src->preload) < 0 || smpol_text_set(&dst->dbd_client, src->dbd_client) < 0) {
		smpol_config_free(dst);
		return -ENOMEM;
	}
	return 0;
}

/* A path argument's value into *slot. */
static int set_path(const char *key, const char *value, char **slot, char *err, size_t errlen)
{
	return smpol_text_set(slot, value) < 0 ? smpol_fail(err, errlen, ENOMEM, "plugstack argument %s: out of memory",
							      key) : 0;
}

/* A NUMBER (number.h) for plugstack argument `key`, scaled by 10^decimals, in [lo, hi]. */
static int parse_number(const char *key, const char *value, unsigned decimals, uint64_t lo, uint64_t hi,
			uint64_t *out, const char *meaning, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];

	if (smpol_number_parse(value, decimals, lo, hi, out, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, "plugstack argument %s=%s: %s%s", key,
				  smpol_quote(value, q, sizeof(q)), why, meaning);
	return 0;
}

/* The index of value in names[0..n), or -1. */
static int name_index(const char *const *names, size_t n, const char *value)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return (int)i;
	return -1;
}

static int parse_one(enum key k, const char *value, struct smpol_site_config *cfg, char *err, size_t errlen)
{
	char why[SMPOL_ERRLEN], q[SMPOL_QUOTE_LEN];
	uint64_t v;
	int rc, i;

	smpol_quote(value, q, sizeof(q));
	switch (k) {
	case KEY_DEFAULT: {
		struct smpol_spec spec;

		rc = smpol_spec_parse(value, &spec, why, sizeof(why));
		if (rc)
			return smpol_fail(err, errlen, -rc, "plugstack argument default=%s: %s", q, why);
		if (spec.mode == SMPOL_MODE_HELP) {
			smpol_spec_free(&spec);
			return smpol_fail(err, errlen, EINVAL, "plugstack argument default=help: a default must be a mode that places memory, or none");
		}
		smpol_spec_free(&cfg->default_spec);
		cfg->default_spec = spec;
		return 0;
	}
	case KEY_SYSFS:
		if ((i = name_index(sysfs_names, sizeof(sysfs_names) / sizeof(sysfs_names[0]), value)) >= 0) {
			cfg->decide.sysfs = (enum smpol_sysfs_policy)i;
			return 0;
		}
		return smpol_fail(err, errlen, EINVAL, "plugstack argument sysfs=%s: use never, exclusive or always", q);
	case KEY_ALGORITHM:
		if (!strcmp(value, "optimal"))
			cfg->decide.algorithm = SMPOL_ALGO_OPTIMAL;
		else if (!strcmp(value, "kernel"))
			cfg->decide.algorithm = SMPOL_ALGO_KERNEL;
		else
			return smpol_fail(err, errlen, EINVAL, "plugstack argument algorithm=%s: use optimal or kernel", q);
		return 0;
	case KEY_PRECISION:
		if (smpol_precision_parse(value, &cfg->decide.precision, why, sizeof(why)))
			return smpol_fail(err, errlen, EINVAL, "plugstack argument precision: %s", why);
		return 0;
	case KEY_MAX_SUM:
		rc = parse_number(keys[k], value, 0, 1, MAX_WEIGHT_SUM_LIMIT, &v, "", err, errlen);
		cfg->decide.max_weight_sum = rc ? cfg->decide.max_weight_sum : (unsigned)v;
		return rc;
	case KEY_STATEDIR:
		rc = smpol_host_set_statedir(&cfg->host, value, why, sizeof(why));
		return rc ? smpol_fail(err, errlen, -rc, "plugstack argument statedir: %s", why) : 0;
	case KEY_SAMPLE:
		rc = parse_number(keys[k], value, 0, 0, MAX_SAMPLE_INTERVAL, &v,
				  " seconds (0 = one sample about 1 s after the tasks start)", err, errlen);
		cfg->decide.sample_interval = rc ? cfg->decide.sample_interval : (unsigned)v;
		return rc;
	case KEY_RECORD:
		if ((i = name_index(record_names, sizeof(record_names) / sizeof(record_names[0]), value)) >= 0) {
			cfg->record = (enum smpol_record_target)i;
			return 0;
		}
		return smpol_fail(err, errlen, EINVAL, "plugstack argument record=%s: use admincomment, extra or none", q);
	case KEY_PROMETHEUS:
		if (value[0] != '/')
			return smpol_fail(err, errlen, EINVAL, "plugstack argument prometheus_dir=%s: give an absolute "
					  "directory (node_exporter's --collector.textfile.directory)", q);
		return set_path(keys[k], value, &cfg->prometheus_dir, err, errlen);
	case KEY_FSROOT:
		rc = *value ? smpol_host_set_fsroot(&cfg->host, value, why, sizeof(why)) : -EINVAL;
		return rc ? smpol_fail(err, errlen, -rc, "plugstack argument fsroot: %s",
				       *value ? why : "give an absolute directory") : 0;
	case KEY_LOCK_TIMEOUT:
		/* milliseconds: seconds with up to 3 digits after the point */
		rc = parse_number(keys[k], value, 3, 0, SMPOL_MAX_LOCK_TIMEOUT_MS, &v,
				  " seconds (how long a step waits for a lock in the state directory)", err, errlen);
		cfg->host.lock_timeout_ms = rc ? cfg->host.lock_timeout_ms : (unsigned)v;
		return rc;
	case KEY_BANDWIDTH:
		cfg->bandwidth_named = true;
		if (strcmp(value, "none") && value[0] != '/')
			return smpol_fail(err, errlen, EINVAL, "plugstack argument bandwidth=%s: give the absolute "
					  "path of a bandwidth table (mpolctl calibrate writes one), or none", q);
		return set_path(keys[k], strcmp(value, "none") ? value : "", &cfg->bandwidth_file, err, errlen);
	case KEY_PMBIND_NR:
		rc = parse_number(keys[k], value, 0, 1, SMPOL_PMBIND_LAST_NR, &v, " (process_mbind's system call number)",
				  err, errlen);
		if (rc == 0 && (rc = smpol_pmbind_nr_check((long)v, why, sizeof(why))) < 0)
			return smpol_fail(err, errlen, EINVAL, "plugstack argument process_mbind_nr=%s: %s", q, why);
		cfg->process_mbind_nr = rc ? cfg->process_mbind_nr : (long)v;
		return rc;
	case KEY_PRELOAD:
		if (strcmp(value, "none") && (value[0] != '/' || strpbrk(value, " :")))
			return smpol_fail(err, errlen, EINVAL, "plugstack argument preload=%s: give the absolute path of "
					  "mem_interleave_regions.so (without spaces or colons: LD_PRELOAD splits "
					  "there), or none", q);
		return set_path(keys[k], strcmp(value, "none") ? value : "", &cfg->preload, err, errlen);
	case KEY_DBD_CLIENT:
		if (value[0] != '/')
			return smpol_fail(err, errlen, EINVAL, "plugstack argument dbd_client=%s: give the absolute "
					  "path of mem_interleave_dbd", q);
		return set_path(keys[k], value, &cfg->dbd_client, err, errlen);
	default:
		return smpol_fail(err, errlen, EINVAL, "plugstack argument %s is not handled", keys[k]);
	}
}

int smpol_config_parse(int argc, char *const argv[], struct smpol_site_config *cfg,
		      char *err, size_t errlen)
{
	struct smpol_site_config c;
	bool given[NKEYS] = { false };
	char q[SMPOL_QUOTE_LEN];
	int rc = 0;

	if (config_copy(&c, cfg) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory reading the plugstack arguments");
	for (int i = 0; i < argc && !rc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		enum key k;

		for (k = 0; k < NKEYS; k++)
			if (strlen(keys[k]) == klen && !strncmp(argv[i], keys[k], klen))
				break;
		if (k == NKEYS)
			rc = smpol_fail(err, errlen, EINVAL, "unknown plugstack argument %s (known: %s)",
					smpol_quote_n(argv[i], klen, q, sizeof(q)), KNOWN_KEYS);
		else if (!eq || !eq[1])
			rc = smpol_fail(err, errlen, EINVAL, "plugstack argument %s has no value (write %s=VALUE)",
					smpol_quote(argv[i], q, sizeof(q)), keys[k]);
		else if (given[k])
			rc = smpol_fail(err, errlen, EINVAL, "plugstack argument %s is given twice", keys[k]);
		else
			rc = parse_one(k, eq + 1, &c, err, errlen);
		if (k < NKEYS)
			given[k] = true;
	}
	if (rc) {
		smpol_config_free(&c);
		return rc;
	}
	smpol_config_free(cfg);
	*cfg = c;
	return 0;
}
