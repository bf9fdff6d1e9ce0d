/* plan_span.c - plans for a set of CPUs (see plan_span.h for the rule). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "plan_span.h"

/* Within this much of the CPUs' share, a plan's part of the weights is said to match. */
#define SPLIT_SLACK 0.005

/* The task's CPUs per CPU node: the nodes they use, ascending, with their counts. */
struct cpu_split {
	int n;
	int node[SMPOL_PLAN_MAX_SERVED];
	unsigned cpus[SMPOL_PLAN_MAX_SERVED];
	unsigned total;
};

static int split_cpus(const struct smpol_topology *topo, const struct smpol_cpus *cpus, struct cpu_split *s,
		      char *err, size_t errlen)
{
	char list[256] = "";

	memset(s, 0, sizeof(*s));
	smpol_cpus_format_list(cpus, list, sizeof(list));
	for (int i = 0; i < topo->nnodes; i++) {
		int count = smpol_cpus_count_and(&topo->nodes[i].cpus, cpus);

		if (!count)
			continue;
		if (s->n == SMPOL_PLAN_MAX_SERVED)
			return smpol_fail(err, errlen, E2BIG, "the CPUs %s span more than %d NUMA nodes; bind the task "
					 "to fewer", list, SMPOL_PLAN_MAX_SERVED);
		s->node[s->n] = topo->nodes[i].id;
		s->cpus[s->n++] = (unsigned)count;
		s->total += (unsigned)count;
	}
	if (!s->n)
		return smpol_fail(err, errlen, ENOENT, "the task's CPUs %s belong to no NUMA node of this machine",
				 *list ? list : "(none)");
	return 0;
}

static const struct smpol_plan *plan_of(const struct smpol_plan *plans, int nplans, int initiator)
{
	for (int i = 0; i < nplans; i++)
		if (plans[i].initiator == initiator)
			return &plans[i];
	return NULL;
}

/* The plan of each node the CPUs use; -ENOENT naming the first without one. */
static int served_plans(const struct smpol_plan *plans, int nplans, const struct smpol_cpus *cpus,
			const struct cpu_split *s, const struct smpol_plan **from, char *err, size_t errlen)
{
	char list[256] = "";

	for (int i = 0; i < s->n; i++) {
		from[i] = plan_of(plans, nplans, s->node[i]);
		if (!from[i]) {
			smpol_cpus_format_list(cpus, list, sizeof(list));
			return smpol_fail(err, errlen, ENOENT, "the task's CPUs %s are on node %d, for which no plan "
					 "was made", list, s->node[i]);
		}
	}
	return 0;
}

/* The node with most of the CPUs, lowest id on ties (nodes are ascending). */
static int main_initiator(const struct cpu_split *s)
{
	int best = 0;

	for (int i = 1; i < s->n; i++)
		if (s->cpus[i] > s->cpus[best])
			best = i;
	return s->node[best];
}

/* Where the combined plan's candidates come from: each plan naming node j, and its index there. */
static int index_in(const struct smpol_plan *p, int node)
{
	for (int j = 0; j < p->nnodes; j++)
		if (p->nodes[j] == node)
			return j;
	return -1;
}

/*
 * Nodes, target shares t(j), bandwidth (the CPU-weighted mean of the pairs), sources
 * (the weakest), and each node's weight in the plans; false when two plans weigh one
 * node differently.
 */
static bool combine_nodes(const struct smpol_plan **from, const struct cpu_split *s, const struct smpol_bitmap *all,
			  struct smpol_plan *out)
{
	bool agree = true;

	out->bw_source = SMPOL_BW_OVERRIDE;
	for (int node = smpol_bitmap_next(all, 0); node >= 0; node = smpol_bitmap_next(all, node + 1)) {
		int k = out->nnodes++;
		double bw = 0, c_sum = 0;

		out->nodes[k] = node;
		out->sources[k] = SMPOL_BW_OVERRIDE;
		for (int i = 0; i < s->n; i++) {
			double c = (double)s->cpus[i] / s->total;
			int j = index_in(from[i], node);

			if (j < 0)
				continue;
			out->shares[k] += c * from[i]->shares[j];
			bw += c * from[i]->bandwidth[j];
			c_sum += c;
			if (from[i]->sources[j] < out->sources[k])
				out->sources[k] = from[i]->sources[j];
			if (!out->weights[k])
				out->weights[k] = from[i]->weights[j];
			else if (out->weights[k] != from[i]->weights[j])
				agree = false;
		}
		out->bandwidth[k] = (uint32_t)lround(bw / c_sum);
		if (out->sources[k] < out->bw_source)
			out->bw_source = out->sources[k];
	}
	return agree;
}

