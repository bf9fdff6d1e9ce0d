/* plan.c - per-initiator node sets and weights (see plan.h for the choices made). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "plan.h"

void smpol_plan_opts_default(struct smpol_plan_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->algorithm = SMPOL_ALGO_OPTIMAL;
	opts->scope = SMPOL_SCOPE_SOCKET;
	opts->weight = smpol_weight_opts_default();
}

/* One block for the per-node arrays: the doubles first, so that each array is aligned. */
static size_t column_bytes(int n)
{
	return (size_t)n * (sizeof(double) + sizeof(int) + sizeof(unsigned) + sizeof(uint32_t) +
			    sizeof(enum smpol_bw_source));
}

static void free_nodes(struct smpol_plan *plan);

int smpol_plan_alloc(struct smpol_plan *plan, int n)
{
	double *block = calloc(1, column_bytes(n > 0 ? n : 1));

	if (!block)
		return -ENOMEM;
	free_nodes(plan);
	plan->shares = block;
	plan->nodes = (int *)(plan->shares + n);
	plan->weights = (unsigned *)(plan->nodes + n);
	plan->bandwidth = (uint32_t *)(plan->weights + n);
	plan->sources = (enum smpol_bw_source *)(plan->bandwidth + n);
	return 0;
}

int smpol_plan_copy(struct smpol_plan *dst, const struct smpol_plan *src)
{
	size_t left_bytes = sizeof(*src->left_out) * (size_t)src->nleft_out;
	int n = src->nnodes;

	*dst = *src;
	dst->shares = NULL;
	dst->left_out = NULL;
	dst->nleft_out = 0;
	dst->served = NULL;
	dst->served_cpus = NULL;
	dst->nserved = 0;
	dst->notes = NULL;
	if (smpol_plan_alloc(dst, n) < 0 || (left_bytes && !(dst->left_out = malloc(left_bytes))) ||
	    smpol_plan_serve(dst, src->nserved) < 0 || (src->notes && !(dst->notes = strdup(src->notes)))) {
		smpol_plan_free(dst);
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	if (left_bytes)
		memcpy(dst->left_out, src->left_out, left_bytes);
	dst->nleft_out = src->nleft_out;
	dst->nnodes = n;
	memcpy(dst->nodes, src->nodes, sizeof(*dst->nodes) * (size_t)n);
	memcpy(dst->weights, src->weights, sizeof(*dst->weights) * (size_t)n);
	memcpy(dst->shares, src->shares, sizeof(*dst->shares) * (size_t)n);
	memcpy(dst->bandwidth, src->bandwidth, sizeof(*dst->bandwidth) * (size_t)n);
	memcpy(dst->sources, src->sources, sizeof(*dst->sources) * (size_t)n);
	if (src->nserved) {
		memcpy(dst->served, src->served, sizeof(*dst->served) * (size_t)src->nserved);
		memcpy(dst->served_cpus, src->served_cpus, sizeof(*dst->served_cpus) * (size_t)src->nserved);
	}
	return 0;
}

int smpol_plan_serve(struct smpol_plan *plan, int n)
{
	int *block = n ? calloc((size_t)n, sizeof(*plan->served) + sizeof(*plan->served_cpus)) : NULL;

	if (n && !block)
		return -ENOMEM;
	free(plan->served);
	plan->served = block;
	plan->served_cpus = block ? (unsigned *)(block + n) : NULL;
	plan->nserved = n;
	return 0;
}

/* The per-node block and the left-out reasons (smpol_plan_alloc starts over from here). */
static void free_nodes(struct smpol_plan *plan)
{
	free(plan->shares);   /* the block's start */
	plan->shares = NULL;
	plan->nodes = NULL;
	plan->weights = NULL;
	plan->bandwidth = NULL;
	plan->sources = NULL;
	plan->nnodes = 0;
	free(plan->left_out);
	plan->left_out = NULL;
	plan->nleft_out = 0;
}

void smpol_plan_free(struct smpol_plan *plan)
{
	free_nodes(plan);
	smpol_plan_serve(plan, 0);
	free(plan->notes);
	plan->notes = NULL;
}

void smpol_plan_leave_out(struct smpol_plan *plan, int node, const char *reason)
{
	struct smpol_left_out *grown;

	for (int i = 0; i < plan->nleft_out; i++)
		if (plan->left_out[i].node == node)
			return;
	/* rarely more than one or two: grown by one */
	grown = realloc(plan->left_out, sizeof(*grown) * (size_t)(plan->nleft_out + 1));
	if (!grown)
		return;
	plan->left_out = grown;
	grown[plan->nleft_out].node = node;
	snprintf(grown[plan->nleft_out].reason, sizeof(grown->reason), "%s", reason);
	plan->nleft_out++;
}

void smpol_plans_free(struct smpol_plan *plans, int nplans)
{
	for (int i = 0; plans && i < nplans; i++)
		smpol_plan_free(&plans[i]);
	free(plans);
}

const char *smpol_algorithm_name(enum smpol_algorithm a)
{
	return a == SMPOL_ALGO_KERNEL ? "kernel" : "optimal";
}

const char *smpol_scope_name(enum smpol_scope s)
{
	return s == SMPOL_SCOPE_ALL ? "all" : "socket";
}

static void memory_nodes(const struct smpol_topology *topo, struct smpol_bitmap *out)
{
	smpol_bitmap_clear(out);
	for (int i = 0; i < topo->nnodes; i++)
		if (topo->nodes[i].has_memory)
			smpol_bitmap_set(out, topo->nodes[i].id);
}

void smpol_plan_note(struct smpol_plan *plan, const char *fmt, ...)
{
	char *text = NULL, *joined = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n <= 0 || (plan->notes && strstr(plan->notes, text))) {
		free(n < 0 ? NULL : text);
		return;
	}
	if (!plan->notes) {
		plan->notes = text;
		return;
	}
	if (asprintf(&joined, "%s %s", plan->notes, text) >= 0) {
		free(plan->notes);
		plan->notes = joined;
	}
	free(text);
}


