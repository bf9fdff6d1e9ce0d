/* region_place.c - place a task's large mappings at each sample (see region_place.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "error.h"
#include "movement.h"
#include "numa_maps.h"
#include "pmbind.h"
#include "region_place.h"

int smpol_region_opts_make(enum smpol_regions_by by, uint64_t min_region, enum smpol_kernel_path path,
			   const struct smpol_plan *p, long pmbind_nr, struct smpol_region_opts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->by = by;
	o->min_region = min_region;
	o->weighted = path == SMPOL_PATH_WEIGHTED;
	/* plain interleave gives every node the same share, whatever the plan's weights */
	for (int i = 0; i < p->nnodes; i++) {
		o->move.weight[p->nodes[i]] = path == SMPOL_PATH_INTERLEAVE ? 1 : p->weights[i];
		smpol_bitmap_set(&o->nodes, p->nodes[i]);
	}
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

/* Whether a numa_maps policy is the plan's: its mode ("weighted interleave" or
 * "interleave", with or without "=static") and its nodes. */
static bool plan_policy(const struct smpol_region_opts *o, const char *policy)
{
	const char *mode = o->weighted ? "weighted interleave" : "interleave";
	size_t n = strlen(mode);
	struct smpol_bitmap nodes;

	return !strncmp(policy, mode, n) && (policy[n] == ':' || policy[n] == '=') &&
	       smpol_numa_policy_nodes(policy, &nodes) == 0 && smpol_bitmap_equal(&nodes, &o->nodes);
}

enum smpol_region_state smpol_region_state(const struct smpol_region_opts *o, const char *policy,
					   const uint64_t *count)
{
	struct smpol_movement mv = { 0 };
	uint64_t total = 0;
	int top = -1;
	bool within;

	if (plan_policy(o, policy))
		return SMPOL_REGION_PLANNED;
	if (o->by == SMPOL_REGIONS_POLICY)
		return SMPOL_REGION_OFF_PLAN;
	/* every node with pages or weight takes part in the targets */
	for (int i = 0; i < SMPOL_MAX_NODES; i++) {
		total += count[i];
		if (count[i] || o->move.weight[i])
			top = i;
	}
	if (total == 0)
		return SMPOL_REGION_ON_PLAN;    /* nothing to move yet */
	/* the planner's minimum: the pages that would move */
	if (smpol_movement_init(&mv, count, top, o->move.weight, NULL, 0) < 0)
		return SMPOL_REGION_OFF_PLAN;
	within = mv.minimum * 1000 <= total * SMPOL_REGION_SLACK_PERMILLE;
	smpol_movement_free(&mv);
	return within ? SMPOL_REGION_ON_PLAN : SMPOL_REGION_OFF_PLAN;
}

static bool given_policy(const struct smpol_region_memory *m, const struct smpol_region *r)
{
	for (int i = 0; i < m->nplaced; i++)
		if (m->placed[i].start == r->start && m->placed[i].end == r->end)
			return true;
	return false;
}

/* A hash of pages per node (FNV-1a over the nodes that have some). */
static uint64_t counts_hash(const uint64_t *count)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < SMPOL_MAX_NODES; i++)
		if (count[i])
			h = (h ^ ((uint64_t)i << 48 ^ count[i])) * 1099511628211ull;
	return h;
}

/* Whether r, with these counts, could not move at all when it last had them. */
static bool stuck(const struct smpol_region_memory *m, const struct smpol_region *r, uint64_t counts)
{
	for (int i = 0; i < m->nstuck; i++)
		if (m->stuck[i].start == r->start && m->stuck[i].end == r->end && m->stuck[i].counts == counts)
			return true;
	return false;
}

void smpol_regions_to_place(const struct smpol_region *now, int n, const char *numa_maps,
			    const struct smpol_region_opts *o, const struct smpol_region_memory *m,
			    struct smpol_region *todo, uint64_t *counts, int *ntodo, struct smpol_region_sample *s)
{
	struct smpol_numa_usage *u = malloc(sizeof(*u));

