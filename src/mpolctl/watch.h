/* watch.h - the parts of `mpolctl watch` and what they share. */
#ifndef MPOLCTL_WATCH_H
#define MPOLCTL_WATCH_H

#include <sys/types.h>

#include "cli.h"
#include "host.h"

/* One line on stderr and one in syslog for every action. */
#define watch_log(prio, ...) cli_log("watch", prio, __VA_ARGS__)

/*
 * watch_scan_migrations - the tasks of running steps (their kept placements) whose
 * CPUs now belong to another socket's plan than their memory follows (migration.h),
 * each logged. *moved is malloc'ed (NULL when none). 0, or -errno when the node or the
 * kept placements cannot be read (logged).
 */
int watch_scan_migrations(const struct smpol_host *h, pid_t **moved, int *nmoved);

#endif
