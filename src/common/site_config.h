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
 * default= takes mpol_spec_parse's syntax (not help); statedir and fsroot must be
 * absolute; sample_interval is 0..86400.
 */
#ifndef MPOL_SITE_CONFIG_H
#define MPOL_SITE_CONFIG_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "spec.h"

enum mpol_sysfs_policy { MPOL_SYSFS_NEVER, MPOL_SYSFS_EXCLUSIVE, MPOL_SYSFS_ALWAYS };

#define MPOL_DEFAULT_STATEDIR "/run/slurm-mempolicy"
#define MPOL_DEFAULT_SAMPLE_INTERVAL 30

struct mpol_site_config {
	struct mpol_spec default_spec;
	enum mpol_sysfs_policy sysfs;
	enum mpol_algorithm algorithm;
	double precision;
	unsigned max_weight_sum;
	char statedir[1024];
	unsigned sample_interval;
	char fsroot[1024];
};

void mpol_config_default(struct mpol_site_config *cfg);

/* Parse argv-style "key=value" arguments on top of the defaults. -EINVAL naming the key. */
int mpol_config_parse(int argc, char *const argv[], struct mpol_site_config *cfg,
		      char *err, size_t errlen);

/*
 * mpol_plan_opts_from_spec - the plan options for a user's spec under the site's
 * configuration: the spec's precision/scope/nodes/weights where given, else the site's
 * (scope defaults to socket). mem_kb is the job's memory on this node (0 = unknown:
 * no capacity cap). What slurmstepd plans with, and what mpolctl and the VM tier's
 * launcher must plan with to agree with it.
 */
void mpol_plan_opts_from_spec(const struct mpol_spec *spec, const struct mpol_site_config *cfg,
			      uint64_t mem_kb, struct mpol_plan_opts *o);

const char *mpol_sysfs_policy_name(enum mpol_sysfs_policy p);

#endif
