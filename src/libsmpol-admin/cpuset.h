/* cpuset.h - the nodes a task's cpuset lets it use, and growing them (admin's choice).
 *
 * When a node appears, the kernel widens the root cpuset and every cpuset whose
 * cpuset.mems is empty (cgroup v2: it inherits its parent's), and rebinds the policies
 * of their tasks. A cpuset with an explicit cpuset.mems (Slurm writes one for a job and
 * its steps when task/cgroup constrains cores) keeps its list: the new node stays out
 * of reach, for new allocations and for move_pages alike, until someone writes a wider
 * list. smpol_cpuset_grow is that someone, when the admin asks for it.
 *
 * /proc is always the real one (the process is real); the cgroup files are read and
 * written under fsroot, so tests run on a fake tree.
 */
#ifndef SMPOL_CPUSET_H
#define SMPOL_CPUSET_H

#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bitmap.h"

#define SMPOL_CPUSET_MAX_CHANGES 8

struct smpol_cpuset_change {
	char path[1024];           /* the cpuset.mems file */
	char before[128], after[128];
};

/* Mems_allowed_list from /proc/PID/status: what the task may use now. -ESRCH when gone. */
int smpol_task_mems_allowed(pid_t pid, struct smpol_bitmap *mems, char *err, size_t errlen);

/*
 * smpol_cpuset_dir - the task's cpuset directory under fsroot (cgroup v1 "cpuset"
 * hierarchy when mounted, else the v2 one) and the hierarchy's root, from
 * /proc/PID/cgroup. -ENOENT when the task's cgroup has no cpuset controller.
 */
int smpol_cpuset_dir(pid_t pid, const char *fsroot, char *dir, size_t dirlen, char *root, size_t rootlen,
		    char *err, size_t errlen);

/* The same from the text of a /proc/PID/cgroup file. */
int smpol_cpuset_dir_parse(const char *text, const char *fsroot, char *dir, size_t dirlen, char *root,
			  size_t rootlen, char *err, size_t errlen);

/*
 * smpol_cpuset_grow - add `nodes` to every explicit cpuset.mems from below root down to
 * dir that lacks one of them, parents first (a child may not exceed its parent in
 * cgroup v1). Empty lists inherit and are left alone. dry_run: only report. Fills
 * changes[0..*nchanges). A refused write is an error naming the file; what was
 * already widened stays widened (it only allows more).
 */
int smpol_cpuset_grow(const char *root, const char *dir, const struct smpol_bitmap *nodes, bool dry_run,
		     struct smpol_cpuset_change *changes, int *nchanges, char *err, size_t errlen);

#endif