/* Do the plans name disjoint nodes (each socket its own)? */
static bool disjoint(const struct smpol_plan *const *from, int n)
{
	struct smpol_bitmap seen;

	smpol_bitmap_clear(&seen);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < from[i]->nnodes; j++) {
			if (smpol_bitmap_test(&seen, from[i]->nodes[j]))
				return false;
			smpol_bitmap_set(&seen, from[i]->nodes[j]);
		}
	return true;
}

/* Say so when the weights split the memory between the plans otherwise than the CPUs. */
static void note_split(const struct smpol_plan **from, const struct cpu_split *s, struct smpol_plan *out)
{
	char mem[160] = "", cpus[160] = "", nodes[160] = "";
	size_t um = 0, uc = 0, un = 0;
	bool differs = false;

	for (int i = 0; i < s->n; i++) {
		double c = (double)s->cpus[i] / s->total, w = (double)from[i]->weight_sum / out->weight_sum;

		differs |= fabs(c - w) > SPLIT_SLACK;
		um += (size_t)snprintf(mem + um, sizeof(mem) - um, "%s%.0f%%", i ? ":" : "", 100 * w);
		uc += (size_t)snprintf(cpus + uc, sizeof(cpus) - uc, "%s%.0f%%", i ? ":" : "", 100 * c);
		un += (size_t)snprintf(nodes + un, sizeof(nodes) - un, "%s%d", i ? "," : "", s->node[i]);
		if (um >= sizeof(mem) || uc >= sizeof(cpus) || un >= sizeof(nodes))
			return;
	}
	if (!differs)
		return;
	smpol_plan_note(out, "the weights give CPU nodes %s %s of the memory, the task's CPUs are %s there.", nodes,
			mem, cpus);
}

static int combine(const struct smpol_plan **from, const struct cpu_split *s, const struct smpol_plan_opts *opts,
		   struct smpol_plan *out, char *err, size_t errlen)
{
	struct smpol_bitmap all;
	bool agree;

	smpol_bitmap_clear(&all);
	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < from[i]->nnodes; j++)
			smpol_bitmap_set(&all, from[i]->nodes[j]);
	memset(out, 0, sizeof(*out));
	if (smpol_plan_alloc(out, smpol_bitmap_count(&all)) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for a plan of %d nodes", smpol_bitmap_count(&all));
	out->initiator = main_initiator(s);
	out->algorithm = from[0]->algorithm;
	out->bandwidth_known = true;
	if (smpol_plan_serve(out, s->n) < 0) {
		smpol_plan_free(out);
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	}
	for (int i = 0; i < s->n; i++) {
		out->served[i] = s->node[i];
		out->served_cpus[i] = s->cpus[i];
		out->capacity_capped |= from[i]->capacity_capped;
		out->bandwidth_known &= from[i]->bandwidth_known;
		smpol_bitmap_or(&out->standby, &from[i]->standby);
		for (int l = 0; l < from[i]->nleft_out; l++)
			smpol_plan_leave_out(out, from[i]->left_out[l].node, from[i]->left_out[l].reason);
		if (from[i]->notes)
			smpol_plan_note(out, "%s", from[i]->notes);
	}
	agree = combine_nodes(from, s, &all, out);
	if (!agree) {
		int rc = smpol_plan_weigh(out, opts, err, errlen);

		if (rc)
			smpol_plan_free(out);
		return rc;
	}
	for (int k = 0; k < out->nnodes; k++)
		out->weight_sum += out->weights[k];
	out->efficiency = smpol_weights_efficiency(out->shares, out->weights, out->nnodes);
	if (disjoint(from, s->n))
		note_split(from, s, out);
	return 0;
}

int smpol_plan_pick(const struct smpol_topology *topo, const struct smpol_plan *plans, int nplans,
		    const struct smpol_cpus *cpus, const struct smpol_plan_opts *opts,
		    struct smpol_plan *out, char *err, size_t errlen)
{
	const struct smpol_plan *from[SMPOL_PLAN_MAX_SERVED];
	struct cpu_split s;
	int rc;

