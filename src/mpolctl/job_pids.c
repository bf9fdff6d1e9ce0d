/* job_pids.c - job -> step -> pids on this node through scontrol listpids. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "job_pids.h"
#include "run_cmd.h"

#define LISTPIDS_MAX_OUTPUT (16 << 20)
/* scontrol asks slurmd, which answers at once or not at all */
#define LISTPIDS_TIMEOUT_S 60

int job_pids_parse(const char *text, struct job_pid **pids, int *npids, char *err, size_t errlen)
{
	struct job_pid *out = NULL, *bigger;
	int n = 0, row = 0;
	size_t cap = 0;
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
		bigger = smpol_array_room(out, &cap, (size_t)n, sizeof(*out), 64);
		if (!bigger) {
			free(out);
			return smpol_fail(err, errlen, ENOMEM, "out of memory for %d pids", n + 1);
		}
		out = bigger;
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

	rc = smpol_run_capture(argv, -1, LISTPIDS_MAX_OUTPUT, LISTPIDS_TIMEOUT_S, &out, err, errlen);
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