/* Every named node must be online with memory. */
static int check_named(const struct smpol_topology *topo, const struct smpol_bitmap *named,
		       char *err, size_t errlen)
{
	struct smpol_bitmap mem;
	char list[256];

	memory_nodes(topo, &mem);
	if (smpol_bitmap_format_list(&mem, list, sizeof(list)))
		snprintf(list, sizeof(list), "(too many to list)");
	if (smpol_bitmap_empty(named))
		return smpol_fail(err, errlen, EINVAL, "no nodes were named; nodes with memory: %s", list);
	for (int id = smpol_bitmap_next(named, 0); id >= 0; id = smpol_bitmap_next(named, id + 1)) {
		const struct smpol_node *n = smpol_topology_node(topo, id);

		if (!n)
			return smpol_fail(err, errlen, EINVAL, "node %d is not online; nodes with memory: %s",
					 id, list);
		if (!n->has_memory)
			return smpol_fail(err, errlen, EINVAL, "node %d has no memory; nodes with memory: %s",
					 id, list);
	}
	return 0;
}

/* The nodes a task on this initiator may interleave over, into plan->nodes. */
static int pick_candidates(const struct smpol_topology *topo, int initiator, const struct smpol_plan_opts *opts,
			   struct smpol_plan *plan, char *err, size_t errlen)
{
	struct smpol_bitmap set;
	int rc;

	smpol_bitmap_clear(&set);
	if (opts->has_weights) {
		for (int id = 0; id < opts->nweights; id++)
			if (opts->weights[id])
				smpol_bitmap_set(&set, id);
		if (opts->has_nodes && !smpol_bitmap_equal(&set, &opts->nodes))
			return smpol_fail(err, errlen, EINVAL,
					 "nodes= and weights= name different nodes; give one of them");
	} else if (opts->has_nodes) {
		set = opts->nodes;
	}
	if (opts->has_weights || opts->has_nodes) {
		rc = check_named(topo, &set, err, errlen);
		if (rc)
			return rc;
	} else if (opts->scope == SMPOL_SCOPE_SOCKET && initiator >= 0) {
		for (int i = 0; i < topo->nnodes; i++) {
			const struct smpol_node *n = &topo->nodes[i];

			if (n->has_memory && (n->id == initiator ||
					      (!n->has_cpu && smpol_node_initiator(topo, n) == initiator)))
				smpol_bitmap_set(&set, n->id);
		}
		if (smpol_bitmap_empty(&set)) {
			memory_nodes(topo, &set);
			smpol_plan_note(plan, "node %d has no memory of its own or local to it: every node with memory is used.",
				 initiator);
		}
	} else {
		memory_nodes(topo, &set);
		plan->standby = topo->possible;
		for (int id = smpol_bitmap_next(&set, 0); id >= 0; id = smpol_bitmap_next(&set, id + 1))
			smpol_bitmap_unset(&plan->standby, id);
	}
	if (smpol_bitmap_empty(&set))
		return smpol_fail(err, errlen, ENODEV, "no online node has memory");
	if (smpol_plan_alloc(plan, smpol_bitmap_count(&set)) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for a plan of %d nodes", smpol_bitmap_count(&set));
	for (int id = smpol_bitmap_next(&set, 0); id >= 0; id = smpol_bitmap_next(&set, id + 1))
		plan->nodes[plan->nnodes++] = id;
	return 0;
}

/* The pair's bandwidth from the table, else the node's sysfs HMAT figure. */
static uint32_t pair_bandwidth(const struct smpol_topology *topo, const struct smpol_plan_opts *opts, int initiator,
			       int node, enum smpol_bw_source *source)
{
	const struct smpol_bw_entry *e = initiator >= 0 ? smpol_bw_lookup(opts->bandwidth, initiator, node) : NULL;
	uint32_t bw;

	if (e && (bw = smpol_bw_min(e->read, e->write))) {
		*source = e->source;
		return bw;
	}
	bw = smpol_node_bandwidth(smpol_topology_node(topo, node));
	*source = bw ? SMPOL_BW_SYSFS : SMPOL_BW_NONE;
	return bw;
}

/* Bandwidth per candidate; nodes without any get the smallest known value. */
static void candidate_bandwidth(const struct smpol_topology *topo, const struct smpol_plan_opts *opts,
				struct smpol_plan *plan, uint32_t *raw, double *bw)
{
	struct smpol_bitmap missing;
	uint32_t least = 0;
	char list[256];

