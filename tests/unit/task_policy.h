/* task_policy.h - the calling task's memory policy as the kernel reports it (tests). */
#ifndef SMPOL_TEST_TASK_POLICY_H
#define SMPOL_TEST_TASK_POLICY_H

/* Include this before kernel.h (see apply.c): it brings <linux/mempolicy.h>. */
#include <linux/mempolicy.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bitmap.h"
#include "kernel.h"

/* get_mempolicy's mode for this thread, -1 when it fails. */
static inline int task_policy(void)
{
	unsigned long mask[SMPOL_MAX_NODES / (8 * sizeof(unsigned long))];
	int mode = -1;

	if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)SMPOL_MAX_NODES + 1, NULL, 0UL) != 0)
		return -1;
	return mode;
}

static inline void task_policy_reset(void)
{
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
}

/* Does this kernel take MPOL_WEIGHTED_INTERLEAVE? Leaves the default policy set. */
static inline bool kernel_takes_weighted(void)
{
	unsigned long node0 = 1;
	bool ok = syscall(SYS_set_mempolicy, MPOL_WEIGHTED_INTERLEAVE, &node0, 65UL) == 0;

	task_policy_reset();
	return ok;
}

#endif
