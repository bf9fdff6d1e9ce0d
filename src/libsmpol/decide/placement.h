/* placement.h - the one decision: what a job step's tasks get on this node.
 *
 * smpol_place turns (the request, the site's configuration, the node's topology, its
 * weights table as read once, whether the job owns the node, the lease outcome, the
 * job's memory on this node) into one plan per initiator carrying the weights the
 * tasks really run with, the kernel path they take, and a note when that is less than
 * they asked. A task then takes its plan by its CPUs (smpol_placement_pick): its CPU
 * node's plan, or one combined for CPUs spanning several CPU nodes (plan_span.h).
 * slurmstepd and the VM tier's launcher call it around the weights lease
 * (smpol_place_with_lease, kernel/lease_place.h), `mpolctl rebalance`/`watch` through
 * smpol_task_target with a step's kept inputs; nothing else decides what a step's
 * tasks get, so a rebalance target is what the task's next allocations follow.
 * `mpolctl plan`, `apply --system` and `check` call the planner (plan.h, plan_span.h)
 * directly: they show or set the weights the hardware calls for on every socket, which
 * is what a weighted step wants, not what one step with its table and lease ends up with.
 *
 * What it decides:
 * - none (and help, unset): inactive, tasks keep the default policy.
 * - interleave: plain interleave over the planned nodes, every weight 1.
 * - auto: weighted interleave over the kernel-algorithm node set, by the weights the
 *   node's table holds (the kernel's own).
 * - weighted: weighted interleave by this step's own weights when the table already
 *   holds them or the step holds the weights lease; otherwise by the table's weights,
 *   with a note saying why (sysfs=never, a shared node under sysfs=exclusive, the
 *   lease refused, plans that one table cannot hold).
 * - a kernel without weighted interleave (no table): plain interleave with a note;
 *   with strict the step fails instead.
 * - the site's default never fails a job that did not ask: where it cannot apply, the
 *   step runs inactive and the note says why.
 *
 * - min_region (region-aware placement): the plans are for the task's large mappings
 *   only (at least min_region bytes); the task's own policy is local, MPOL_PREFERRED
 *   on its plan's initiator node (MPOL_LOCAL where that node has no memory in the
 *   plan, or the plan serves several CPU nodes). Preferred rather than local: it names the node the plan was picked for, so
 *   numa_maps shows which node a task follows ("prefer:0"; "local" says nothing), a
 *   task the scheduler moves within its CPUs keeps its small data together instead
 *   of following the CPU (mpolctl watch re-binds a task that really migrates), and
 *   unlike bind a full node falls back instead of failing the task. Then slurmstepd's
 *   sampler places the large mappings as they appear (regions_by): with process_mbind
 *   (probed) it sets their policy to the plan, so their new pages follow it, and moves
 *   the pages already faulted locally; without it (every upstream kernel) nothing can
 *   set another task's policy, so it moves their pages onto the plan at each sample
 *   and the note says that pages faulted in between land on the local node.
 *
 * A task known to span CPU nodes (span_cpus: the one task of a step holding every core
 * of the node): where the step writes its own weights, each socket's weights are scaled
 * (smpol_plan_scale_for_span) so that the table splits that task's memory between
 * sockets as its CPUs are split; tasks on one socket see the same ratios as before.
 * Running on the node's table instead, a spanning task's split follows the table's
 * per-socket sums, and its plan's efficiency and notes say so.
 *
 * The lease: with lease UNTRIED, a weighted step whose weights the table lacks and
 * whose site lets it write them gets lease_wanted with the table to write (want); the
 * caller tries the lease and decides again with HELD or NOT_HELD, whose placement holds
 * no want: a step keeps its placement to its end, the wanted table only this long.
 * Weights equal to what the kernel already uses (a 0 file counts as the kernel's
 * default 1) are never written.
 */
#ifndef SMPOL_PLACEMENT_H
#define SMPOL_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "bandwidth.h"
#include "kernel.h"
#include "plan.h"
#include "plan_span.h"
#include "site_config.h"
#include "spec.h"
#include "topology.h"
#include "wi_table.h"

enum smpol_lease_outcome {
	SMPOL_LEASE_UNTRIED,           /* not tried yet: say whether to try */
	SMPOL_LEASE_HELD,              /* the step holds it: the table has its weights */
	SMPOL_LEASE_NOT_HELD,          /* tried and refused, or not to be tried (rebalance) */
};