	smpol_bitmap_clear(&missing);
	plan->bw_source = SMPOL_BW_OVERRIDE;
	for (int i = 0; i < plan->nnodes; i++) {
		raw[i] = pair_bandwidth(topo, opts, plan->initiator, plan->nodes[i], &plan->sources[i]);
		plan->bandwidth[i] = raw[i];
		if (plan->sources[i] < plan->bw_source)
			plan->bw_source = plan->sources[i];
		if (!raw[i])
			smpol_bitmap_set(&missing, plan->nodes[i]);
		else if (!least || raw[i] < least)
			least = raw[i];
	}
	plan->bandwidth_known = least > 0;
	for (int i = 0; i < plan->nnodes; i++)
		bw[i] = raw[i] ? raw[i] : least;
	if (least && !smpol_bitmap_empty(&missing)) {
		smpol_bitmap_format_list(&missing, list, sizeof(list));
		smpol_plan_note(plan, "no HMAT bandwidth for node(s) %s: weighed as the slowest known (%u MB/s).", list,
			 least);
	}
}

/* Free memory per candidate, or false when any is unknown (no cap then). */
static bool candidate_capacity(const struct smpol_topology *topo, const struct smpol_plan *plan, uint64_t *cap)
{
	for (int i = 0; i < plan->nnodes; i++) {
		cap[i] = smpol_topology_node(topo, plan->nodes[i])->mem_free_kb;
		if (!cap[i])
			return false;
	}
	return true;
}

/* Per candidate: bw and plain (doubles), cap (uint64_t), raw (uint32_t), n of each. */
struct candidate_scratch {
	double *bw, *plain;
	uint64_t *cap;
	uint32_t *raw;
};

static int scratch_alloc(struct candidate_scratch *c, int n, char *err, size_t errlen)
{
	size_t each = sizeof(double) * 2 + sizeof(uint64_t) + sizeof(uint32_t);

	c->bw = malloc(each * (size_t)(n > 0 ? n : 1));
	if (!c->bw)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for a plan of %d nodes", n);
	c->plain = c->bw + n;
	c->cap = (uint64_t *)(c->plain + n);
	c->raw = (uint32_t *)(c->cap + n);
	return 0;
}

static int plan_shares(const struct smpol_topology *topo, const struct smpol_plan_opts *opts,
		       struct smpol_plan *plan, const struct candidate_scratch *c, char *err, size_t errlen)
{
	double *bw = c->bw, *plain = c->plain;
	uint64_t *cap = c->cap;
	uint32_t *raw = c->raw;
	char why[SMPOL_ERRLEN];
	int rc;

