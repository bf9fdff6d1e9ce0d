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
 *   lock_timeout=SECONDS     the longest wait for a lock in statedir (default 5, 0-300,
 *                            up to 3 digits after the point)
 *   record=admincomment|extra|none  where the placement record goes (admincomment)
 *   prometheus_dir=DIR       write node_exporter textfile metrics of running steps there
 *   bandwidth=FILE|none      the bandwidth table (bw_file.h); default
 *                            /etc/slurm/mem_interleave.bw when it exists
 *   process_mbind_nr=N       the system call number of process_mbind on a kernel that
 *                            carries it (pmbind.h; upstream numbers are refused here),
 *                            for region-aware placement (min_region=); probed per step
 *   preload=PATH|none        the interposer a region-aware step's tasks preload
 *                            (src/interpose/; default: where it is installed); none
 *                            leaves their large allocations to the sampler
 *   dbd_client=PATH          the program that writes the record of a job that has
 *                            ended into slurmdbd (mem_interleave_dbd; default: where
 *                            it is installed)
 * An unknown key, a bad value or a key given twice is an error that names it.
 * default= takes smpol_spec_parse's syntax (not help); statedir, fsroot, bandwidth and dbd_client
 * must be absolute; sample_interval is 0..86400; numbers follow number.h.
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

/* The job field that holds the placement record. */
enum smpol_record_target {
	SMPOL_RECORD_ADMIN_COMMENT,     /* AdminComment: only admins may change it */
	SMPOL_RECORD_EXTRA,             /* Extra (Slurm 23.02+): beside a jobstats AdminComment */
	SMPOL_RECORD_NONE,              /* no record in accounting (slurmd log, metrics only) */
	/* not a plugstack choice: where the record goes when AdminComment holds a jobstats
	 * summary (record_recheck.h); slurmdbd alone takes it, once the job has ended */
	SMPOL_RECORD_SYSTEM_COMMENT,
};

#define SMPOL_DEFAULT_SAMPLE_INTERVAL 30

/* What the decision (placement.h) reads of the site: a step's kept placement holds
 * these, not the whole configuration with its paths. */
struct smpol_site_decision {
	enum smpol_sysfs_policy sysfs;
	enum smpol_algorithm algorithm;
	double precision;
	unsigned max_weight_sum;
	unsigned sample_interval;
};

/* Its paths (and the host's, the default's weights) are its own heap strings, as long
 * as they are: smpol_config_free, never copied by value (a pointer lends it). */
struct smpol_site_config {
	struct smpol_spec default_spec;
	struct smpol_site_decision decide;
	struct smpol_host host;        /* statedir=, fsroot= */
	enum smpol_record_target record;
	char *prometheus_dir;          /* "" = no metrics files */
	char *bandwidth_file;          /* "" = none */
	bool bandwidth_named;          /* given by bandwidth=: its absence is worth a warning */
	long process_mbind_nr;         /* 0 = not configured */
	char *preload;                 /* the interposer's path, "" = none */
	char *dbd_client;              /* mem_interleave_dbd's path */
};

/* The defaults into cfg, which holds nothing before. 0, or -ENOMEM (cfg then holds
 * nothing). */
int smpol_config_default(struct smpol_site_config *cfg);
/* Free what cfg holds; it then holds nothing (freeing it again does nothing). */
void smpol_config_free(struct smpol_site_config *cfg);
void smpol_site_decision_default(struct smpol_site_decision *d);   /* the part the decision reads */

/* Parse argv-style "key=value" arguments on top of the defaults. -EINVAL naming the
 * key, -ENOMEM; nothing changes on error. */
int smpol_config_parse(int argc, char *const argv[], struct smpol_site_config *cfg,
		      char *err, size_t errlen);

const char *smpol_sysfs_policy_name(enum smpol_sysfs_policy p);
const char *smpol_record_target_name(enum smpol_record_target t);   /* "admincomment" ... */

#endif
