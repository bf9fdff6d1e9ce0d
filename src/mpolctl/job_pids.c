/* job_pids.c - job -> step -> pids on this node through scontrol listpids. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "job_pids.h"
#include "run_cmd.h"

#define LISTPIDS_MAX_OUTPUT (16 << 20)

static int step_ok(const char *s)
{
	if (!strcmp(s, "batch") || !strcmp(s, "extern") || !strcmp(s, "interactive"))
		return 1;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int job_step_number(const char *step, uint32_t *id)
{
	static const struct { const char *name; uint32_t id; } special[] = {
		{ "batch", 0xfffffffbU }, { "extern", 0xfffffffcU }, { "interactive", 0xfffffffaU },
	};
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(step, special[i].name)) {
			*id = special[i].id;
			return 0;
		}
	errno = 0;
	v = strtoul(step, &end, 10);
	if (!isdigit((unsigned char)step[0]) || *end || errno || v >= 0xfffffff0UL)
		return -EINVAL;
	*id = (uint32_t)v;
	return 0;
}

int job_id_parse(const char *text, uint32_t *job, char *step, size_t steplen, char *err, size_t errlen)
{
	const char *dot = strchr(text, '.');
	char *end;
	unsigned long id;

	errno = 0;
	id = strtoul(text, &end, 10);
	if (!isdigit((unsigned char)text[0]) || errno || id == 0 || id > UINT32_MAX ||
	    (end != dot && *end) || (dot && (strlen(dot + 1) >= steplen || !step_ok(dot + 1))))
		return smpol_fail(err, errlen, EINVAL,
				 "bad job '%s': give JOBID or JOBID.STEP (STEP a number, batch, extern or interactive)",
				 text);
	*job = (uint32_t)id;
	snprintf(step, steplen, "%s", dot ? dot + 1 : "");
	return 0;
}

int job_pids_parse(const char *text, struct job_pid **pids, int *npids, char *err, size_t errlen)
{
	struct job_pid *out = NULL;
	int n = 0, cap = 0, row = 0;
	const char *line = text;

	*pids = NULL;
	*npids = 0;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[256], step[sizeof(out->step)], local[32];
		long pid;
		unsigned long job;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = eol ? eol + 1 : NULL;
		row++;
		if (!strncmp(buf, "PID", 3) || strspn(buf, " \t") == strlen(buf))
			continue;
		/* a pid beyond pid_t would wrap to another process's pid */
		if (sscanf(buf, "%ld %lu %23s %31s", &pid, &job, step, local) != 4 || pid <= 0 ||
		    pid > INT_MAX || job == 0 || job > UINT32_MAX) {
			free(out);
			return smpol_fail(err, errlen, EBADMSG, "scontrol listpids printed an unexpected row %d: '%.80s'",
					 row, buf);
		}
		if (n == cap) {
			struct job_pid *bigger;

			cap = cap ? 2 * cap : 64;
			bigger = realloc(out, (size_t)cap * sizeof(*out));
			if (!bigger) {
				free(out);
				return smpol_fail(err, errlen, ENOMEM, "out of memory for %d pids", cap);
			}
			out = bigger;
		}
		out[n].pid = (pid_t)pid;
		out[n].job = (uint32_t)job;
		snprintf(out[n].step, sizeof(out[n].step), "%s", step);
		out[n].local_id = isdigit((unsigned char)local[0]) ? atoi(local) : -1;
		n++;
	}
	*pids = out;
	*npids = n;
	return 0;
}

int job_pids_list(const char *jobstep, struct job_pid **pids, int *npids, char *err, size_t errlen)
{
	char *argv[] = { "scontrol", "listpids", (char *)jobstep, NULL };
	char *out = NULL;
	int rc;

	rc = smpol_run_capture(argv, LISTPIDS_MAX_OUTPUT, &out, err, errlen);
	if (rc < 0) {
		if (rc == -ENOENT)
			smpol_fail(err, errlen, ENOENT, "scontrol is not installed: cannot find the job's processes");
		free(out);
		return rc;
	}
	rc = job_pids_parse(out, pids, npids, err, errlen);
	free(out);
	return rc;
}
