/* checks.h - the inspections of `mpolctl check`, each adding findings (findings.h).
 * None changes anything. Codes and thresholds are listed in mpolctl(8), VERBS, check.
 */
#ifndef SMPOL_CHECKS_H
#define SMPOL_CHECKS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "bandwidth.h"
#include "bw_sources.h"
#include "findings.h"
#include "host.h"
#include "site_config.h"
#include "topology.h"
#include "wi.h"

/* A read/write ratio outside [1 / SMPOL_CHECK_RW_MAX, SMPOL_CHECK_WRITE_OVER_READ] is
 * implausible: writes slower than a quarter of reads, or faster than reads by a
 * quarter (read and write swapped?). */
#define SMPOL_CHECK_RW_MAX 4.0
#define SMPOL_CHECK_WRITE_OVER_READ 1.25
/* A memory-only node faster than its initiator's DRAM by at least this factor looks
 * like HBM (info); below it, like wrong CXL numbers (warning). */
#define SMPOL_CHECK_HBM_FACTOR 2.0
/* The table and HMAT disagree on a pair when its share of the initiator's best
 * bandwidth differs by more than this fraction between them. */
#define SMPOL_CHECK_TABLE_TOLERANCE 0.25

/*
 * smpol_check_hmat - per memory node: HMAT present (access0/access1), read and write
 * both given, access1 consistent with access0, numbers for memory-only nodes, an
 * initiator for every node with memory, memory-only nodes not claimed faster than
 * their initiator's DRAM, a plausible read/write ratio. Also what the raw ACPI HMAT
 * gave (origin).
 */
void smpol_check_hmat(const struct smpol_topology *topo, const struct smpol_bw_origin *origin,
		      struct smpol_findings *f);

/*
 * smpol_check_weights - the kernel's weighted-interleave table: present, readable, a
 * weight file for every memory node, no set weight for a node without memory, and,
 * when no step holds the lease and auto is off, the weights `mpolctl apply --system`
 * would write (bw: the bandwidth table plans use).
 */
void smpol_check_weights(const struct smpol_topology *topo, const struct smpol_wi_table *t, const char *table_error,
			 const struct smpol_bw_table *bw, bool lease_live, struct smpol_findings *f);

/*
 * smpol_check_state - the state directory: it exists (or the first step makes it), is
 * root's and writable by no one else; the weights lease (a journal left by a dead
 * holder, a live holder); kept placements of steps that died or do not parse.
 * *lease_live: a live step holds the weights.
 */
void smpol_check_state(const struct smpol_host *h, struct smpol_findings *f, bool *lease_live);

/*
 * smpol_check_table - the bandwidth table file at path (named: the site asked for it):
 * present, parsed, this node's, root's and writable by no one else; and where its
 * pairs disagree with HMAT (hmat: the table of the raw and sysfs HMAT) beyond
 * SMPOL_CHECK_TABLE_TOLERANCE.
 */
void smpol_check_table(const struct smpol_topology *topo, const char *path, bool named, const char *machine,
		       const struct smpol_bw_table *hmat, struct smpol_findings *f);

/*
 * smpol_check_hwloc - hwloc's ReadBandwidth and WriteBandwidth memory attributes
 * (lstopo-no-graphics --memattrs, HWLOC_FSROOT for another root) against what the
 * topology reader made of sysfs; info when hwloc is not installed.
 */
void smpol_check_hwloc(const struct smpol_topology *topo, struct smpol_findings *f);

/*
 * smpol_check_helpers - the programs the plugstack line names (cfg): dbd_client= can
 * run, preload= (unless none) can be read, and each is root's and writable by no one
 * else (slurmstepd runs the one as root; tasks load the other).
 */
void smpol_check_helpers(const struct smpol_site_config *cfg, struct smpol_findings *f);

/*
 * smpol_check_record_field - whether the field record= names (cfg) keeps the record,
 * from slurm_conf: record=extra needs AccountingStoreFlags=job_extra (a warning
 * without it); record=admincomment is shared with jobstats by moving the record to
 * SystemComment, which the finding names where slurm.conf has an EpilogSlurmctld
 * (whether that is jobstats cannot be told).
 */
void smpol_check_record_field(const struct smpol_site_config *cfg, const char *slurm_conf,
			      struct smpol_findings *f);

/*
 * smpol_check_courier - who writes the records on this node (courier_lock.h): slurmd's
 * courier with cfg's settings (ok); one with other settings, as after plugstack.conf
 * changed record= or dbd_client= without a restart of slurmd (a warning: each step
 * writes itself); none (info: the same). Skipped without root; none for record=none.
 */
void smpol_check_courier(const struct smpol_site_config *cfg, struct smpol_findings *f);

/* A file only root may change: owned by root, not writable by group or others. */
bool smpol_file_unsafe(const struct stat *st);

#endif
