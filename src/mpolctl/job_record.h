/* job_record.h - a job's AdminComment (or SystemComment, Extra) as accounting holds it, through sacct.
 *
 * sacct applies Slurm's visibility rules (a user sees their own jobs, an operator or
 * admin every job), so mpolctl needs no privilege of its own to report. Accounting
 * has AdminComment once the job has ended; a running job's comment is not there yet.
 */
#ifndef MPOLCTL_JOB_RECORD_H
#define MPOLCTL_JOB_RECORD_H

#include <stddef.h>

/*
 * job_record_field - run `sacct -n -P -X -o JobID,FIELD -j JOB` and return the field
 * (AdminComment, or Extra from Slurm 23.02 on; malloc'ed, "" when empty). -ENOENT with
 * a sentence when accounting has no such job for this user; the error of
 * smpol_run_capture when sacct fails (an sacct without that field among them).
 */
int job_record_field(const char *job, const char *field, char **comment, char *err, size_t errlen);

#endif
