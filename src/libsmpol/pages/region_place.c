/* region_place.c - place a task's large mappings at each sample (see region_place.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "error.h"
#include "pmbind.h"
#include "region_place.h"

int smpol_region_opts_make(enum smpol_regions_by by, uint64_t min_region, enum smpol_kernel_path path,
			   const struct smpol_plan *p, long pmbind_nr, struct smpol_region_opts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->by = by;
	o->min_region = min_region;
	/* plain interleave gives every node the same share, whatever the plan's weights */
	for (int i = 0; i < p->nnodes; i++)
		o->move.weight[p->nodes[i]] = path == SMPOL_PATH_INTERLEAVE ? 1 : p->weights[i];
	if (o->by != SMPOL_REGIONS_POLICY)
		return 0;
	o->move.pmbind_nr = pmbind_nr;
	return smpol_plan_policy(p, path, &o->move.pmbind_mode, o->move.pmbind_mask, err, errlen);
}

int smpol_region_opts_for(const struct smpol_placement *pl, const struct smpol_plan *p, long pmbind_nr,
			  struct smpol_region_opts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!pl->min_region_kb || pl->regions_by == SMPOL_REGIONS_NONE)
		return smpol_fail(err, errlen, EINVAL, "the step's large mappings are not placed (no min_region, "
				 "or nothing to place them with)");
	return smpol_region_opts_make(pl->regions_by, pl->min_region_kb * 1024, pl->path, p, pmbind_nr, o, err,
				      errlen);
}

static const struct smpol_region *placed_as(const struct smpol_region_memory *m, const struct smpol_region *r)
{
	for (int i = 0; i < m->nplaced; i++)
		if (m->placed[i].start == r->start && m->placed[i].end == r->end)
			return &m->placed[i];
	return NULL;
}

static bool large(const struct smpol_region *r, uint64_t min_region)
{
	return r->end - r->start >= min_region;
}

void smpol_regions_to_place(const struct smpol_region *now, int n, uint64_t min_region, enum smpol_regions_by by,
			    const struct smpol_region_memory *m, struct smpol_region *todo, int *ntodo, int *nlarge)
{
	*ntodo = 0;
	*nlarge = 0;
	for (int i = 0; i < n; i++) {
		const struct smpol_region *was;

		if (!large(&now[i], min_region))
			continue;
		(*nlarge)++;
		was = placed_as(m, &now[i]);
		/* with a policy set, its new pages follow it; without, only a walk moves them */
		if (!was || (by == SMPOL_REGIONS_MOVE && was->rss_kb != now[i].rss_kb))
			todo[(*ntodo)++] = now[i];
	}
}

/* Remember the large mappings of `now`; those of todo only when they were placed. */
static int remember(struct smpol_region_memory *m, const struct smpol_region *now, int n, uint64_t min_region,
		    const struct smpol_region *todo, int ntodo, bool placed)
{
	struct smpol_region *keep = malloc((size_t)(n ? n : 1) * sizeof(*keep));
	int nkeep = 0;

	if (!keep)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		bool in_todo = false;

		for (int j = 0; j < ntodo && !in_todo; j++)
			in_todo = todo[j].start == now[i].start && todo[j].end == now[i].end;
		if (large(&now[i], min_region) && (placed || !in_todo))
			keep[nkeep++] = now[i];
	}
	free(m->placed);
	m->placed = keep;
	m->nplaced = nkeep;
	return 0;
}

int smpol_region_place_task(const struct smpol_task_ref *t, const struct smpol_region_opts *o,
			    struct smpol_region_memory *m, struct smpol_region_sample *s, char *err, size_t errlen)
{
	struct smpol_rebalance_opts mo = o->move;
	struct smpol_rebalance_result r;
	struct smpol_region *now = NULL, *todo = NULL;
	int n = 0, ntodo = 0, rc;

	memset(s, 0, sizeof(*s));
	if (o->by != SMPOL_REGIONS_POLICY && o->by != SMPOL_REGIONS_MOVE)
		return smpol_fail(err, errlen, EINVAL, "region-aware placement needs process_mbind or page moves");
	rc = smpol_task_check(t, err, errlen);
	/* MOVE needs the resident sizes (smaps); POLICY every mapping, touched or not (maps) */
	if (rc == 0)
		rc = smpol_pages_regions(t->pid, o->by == SMPOL_REGIONS_MOVE, &now, &n, err, errlen);
	if (rc == 0 && !(todo = malloc((size_t)(n ? n : 1) * sizeof(*todo))))
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory for %d mappings", n);
	if (rc == 0)
		smpol_regions_to_place(now, n, o->min_region, o->by, m, todo, &ntodo, &s->large);
	if (rc == 0 && ntodo && o->by == SMPOL_REGIONS_POLICY) {
		rc = smpol_pmbind_apply(mo.pmbind_nr, t->pidfd, todo, ntodo, mo.pmbind_mode, mo.pmbind_mask, err, errlen);
		s->policies = rc == 0 ? ntodo : 0;
	}
	if (rc == 0 && ntodo) {
		mo.backend = SMPOL_BACKEND_MOVE_PAGES;
		/* each mapping balanced on its own (a min_region of one byte when all take
		 * part), as a policy spreads each: as one whole, a process placed after it
		 * filled an array (a rank bound to another socket later) kept that array off
		 * the weights while its total matched them */
		mo.min_region = o->min_region ? o->min_region : 1;
		rc = smpol_rebalance_some(t, &mo, todo, ntodo, &r, err, errlen);
		s->pages = r.pages;
		s->minimum = r.minimum;
		s->moved = r.moved;
		s->not_moved = smpol_rebalance_not_moved(&r);
		s->exited = r.exited;
	}
	/* the task ended: not an error */
	if (smpol_task_gone(t, rc)) {
		s->exited = true;
		rc = 0;
	} else if (rc == 0 || n > 0) {
		/* what was placed is remembered, what was not is tried again next time; a
		 * mapping unmapped between reading and placing (EFAULT) is no error */
		bool placed = rc == 0 && !s->exited;

		if (rc == 0)
			s->placed = ntodo;
		if (rc == -EFAULT)
			rc = 0;
		if (remember(m, now, n, o->min_region, todo, ntodo, placed) < 0)
			rc = smpol_fail(err, errlen, ENOMEM, "out of memory for %d mappings", n);
	}
	free(now);
	free(todo);
	return rc;
}

void smpol_region_memory_free(struct smpol_region_memory *m)
{
	free(m->placed);
	m->placed = NULL;
	m->nplaced = 0;
}
