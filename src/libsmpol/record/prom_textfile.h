/* prom_textfile.h - a running step's placement for Prometheus, in node_exporter's
 * textfile-collector format: one file per step, DIR/slurm_mempolicy_JOB_STEP.prom,
 * written to .slurm_mempolicy_JOB_STEP.tmp (created exclusively) and renamed: the
 * collector reads every *.prom, hidden ones too, so the temporary must not end in
 * .prom. Removed when the step ends; the file of a step whose slurmstepd died is
 * swept by the next step (its first line names the writer: "# slurm-mempolicy writer
 * PID START", a comment to node_exporter). DIR must be a directory of the writer's
 * uid (root) that no one else may write.
 *
 * Metrics (labels jobid, step, and numa_node where per node):
 *   slurm_mempolicy_anon_bytes     gauge  resident anonymous memory of the step's
 *                                         tasks on the NUMA node at the last sample
 *   slurm_mempolicy_target_ratio   gauge  the share of the step's memory the weights
 *                                         in force aim at for that NUMA node (0..1)
 *   slurm_mempolicy_share_ratio    gauge  the share it holds (0..1)
 *   slurm_mempolicy_drift_ratio    gauge  per step: half the L1 distance of the two
 *                                         share vectors (0 = on target, 1 = disjoint)
 *   slurm_mempolicy_sample_timestamp_seconds  gauge  Unix time of the last sample
 */
#ifndef SMPOL_PROM_TEXTFILE_H
#define SMPOL_PROM_TEXTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "sampling.h"

/* The metrics of one step as text (malloc'ed into *text). 0 or -ENOMEM. */
int smpol_prom_format(uint32_t job, const char *step, const struct smpol_sampling *s, char **text);

/* Write them into dir (absolute) atomically. 0 or -errno with a sentence. */
int smpol_prom_write(const char *dir, uint32_t job, const char *step, const struct smpol_sampling *s,
		     char *err, size_t errlen);

/* Remove the step's file (a missing one is no error). 0 or -errno with a sentence. */
int smpol_prom_remove(const char *dir, uint32_t job, const char *step, char *err, size_t errlen);

/* A file of ours that names no writer (an older release's) is stale after this long. */
#define SMPOL_PROM_UNOWNED_STALE_S (24 * 3600)

/*
 * smpol_prom_sweep - remove the files of ours in dir whose writer is no longer alive
 * (and temporaries a killed writer left; anything there that is not a regular file or
 * a directory). *removed: how many. 0 or -errno with a sentence.
 */
int smpol_prom_sweep(const char *dir, int *removed, char *err, size_t errlen);

#endif
