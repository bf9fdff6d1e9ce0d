/* plan.h - which nodes a task interleaves over, and with which weights.
 *
 * A plan is made per initiator (CPU NUMA node): with scope=socket its candidates are
 * the initiator itself plus the memory-only nodes local to it; with scope=all every
 * node with memory. Shares come from each node's bandwidth (smpol_node_bandwidth),
 * capped by free memory when the job's request is known, then turned into integer
 * weights by the chosen algorithm. Pure: reads only the topology struct.
 *
 * Choices a reader should know:
 * - Bandwidth is the pair's (initiator, node) from the bandwidth table when the options
 *   carry one (bandwidth.h: override > measured > raw ACPI HMAT > sysfs HMAT), else
 *   what sysfs HMAT reports for the node's best initiator, with which scope=all weighs
 *   a remote socket's DRAM like local DRAM. Each node's source is in the plan.
 * - Missing HMAT data: when no candidate has any, shares are equal and
 *   bandwidth_known is false; when only some lack it, they are given the smallest
 *   bandwidth known among the candidates (a guess that errs towards the slow side,
 *   never leaves a node out for lack of data), and `notes` says which nodes.
 *   The kernel algorithm instead gets 0 for them, as the kernel's own table does.
 * - algorithm=kernel applies the kernel's formula to the plan's candidates, as if they
 *   were the only memory nodes: a socket plan of 224000 and 64000 MB/s gets 24:7. The
 *   kernel's own table covers every memory node (7:7:2, so 7:2 on that socket); the
 *   two agree for scope=all.
 * - nodes= and weights= name the nodes exactly: scope does not apply, every named
 *   node must be online with memory, and every initiator gets the same node set.
 * - scope=socket on a CPU node with no memory of its own and no memory-only node
 *   local to it: every node with memory is used, and `notes` says so.
 * - Capacity: with mem_kb > 0 and every candidate's mem_free_kb known, shares are
 *   water-filled under free memory; a job larger than all free memory gets shares
 *   proportional to free memory (notes says so) rather than an error, since the
 *   kernel may still reclaim or fall back.
 * - A node the apportionment gives no seat is left out (left_out says why); weights
 *   given with weights= are used as given, and efficiency rates them against the
 *   bandwidth shares.
 */
#ifndef SMPOL_PLAN_H
#define SMPOL_PLAN_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bandwidth.h"
#include "bitmap.h"
#include "topology.h"
#include "weights.h"

#define SMPOL_PLAN_MAX_SERVED 64   /* CPU nodes one plan can serve */

enum smpol_algorithm { SMPOL_ALGO_OPTIMAL, SMPOL_ALGO_KERNEL };
enum smpol_scope { SMPOL_SCOPE_SOCKET, SMPOL_SCOPE_ALL };

struct smpol_plan_opts {
	enum smpol_algorithm algorithm;
	enum smpol_scope scope;
	struct smpol_weight_opts weight;
	uint64_t mem_kb;              /* job memory on this node, 0 = unknown (no capacity cap) */
	bool has_nodes;               /* restrict candidates to `nodes` */
	struct smpol_bitmap nodes;
	bool has_weights;             /* explicit weights: used as given, nodes implied */
	const uint8_t *weights;       /* weights[id] for id < nweights, 0 = not named: the
	                               * request's (spec.h), borrowed: it outlives the options */
	int nweights;
	const struct smpol_bw_table *bandwidth;  /* per-pair numbers, NULL = sysfs HMAT only */
};

struct smpol_left_out {
	int node;
	char reason[96];              /* "no seat at weight sum 9 (share 0.4%)" */
};

struct smpol_plan {
	int initiator;                /* CPU node id, -1 for a node-independent plan */
	int nnodes;
	/* Per node, nnodes of each: one block the plan owns, sized by its nodes
	 * (smpol_plan_alloc; smpol_plan_copy, never `=`; smpol_plan_free). */
	int *nodes;                   /* ascending ids */
	unsigned *weights;            /* same order, each >= 1 */
	double *shares;               /* target shares, same order */
	uint32_t *bandwidth;          /* MB/s weighed, 0 = unknown */
	enum smpol_bw_source *sources; /* where each came from */
	enum smpol_bw_source bw_source; /* the weakest of them: what the plan rests on */
	double efficiency;            /* modelled, see weights.h */
	unsigned weight_sum;
	enum smpol_algorithm algorithm;
	bool capacity_capped;         /* water-filling changed the shares */
	bool bandwidth_known;         /* false: no HMAT, equal shares were used */
	struct smpol_left_out *left_out;  /* the nodes given no seat, nleft_out of them, each
	                               * once; the plan's (malloc'ed, freed with it) */
	int nleft_out;
	/* Possible nodes without memory yet (scope=all only: before a node has memory its
	 * socket is unknown). The task's policy names them with MPOL_F_STATIC_NODES, so
	 * memory hot-added there later takes new allocations without a relaunch. */
	struct smpol_bitmap standby;
	/* The CPU nodes the plan serves and, for each, the CPUs it was made for: a node's
	 * own plan serves that node (all its CPUs); a plan for CPUs spanning several nodes
	 * serves each of them with the task's CPUs there (plan_span.h). None for a
	 * node-independent plan (initiator -1): it serves every CPU. Ascending ids. */
	int nserved;
	int *served;                  /* nserved of each: one block the plan owns (smpol_plan_serve) */
	unsigned *served_cpus;
	char *notes;                  /* NULL, or sentences on guesses made (missing HMAT data,
	                               * fallbacks): the plan's (smpol_plan_note) */
};

