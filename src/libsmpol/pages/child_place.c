/* child_place.c - children follow their CPUs (see child_place.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "child_place.h"
#include "error.h"
#include "numa_maps.h"
#include "proc_stat.h"

const char *smpol_child_verdict_name(enum smpol_child_verdict v)
{
	switch (v) {
	case SMPOL_CHILD_REPLACE:
		return "replace";
	case SMPOL_CHILD_NOT_OURS:
		return "not ours";
	case SMPOL_CHILD_FOLLOWS:
		break;
	}
	return "follows";
}

int smpol_child_pin(pid_t pid, pid_t parent, uid_t uid, struct smpol_task_ref *ref, char *err, size_t errlen)
{
	pid_t found;
	int rc = smpol_task_pin(pid, 0, ref, err, errlen);

	if (rc < 0)
		return rc;
	rc = smpol_proc_parent(pid, &found);
	/* read after pinning: still the pinned process when the pidfd says it lives */
	if (rc == 0)
		rc = smpol_task_check(ref, err, errlen);
	else
		smpol_fail(err, errlen, -rc, "process %d has exited", (int)pid);
	if (rc == 0 && found != parent)
		rc = smpol_fail(err, errlen, EPERM, "process %d (%s) is process %d's child, not %d's: not the job's, "
				"left alone", (int)pid, ref->comm, (int)found, (int)parent);
	else if (rc == 0 && ref->uid != uid)
		rc = smpol_fail(err, errlen, EPERM, "process %d (%s) runs as uid %u, not the job's %u: left alone",
				(int)pid, ref->comm, (unsigned)ref->uid, (unsigned)uid);
	if (rc < 0)
		smpol_task_unpin(ref);
	return rc;
}

enum smpol_child_verdict smpol_child_check(const char *policy, const char *task_policy, const struct smpol_plan *plan,
					   bool region_aware)
{
	struct smpol_bitmap seen, want;

	if (!policy[0])
		return SMPOL_CHILD_FOLLOWS;     /* no anonymous memory yet: nothing to place */
	/* no policy at all where its task has one: it inherited the task's at fork, and a
	 * launcher's binding reset it (MPICH's hydra proxy sets MPOL_DEFAULT with the CPUs) */
	if (!strcmp(policy, "default") && strcmp(task_policy, "default"))
		return SMPOL_CHILD_REPLACE;
	if (strcmp(policy, task_policy))
		return SMPOL_CHILD_NOT_OURS;
	if (region_aware)
		return SMPOL_CHILD_REPLACE;
	smpol_bitmap_clear(&want);
	for (int i = 0; i < plan->nnodes; i++)
		smpol_bitmap_set(&want, plan->nodes[i]);
	if (smpol_numa_policy_nodes(policy, &seen) < 0)
		return SMPOL_CHILD_NOT_OURS;    /* the task itself runs without a plan's policy */
	return smpol_bitmap_equal(&seen, &want) ? SMPOL_CHILD_FOLLOWS : SMPOL_CHILD_REPLACE;
}

int smpol_child_opts(const struct smpol_placement *pl, const struct smpol_plan *p, bool pmbind, long pmbind_nr,
		     struct smpol_region_opts *o, char *err, size_t errlen)
{
	if (!pl->weights_known)
		return smpol_fail(err, errlen, EINVAL, "the weights in force are unknown, so a child's pages have "
				 "no target to move to");
	return smpol_region_opts_make(pmbind ? SMPOL_REGIONS_POLICY : SMPOL_REGIONS_MOVE, pl->min_region_kb * 1024,
				      pl->path, p, pmbind_nr, o, err, errlen);
}
