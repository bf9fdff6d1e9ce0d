/* proc_stat.h - who a process is, from /proc/PID/stat: its start time, state and name.
 *
 * A pid alone may be recycled; a pid with its start time names one process for good.
 * The lease's holder, a kept step's slurmstepd and its tasks, and mpolctl's pinned
 * targets are all named this way. /proc is always the real one (never under fsroot).
 */
#ifndef SMPOL_PROC_STAT_H
#define SMPOL_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * smpol_proc_stat - field 22 (starttime, clock ticks after boot), field 3 (state
 * letter) and the comm field of /proc/PID/stat; state and comm may be NULL. The comm
 * field may hold spaces and parentheses: fields are counted from the last ')'.
 * 0, -ESRCH when the process is gone, -EINVAL when the file does not parse.
 */
int smpol_proc_stat(pid_t pid, uint64_t *start, char *state, char *comm, size_t commlen);

/* Field 4 (the parent's pid). 0, -ESRCH when the process is gone, -EINVAL. */
int smpol_proc_parent(pid_t pid, pid_t *parent);

/* Is the process that started at `start` still alive as pid (not a zombie)? */
bool smpol_proc_alive(pid_t pid, uint64_t start);

#endif
