/* migration.h - has a task moved to another plan's CPUs than its memory follows?
 *
 * A task's plan is chosen by its CPUs at launch (one plan per socket). When its CPUs
 * later belong to another socket (the job's cpuset changed, an MPI runtime pinned its
 * ranks with sched_setaffinity, an admin moved it), its memory stays planned for the
 * old socket. The plan its memory follows is read from the task itself: the node set
 * of its policy as numa_maps prints it, whose one CPU node is the socket it was
 * planned for; or, once a rebalance moved it, the initiator recorded in the step's
 * kept placement. Its target is the plan for its CPUs now (task_target.h).
 *   - same node set as the target, or the same socket: it stays (a move within a
 *     socket is left alone; a changed node set on the same socket is hotplug's work);
 *   - another socket: it moved;
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

/*
 * smpol_migration_check - policy: the policy of most of the task's anonymous pages
 * ("weighted interleave:0,2"); rebound: the initiator a rebalance last moved it to,
 * -1 for none; target: its plan now. *from gets the initiator its memory follows.
 */
enum smpol_migration smpol_migration_check(const struct smpol_topology *topo, const char *policy, int rebound,
					   const struct smpol_plan *target, int *from);

const char *smpol_migration_name(enum smpol_migration m);

#endif
