/* child_place.h - children follow their CPUs: the processes a task started (MPI ranks
 * forked by mpirun's daemon or MPICH's hydra proxy and pinned later to other cores, a
 * launcher script's program) get the plan of their own CPUs, not their task's.
 *
 * A child inherits its task's policy at fork, planned for the task's CPUs. Where its
 * CPUs call for another plan (the one decision's pick for them: another socket's, or a
 * combined plan), it is re-placed from outside, by slurmstepd's sampler, at each
 * sample. What an outside process can change, by kernel rung:
 *   - every kernel: the pages already there move (move_pages, the minimal-move
 *     planner), to the plan's weights (plain interleave's equal shares before 6.9);
 *   - process_mbind (not upstream; where the site names it and the probe passes):
 *     also the policy of the child's mappings, so their later faults follow the plan;
 *   - no kernel lets a process set another's task policy: on upstream kernels the
 *     child's new mappings still start on the inherited plan until the next sample
 *     moves their pages.
 * The weights are the node's table either way (global), so "another plan" means
 * another node set.
 *
 * Only processes of the job: found through the children lists of the task's tree
 * (never by name or pid range), pinned by pidfd, and kept only when, once pinned,
 * their parent is the process they were found under and they run as the job's user.
 */
#ifndef SMPOL_CHILD_PLACE_H
#define SMPOL_CHILD_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "placement.h"
#include "region_place.h"
#include "task_ref.h"

enum smpol_child_verdict {
	SMPOL_CHILD_FOLLOWS,           /* its policy already names its plan's nodes */
	SMPOL_CHILD_REPLACE,           /* it runs on another plan's CPUs than the policy it inherited */
	SMPOL_CHILD_NOT_OURS,          /* it set a policy of its own: left alone */
};

/*
 * smpol_child_pin - pin pid, found as a child of `parent` (a live process of the job),
 * and make sure it still is one: its parent, read once pinned, is `parent`, and it runs
 * as uid. 0; -ESRCH when it is gone; -EPERM with a sentence when it is another
 * process's child or another user's (not to be touched); another -errno.
 */
int smpol_child_pin(pid_t pid, pid_t parent, uid_t uid, struct smpol_task_ref *ref, char *err, size_t errlen);

/*
 * smpol_child_check - policy: the child's own, of most of its anonymous pages, as
 * numa_maps prints it ("" when it has none); task_policy: its task's; plan: the plan
 * for its CPUs now. A region-aware step's tasks keep a local policy and their large
 * mappings take the plan, so there a child that kept its task's policy is always
 * placed (its large mappings are nobody else's to place). A child with no policy
 * ("default") under a task that has one is placed too: a launcher reset what it
 * inherited (MPICH's hydra binds its ranks' memory "default" with their CPUs); one
 * that set any other policy of its own is left alone.
 */
enum smpol_child_verdict smpol_child_check(const char *policy, const char *task_policy, const struct smpol_plan *plan,
					   bool region_aware);

/*
 * smpol_child_opts - how to place a child onto plan p under placement pl: all its
 * private anonymous memory (a region-aware step's: its large mappings only); with
 * pmbind (process_mbind configured and probed) their policy too, else page moves.
 * -EINVAL with a sentence when pl's weights are unknown (nothing to move onto).
 */
int smpol_child_opts(const struct smpol_placement *pl, const struct smpol_plan *p, bool pmbind, long pmbind_nr,
		     struct smpol_region_opts *o, char *err, size_t errlen);

const char *smpol_child_verdict_name(enum smpol_child_verdict v);

#endif
