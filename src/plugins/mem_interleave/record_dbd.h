/* record_dbd.h - mem_interleave_dbd (root): the record field of a job that has ended (cancelled,
 * timed out, preempted, failed...) where `sacctmgr modify job` changes it: the job's
 * record in slurmdbd, read with slurmdb_jobs_get and written with the accounting
 * API's job modify call (slurmdb_job_modify, then a commit). slurmctld refuses any
 * change to a finished job ("Job has already finished"), and sacctmgr's command line
 * turns '"' into '`'; the API carries the text as it is (slurmdbd escapes it for SQL
 * when it unpacks it). dbd_main.c runs the record's protocol (record_store.h) over
 * these two calls. Not in slurmstepd: Slurm 25.11 (and later) sends a Slurm daemon's
 * accounting calls to slurmctld (accounting_storage/ctld_relay), which has no job
 * modify; a command on the node still talks to slurmdbd. */
#ifndef MEM_INTERLEAVE_RECORD_DBD_H
#define MEM_INTERLEAVE_RECORD_DBD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <slurm/slurm_version.h>

#include "record.h"
#include "site_config.h"

/* Extra is a job field from Slurm 23.02 on (here for the two files that read it from
 * Slurm's structures, the plugin's record_slurm.c and this one). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define RECORD_HAVE_JOB_EXTRA 1
#else
#define RECORD_HAVE_JOB_EXTRA 0
#endif

struct record_dbd;

/* A connection to slurmdbd for the target field of the job's run on this node's
 * cluster (once per process: it reads slurm.conf). Each run of a requeued job is a
 * row of its own in slurmdbd; the run's row is the one that ran when its step started
 * (run->started; the job's latest row when 0). 0, or -ENOSYS (slurm.conf names no slurmdbd), -ECONNREFUSED (slurmdbd
 * does not answer), -EINVAL (slurm.conf names no cluster), with a sentence. */
int record_dbd_open(enum smpol_record_target target, const struct smpol_record_run *run, struct record_dbd **dbd,
		    char *err, size_t errlen);
void record_dbd_close(struct record_dbd *dbd);

/*
 * The field of the run's row, as slurmdbd holds it (a smpol_comment_store read).
 * -EINPROGRESS while slurmdbd has not recorded the run's start or end: slurmctld's
 * own report of the end carries the field as slurmctld held it and would undo a write
 * made before it. -ENOENT when accounting has no such job, -EIO when two rows ran at
 * the step's start, -ECONNREFUSED.
 */
int record_dbd_read(void *dbd, char **comment, char *err, size_t errlen);

/* Replace the field of the run's row alone and commit (a smpol_comment_store write):
 * rolled back, -EIO, when slurmdbd would change another row too. 0 or -errno. */
int record_dbd_write(void *dbd, const char *comment, char *err, size_t errlen);

/* The field's name as sacct and sacctmgr spell it: "AdminComment", "Extra", "SystemComment". */
const char *record_dbd_field_name(enum smpol_record_target target);

/* Read and write another field of the same row from now on (AdminComment, then
 * SystemComment when AdminComment holds a jobstats summary). */
void record_dbd_set_target(struct record_dbd *dbd, enum smpol_record_target target);

/* The run's end as the last successful read had it (0: none yet). */
time_t record_dbd_end(const struct record_dbd *dbd);

#endif
