/* apply.h - set the calling task's memory policy from its plan.
 *
 * What slurm_spank_task_init does, shared with the VM tier's launcher. The placement
 * (placement.h) chose the kernel path; the syscall can still refuse weighted
 * interleave (a backport, a container), which falls back to plain interleave over the
 * same nodes unless strict.
 */
#ifndef SMPOL_APPLY_H
#define SMPOL_APPLY_H

#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>

#include "kernel.h"
#include "plan.h"
#include "spec.h"

struct smpol_apply_result {
	enum smpol_kernel_path path;
	bool fell_back;                /* wanted weighted, got interleave */
	char reason[160];              /* why it fell back ("kernel has no weighted interleave") */
};

/*
 * smpol_apply_plan - set_mempolicy for the calling thread: path WEIGHTED sets
 * MPOL_WEIGHTED_INTERLEAVE over the plan's nodes, INTERLEAVE plain interleave, NONE
 * nothing. When the kernel answers EINVAL to weighted interleave, plain interleave is
 * set instead (res->fell_back, res->reason), or with strict -EOPNOTSUPP ("strict: the
 * kernel refused MPOL_WEIGHTED_INTERLEAVE (EINVAL); not falling back to interleave").
 * 0 or -errno with a sentence.
 */
int smpol_apply_plan(const struct smpol_plan *plan, enum smpol_kernel_path path, bool strict,
		     struct smpol_apply_result *res, char *err, size_t errlen);

/*
 * smpol_apply_local - region-aware placement's task policy (placement.h): MPOL_PREFERRED
 * on the plan's initiator node when the plan has it (it has memory) and serves that
 * node alone, else MPOL_LOCAL (a task spanning CPU nodes keeps small data by each
 * thread's own socket).
 * *node = the preferred node, or -1 for local. 0 or -errno with a sentence.
 */
int smpol_apply_local(const struct smpol_plan *plan, int *node, char *err, size_t errlen);

/*
 * smpol_plan_policy_nodes - the nodes a policy under this plan names: its nodes plus its
 * standby nodes, *static_nodes when there are standby nodes (they stay in the policy
 * until they have memory: MPOL_F_STATIC_NODES). 0 or -EINVAL with a sentence.
 */
int smpol_plan_policy_nodes(const struct smpol_plan *plan, struct smpol_bitmap *nodes, bool *static_nodes,
			    char *err, size_t errlen);

/*
 * smpol_plan_mask - smpol_plan_policy_nodes as the kernel's node mask (SMPOL_MASK_LONGS
 * longs) and *flags (MPOL_F_STATIC_NODES or 0). 0 or -EINVAL.
 */
int smpol_plan_mask(const struct smpol_plan *plan, unsigned long *mask, int *flags, char *err, size_t errlen);

/*
 * smpol_plan_policy - the policy a region under this plan gets on kernel path `path`:
 * *mode = MPOL_WEIGHTED_INTERLEAVE or MPOL_INTERLEAVE with its flags, mask as above.
 * -EINVAL for path NONE.
 */
int smpol_plan_policy(const struct smpol_plan *plan, enum smpol_kernel_path path, int *mode,
		      unsigned long *mask, char *err, size_t errlen);

/* A task's CPU affinity (what task/affinity gave it); pid 0 = the calling thread. 0 or -errno. */
int smpol_task_cpus(pid_t pid, struct smpol_cpus *cpus, char *err, size_t errlen);

/*
 * What a task really got, in the words of SLURM_MEM_INTERLEAVE_MODE: "weighted" (or
 * "auto" when that was asked) on the weighted path, "interleave", or "none".
 */
const char *smpol_applied_mode_name(enum smpol_mode asked, enum smpol_kernel_path path);

#endif
