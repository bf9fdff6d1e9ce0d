#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "run_cmd.h"

/* Read all of fd into a growing buffer, up to max bytes. */
static int read_all(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096;

	*len = 0;
	*buf = malloc(cap + 1);
	if (!*buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (*len == cap) {
			char *bigger;

			if (cap >= max)
				return -EFBIG;
			cap = cap * 2 > max ? max : cap * 2;
			bigger = realloc(*buf, cap + 1);
			if (!bigger)
				return -ENOMEM;
			*buf = bigger;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = '\0';
	return 0;
}

int smpol_run_capture(char *const argv[], size_t max, char **out, char *err, size_t errlen)
{
	int outp[2], errp[2], status, rc;
	char *errtext = NULL;
	size_t outlen, errlen_read;
	pid_t pid;

	*out = NULL;
	if (pipe2(outp, O_CLOEXEC) < 0)
		return smpol_fail(err, errlen, errno, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		rc = errno;
		close(outp[0]);
		close(outp[1]);
		return smpol_fail(err, errlen, rc, "cannot run %s: pipe: %s", argv[0], strerror(rc));
	}
	pid = fork();
	if (pid < 0) {
		rc = errno;
		close(outp[0]); close(outp[1]); close(errp[0]); close(errp[1]);
		return smpol_fail(err, errlen, rc, "cannot run %s: fork: %s", argv[0], strerror(rc));
	}
	if (pid == 0) {
		dup2(outp[1], STDOUT_FILENO);
		dup2(errp[1], STDERR_FILENO);
		execvp(argv[0], argv);
		/* 127 is the shell's "command not found" */
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(outp[1]);
	close(errp[1]);
	rc = read_all(outp[0], max, out, &outlen);
	/* stderr is only for the error sentence: a few KiB is plenty */
	if (read_all(errp[0], 4096, &errtext, &errlen_read) < 0 && errtext)
		errtext[errlen_read] = '\0';
	close(outp[0]);
	close(errp[0]);
	if (rc < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		rc = smpol_fail(err, errlen, ENOENT, "cannot run %s: not found in PATH", argv[0]);
	} else if (rc == -EFBIG) {
		rc = smpol_fail(err, errlen, EFBIG, "%s printed more than %zu bytes", argv[0], max);
	} else if (rc < 0) {
		rc = smpol_fail(err, errlen, -rc, "reading the output of %s failed: %s", argv[0], strerror(-rc));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *nl = errtext ? strchr(errtext, '\n') : NULL;

		if (nl)
			*nl = '\0';
		rc = smpol_fail(err, errlen, ECHILD, "%s failed (%s %d)%s%s", argv[0],
			       WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			       errtext && *errtext ? ": " : "", errtext ? errtext : "");
	}
	free(errtext);
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}
