/* job_record.h - a job's AdminComment as accounting holds it, through sacct.
 *
 * sacct applies Slurm's visibility rules (a user sees their own jobs, an operator or
 * admin every job), so mpolctl needs no privilege of its own to report. Accounting
 * has AdminComment once the job has ended; a running job's comment is not there yet.
 */
#ifndef MPOLCTL_JOB_RECORD_H
#define MPOLCTL_JOB_RECORD_H

#include <stddef.h>

/* The job part of JOBID[.STEP] as sacct wants it ("123", "123_4"), and the step or "". */
int job_id_split(const char *text, char *job, size_t joblen, char *step, size_t steplen,
		 char *err, size_t errlen);

/*
 * job_admin_comment - run `sacct -n -P -X -o JobID,AdminComment -j JOB` and return the
 * comment (malloc'ed, "" when empty). -ENOENT with a sentence when accounting has no
 * such job for this user; the error of smpol_run_capture when sacct fails.
 */
int job_admin_comment(const char *job, char **comment, char *err, size_t errlen);

#endif