void smpol_plan_opts_default(struct smpol_plan_opts *opts);

/* The plan for one initiator into *plan (which holds nothing before; smpol_plan_free it
 * after). Returns 0, or -EINVAL/-ENODEV with a sentence ("node 7 has no memory; nodes
 * with memory: 0-3"), or -ENOMEM. */
int smpol_plan_for_initiator(const struct smpol_topology *topo, int initiator,
			    const struct smpol_plan_opts *opts, struct smpol_plan *plan,
			    char *err, size_t errlen);

/* Integer weights for plan->shares made elsewhere (a combined plan, plan_span.h), by
 * the options' algorithm (kernel: its formula over the shares), nodes given no seat
 * left out, weight sum and efficiency set. 0 or -errno with a sentence. */
int smpol_plan_weigh(struct smpol_plan *plan, const struct smpol_plan_opts *opts, char *err, size_t errlen);

/* Room for n nodes in plan's per-node arrays, zeroed (what they and the left-out
 * reasons held is freed); nnodes is set to 0. 0 or -ENOMEM. */
int smpol_plan_alloc(struct smpol_plan *plan, int n);

/* dst = src with arrays of its own (dst holds nothing before). 0 or -ENOMEM (dst empty). */
int smpol_plan_copy(struct smpol_plan *dst, const struct smpol_plan *src);

/* Room for n served CPU nodes in served and served_cpus, zeroed (what they held is
 * freed); nserved is set to n. 0 or -ENOMEM (the plan unchanged). */
int smpol_plan_serve(struct smpol_plan *plan, int n);

/* Add a sentence to the plan's notes, unless it is empty or already there. A sentence
 * memory cannot hold is not said. */
void smpol_plan_note(struct smpol_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Say why node was left out of plan (once per node). A reason memory cannot hold is
 * not said: the node is left out all the same. */
void smpol_plan_leave_out(struct smpol_plan *plan, int node, const char *reason);

/* Free a plan's arrays, notes and left-out reasons (the plan itself is the caller's), or a
 * malloc'ed list of plans (NULL: nothing, whatever nplans says). */
void smpol_plan_free(struct smpol_plan *plan);
void smpol_plans_free(struct smpol_plan *plans, int nplans);

/* One plan per CPU node, ascending. *plans is malloc'ed: smpol_plans_free() it. */
int smpol_plan_all(const struct smpol_topology *topo, const struct smpol_plan_opts *opts,
		  struct smpol_plan **plans, int *nplans, char *err, size_t errlen);

/* The initiator for a task bound to these CPUs: the CPU node holding most of them
 * (lowest id on ties); -ENOENT when none of the CPUs belongs to a node. */
int smpol_initiator_for_cpus(const struct smpol_topology *topo, const struct smpol_cpus *cpus,
			    int *initiator, char *err, size_t errlen);

/* The plan for a task bound to a set of CPUs (one node's plan, or a combined one) is
 * plan_span.h's smpol_plan_pick. */

/* Do two plans put memory alike: the same nodes with the same weights? */
bool smpol_plan_same(const struct smpol_plan *a, const struct smpol_plan *b);

/* The index of a plan like p (smpol_plan_same) in the malloc'ed list *plans, p
 * appended when there is none: the plans a step's processes run on. -ENOMEM. */
int smpol_plan_keep(struct smpol_plan **plans, int *nplans, const struct smpol_plan *p);

/* "0,1" (the CPU nodes served) and "0:8,1:8" (each with the CPUs it serves there). */
int smpol_plan_format_served(const struct smpol_plan *plan, bool with_cpus, char *buf, size_t len);

/* Every weight 1 (plain interleave, or a kernel without weighted interleave), with the
 * weight sum and modelled efficiency to match. */
void smpol_plan_set_equal_weights(struct smpol_plan *plan);

/* "0:7,2:2" style text for logs and the task environment: nodes and weights. */
int smpol_plan_format_nodes(const struct smpol_plan *plan, char *buf, size_t len);   /* "0,2" */
int smpol_plan_format_weights(const struct smpol_plan *plan, char *buf, size_t len); /* "7:2" */

const char *smpol_algorithm_name(enum smpol_algorithm a);
const char *smpol_scope_name(enum smpol_scope s);

#endif
