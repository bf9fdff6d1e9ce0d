/* task_ref.c - pin a process with a pidfd and re-check its identity (see task_ref.h). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "sysfs.h"
#include "proc_stat.h"
#include "task_ref.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int read_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	FILE *f;
	int rc = -EINVAL;
	unsigned long real;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu", &real) == 1) {
			*uid = (uid_t)real;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* A pidfd polls readable once its process has exited. */
static int pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int rc;

	/* a signal during the poll (mpolctl rebalance's SIGINT) says nothing of the task */
	do
		rc = poll(&p, 1, 0);
	while (rc < 0 && errno == EINTR);
	return rc != 0;
}

int smpol_task_pin(pid_t pid, uint64_t expect_start, struct smpol_task_ref *t, char *err, size_t errlen)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->pidfd = -1;
	if (pid <= 0)
		return smpol_fail(err, errlen, EINVAL, "'%d' is not a process id", (int)pid);
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0) {
		rc = errno;
		if (rc == ESRCH)
			return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
		if (rc == ENOSYS)
			return smpol_fail(err, errlen, ENOSYS,
					 "this kernel has no pidfd_open (Linux 5.3): processes cannot be pinned safely");
		return smpol_fail(err, errlen, rc, "cannot pin process %d: pidfd_open: %s", (int)pid, strerror(rc));
	}
	rc = smpol_proc_stat(pid, &t->start, NULL, t->comm, sizeof(t->comm));
	if (rc == 0)
		rc = read_uid(pid, &t->uid);
	if (rc == 0 && pidfd_exited(t->pidfd))
		rc = -ESRCH;
	if (rc < 0) {
		smpol_task_unpin(t);
		if (rc == -ESRCH)
			return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
		return smpol_fail(err, errlen, -rc, "cannot read /proc/%d: %s", (int)pid, strerror(-rc));
	}
	if (expect_start && t->start != expect_start) {
		smpol_task_unpin(t);
		return smpol_fail(err, errlen, ESTALE,
				 "process %d is not the one found earlier (started at tick %" PRIu64
				 ", expected %" PRIu64 "): its pid was reused; left alone",
				 (int)pid, t->start, expect_start);
	}
	return 0;
}

int smpol_task_check(const struct smpol_task_ref *t, char *err, size_t errlen)
{
	uint64_t start;

	if (t->pidfd < 0 || pidfd_exited(t->pidfd))
		return smpol_fail(err, errlen, ESRCH, "process %d (%s) has exited", (int)t->pid, t->comm);
	if (smpol_proc_stat(t->pid, &start, NULL, NULL, 0) < 0 || start != t->start)
		return smpol_fail(err, errlen, ESTALE, "pid %d no longer names process %s; left alone",
				 (int)t->pid, t->comm);
	return 0;
}

bool smpol_task_exited_within(const struct smpol_task_ref *t, int ms)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };
	int rc;

	if (t->pidfd < 0)
		return true;
	do
		rc = poll(&p, 1, ms);
	while (rc < 0 && errno == EINTR);
	return rc > 0;
}

void smpol_task_unpin(struct smpol_task_ref *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

bool smpol_task_gone(const struct smpol_task_ref *t, int rc)
{
	return rc == -ESRCH || rc == -ESTALE || (rc < 0 && smpol_task_exited_within(t, 200));
}
