/* site_config.h - the site's plugstack arguments for mem_interleave.so, strictly parsed.
 *
 *   default=SPEC             spec applied when the user gave no option (ships "none")
 *   sysfs=never|exclusive|always  when global sysfs weights may be written
 *   algorithm=optimal|kernel
 *   precision=P              0 < P <= 1
 *   max_weight_sum=N         1..1024
 *   statedir=DIR             weights lease journal and lock (/run/slurm-mempolicy)
 *   sample_interval=SECONDS  placement sampling period, 0 = one sample about 1 s after start
 *   fsroot=DIR               read sysfs under DIR (tests and containers)
 * An unknown key, a bad value or a key given twice is an error that names it.
 * default= takes smpol_spec_parse's syntax (not help); statedir and fsroot must be
 * absolute; sample_interval is 0..86400.
 */
#ifndef SMPOL_SITE_CONFIG_H
#define SMPOL_SITE_CONFIG_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "plan.h"
#include "spec.h"

enum smpol_sysfs_policy { SMPOL_SYSFS_NEVER, SMPOL_SYSFS_EXCLUSIVE, SMPOL_SYSFS_ALWAYS };

#define SMPOL_DEFAULT_SAMPLE_INTERVAL 30

struct smpol_site_config {
	struct smpol_spec default_spec;
	enum smpol_sysfs_policy sysfs;
	enum smpol_algorithm algorithm;
	double precision;
	unsigned max_weight_sum;
	struct smpol_host host;        /* statedir=, fsroot= */
	unsigned sample_interval;
};

void smpol_config_default(struct smpol_site_config *cfg);

/* Parse argv-style "key=value" arguments on top of the defaults. -EINVAL naming the key. */
int smpol_config_parse(int argc, char *const argv[], struct smpol_site_config *cfg,
		      char *err, size_t errlen);

const char *smpol_sysfs_policy_name(enum smpol_sysfs_policy p);

#endif