struct smpol_place_in {
	struct smpol_spec spec;        /* the user's option, else the site's default: a copy by
	                                * value that borrows the weights of the caller's */
	bool site_default;             /* the job gave no option: never fail it */
	const struct smpol_site_decision *site;   /* what it reads of the site's configuration */
	const struct smpol_topology *topo;
	const struct smpol_wi_table *table;  /* read once; its presence is the kernel's rung */
	const char *table_error;       /* the table could not be read: why (weights unknown) */
	bool job_owns_node;            /* every CPU of the node is the job's (sysfs=exclusive) */
	enum smpol_lease_outcome lease;
	const char *lease_note;        /* NOT_HELD: why, or NULL */
	uint64_t mem_kb;               /* the job's memory on this node, 0 = unknown (no cap) */
	const struct smpol_bw_table *bandwidth;  /* per pair, with sources (bw_sources.h); NULL = sysfs HMAT */
	bool pmbind;                   /* process_mbind is configured and its probe passed */
	const char *pmbind_note;       /* !pmbind: why (the probe's sentence), NULL = not configured */
	const struct smpol_cpus *span_cpus;   /* CPUs one task will span, NULL = not known */
};

/* How a region-aware step's large mappings get their plan. */
enum smpol_regions_by {
	SMPOL_REGIONS_NONE,            /* not region-aware: the task's own policy is the plan */
	SMPOL_REGIONS_POLICY,          /* process_mbind sets their policy; pages already there move */
	SMPOL_REGIONS_MOVE,            /* their pages move onto the plan at each sample */
};

/* The table a step's weights need, and the nodes whose weights it sets. */
struct smpol_wanted_table {
	struct smpol_wi_table table;
	struct smpol_bitmap nodes;
};

struct smpol_placement {
	bool active;                   /* tasks set a policy */
	enum smpol_kernel_path path;   /* what they set (the syscall may still fall back) */
	struct smpol_plan *plans;      /* one per initiator, or one for every task; malloc'ed */
	int nplans;
	struct smpol_plan_opts opts;   /* what they were planned with (bandwidth NULL; the weights
	                                * the request's, which outlives the placement): for
	                                * combined plans whose weights are apportioned afresh */
	bool weights_known;            /* the plans' weights are those in force */
	bool lease_wanted;             /* lease UNTRIED: take it and write `want` */
	struct smpol_wanted_table *want;   /* lease_wanted: what to write; malloc'ed, else NULL */
	uint64_t min_region_kb;        /* region-aware: the smallest mapping planned, 0 = not */
	enum smpol_regions_by regions_by;
	/* Sentences of at most SMPOL_ERRLEN - 1 characters, the placement's (malloc'ed,
	 * freed with it); a note memory cannot hold is not said. */
	char *note;                    /* why the tasks get less than asked, or NULL */
	char *failure;                 /* the user asked for what cannot be had: tasks fail with
	                                * this; NULL = they do not */
};

/* Decide into *out, which holds nothing before (smpol_placement_free it after).
 * Returns 0 (a failure the tasks report is in out->failure), or -ENOMEM. */
int smpol_place(const struct smpol_place_in *in, struct smpol_placement *out);

void smpol_placement_free(struct smpol_placement *pl);

/* "none", "process_mbind", "move_pages" */
const char *smpol_regions_by_name(enum smpol_regions_by by);

/*
 * smpol_placement_pick - the plan of a task bound to `cpus` into *chosen (see
 * smpol_plan_pick): its CPU node's plan, or the combined plan of the CPU nodes it
 * spans (a plan of its own: smpol_plan_free). -ENOENT with a sentence naming the CPUs
 * when none fits.
 */
int smpol_placement_pick(const struct smpol_placement *pl, const struct smpol_topology *topo,
			 const struct smpol_cpus *cpus, struct smpol_plan *chosen,
			 char *err, size_t errlen);

/*
 * smpol_plan_opts_from_spec - the plan options for a spec under the site's
 * configuration: the spec's precision/scope/nodes/weights where given, else the site's
 * (scope defaults to socket). mem_kb 0 = no capacity cap. o borrows spec's weights.
 */
void smpol_plan_opts_from_spec(const struct smpol_spec *spec, const struct smpol_site_decision *cfg,
			       uint64_t mem_kb, struct smpol_plan_opts *o);

#endif