	*ntodo = 0;
	for (int i = 0; i < n; i++) {
		char policy[64];

		if (now[i].end - now[i].start < o->min_region)
			continue;
		s->large++;
		smpol_numa_usage_init(u);
		/* not in numa_maps: unmapped since maps was read, seen again next time */
		if (!u || smpol_numa_maps_mapping(numa_maps, now[i].start, policy, sizeof(policy), u, NULL, 0) < 0)
			continue;
		switch (smpol_region_state(o, policy, u->anon)) {
		case SMPOL_REGION_PLANNED:
			if (given_policy(m, &now[i]))
				s->kept++;
			else
				s->at_allocation++;
			break;
		case SMPOL_REGION_ON_PLAN:
			s->kept++;
			break;
		default:
			todo[*ntodo] = now[i];
			counts[*ntodo] = counts_hash(u->anon);
			/* its pages would not move: left until something changes */
			if (o->by == SMPOL_REGIONS_MOVE && stuck(m, &now[i], counts[*ntodo]))
				break;
			(*ntodo)++;
		}
	}
	free(u);
}

/* Remember the mappings process_mbind gave the policy: those of before that still
 * exist (same start and end) and todo's. Out of memory, what was remembered stays: a
 * mapping then only counts as placed as allocated. */
static void remember(struct smpol_region_memory *m, const struct smpol_region *now, int n,
		     const struct smpol_region *todo, int ntodo)
{
	struct smpol_region *keep = malloc((size_t)(m->nplaced + ntodo + 1) * sizeof(*keep));
	int nkeep = 0;

	if (!keep)
		return;
	for (int i = 0; i < m->nplaced; i++)
		for (int j = 0; j < n; j++)
			if (now[j].start == m->placed[i].start && now[j].end == m->placed[i].end) {
				keep[nkeep++] = m->placed[i];
				break;
			}
	for (int i = 0; i < ntodo; i++)
		if (!given_policy(m, &todo[i]))
			keep[nkeep++] = todo[i];
	free(m->placed);
	m->placed = keep;
	m->nplaced = nkeep;
}

/* Keep r, whose pages numa_maps counted as `counts`, as stuck (replacing what was kept of it). */
static void remember_stuck(struct smpol_region_memory *m, const struct smpol_region *r, uint64_t counts)
{
	struct smpol_region_stuck *more;
	int i;

	for (i = 0; i < m->nstuck; i++)
		if (m->stuck[i].start == r->start && m->stuck[i].end == r->end)
			break;
	if (i == m->nstuck) {
		if (!(more = realloc(m->stuck, sizeof(*more) * (size_t)(m->nstuck + 1))))
			return;         /* walked again next time: no harm */
		m->stuck = more;
		m->nstuck++;
	}
	m->stuck[i] = (struct smpol_region_stuck){ .start = r->start, .end = r->end, .counts = counts };
}

/* Forget the stuck mappings that are gone (no mapping of `now` has their start and end). */
static void forget_gone(struct smpol_region_memory *m, const struct smpol_region *now, int n)
{
	int kept = 0;

	for (int i = 0; i < m->nstuck; i++)
		for (int j = 0; j < n; j++)
			if (now[j].start == m->stuck[i].start && now[j].end == m->stuck[i].end) {
				m->stuck[kept++] = m->stuck[i];
				break;
			}
	m->nstuck = kept;
}

int smpol_region_slices(const struct smpol_region *r, uint64_t size, struct smpol_region *out)
{
	uint64_t len = r->end - r->start, page = (uint64_t)sysconf(_SC_PAGESIZE);
	int n;

	if (size < page)
		size = page;
	if (len / SMPOL_REGION_MAX_SLICES > size)
		size = len / SMPOL_REGION_MAX_SLICES;
	size = (size + page - 1) / page * page;
	n = len / size < 2 ? 1 : (int)(len / size);
	for (int i = 0; i < n; i++) {
		out[i].start = r->start + (uintptr_t)i * size;
		out[i].end = i == n - 1 ? r->end : out[i].start + size;
		out[i].rss_kb = 0;
	}
	return n;
}

/* Move the pages of each mapping of todo on its own, slice by slice; one none of whose
 * pages could move is kept as stuck. */
