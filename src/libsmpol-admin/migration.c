/* migration.c - a task's plan by its CPUs now against the one its memory follows
 * (see migration.h). */
#include "migration.h"
#include "numa_maps.h"

const char *smpol_migration_name(enum smpol_migration m)
{
	switch (m) {
	case SMPOL_MIGRATION_MOVED:
		return "moved";
	case SMPOL_MIGRATION_NOT_OURS:
		return "not ours";
	case SMPOL_MIGRATION_STAYS:
		break;
	}
	return "stays";
}

/* The one CPU node among nodes (a socket plan's initiator), or -1. */
static int only_cpu_node(const struct smpol_topology *topo, const struct smpol_bitmap *nodes)
{
	int found = -1;

	for (int n = smpol_bitmap_next(nodes, 0); n >= 0; n = smpol_bitmap_next(nodes, n + 1)) {
		const struct smpol_node *node = smpol_topology_node(topo, n);

		if (!node || !node->has_cpu)
			continue;
		if (found >= 0)
			return -1;
		found = n;
	}
	return found;
}

enum smpol_migration smpol_migration_check(const struct smpol_topology *topo, const char *policy, int rebound,
					   const struct smpol_plan *target, int *from)
{
	struct smpol_bitmap seen, want;

	*from = rebound;
	if (rebound >= 0)
		return rebound == target->initiator ? SMPOL_MIGRATION_STAYS : SMPOL_MIGRATION_MOVED;
	if (!policy || smpol_numa_policy_nodes(policy, &seen) < 0)
		return SMPOL_MIGRATION_NOT_OURS;
	smpol_bitmap_clear(&want);
	for (int i = 0; i < target->nnodes; i++)
		smpol_bitmap_set(&want, target->nodes[i]);
	*from = only_cpu_node(topo, &seen);
	if (smpol_bitmap_equal(&seen, &want) || *from < 0 || target->initiator < 0 || *from == target->initiator)
		return SMPOL_MIGRATION_STAYS;
	return SMPOL_MIGRATION_MOVED;
}