	if (nplans == 1 && plans[0].initiator < 0)
		return smpol_plan_copy(out, &plans[0]) < 0 ? smpol_fail(err, errlen, ENOMEM, "out of memory") : 0;
	rc = split_cpus(topo, cpus, &s, err, errlen);
	if (!rc)
		rc = served_plans(plans, nplans, cpus, &s, from, err, errlen);
	if (rc)
		return rc;
	if (s.n > 1)
		return combine(from, &s, opts, out, err, errlen);
	if (smpol_plan_copy(out, from[0]) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	if (out->nserved == 1)   /* the node's plan serves the task's CPUs there */
		out->served_cpus[0] = s.cpus[0];
	return 0;
}

/* How well weight sums sum[i] * k[i] split as the CPUs c[i] (the model of weights.h). */
static double split_efficiency(const double *c, const unsigned *sum, const unsigned *k, int n)
{
	double total = 0, worst = INFINITY;

	for (int i = 0; i < n; i++)
		total += (double)sum[i] * k[i];
	for (int i = 0; i < n; i++)
		worst = fmin(worst, c[i] / ((double)sum[i] * k[i]));
	return total * worst;
}

/* The multipliers: the plan needing the most weight per share of the CPUs gets m,
 * the others the nearest integer in proportion (at least 1); the smallest m whose
 * split reaches the precision, else the best split within the bounds. */
static void choose_multipliers(const double *c, const unsigned *sum, const unsigned *top, int n,
			       const struct smpol_weight_opts *opts, unsigned *best)
{
	unsigned k[SMPOL_PLAN_MAX_SERVED];
	double best_eff = -1;
	int ref = 0;

	for (int i = 1; i < n; i++)
		if (c[i] / sum[i] > c[ref] / sum[ref])
			ref = i;
	for (unsigned m = 1;; m++) {
		unsigned long total = 0;
		bool fits = true;
		double eff;

		for (int i = 0; i < n && fits; i++) {
			long want = lround(m * (c[i] / sum[i]) / (c[ref] / sum[ref]));

			k[i] = want > 1 ? (unsigned)want : 1;
			total += (unsigned long)k[i] * sum[i];
			fits = (unsigned long)k[i] * top[i] <= SMPOL_WEIGHT_MAX;
		}
		if (!fits || total > (unsigned long)opts->max_sum * (unsigned)n)
			break;
		eff = split_efficiency(c, sum, k, n);
		if (eff > best_eff + 1e-12) {
			best_eff = eff;
			memcpy(best, k, sizeof(*k) * (size_t)n);
		}
		if (eff >= opts->precision)
			break;
	}
}

int smpol_plan_scale_for_span(const struct smpol_topology *topo, struct smpol_plan *plans, int nplans,
			      const struct smpol_cpus *span_cpus, const struct smpol_weight_opts *opts)
{
	const struct smpol_plan *from[SMPOL_PLAN_MAX_SERVED];
	unsigned sum[SMPOL_PLAN_MAX_SERVED], top[SMPOL_PLAN_MAX_SERVED], k[SMPOL_PLAN_MAX_SERVED];
	double c[SMPOL_PLAN_MAX_SERVED];
	struct cpu_split s;
	int changed = 0;

	if (split_cpus(topo, span_cpus, &s, NULL, 0) < 0 || s.n < 2 ||
	    served_plans(plans, nplans, span_cpus, &s, from, NULL, 0) < 0 || !disjoint(from, s.n))
		return 0;
	for (int i = 0; i < s.n; i++) {
		c[i] = (double)s.cpus[i] / s.total;
		sum[i] = from[i]->weight_sum;
		top[i] = 0;
		k[i] = 1;
		for (int j = 0; j < from[i]->nnodes; j++)
			if (from[i]->weights[j] > top[i])
				top[i] = from[i]->weights[j];
		if (!sum[i])
			return 0;
	}
	choose_multipliers(c, sum, top, s.n, opts, k);
	for (int i = 0; i < s.n; i++) {
		struct smpol_plan *p = &plans[from[i] - plans];

		if (k[i] == 1)
			continue;
		for (int j = 0; j < p->nnodes; j++)
			p->weights[j] *= k[i];
		p->weight_sum *= k[i];
		changed++;
	}
	return changed;
}
