/* apply.h - set the calling task's memory policy from a plan.
 *
 * This is exactly what slurm_spank_task_init does, so the VM tier's launcher and the
 * plugin share it. MPOL_WEIGHTED_INTERLEAVE over the plan's nodes where the kernel has
 * it; MPOL_INTERLEAVE otherwise (or when asked); with strict, the fallback is an error.
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
 * smpol_apply_plan - set_mempolicy for the calling thread.
 * mode WEIGHTED/AUTO want weighted interleave; INTERLEAVE wants plain interleave;
 * NONE sets nothing. Falls back to interleave when caps say the kernel has no weighted
 * interleave or the syscall answers EINVAL (res->fell_back, res->reason). Returns 0 or
 * -errno (-EOPNOTSUPP when strict forbids the fallback, with "strict: this kernel has
 * no weighted interleave (needs Linux 6.9); not falling back to interleave").
 */
int smpol_apply_plan(const struct smpol_plan *plan, enum smpol_mode mode, bool strict,
		    const struct smpol_kernel_caps *caps, struct smpol_apply_result *res,
		    char *err, size_t errlen);

/*
 * smpol_task_apply - what every task does at launch (slurm_spank_task_init, and the
 * VM tier's launcher): choose from plans[] the one whose initiator holds most of the
 * task's CPUs (smpol_initiator_for_cpus), then smpol_apply_plan. *chosen points into
 * plans[]. A task whose CPUs match no plan's initiator gets an error naming its CPUs.
 */
int smpol_task_apply(const struct smpol_topology *topo, const struct smpol_plan *plans, int nplans,
		    const struct smpol_bitmap *cpus, enum smpol_mode mode, bool strict,
		    const struct smpol_kernel_caps *caps, const struct smpol_plan **chosen,
		    struct smpol_apply_result *res, char *err, size_t errlen);

/* A task's CPU affinity (what task/affinity gave it); pid 0 = the calling thread. 0 or -errno. */
int smpol_task_cpus(pid_t pid, struct smpol_bitmap *cpus, char *err, size_t errlen);

/*
 * What a task really got, in the words of SLURM_MEM_INTERLEAVE_MODE: "weighted" (or
 * "auto" when that was asked) on the weighted path, "interleave", or "none".
 */
const char *smpol_applied_mode_name(enum smpol_mode asked, enum smpol_kernel_path path);

#endif
