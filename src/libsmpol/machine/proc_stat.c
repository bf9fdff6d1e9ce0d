/* proc_stat.c - process identity from /proc/PID/stat (see proc_stat.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "proc_stat.h"
#include "sysfs.h"

/* Read /proc/PID/stat into buf; *open_paren and *close_paren frame the comm field. */
static int read_stat(pid_t pid, char *buf, size_t len, const char **open_paren, const char **close_paren)
{
	char path[64];
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	rc = smpol_read_text(path, buf, len);
	if (rc < 0)
		return rc == -ENOENT ? -ESRCH : rc;
	*open_paren = strchr(buf, '(');
	*close_paren = strrchr(buf, ')');
	if (!*open_paren || !*close_paren || *close_paren < *open_paren || (*close_paren)[1] != ' ' ||
	    !(*close_paren)[2])
		return -EINVAL;
	return 0;
}

int smpol_proc_parent(pid_t pid, pid_t *parent)
{
	const char *open_paren, *close_paren;
	char buf[1024];
	int ppid, rc = read_stat(pid, buf, sizeof(buf), &open_paren, &close_paren);

	/* ") S PPID": field 4 follows the state letter */
	if (rc == 0 && sscanf(close_paren + 3, " %d", &ppid) != 1)
		rc = -EINVAL;
	if (rc == 0)
		*parent = (pid_t)ppid;
	return rc;
}

int smpol_proc_stat(pid_t pid, uint64_t *start, char *state, char *comm, size_t commlen)
{
	char buf[1024];
	const char *open_paren, *close_paren, *p;
	int rc = read_stat(pid, buf, sizeof(buf), &open_paren, &close_paren);

	if (rc < 0)
		return rc;
	if (comm && commlen) {
		size_t len = (size_t)(close_paren - open_paren - 1);

		if (len >= commlen)
			len = commlen - 1;
		memcpy(comm, open_paren + 1, len);
		comm[len] = '\0';
	}
	if (state)
		*state = close_paren[2];
	/* After ") " come field 3 (state) onwards; starttime is field 22. */
	p = close_paren + 1;
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	if (sscanf(p, " %" SCNu64, start) != 1)
		return -EINVAL;
	return 0;
}

bool smpol_proc_alive(pid_t pid, uint64_t start)
{
	uint64_t now;
	char state;

	if (pid <= 0 || smpol_proc_stat(pid, &now, &state, NULL, 0) < 0)
		return false;
	/* A killed process stays a zombie until its parent reaps it: it is dead already. */
	if (state == 'Z' || state == 'X')
		return false;
	return now == start;   /* else the pid was recycled */
}
