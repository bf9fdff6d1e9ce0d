/* sampling.c - the sums of a step's placement samples (see sampling.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sampling.h"

/* Grow every array to hold node ids below span (new slots zeroed). */
static int grow(struct smpol_sampling *s, int span)
{
	uint64_t **u64[] = { &s->last, &s->peak, &s->cur };
	double **dbl[] = { &s->expect, &s->cur_expect };

	if (span <= s->span)
		return 0;
	for (size_t i = 0; i < sizeof(u64) / sizeof(u64[0]); i++) {
		uint64_t *p = realloc(*u64[i], sizeof(*p) * (size_t)span);

		if (!p)
			return -ENOMEM;
		memset(p + s->span, 0, sizeof(*p) * (size_t)(span - s->span));
		*u64[i] = p;
	}
	for (size_t i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++) {
		double *p = realloc(*dbl[i], sizeof(*p) * (size_t)span);

		if (!p)
			return -ENOMEM;
		memset(p + s->span, 0, sizeof(*p) * (size_t)(span - s->span));
		*dbl[i] = p;
	}
	s->span = span;
	return 0;
}

int smpol_sampling_init(struct smpol_sampling *s, int span, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->max_node = -1;
	s->cur_max = -1;
	if (grow(s, span > 0 ? span : 1) < 0) {
		smpol_sampling_free(s);
		return smpol_fail(err, errlen, ENOMEM, "out of memory for the placement samples");
	}
	return 0;
}

void smpol_sampling_free(struct smpol_sampling *s)
{
	free(s->last);
	free(s->peak);
	free(s->cur);
	free(s->expect);
	free(s->cur_expect);
	memset(s, 0, sizeof(*s));
	s->max_node = -1;
}

void smpol_sampling_begin(struct smpol_sampling *s)
{
	memset(s->cur, 0, sizeof(*s->cur) * (size_t)s->span);
	memset(s->cur_expect, 0, sizeof(*s->cur_expect) * (size_t)s->span);
	s->cur_tasks = s->cur_matched = 0;
	s->cur_max = -1;
	s->cur_most = 0;
	s->cur_policy[0] = '\0';
	s->cur_have_regions = false;
	memset(&s->cur_regions, 0, sizeof(s->cur_regions));
}

void smpol_sampling_add_regions(struct smpol_sampling *s, const struct smpol_region_ways *w)
{
	s->cur_have_regions = true;
	s->cur_regions.allocation += w->allocation;
	s->cur_regions.sampler += w->sampler;
	s->cur_regions.pending += w->pending;
}

/* The share of a plan's j-th node for a task on it: its weight as the kernel applies
 * it (plain interleave: equal). */
static double plan_share(const struct smpol_plan *p, int j, enum smpol_kernel_path path)
{
	if (path == SMPOL_PATH_INTERLEAVE || p->weight_sum == 0)
		return 1.0 / p->nnodes;
	return (double)p->weights[j] / p->weight_sum;
}

const struct smpol_plan *smpol_plan_of_policy(const char *policy, const struct smpol_plan *plans, int nplans)
{
	struct smpol_bitmap seen, nodes;

	if (smpol_numa_policy_nodes(policy, &seen) < 0)
		return NULL;
	for (int i = 0; i < nplans; i++) {
		smpol_bitmap_clear(&nodes);
		for (int j = 0; j < plans[i].nnodes; j++)
			smpol_bitmap_set(&nodes, plans[i].nodes[j]);
		if (smpol_bitmap_equal(&nodes, &seen))
			return &plans[i];
	}
	return NULL;
}

int smpol_sampling_add(struct smpol_sampling *s, const struct smpol_numa_usage *u,
		       const struct smpol_plan *plans, int nplans, enum smpol_kernel_path path)
{
	const struct smpol_plan *plan = NULL;

	if (u->npolicies > 0)
		plan = smpol_plan_of_policy(u->policies[0].policy, plans, nplans);
	return smpol_sampling_add_on(s, u, plan, path);
}

int smpol_sampling_add_on(struct smpol_sampling *s, const struct smpol_numa_usage *u, const struct smpol_plan *plan,
			  enum smpol_kernel_path path)
{
	uint64_t pages = smpol_numa_usage_anon_total(u);
	int top = u->max_node;

	for (int j = 0; plan && j < plan->nnodes; j++)
		if (plan->nodes[j] > top)
			top = plan->nodes[j];
	if (grow(s, top + 1) < 0)
		return -ENOMEM;
	s->cur_tasks++;
	for (int n = 0; n <= u->max_node; n++)
		s->cur[n] += u->anon[n];
	if (top > s->cur_max)
		s->cur_max = top;
	if (u->npolicies > 0 && pages >= s->cur_most) {
		s->cur_most = pages;
		snprintf(s->cur_policy, sizeof(s->cur_policy), "%s", u->policies[0].policy);
	}
	if (!plan)
		return 0;
	s->cur_matched++;
	for (int j = 0; j < plan->nnodes; j++)
		s->cur_expect[plan->nodes[j]] += (double)pages * plan_share(plan, j, path);
	return 0;
}

void smpol_sampling_end(struct smpol_sampling *s, int64_t now)
{
	if (s->cur_tasks == 0)
		return;
	s->n++;
	s->time = now;
	if (s->cur_max > s->max_node)
		s->max_node = s->cur_max;
	for (int n = 0; n <= s->max_node; n++) {
		s->last[n] = s->cur[n];
		if (s->cur[n] > s->peak[n])
			s->peak[n] = s->cur[n];
		s->expect[n] = s->cur_expect[n];
	}
	s->have_target = s->cur_matched > 0;
	snprintf(s->policy, sizeof(s->policy), "%s", s->cur_policy);
	s->have_regions = s->cur_have_regions;
	s->regions = s->cur_regions;
}
