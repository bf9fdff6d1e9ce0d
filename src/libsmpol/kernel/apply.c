/* apply.c - set the calling task's memory policy from a plan (raw syscalls, no libnuma). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
/* The mode numbers from the kernel's header; before kernel.h, which adds what a newer
 * header has (MPOL_WEIGHTED_INTERLEAVE) as a macro. */
#include <linux/mempolicy.h>

#include "apply.h"
#include "error.h"

static long set_policy(int mode, const unsigned long *mask)
{
	/* The kernel reads maxnode - 1 bits. */
	return syscall(SYS_set_mempolicy, mode, mask, (unsigned long)SMPOL_MAX_NODES + 1);
}

int smpol_plan_policy_nodes(const struct smpol_plan *plan, struct smpol_bitmap *nodes, bool *static_nodes,
			    char *err, size_t errlen)
{
	*nodes = plan->standby;
	/* standby nodes stay in the policy until they have memory (MPOL_F_STATIC_NODES) */
	*static_nodes = !smpol_bitmap_empty(&plan->standby);
	if (plan->nnodes < 1)
		return smpol_fail(err, errlen, EINVAL, "the plan for initiator node %d has no memory nodes",
				 plan->initiator);
	for (int i = 0; i < plan->nnodes; i++) {
		int n = plan->nodes[i];

		if (n < 0 || n >= SMPOL_MAX_NODES)
			return smpol_fail(err, errlen, EINVAL, "node %d in the plan is out of range 0-%d",
					 n, SMPOL_MAX_NODES - 1);
		smpol_bitmap_set(nodes, n);
	}
	return 0;
}

int smpol_plan_mask(const struct smpol_plan *plan, unsigned long *mask, int *flags, char *err, size_t errlen)
{
	struct smpol_bitmap nodes;
	bool static_nodes;
	int rc = smpol_plan_policy_nodes(plan, &nodes, &static_nodes, err, errlen);

	if (rc < 0)
		return rc;
	*flags = static_nodes ? MPOL_F_STATIC_NODES : 0;
	smpol_bitmap_to_mask(&nodes, mask);
	return 0;
}

int smpol_plan_policy(const struct smpol_plan *plan, enum smpol_kernel_path path, int *mode,
		      unsigned long *mask, char *err, size_t errlen)
{
	int flags, rc;

	if (path != SMPOL_PATH_WEIGHTED && path != SMPOL_PATH_INTERLEAVE)
		return smpol_fail(err, errlen, EINVAL, "no interleave policy for kernel path %s",
				 smpol_kernel_path_name(path));
	rc = smpol_plan_mask(plan, mask, &flags, err, errlen);
	if (rc < 0)
		return rc;
	*mode = (path == SMPOL_PATH_WEIGHTED ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE) | flags;
	return 0;
}

static int refused(const struct smpol_plan *plan, const char *what, int e, char *err, size_t errlen)
{
	char nodes[256] = "";

	smpol_plan_format_nodes(plan, nodes, sizeof(nodes));
	return smpol_fail(err, errlen, e, "set_mempolicy(%s, nodes %s) failed: %s%s", what, nodes, strerror(e),
			 e == EINVAL ? " (every node must be online, have memory and be allowed by the job's cpuset)" : "");
}

int smpol_apply_plan(const struct smpol_plan *plan, enum smpol_kernel_path path, bool strict,
		     struct smpol_apply_result *res, char *err, size_t errlen)
{
	unsigned long mask[SMPOL_MASK_LONGS];
	int rc, flags;

	memset(res, 0, sizeof(*res));
	res->path = SMPOL_PATH_NONE;
	if (path == SMPOL_PATH_NONE)
		return 0;
	rc = smpol_plan_mask(plan, mask, &flags, err, errlen);
	if (rc < 0)
		return rc;
	if (path == SMPOL_PATH_WEIGHTED) {
		if (set_policy(MPOL_WEIGHTED_INTERLEAVE | flags, mask) == 0) {
			res->path = SMPOL_PATH_WEIGHTED;
			return 0;
		}
		if (errno != EINVAL)
			return refused(plan, "MPOL_WEIGHTED_INTERLEAVE", errno, err, errlen);
		/* sysfs said yes, the syscall said no: still a fallback. */
		snprintf(res->reason, sizeof(res->reason), "the kernel refused MPOL_WEIGHTED_INTERLEAVE (EINVAL)");
		if (strict)
			return smpol_fail(err, errlen, EOPNOTSUPP,
					  "strict: %s; not falling back to interleave", res->reason);
		res->fell_back = true;
	}
	if (set_policy(MPOL_INTERLEAVE | flags, mask) < 0)
		return refused(plan, "MPOL_INTERLEAVE", errno, err, errlen);
	res->path = SMPOL_PATH_INTERLEAVE;
	return 0;
}

int smpol_apply_local(const struct smpol_plan *plan, int *node, char *err, size_t errlen)
{
	unsigned long mask[SMPOL_MASK_LONGS];
	struct smpol_bitmap one;

	*node = -1;
	for (int i = 0; i < plan->nnodes && plan->nserved <= 1; i++)
		if (plan->nodes[i] == plan->initiator)
			*node = plan->initiator;
	if (*node < 0) {
		if (set_policy(MPOL_LOCAL, NULL) < 0)
			return smpol_fail(err, errlen, errno, "set_mempolicy(MPOL_LOCAL) failed: %s", strerror(errno));
		return 0;
	}
	smpol_bitmap_clear(&one);
	smpol_bitmap_set(&one, *node);
	smpol_bitmap_to_mask(&one, mask);
	if (set_policy(MPOL_PREFERRED, mask) < 0)
		return smpol_fail(err, errlen, errno, "set_mempolicy(MPOL_PREFERRED, node %d) failed: %s%s", *node,
				 strerror(errno), errno == EINVAL ? " (the node must be allowed by the job's cpuset)" : "");
	return 0;
}

int smpol_task_cpus(pid_t pid, struct smpol_cpus *cpus, char *err, size_t errlen)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (sched_getaffinity(pid, sizeof(set), &set) < 0)
		return smpol_fail(err, errlen, errno, "cannot read the CPU affinity of %s: %s",
				 pid ? "the process" : "the task", strerror(errno));
	smpol_cpus_clear(cpus);
	for (int i = 0; i < CPU_SETSIZE && i < SMPOL_MAX_CPUS; i++)
		if (CPU_ISSET(i, &set) && smpol_cpus_set(cpus, i) < 0)
			return smpol_fail(err, errlen, ENOMEM, "out of memory");
	return 0;
}

const char *smpol_applied_mode_name(enum smpol_mode asked, enum smpol_kernel_path path)
{
	switch (path) {
	case SMPOL_PATH_WEIGHTED:
		return asked == SMPOL_MODE_AUTO ? "auto" : "weighted";
	case SMPOL_PATH_INTERLEAVE:
		return "interleave";
	default:
		return "none";
	}
}
