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

/* The CPU nodes among `nodes`. */
static void cpu_nodes_of(const struct smpol_topology *topo, const struct smpol_bitmap *nodes, struct smpol_bitmap *out)
{
	smpol_bitmap_clear(out);
	for (int n = smpol_bitmap_next(nodes, 0); n >= 0; n = smpol_bitmap_next(nodes, n + 1)) {
		const struct smpol_node *node = smpol_topology_node(topo, n);

		if (node && node->has_cpu)
			smpol_bitmap_set(out, n);
	}
}

static void plan_nodes(const struct smpol_plan *plan, struct smpol_bitmap *out)
{
	smpol_bitmap_clear(out);
	for (int i = 0; i < plan->nnodes; i++)
		smpol_bitmap_set(out, plan->nodes[i]);
}

void smpol_plan_sockets(const struct smpol_topology *topo, const struct smpol_plan *plan, struct smpol_bitmap *out)
{
	struct smpol_bitmap nodes;

	plan_nodes(plan, &nodes);
	cpu_nodes_of(topo, &nodes, out);
}

enum smpol_migration smpol_migration_check(const struct smpol_topology *topo, const char *policy,
					   const struct smpol_bitmap *rebound, const struct smpol_plan *target,
					   struct smpol_bitmap *from)
{
	struct smpol_bitmap seen, want, sockets;

	smpol_plan_sockets(topo, target, &sockets);
	if (rebound && !smpol_bitmap_empty(rebound)) {
		*from = *rebound;
		return smpol_bitmap_equal(rebound, &sockets) ? SMPOL_MIGRATION_STAYS : SMPOL_MIGRATION_MOVED;
	}
	smpol_bitmap_clear(from);
	if (!policy || smpol_numa_policy_nodes(policy, &seen) < 0)
		return SMPOL_MIGRATION_NOT_OURS;
	plan_nodes(target, &want);
	cpu_nodes_of(topo, &seen, from);
	if (smpol_bitmap_equal(&seen, &want) || smpol_bitmap_empty(from) || target->initiator < 0 ||
	    smpol_bitmap_equal(from, &sockets))
		return SMPOL_MIGRATION_STAYS;
	return SMPOL_MIGRATION_MOVED;
}
