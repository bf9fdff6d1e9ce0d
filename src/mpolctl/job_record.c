#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "job_record.h"
#include "run_cmd.h"

/* AdminComment is a text column (64 KiB); leave room for the JobID and separators. */
#define SACCT_MAX (256 * 1024)

int job_id_split(const char *text, char *job, size_t joblen, char *step, size_t steplen,
		 char *err, size_t errlen)
{
	const char *dot = strchr(text, '.');
	size_t n = dot ? (size_t)(dot - text) : strlen(text), i;
	int underscores = 0;

	for (i = 0; i < n; i++) {
		if (text[i] == '_' && i > 0 && i + 1 < n && !underscores)
			underscores++;
		else if (!isdigit((unsigned char)text[i]))
			break;
	}
	if (n == 0 || i != n || n >= joblen)
		return smpol_fail(err, errlen, EINVAL,
				 "'%s' is not a job id: want JOBID or JOBID.STEP (e.g. 1234, 1234.0, 1234_7.batch)", text);
	memcpy(job, text, n);
	job[n] = '\0';
	step[0] = '\0';
	if (dot) {
		const char *s = dot + 1;
		bool digits = *s != '\0';

		for (const char *p = s; *p; p++)
			digits = digits && isdigit((unsigned char)*p);
		if (!(digits || !strcmp(s, "batch") || !strcmp(s, "extern") || !strcmp(s, "interactive")) ||
		    strlen(s) >= steplen)
			return smpol_fail(err, errlen, EINVAL,
					 "'%s' is not a step: want a number, 'batch', 'extern' or 'interactive'", s);
		snprintf(step, steplen, "%s", s);
	}
	return 0;
}

int job_admin_comment(const char *job, char **comment, char *err, size_t errlen)
{
	char *argv[] = { "sacct", "-n", "-P", "-X", "-o", "JobID,AdminComment", "-j", (char *)job, NULL };
	char *out = NULL, *bar, *end;
	size_t joblen = strlen(job);
	int rc;

	*comment = NULL;
	rc = smpol_run_capture(argv, SACCT_MAX, &out, err, errlen);
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