static int move_each(const struct smpol_task_ref *t, const struct smpol_region_opts *o,
		     struct smpol_region_memory *m, const struct smpol_region *todo, const uint64_t *counts,
		     int ntodo, struct smpol_region_sample *s, char *err, size_t errlen)
{
	struct smpol_rebalance_opts mo = o->move;
	struct smpol_region *slices = malloc(sizeof(*slices) * SMPOL_REGION_MAX_SLICES);
	int rc = 0;

	if (!slices)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for the slices of a mapping");
	mo.backend = SMPOL_BACKEND_MOVE_PAGES;
	mo.min_region = o->min_region;
	mo.slack_permille = SMPOL_REGION_SLACK_PERMILLE;
	for (int i = 0; i < ntodo && rc == 0 && !s->exited; i++) {
		struct smpol_rebalance_result r;
		/* min_region 0 (a child's whole memory): each mapping balanced as one */
		int n = o->min_region ? smpol_region_slices(&todo[i], o->min_region, slices) : 1;

		if (!o->min_region)
			slices[0] = todo[i];
		rc = smpol_rebalance_some(t, &mo, slices, n, &r, err, errlen);
		s->pages += r.pages;
		s->minimum += r.minimum;
		s->moved += r.moved;
		s->not_moved += smpol_rebalance_not_moved(&r);
		s->exited = r.exited;
		if (rc == 0 && !r.exited)
			s->placed++;
		if (rc == 0 && r.moved < r.minimum)
			s->unmoved++;
		if (rc == 0 && o->by == SMPOL_REGIONS_MOVE && r.minimum && !r.moved)
			remember_stuck(m, &todo[i], counts[i]);
	}
	free(slices);
	return rc;
}

int smpol_region_place_task(const struct smpol_task_ref *t, const struct smpol_region_opts *o,
			    struct smpol_region_memory *m, struct smpol_region_sample *s, char *err, size_t errlen)
{
	struct smpol_region *now = NULL, *todo = NULL;
	uint64_t *counts = NULL;
	char *numa_maps = NULL;
	int n = 0, ntodo = 0, rc;

	memset(s, 0, sizeof(*s));
	if (o->by != SMPOL_REGIONS_POLICY && o->by != SMPOL_REGIONS_MOVE)
		return smpol_fail(err, errlen, EINVAL, "region-aware placement needs process_mbind or page moves");
	rc = smpol_task_check(t, err, errlen);
	/* every mapping, touched or not (a policy set on it governs its later faults) */
	if (rc == 0)
		rc = smpol_pages_regions(t->pid, false, &now, &n, err, errlen);
	if (rc == 0)
		rc = smpol_numa_maps_text(NULL, t->pid, &numa_maps, err, errlen);
	if (rc == 0 && (!(todo = malloc((size_t)(n ? n : 1) * sizeof(*todo))) ||
			!(counts = malloc((size_t)(n ? n : 1) * sizeof(*counts)))))
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory for %d mappings", n);
	if (rc == 0) {
		forget_gone(m, now, n);
		smpol_regions_to_place(now, n, numa_maps, o, m, todo, counts, &ntodo, s);
	}
	if (rc == 0 && ntodo && o->by == SMPOL_REGIONS_POLICY) {
		rc = smpol_pmbind_apply(o->move.pmbind_nr, t->pidfd, todo, ntodo, o->move.pmbind_mode,
					o->move.pmbind_mask, err, errlen);
		if (rc == 0) {
			s->policies = ntodo;
			remember(m, now, n, todo, ntodo);
		}
		s->policy_refused = rc < 0 && rc != -EFAULT && !smpol_task_gone(t, rc);
	}
	if (rc == 0 && ntodo)
		rc = move_each(t, o, m, todo, counts, ntodo, s, err, errlen);
	if (smpol_task_gone(t, rc)) {
		/* the task ended: not an error */
		s->exited = true;
		rc = 0;
	} else if (rc == -EFAULT) {
		/* a mapping unmapped between reading and placing: placed next time if back
		 * (those placed before it in this sample are counted, their moves said) */
		rc = 0;
	}
	free(numa_maps);
	free(now);
	free(todo);
	free(counts);
	return rc;
}

void smpol_region_memory_free(struct smpol_region_memory *m)
{
	free(m->placed);
	free(m->stuck);
	memset(m, 0, sizeof(*m));
}
