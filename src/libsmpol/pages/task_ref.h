/* task_ref.h - a process pinned by a pidfd, so that a recycled pid is never touched.
 *
 * A pid read from Slurm (or typed by an admin) may belong to another process by the
 * time we act on it. Pinning opens a pidfd, then reads the process's start time and
 * owner from /proc/PID/stat and /proc/PID/status, then checks through the pidfd that
 * the process has not exited meanwhile: while it lives, its pid cannot be reused, so
 * what /proc said belongs to the pinned process. Before each action, smpol_task_check
 * asks the pidfd again and compares the start time. When the caller already knows the
 * start time it expects (from an earlier look), pinning refuses a different one.
 *
 * Syscalls that take a pid (move_pages, migrate_pages) still race with an exit
 * between the check and the call; the window is one syscall, and the pid space
 * would have to wrap within it for another process to be hit.
 */
#ifndef SMPOL_TASK_REF_H
#define SMPOL_TASK_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct smpol_task_ref {
	pid_t pid;
	int pidfd;                 /* -1 when not pinned */
	uint64_t start;            /* starttime from /proc/PID/stat (clock ticks after boot) */
	uid_t uid;                 /* real uid */
	char comm[32];
};

/*
 * smpol_task_pin - pin pid. expect_start 0 = any start time. Returns 0, -ESRCH with
 * "process 123 has exited" when it is gone (or exits while being pinned), -ESTALE
 * when its start time differs from expect_start (the pid was recycled), -ENOSYS when
 * the kernel has no pidfd_open (Linux < 5.3), or another -errno with a sentence.
 */
int smpol_task_pin(pid_t pid, uint64_t expect_start, struct smpol_task_ref *t, char *err, size_t errlen);

/* Still the same live process? 0, -ESRCH (exited) or -ESTALE (pid now names another). */
int smpol_task_check(const struct smpol_task_ref *t, char *err, size_t errlen);

/*
 * smpol_task_exited_within - has the process exited, or does it within ms milliseconds?
 * An exiting process drops its address space before the pidfd reports the exit, so a
 * call that failed oddly (move_pages answers EINVAL then) asks this before blaming
 * anything else.
 */
bool smpol_task_exited_within(const struct smpol_task_ref *t, int ms);

/*
 * smpol_task_gone - did a call on t fail (rc < 0) only because the task ended? -ESRCH,
 * -ESTALE (the pid names another process now), or it exits within 200 ms.
 */
bool smpol_task_gone(const struct smpol_task_ref *t, int rc);

/* Close the pidfd (safe on an unpinned ref). */
void smpol_task_unpin(struct smpol_task_ref *t);

#endif
