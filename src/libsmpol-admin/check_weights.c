/* check_weights.c - the kernel's weighted-interleave table against the node's memory
 * (see checks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "plan.h"

#define APPLY "run mpolctl apply --system (at boot and after hotplug), or apply --system --auto to hand the " \
	"table back to the kernel"

/* The table `mpolctl apply --system` would write: every socket's optimal plan. */
static int system_weights(const struct smpol_topology *topo, const struct smpol_bw_table *bw,
			  struct smpol_wi_table *want, struct smpol_bitmap *which)
{
	struct smpol_plan_opts opts;
	struct smpol_plan *plans;
	int nplans, rc;

	smpol_plan_opts_default(&opts);
	opts.bandwidth = bw;
	rc = smpol_plan_all(topo, &opts, &plans, &nplans, NULL, 0);
	if (rc)
		return rc;
	rc = smpol_wi_from_plans(plans, nplans, want, which, NULL, 0);
	smpol_plans_free(plans, nplans);
	return rc;
}

/* Files against nodes: every memory node has one; no node without memory has a set weight. */
static void check_files(const struct smpol_topology *topo, const struct smpol_wi_table *t, struct smpol_findings *f)
{
	for (int i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *n = &topo->nodes[i];

		if (n->has_memory && !smpol_bitmap_test(&t->has_file, n->id))
			smpol_findings_add(f, SMPOL_SEV_WARNING, "weights-node-missing", n->id, "the kernel makes the file "
					   "when the node gets memory; if it stays missing, restart mpolctl-watch or reboot",
					   "node %d has memory but no weighted_interleave/node%d file: tasks cannot weigh it",
					   n->id, n->id);
	}
	for (int id = smpol_bitmap_next(&t->has_file, 0); id >= 0; id = smpol_bitmap_next(&t->has_file, id + 1)) {
		const struct smpol_node *n = smpol_topology_node(topo, id);

		if (t->weight[id] > 1 && (!n || !n->has_memory))
			smpol_findings_add(f, SMPOL_SEV_WARNING, "weights-offline-node", id, APPLY,
					   "node %d has weight %u but %s: the weights were set for other nodes than there "
					   "are now", id, t->weight[id], n ? "no memory" : "is not online");
	}
}

void smpol_check_weights(const struct smpol_topology *topo, const struct smpol_wi_table *t, const char *table_error,
			 const struct smpol_bw_table *bw, bool lease_live, struct smpol_findings *f)
{
	struct smpol_wi_table want;
	struct smpol_bitmap which;
	char list[256] = "";

	if (table_error) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "weights-unreadable", -1, "fix or report the kernel's sysfs; "
				   "steps cannot tell which weights their tasks run with", "%s", table_error);
		return;
	}
	if (!t->present) {
		smpol_findings_add(f, SMPOL_SEV_WARNING, "weighted-interleave-unavailable", -1, "boot Linux 6.9 or later "
				   "for weighted interleave", "this kernel has no weighted interleave: jobs get plain "
				   "interleave over their nodes");
		return;
	}
	check_files(topo, t, f);
	if (t->auto_enabled == 1) {
		smpol_findings_add(f, SMPOL_SEV_OK, "weights", -1, "", "the kernel sets the weights from HMAT (%s = true)",
				   t->auto_name);
		return;
	}
	if (lease_live) {
		smpol_findings_add(f, SMPOL_SEV_OK, "weights", -1, "", "a running step holds the weights (lease)");
		return;
	}
	if (system_weights(topo, bw, &want, &which) < 0)
		return;   /* no plan at all: check_hmat said why */
	for (int id = smpol_bitmap_next(&which, 0); id >= 0; id = smpol_bitmap_next(&which, id + 1)) {
		struct smpol_bitmap one;
		size_t used = strlen(list);

		smpol_bitmap_clear(&one);
		smpol_bitmap_set(&one, id);
		if (!smpol_wi_holds(t, &want, &one))
			snprintf(list + used, sizeof(list) - used, "%snode%d %u (system weights %u)", used ? ", " : "", id,
				 t->weight[id], want.weight[id]);
	}
	if (list[0])
		smpol_findings_add(f, SMPOL_SEV_WARNING, "weights-stale", -1, APPLY, "%s with weights that do not match "
				   "the nodes now (a node hot-added since, or weights set by hand): %s",
				   t->auto_name[0] ? "auto is off" : "the kernel has no auto mode", list);
	else
		smpol_findings_add(f, SMPOL_SEV_OK, "weights", -1, "", "the weights are the system weights");
}
