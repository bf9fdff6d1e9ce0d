/* job_id.c - job ids as mpolctl's verbs take them (see job_id.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "job_id.h"
#include "number.h"
#include "step_name.h"

int job_id_parse(const char *text, bool allow_array, struct job_id *id, char *err, size_t errlen)
{
	const char *dot = strchr(text, '.'), *under = strchr(text, '_');
	size_t joblen = dot ? (size_t)(dot - text) : strlen(text);
	char q[SMPOL_QUOTE_LEN];
	uint64_t job, task = 0;
	uint32_t step;

	memset(id, 0, sizeof(*id));
	smpol_quote(text, q, sizeof(q));
	if (under && (!dot || under < dot)) {
		if (!allow_array)
			return smpol_fail(err, errlen, EINVAL, "%s is an array task: give its own job id (squeue -o %%A, or "
					  "JobId in 'scontrol show job %.*s')", q, (int)joblen, text);
		if (joblen - (size_t)(under + 1 - text) > 10 ||
		    smpol_number_parse_span(under + 1, joblen - (size_t)(under + 1 - text), 0, 0, UINT32_MAX - 1,
					    &task, NULL, 0) < 0)
			return smpol_fail(err, errlen, EINVAL, "%s is not a job id: its array task is not a whole number "
					  "(e.g. 1234_7)", q);
		id->array = true;
		id->array_task = (uint32_t)task;
		joblen = (size_t)(under - text);
	}
	if (joblen > 10 || smpol_number_parse_span(text, joblen, 0, 1, UINT32_MAX, &job, NULL, 0) < 0)
		return smpol_fail(err, errlen, EINVAL, "%s is not a job id: give JOBID or JOBID.STEP (JOBID 1-4294967295, "
				  "STEP a number, batch, extern or interactive; e.g. 1234, 1234.0%s)", q,
				  allow_array ? ", 1234_7.batch" : "");
	if (dot && (strlen(dot + 1) >= sizeof(id->step) || smpol_step_number(dot + 1, &step, NULL, 0) < 0))
		return smpol_fail(err, errlen, EINVAL, "%s names no step: after the dot give a number, batch, extern "
				  "or interactive", q);
	id->job = (uint32_t)job;
	/* written as Slurm writes them ("01" is job 1): sacct's output is matched to it */
	if (id->array)
		snprintf(id->job_text, sizeof(id->job_text), "%u_%u", id->job, id->array_task);
	else
		snprintf(id->job_text, sizeof(id->job_text), "%u", id->job);
	if (dot && step <= SMPOL_STEP_MAX)
		snprintf(id->step, sizeof(id->step), "%u", step);
	else
		snprintf(id->step, sizeof(id->step), "%s", dot ? dot + 1 : "");
	return 0;
}
