/* migration.h - has a task moved to another plan's CPUs than its memory follows?
 *
 * A task's plan is chosen by its CPUs at launch (its socket's plan, or one combined
 * over the sockets its CPUs span, plan_span.h). When its CPUs later call for another
 * plan (the job's cpuset changed, an MPI runtime pinned its ranks with
 * sched_setaffinity, an admin moved it), its memory stays planned for the old CPUs.
 * A plan is told by its sockets: the CPU nodes among its memory nodes (one for a
 * socket plan, several for a combined one). Those its memory follows are read from the
 * task itself: the node set of its policy as numa_maps prints it; or, once a
 * rebalance moved it, the set recorded in the step's kept placement. Its target is the
 * plan for its CPUs now (task_target.h).
 *   - same node set as the target, or the same sockets: it stays (a move within its
 *     sockets is left alone; a changed node set on the same sockets is hotplug's work);
 *   - other sockets: it moved;
 *   - a policy that names no nodes (the task reset its own policy): not ours to touch.
 */
#ifndef SMPOL_MIGRATION_H
#define SMPOL_MIGRATION_H

#include "plan.h"
#include "topology.h"

enum smpol_migration {
	SMPOL_MIGRATION_STAYS,
	SMPOL_MIGRATION_MOVED,
	SMPOL_MIGRATION_NOT_OURS,
};

/* The CPU nodes among a plan's memory nodes: the sockets whose memory it uses. */
void smpol_plan_sockets(const struct smpol_topology *topo, const struct smpol_plan *plan, struct smpol_bitmap *out);

/*
 * smpol_migration_check - policy: the policy of most of the task's anonymous pages
 * ("weighted interleave:0,2"); rebound: the sockets a rebalance last moved it to,
 * NULL or empty for none; target: its plan now. *from gets the sockets its memory
 * follows (empty when its policy tells none).
 */
enum smpol_migration smpol_migration_check(const struct smpol_topology *topo, const char *policy,
					   const struct smpol_bitmap *rebound, const struct smpol_plan *target,
					   struct smpol_bitmap *from);

const char *smpol_migration_name(enum smpol_migration m);

#endif