	candidate_bandwidth(topo, opts, plan, raw, bw);
	rc = smpol_shares_from_bandwidth(bw, NULL, 0, plan->nnodes, plain, err, errlen);
	if (rc || !opts->mem_kb || !candidate_capacity(topo, plan, cap)) {
		if (!rc)
			memcpy(plan->shares, plain, sizeof(double) * plan->nnodes);
		return rc;
	}
	rc = smpol_shares_from_bandwidth(bw, cap, opts->mem_kb, plan->nnodes, plan->shares, why, sizeof(why));
	if (rc == -ENOSPC)
		smpol_plan_note(plan, "%s: shares follow free memory.", why);
	else if (rc)
		return smpol_fail(err, errlen, -rc, "%s", why);
	for (int i = 0; i < plan->nnodes; i++)
		if (fabs(plan->shares[i] - plain[i]) > 1e-9)
			plan->capacity_capped = true;
	return 0;
}

static int plan_weights(const struct smpol_plan_opts *opts, struct smpol_plan *plan, const uint32_t *raw,
			char *err, size_t errlen)
{
	int n = plan->nnodes;

	if (opts->has_weights) {
		for (int i = 0; i < n; i++)
			plan->weights[i] = opts->weights[plan->nodes[i]];
		return 0;
	}
	if (opts->algorithm == SMPOL_ALGO_KERNEL)
		return smpol_weights_kernel(raw, n, plan->weights, err, errlen);
	return smpol_weights_optimal(plan->shares, n, &opts->weight, plan->weights, NULL, err, errlen);
}

/* Drop the nodes apportioned no seat, saying why. */
static void drop_seatless(struct smpol_plan *plan)
{
	int kept = 0;
	unsigned sum = 0;

	for (int i = 0; i < plan->nnodes; i++)
		sum += plan->weights[i];
	for (int i = 0; i < plan->nnodes; i++) {
		if (!plan->weights[i]) {
			char reason[sizeof(plan->left_out->reason)];

			snprintf(reason, sizeof(reason), "no seat at weight sum %u (share %.1f%%)", sum,
				 100 * plan->shares[i]);
			smpol_plan_leave_out(plan, plan->nodes[i], reason);
			continue;
		}
		plan->nodes[kept] = plan->nodes[i];
		plan->weights[kept] = plan->weights[i];
		plan->shares[kept] = plan->shares[i];
		plan->bandwidth[kept] = plan->bandwidth[i];
		plan->sources[kept] = plan->sources[i];
		kept++;
	}
	plan->nnodes = kept;
}

/* Efficiency against the shares, nodes given no seat left out, then the weight sum. */
static void settle_weights(struct smpol_plan *plan)
{
	plan->efficiency = smpol_weights_efficiency(plan->shares, plan->weights, plan->nnodes);
	drop_seatless(plan);
	plan->weight_sum = 0;
	for (int i = 0; i < plan->nnodes; i++)
		plan->weight_sum += plan->weights[i];
}

int smpol_plan_for_initiator(const struct smpol_topology *topo, int initiator,
			    const struct smpol_plan_opts *opts, struct smpol_plan *plan,
			    char *err, size_t errlen)
{
	struct candidate_scratch c = { 0 };
	int rc;

	const struct smpol_node *in = initiator >= 0 ? smpol_topology_node(topo, initiator) : NULL;

	memset(plan, 0, sizeof(*plan));
	plan->initiator = initiator;
	plan->algorithm = opts->algorithm;
	if (initiator >= 0 && !in)
		return smpol_fail(err, errlen, EINVAL, "node %d is not online, so it cannot be an initiator",
				 initiator);
	if (in) {
		if (smpol_plan_serve(plan, 1) < 0)
			return smpol_fail(err, errlen, ENOMEM, "out of memory");
		plan->served[0] = initiator;
		plan->served_cpus[0] = (unsigned)smpol_cpus_count(&in->cpus);
	}
	rc = pick_candidates(topo, initiator, opts, plan, err, errlen);
	if (!rc)
		rc = scratch_alloc(&c, plan->nnodes, err, errlen);
	if (!rc)
		rc = plan_shares(topo, opts, plan, &c, err, errlen);
	if (!rc)
		rc = plan_weights(opts, plan, c.raw, err, errlen);
	if (!rc)
		settle_weights(plan);
	free(c.bw);
	if (rc)
		smpol_plan_free(plan);
	return rc;
}

int smpol_plan_weigh(struct smpol_plan *plan, const struct smpol_plan_opts *opts, char *err, size_t errlen)
{
	uint32_t *raw = malloc(sizeof(*raw) * (size_t)(plan->nnodes > 0 ? plan->nnodes : 1));
	int rc;

	if (!raw)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for a plan of %d nodes", plan->nnodes);
	/* the kernel's formula over shares gives what it gives over bandwidth in proportion */
	for (int i = 0; i < plan->nnodes; i++)
		raw[i] = (uint32_t)lround(plan->shares[i] * 1e6);
	rc = plan_weights(opts, plan, raw, err, errlen);
	if (!rc)
		settle_weights(plan);
	free(raw);
	return rc;
}

int smpol_plan_all(const struct smpol_topology *topo, const struct smpol_plan_opts *opts,
		  struct smpol_plan **plans, int *nplans, char *err, size_t errlen)
{
	struct smpol_plan *out;
	int n = 0, rc;

