/* run_cmd.c - run a program without a shell and capture its output (see run_cmd.h):
 * one poll loop drains stdout and stderr together, so neither pipe fills and blocks. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "run_cmd.h"

/* Stderr is only for the error sentence: its first few KiB are kept, the rest drained. */
#define ERR_KEEP 4096
/* How often a child that closed its output is asked whether it has exited. */
#define REAP_POLL_MS 10

/* What one pipe has given so far: kept up to max bytes (more is -EFBIG, or dropped). */
struct sink {
	int fd;             /* -1 once at end of file */
	char *buf;
	size_t len, cap, max;
	bool drop_excess;   /* keep the first max bytes and read on (stderr) */
};

/* Read what fd has now into the sink. 0, or -errno / -EFBIG / -ENOMEM. */
static int drain(struct sink *k)
{
	char scratch[4096];
	ssize_t n;

	if (k->len == k->cap && k->cap < k->max) {
		size_t cap = k->cap * 2 > k->max ? k->max : k->cap * 2;
		char *bigger = realloc(k->buf, cap + 1);

		if (!bigger)
			return -ENOMEM;
		k->buf = bigger;
		k->cap = cap;
	}
	if (k->len < k->cap)
		n = read(k->fd, k->buf + k->len, k->cap - k->len);
	else if (k->drop_excess)
		n = read(k->fd, scratch, sizeof(scratch));
	else
		return -EFBIG;
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		close(k->fd);
		k->fd = -1;
	} else if (k->len < k->cap) {
		k->len += (size_t)n;
	}
	k->buf[k->len] = '\0';
	return 0;
}

static int sink_init(struct sink *k, int fd, size_t max, bool drop_excess)
{
	k->fd = fd;
	k->len = 0;
	k->max = max;
	k->cap = max < 4096 ? max : 4096;
	k->drop_excess = drop_excess;
	k->buf = malloc(k->cap + 1);
	if (k->buf)
		k->buf[0] = '\0';
	return k->buf ? 0 : -ENOMEM;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (0 once it passed), for poll. */
static int left_ms(int64_t deadline)
{
	int64_t left = deadline - now_ms();

	return left > 0 ? (int)(left > INT32_MAX ? INT32_MAX : left) : 0;
}

/*
 * Both pipes in one poll loop: a child that fills one pipe while we wait on the other
 * would block forever (stderr was read only after stdout's end). -ETIMEDOUT at the
 * deadline.
 */
static int read_both(struct sink *out, struct sink *errs, int64_t deadline)
{
	int rc = 0;

	while (!rc && (out->fd >= 0 || errs->fd >= 0)) {
		struct pollfd p[2] = { { out->fd, POLLIN, 0 }, { errs->fd, POLLIN, 0 } };
		int n = poll(p, 2, left_ms(deadline));

		if (n < 0) {
			rc = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (n == 0) {
			rc = -ETIMEDOUT;
			continue;
		}
		if (out->fd >= 0 && p[0].revents)
			rc = drain(out);
		if (!rc && errs->fd >= 0 && p[1].revents)
			rc = drain(errs);
	}
	return rc;
}

/* Wait for the child until the deadline (it may close its output and go on). */
static int reap(pid_t pid, int *status, int64_t deadline)
{
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (got == 0 && !left_ms(deadline))
			return -ETIMEDOUT;
		if (got == 0)
			poll(NULL, 0, REAP_POLL_MS);
	}
}

/* In the child: its own process group (so that a timeout kills what it started too),
 * gone when its caller dies, input_fd or no input; then argv. */
static void exec_child(char *const argv[], int input_fd, int outfd, int errfd, pid_t parent)
{
	int in = input_fd >= 0 ? input_fd : open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	if (in >= 0)
		dup2(in, STDIN_FILENO);
	dup2(outfd, STDOUT_FILENO);
	dup2(errfd, STDERR_FILENO);
	execvp(argv[0], argv);
	/* 127 is the shell's "command not found" */
	_exit(errno == ENOENT ? 127 : 126);
}

int smpol_run_capture(char *const argv[], int input_fd, size_t max, unsigned timeout_s, char **out,
		      char *err, size_t errlen)
{
	int64_t deadline = now_ms() + (int64_t)timeout_s * 1000;
	int outp[2], errp[2], status = 0, rc;
	pid_t pid, parent = getpid();
	struct sink o, e;

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
	if (pid == 0)
		exec_child(argv, input_fd, outp[1], errp[1], parent);
	/* also here: a kill at the deadline must not miss a child that has not run yet */
	setpgid(pid, pid);
	close(outp[1]);
	close(errp[1]);
	rc = sink_init(&o, outp[0], max, false);
	if (sink_init(&e, errp[0], ERR_KEEP, true) < 0)
		rc = -ENOMEM;
	if (rc == 0)
		rc = read_both(&o, &e, deadline);
	if (o.fd >= 0)
		close(o.fd);
	if (e.fd >= 0)
		close(e.fd);
	if (!rc)
		rc = reap(pid, &status, deadline);
	if (rc < 0) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	/* exec_child's 127 says nothing; the dynamic loader's (a missing library) does */
	if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 && !(e.buf && *e.buf)) {
		rc = smpol_fail(err, errlen, ENOENT, "cannot run %s: not found in PATH", argv[0]);
	} else if (rc == -ETIMEDOUT) {
		rc = smpol_fail(err, errlen, ETIMEDOUT, "%s did not finish within %u s: it was killed, with every "
				"process it started", argv[0], timeout_s);
	} else if (rc == -EFBIG) {
		rc = smpol_fail(err, errlen, EFBIG, "%s printed more than %zu bytes", argv[0], max);
	} else if (rc < 0) {
		rc = smpol_fail(err, errlen, -rc, "reading the output of %s failed: %s", argv[0], strerror(-rc));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *nl = e.buf ? strchr(e.buf, '\n') : NULL;

		if (nl)
			*nl = '\0';
		rc = smpol_fail(err, errlen, ECHILD, "%s failed (%s %d)%s%s", argv[0],
			       WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			       e.buf && *e.buf ? ": " : "", e.buf ? e.buf : "");
	}
	free(e.buf);
	if (rc < 0)
		free(o.buf);
	else
		*out = o.buf;
	return rc;
}
