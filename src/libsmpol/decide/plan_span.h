/* plan_span.h - the plan for a set of CPUs: one CPU node's plan, or one plan combined
 * for CPUs that span several CPU nodes.
 *
 * A task whose CPUs lie on several CPU nodes (a hybrid MPI+OpenMP task over both
 * sockets, an mpirun daemon that owns the node) gets one interleave over the memory
 * that serves all of them. The rule, with c_i the share of the task's CPUs on CPU node
 * i (CPUs on no node are not counted) and f_i(j) node j's target share in node i's own
 * plan (0 where that plan does not name j):
 *
 *        t(j) = sum over i of c_i * f_i(j)
 *
 * The memory is split between the nodes' plans as the CPUs are, and each part is
 * spread as that node's plan spreads it: a task with half its CPUs on each socket of a
 * two-socket box has half its memory placed by socket 0's plan and half by socket 1's.
 * So every pair is weighed by the bandwidth its initiator really has (whichever source
 * the plans used: the table, raw HMAT, sysfs HMAT), capacity caps and left-out nodes
 * are the plans' own, and with scope=socket the union holds each socket's DRAM and
 * the memory-only nodes near it. For CPUs on one node t = f: that node's plan is
 * returned as it is (only served_cpus counts the task's CPUs).
 *
 * Weights: a node's weight in the combined plan is its weight in the plans combined,
 * which is what one global table holding those plans gives (scope=socket plans name
 * disjoint nodes; plans in force that share a node agree, as the table holds one
 * weight per node). The split within each socket is then that socket's own, and the
 * split between sockets follows the plans' weight sums S_i rather than c_i: the
 * efficiency (against t) says what that costs, and notes says when the two differ.
 * Only where the plans give one node different weights (scope=all over per-pair
 * bandwidth, each initiator's own weights as `mpolctl plan` shows them) are t's
 * weights apportioned afresh by the algorithm. A step that writes its own weights and
 * knows that its task spans CPU nodes makes the sums follow the CPUs with
 * smpol_plan_scale_for_span.
 */
#ifndef SMPOL_PLAN_SPAN_H
#define SMPOL_PLAN_SPAN_H

#include <stddef.h>

#include "bitmap.h"
#include "plan.h"
#include "topology.h"

/*
 * smpol_plan_pick - the plan for a task bound to cpus, from the plans made per CPU
 * node (smpol_plan_all, or a placement's): a node-independent plan (initiator -1)
 * serves every task; CPUs on one node get that node's plan; CPUs on several the
 * combined plan (above; opts, never NULL, give the algorithm and precision for
 * weights apportioned afresh). -ENOENT with a sentence naming the CPUs when none of
 * them belongs to a node or a node they use has no plan; -E2BIG over
 * SMPOL_PLAN_MAX_SERVED CPU nodes; -ENOMEM. *out is a plan of its own (smpol_plan_free).
 */
int smpol_plan_pick(const struct smpol_topology *topo, const struct smpol_plan *plans, int nplans,
		    const struct smpol_cpus *cpus, const struct smpol_plan_opts *opts,
		    struct smpol_plan *out, char *err, size_t errlen);

/*
 * smpol_plan_scale_for_span - for a step that writes its own weights and knows that
 * one of its tasks spans CPU nodes (span_cpus): multiply the weights of each plan that
 * task combines by an integer k_i, the smallest that bring the plans' weight sums
 * within the precision of the task's CPU split (k_i * S_i in proportion to c_i), with
 * no weight above SMPOL_WEIGHT_MAX and at most max_sum per plan on average. Ratios
 * within each plan stay, so its shares, efficiency and the tasks on one node are
 * unchanged, while the spanning task's combined plan splits its memory as its CPUs.
 * Plans over shared nodes are left alone (their combination is apportioned afresh).
 * Returns how many plans changed (0: nothing to do).
 */
int smpol_plan_scale_for_span(const struct smpol_topology *topo, struct smpol_plan *plans, int nplans,
			      const struct smpol_cpus *span_cpus, const struct smpol_weight_opts *opts);

#endif
