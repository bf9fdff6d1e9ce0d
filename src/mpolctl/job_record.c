/* job_record.c - read a job's AdminComment (or Extra) through sacct (see
 * job_record.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "job_record.h"
#include "run_cmd.h"

/* AdminComment is a text column (64 KiB); leave room for the JobID and separators. */
#define SACCT_MAX (256 * 1024)
/* sacct answers in seconds; a slurmdbd that does not answer must not hang the admin */
#define SACCT_TIMEOUT_S 120

int job_record_field(const char *job, const char *field, char **comment, char *err, size_t errlen)
{
	char format[64];
	char *argv[] = { "sacct", "-n", "-P", "-X", "-o", format, "-j", (char *)job, NULL };
	char *out = NULL, *bar, *end;
	size_t joblen = strlen(job);
	int rc;

	*comment = NULL;
	snprintf(format, sizeof(format), "JobID,%s", field);
	rc = smpol_run_capture(argv, -1, SACCT_MAX, SACCT_TIMEOUT_S, &out, err, errlen);
	if (rc < 0)
		return rc;
	/* "JOBID|COMMENT\n": the comment is everything after the first bar (it may hold
	 * bars or newlines of its own) */
	if (strncmp(out, job, joblen) || !(bar = strchr(out, '|')) || bar != out + joblen) {
		free(out);
		return smpol_fail(err, errlen, ENOENT,
				 "accounting has no job %s that you may see (sacct shows a job's AdminComment "
				 "once the job has ended; users see only their own jobs)", job);
	}
	end = bar + strlen(bar);
	if (end > bar + 1 && end[-1] == '\n')
		*--end = '\0';
	*comment = strdup(bar + 1);
	free(out);
	return *comment ? 0 : smpol_fail(err, errlen, ENOMEM, "out of memory");
}
