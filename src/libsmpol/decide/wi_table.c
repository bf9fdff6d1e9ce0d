/* wi_table.c - the weights table a step's plans need, and whether a table holds it. */
#include <errno.h>
#include <string.h>

#include "error.h"
#include "weights.h"
#include "wi_table.h"

int smpol_wi_from_plans(const struct smpol_plan *plans, int nplans, struct smpol_wi_table *t,
		       struct smpol_bitmap *which, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->auto_enabled = -1;
	smpol_bitmap_clear(which);
	for (int i = 0; i < nplans; i++) {
		for (int j = 0; j < plans[i].nnodes; j++) {
			int n = plans[i].nodes[j];
			unsigned w = plans[i].weights[j];

			if (n < 0 || n >= SMPOL_MAX_NODES || w < 1 || w > SMPOL_WEIGHT_MAX)
				return smpol_fail(err, errlen, EINVAL, "plan for node %d: weight %u for node %d is "
						 "not 1-%d", plans[i].initiator, w, n, SMPOL_WEIGHT_MAX);
			if (smpol_bitmap_test(which, n) && t->weight[n] != w)
				return smpol_fail(err, errlen, EINVAL, "the plans give node %d weights %u and %u; "
						 "one global table cannot hold both", n, t->weight[n], w);
			smpol_bitmap_set(which, n);
			t->weight[n] = (uint8_t)w;
		}
	}
	return 0;
}

/* The weight the kernel uses for node n: 0 (never set, 6.9-6.15) means 1. */
static unsigned effective_weight(const struct smpol_wi_table *t, int n)
{
	return t->weight[n] ? t->weight[n] : 1;
}

bool smpol_wi_holds(const struct smpol_wi_table *t, const struct smpol_wi_table *want,
		    const struct smpol_bitmap *which)
{
	for (int n = smpol_bitmap_next(which, 0); n >= 0; n = smpol_bitmap_next(which, n + 1))
		if (n >= SMPOL_MAX_NODES || !smpol_bitmap_test(&t->has_file, n) ||
		    effective_weight(t, n) != want->weight[n])
			return false;
	return true;
}

void smpol_wi_weigh_plans(const struct smpol_wi_table *t, struct smpol_plan *plans, int nplans)
{
	for (int i = 0; i < nplans; i++) {
		struct smpol_plan *p = &plans[i];

		p->weight_sum = 0;
		for (int j = 0; j < p->nnodes; j++) {
			p->weights[j] = effective_weight(t, p->nodes[j]);
			p->weight_sum += p->weights[j];
		}
		p->efficiency = smpol_weights_efficiency(p->shares, p->weights, p->nnodes);
	}
}