	*plans = NULL;
	*nplans = 0;
	for (int i = 0; i < topo->nnodes; i++)
		n += topo->nodes[i].has_cpu;
	if (!n)
		return smpol_fail(err, errlen, ENODEV, "no online node has CPUs, so there is no initiator to plan for");
	out = calloc((size_t)n, sizeof(*out));
	if (!out)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for %d plans", n);
	n = 0;
	for (int i = 0; i < topo->nnodes; i++) {
		if (!topo->nodes[i].has_cpu)
			continue;
		rc = smpol_plan_for_initiator(topo, topo->nodes[i].id, opts, &out[n], err, errlen);
		if (rc) {
			smpol_plans_free(out, n);
			return rc;
		}
		n++;
	}
	*plans = out;
	*nplans = n;
	return 0;
}

int smpol_initiator_for_cpus(const struct smpol_topology *topo, const struct smpol_cpus *cpus,
			    int *initiator, char *err, size_t errlen)
{
	int best = -1, best_count = 0;
	char list[256];

	for (int i = 0; i < topo->nnodes; i++) {
		int count = smpol_cpus_count_and(&topo->nodes[i].cpus, cpus);

		/* nodes are ascending, so a strict > keeps the lowest id on ties */
		if (count > best_count) {
			best = topo->nodes[i].id;
			best_count = count;
		}
	}
	if (best < 0) {
		if (smpol_cpus_format_list(cpus, list, sizeof(list)))
			snprintf(list, sizeof(list), "(too many to list)");
		return smpol_fail(err, errlen, ENOENT, "none of the CPUs %s belongs to an online NUMA node",
				 *list ? list : "(none)");
	}
	*initiator = best;
	return 0;
}

void smpol_plan_set_equal_weights(struct smpol_plan *plan)
{
	for (int i = 0; i < plan->nnodes; i++)
		plan->weights[i] = 1;
	plan->weight_sum = (unsigned)plan->nnodes;
	plan->efficiency = smpol_weights_efficiency(plan->shares, plan->weights, plan->nnodes);
}

bool smpol_plan_same(const struct smpol_plan *a, const struct smpol_plan *b)
{
	if (a->nnodes != b->nnodes)
		return false;
	for (int i = 0; i < a->nnodes; i++)
		if (a->nodes[i] != b->nodes[i] || a->weights[i] != b->weights[i])
			return false;
	return true;
}

int smpol_plan_keep(struct smpol_plan **plans, int *nplans, const struct smpol_plan *p)
{
	struct smpol_plan *more;

	for (int i = 0; i < *nplans; i++)
		if (smpol_plan_same(&(*plans)[i], p))
			return i;
	more = realloc(*plans, sizeof(*more) * (size_t)(*nplans + 1));
	if (!more)
		return -ENOMEM;
	*plans = more;
	if (smpol_plan_copy(&more[*nplans], p) < 0)
		return -ENOMEM;
	return (*nplans)++;
}

int smpol_plan_format_served(const struct smpol_plan *plan, bool with_cpus, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (int i = 0; i < plan->nserved; i++) {
		int n = with_cpus ? snprintf(buf + used, len - used, "%s%d:%u", i ? "," : "", plan->served[i],
					     plan->served_cpus[i])
				  : snprintf(buf + used, len - used, "%s%d", i ? "," : "", plan->served[i]);

		if (n < 0 || (size_t)n >= len - used) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		used += (size_t)n;
	}
	return 0;
}

static int format_column(const struct smpol_plan *plan, bool weights, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (int i = 0; i < plan->nnodes; i++) {
		int n = weights ? snprintf(buf + used, len - used, "%s%u", i ? ":" : "", plan->weights[i])
				: snprintf(buf + used, len - used, "%s%d", i ? "," : "", plan->nodes[i]);

		if (n < 0 || (size_t)n >= len - used) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		used += (size_t)n;
	}
	return 0;
}

int smpol_plan_format_nodes(const struct smpol_plan *plan, char *buf, size_t len)
{
	return format_column(plan, false, buf, len);
}

int smpol_plan_format_weights(const struct smpol_plan *plan, char *buf, size_t len)
{
	return format_column(plan, true, buf, len);
}
