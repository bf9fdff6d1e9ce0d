/* rebalance.c - walk one task's pages and move the surplus (see rebalance.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "error.h"
#include "kernel.h"
#include "movement.h"
#include "pmbind.h"
#include "rebalance.h"

enum walk_kind { WALK_COUNT, WALK_MOVE };

struct walk {
	const struct smpol_task_ref *t;
	const struct smpol_rebalance_opts *o;
	struct smpol_rebalance_result *r;
	struct smpol_movement *mv;
	const struct smpol_region *regions;
	int nregions;
	unsigned batch;
	uintptr_t pagesize;
	void **addrs, **maddrs;
	int *status, *mnodes, *mstatus;
	unsigned nmove;
	uint64_t *counts;              /* WALK_COUNT fills this */
	int pagemap_fd;                /* for PAGEMAP_SCAN, -1 = walk every page of a region */
	bool closing;                  /* the closing count runs even after a stop */
	struct timespec t0;
	char *err;
	size_t errlen;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Sleep until the bytes moved so far fit the rate; a signal cuts the sleep short. */
static void throttle(struct walk *w)
{
	double due, now;
	struct timespec ts;

	if (w->o->rate_mb_s <= 0)
		return;
	due = (double)w->r->moved * (double)w->pagesize / (w->o->rate_mb_s * 1048576.0);
	now = since(&w->t0);
	if (due <= now)
		return;
	ts.tv_sec = (time_t)(due - now);
	ts.tv_nsec = (long)((due - now - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* Between batches: 1 = stop walking (interrupted or exited), 0 = go on. */
static int between_batches(struct walk *w)
{
	if (!w->closing && w->o->stop && *w->o->stop) {
		w->r->interrupted = true;
		return 1;
	}
	if (smpol_task_check(w->t, NULL, 0) < 0) {
		w->r->exited = true;
		return 1;
	}
	return 0;
}

/* Did a failed call fail because the task exited? An exiting task answers ESRCH,
 * or EINVAL once its address space is gone (a zombie). */
static bool gone(const struct walk *w, int rc)
{
	return rc == -ESRCH || smpol_task_exited_within(w->t, 200);
}

static int flush_moves(struct walk *w)
{
	int rc;

	if (!w->nmove)
		return 0;
	rc = smpol_pages_move(w->t->pid, w->maddrs, w->mnodes, w->nmove, w->mstatus, w->err, w->errlen);
	if (rc < 0 && gone(w, rc)) {
		w->r->exited = true;
		w->nmove = 0;
		return 1;
	}
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < w->nmove; i++) {
		int s = w->mstatus[i];

		if (s == w->mnodes[i])
			w->r->moved++;
		else if (s == -EBUSY)
			w->r->busy++;
		else if (s == -EACCES)
			w->r->shared++;
		else if (s == -ENOMEM)
			w->r->nomem++;
		else if (s == -EFAULT || s == -ENOENT)
			w->r->vanished++;
		else
			w->r->other++;
	}
	w->nmove = 0;
	throttle(w);
	return between_batches(w);
}

/* Handle one queried batch; 1 = stop walking, <0 = error. */
static int take_batch(struct walk *w, enum walk_kind kind, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int node = w->status[i], to;

		if (kind == WALK_COUNT) {
			if (node >= 0 && node < SMPOL_MAX_NODES)
				w->counts[node]++;
			continue;
		}
		to = smpol_movement_next(w->mv, node < SMPOL_MAX_NODES ? node : -1);
		if (to < 0)
			continue;
		w->r->planned++;
		if (w->o->dry_run)
			continue;
		w->maddrs[w->nmove] = w->addrs[i];
		w->mnodes[w->nmove++] = to;
		if (w->nmove == w->batch) {
			int rc = flush_moves(w);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Where the walk is: region g, the run [a, run_end) being walked, and the runs of
 * present pages the last scan found in the region. */
struct cursor {
	int g;
	uintptr_t a, run_end, scan_next;
	struct smpol_region runs[64];
	int nruns, irun;
};

/* The next page address in address order, or 0 when every region is done. */
static uintptr_t next_page(struct walk *w, struct cursor *c)
{
	while (c->a >= c->run_end) {
		const struct smpol_region *r;
		uintptr_t walk_end;

		if (c->irun < c->nruns) {
			c->a = c->runs[c->irun].start;
			c->run_end = c->runs[c->irun++].end;
			continue;
		}
		if (c->g >= w->nregions)
			return 0;
		r = &w->regions[c->g];
		if (w->pagemap_fd >= 0 && c->scan_next < r->end) {
			int rc = smpol_pages_present(w->pagemap_fd, c->scan_next, r->end, c->runs, 64, &c->nruns,
						    &walk_end);

			if (rc == 0 && walk_end > c->scan_next) {
				c->irun = 0;
				c->scan_next = walk_end;
				continue;
			}
			if (rc == 0) {
				c->scan_next = r->end;
				continue;
			}
			/* No PAGEMAP_SCAN here (or it failed): walk every page from now on. */
			close(w->pagemap_fd);
			w->pagemap_fd = -1;
			c->a = c->scan_next;
			c->run_end = r->end;
			c->scan_next = r->end;
			continue;
		}
		if (w->pagemap_fd < 0 && c->scan_next < r->end) {
			c->a = c->scan_next;
			c->run_end = r->end;
			c->scan_next = r->end;
			continue;
		}
		if (++c->g >= w->nregions)
			return 0;
		c->scan_next = w->regions[c->g].start;
		c->nruns = c->irun = 0;
	}
	c->a += w->pagesize;
	return c->a - w->pagesize;
}

static int walk(struct walk *w, enum walk_kind kind)
{
	struct cursor c = { 0 };
	uintptr_t a = 1;

	if (w->nregions)
		c.scan_next = w->regions[0].start;
	while (a) {
		unsigned n = 0;
		int rc;

		while (n < w->batch && (a = next_page(w, &c)))
			w->addrs[n++] = (void *)a;
		if (!n)
			break;
		rc = smpol_pages_query(w->t->pid, w->addrs, n, w->status, w->err, w->errlen);
		if (rc < 0 && gone(w, rc)) {
			w->r->exited = true;
			return 1;
		}
		if (rc < 0)
			return rc;
		rc = take_batch(w, kind, n);
		if (rc)
			return rc;
		if (between_batches(w)) {
			/* Pages already chosen still move: the batch is finished, not dropped. */
			if (kind == WALK_MOVE && !w->r->exited)
				rc = flush_moves(w);
			return rc < 0 ? rc : 1;
		}
	}
	return kind == WALK_MOVE ? flush_moves(w) : 0;
}

static int count_pages(struct walk *w, uint64_t *counts)
{
	memset(counts, 0, SMPOL_MAX_NODES * sizeof(*counts));
	w->counts = counts;
	return walk(w, WALK_COUNT);
}

static int top_node(const struct smpol_rebalance_result *r, const unsigned *weight)
{
	int top = -1;

	for (int n = 0; n < SMPOL_MAX_NODES; n++)
		if (weight[n] || r->before[n] || r->after[n])
			top = n;
	return top;
}

/* migrate_pages moves whole nodes: empty each node outside the plan into the plan
 * node that is furthest below its target. */
static int migrate_outside(struct walk *w)
{
	struct smpol_rebalance_result *r = w->r;

	for (int n = 0; n <= w->mv->max_node; n++) {
		struct smpol_bitmap from, to;
		int best = -1;
		long left = 0;
		int rc;

		if (w->o->weight[n] || !r->before[n])
			continue;
		for (int d = 0; d <= w->mv->max_node; d++)
			if (w->mv->deficit[d] && (best < 0 || w->mv->deficit[d] > w->mv->deficit[best]))
				best = d;
		if (best < 0)
			break;
		r->planned += r->before[n];
		if (w->o->dry_run)
			continue;
		smpol_bitmap_clear(&from);
		smpol_bitmap_clear(&to);
		smpol_bitmap_set(&from, n);
		smpol_bitmap_set(&to, best);
		rc = smpol_pages_migrate(w->t->pid, &from, &to, &left, w->err, w->errlen);
		if (rc < 0 && gone(w, rc)) {
			r->exited = true;
			return 1;
		}
		if (rc < 0)
			return rc;
		r->other += (uint64_t)left;
		if (between_batches(w))
			return 1;
	}
	return 0;
}

/* Count, plan and move the pages of w->regions as one whole into w->r, then count
 * again (the closing count: what the task really looks like now). */
static int balance(struct walk *w)
{
	struct smpol_rebalance_result *r = w->r;
	int rc;

	rc = count_pages(w, r->before);
	if (rc)
		return rc;
	for (int n = 0; n < SMPOL_MAX_NODES; n++)
		r->pages += r->before[n];
	r->max_node = top_node(r, w->o->weight);
	if (r->max_node < 0)
		return smpol_fail(w->err, w->errlen, EINVAL, "the target plan has no node with a weight");
	rc = smpol_movement_init(w->mv, r->before, r->max_node, w->o->weight, w->err, w->errlen);
	if (rc < 0)
		return rc;
	memcpy(r->target, w->mv->target, ((size_t)r->max_node + 1) * sizeof(*r->target));
	r->minimum = w->mv->minimum;
	/* the backend's limit is said whether or not this task needed a move */
	if (w->o->backend == SMPOL_BACKEND_MIGRATE_PAGES)
		snprintf(r->note, sizeof(r->note), "migrate_pages moves whole nodes: only nodes outside the plan "
			 "are emptied, the plan's own nodes are not rebalanced");
	if (r->minimum * 1000 <= r->pages * w->o->slack_permille) {
		r->balanced++;
		rc = 0;
	} else if (w->o->backend == SMPOL_BACKEND_MIGRATE_PAGES) {
		rc = migrate_outside(w);
	} else {
		rc = walk(w, WALK_MOVE);
	}
	smpol_movement_free(w->mv);
	if (rc < 0 || r->exited)
		return rc;
	w->closing = true;
	if (w->o->dry_run || r->moved == 0 || count_pages(w, r->after) != 0)
		memcpy(r->after, r->before, sizeof(r->after));
	w->closing = false;
	return rc;
}

/* Add one region's result into the task's. */
static void add_result(struct smpol_rebalance_result *sum, const struct smpol_rebalance_result *part)
{
	for (int n = 0; n <= part->max_node; n++) {
		sum->before[n] += part->before[n];
		sum->target[n] += part->target[n];
		sum->after[n] += part->after[n];
	}
	if (part->max_node > sum->max_node)
		sum->max_node = part->max_node;
	sum->pages += part->pages;
	sum->minimum += part->minimum;
	sum->planned += part->planned;
	sum->moved += part->moved;
	sum->busy += part->busy;
	sum->shared += part->shared;
	sum->nomem += part->nomem;
	sum->vanished += part->vanished;
	sum->other += part->other;
	sum->balanced += part->balanced;
	sum->interrupted |= part->interrupted;
	sum->exited |= part->exited;
	if (part->note[0])
		snprintf(sum->note, sizeof(sum->note), "%s", part->note);
}

/* The mappings at least min_region long (all when it is 0), in place. */
static int large_only(struct smpol_region *regions, int n, uint64_t min_region)
{
	int kept = 0;

	for (int i = 0; i < n; i++)
		if (regions[i].end - regions[i].start >= min_region)
			regions[kept++] = regions[i];
	return kept;
}

/*
 * Set the policy of the task's mappings (touched or not). A mapping the task unmaps
 * meanwhile fails the call with EFAULT (the ones before it have the policy): read the
 * mappings again and set it once more, as it is the same policy.
 */
static int set_policies(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			struct smpol_rebalance_result *r, char *err, size_t errlen)
{
	int base = o->pmbind_mode & ~(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES), rc = -EFAULT;

	/* never reset a task's memory to the default by a caller's omission */
	if (base != MPOL_WEIGHTED_INTERLEAVE && base != MPOL_INTERLEAVE)
		return smpol_fail(err, errlen, EINVAL, "process_mbind: policy mode %d is not an interleave",
				 o->pmbind_mode);
	for (int attempt = 0; attempt < 2 && rc == -EFAULT; attempt++) {
		struct smpol_region *all = NULL;
		int n = 0;

		rc = smpol_pages_regions(t->pid, false, &all, &n, err, errlen);
		if (rc == 0) {
			n = large_only(all, n, o->min_region);
			rc = smpol_pmbind_apply(o->pmbind_nr, t->pidfd, all, n, o->pmbind_mode, o->pmbind_mask,
					       err, errlen);
			r->policies = rc == 0 ? n : 0;
		}
		free(all);
	}
	return rc;
}

static int run(struct walk *w, struct smpol_region *regions, int nregions)
{
	struct smpol_rebalance_result *total = w->r, part;
	int rc = 0;

	if (!w->o->min_region) {
		w->regions = regions;
		w->nregions = nregions;
		return balance(w);
	}
	/* region-aware: each large mapping balanced on its own */
	for (int i = 0; i < nregions && rc == 0 && !total->exited && !total->interrupted; i++) {
		memset(&part, 0, sizeof(part));
		part.max_node = -1;
		w->r = &part;
		w->regions = &regions[i];
		w->nregions = 1;
		rc = balance(w);
		add_result(total, &part);
	}
	w->r = total;
	return rc;
}

/* Walk `regions` (already chosen) of a pinned, checked task; see smpol_rebalance_task. */
static int rebalance_regions(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			     struct smpol_region *regions, int nregions, struct smpol_rebalance_result *r,
			     const struct timespec *t0, char *err, size_t errlen)
{
	struct walk w = { .t = t, .o = o, .r = r, .err = err, .errlen = errlen, .pagemap_fd = -1, .t0 = *t0 };
	char path[64];
	int rc;

	r->regions = nregions;
	w.batch = o->batch ? o->batch : SMPOL_REBALANCE_BATCH;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)t->pid);
	w.pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	w.pagesize = (uintptr_t)sysconf(_SC_PAGESIZE);
	w.mv = calloc(1, sizeof(*w.mv));
	w.addrs = calloc(w.batch, sizeof(void *));
	w.maddrs = calloc(w.batch, sizeof(void *));
	w.status = calloc(w.batch, sizeof(int));
	w.mnodes = calloc(w.batch, sizeof(int));
	w.mstatus = calloc(w.batch, sizeof(int));
	if (!w.mv || !w.addrs || !w.maddrs || !w.status || !w.mnodes || !w.mstatus)
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory for a batch of %u pages", w.batch);
	else
		rc = run(&w, regions, nregions);
	if (rc > 0)
		rc = 0;
	r->seconds = since(&w.t0);
	free(w.mv);
	free(w.addrs);
	free(w.maddrs);
	free(w.status);
	free(w.mnodes);
	free(w.mstatus);
	if (w.pagemap_fd >= 0)
		close(w.pagemap_fd);
	return rc;
}

int smpol_rebalance_task(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			struct smpol_rebalance_result *r, char *err, size_t errlen)
{
	struct smpol_region *regions = NULL;
	struct timespec t0;
	int nregions = 0, rc;

	memset(r, 0, sizeof(*r));
	r->max_node = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = smpol_task_check(t, err, errlen);
	/* the policy first: pages faulted while the others move already follow it */
	if (rc == 0 && o->backend == SMPOL_BACKEND_PROCESS_MBIND && !o->dry_run)
		rc = set_policies(t, o, r, err, errlen);
	if (rc == 0)
		rc = smpol_pages_regions(t->pid, true, &regions, &nregions, err, errlen);
	if (smpol_task_gone(t, rc)) {
		free(regions);
		r->exited = true;
		return 0;
	}
	if (rc == 0)
		rc = rebalance_regions(t, o, regions, large_only(regions, nregions, o->min_region), r, &t0, err, errlen);
	free(regions);
	return rc;
}

int smpol_rebalance_some(const struct smpol_task_ref *t, const struct smpol_rebalance_opts *o,
			const struct smpol_region *regions, int nregions, struct smpol_rebalance_result *r,
			char *err, size_t errlen)
{
	struct smpol_region *copy;
	struct timespec t0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->max_node = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = smpol_task_check(t, err, errlen);
	if (smpol_task_gone(t, rc)) {
		r->exited = true;
		return 0;
	}
	if (rc < 0 || nregions <= 0)
		return rc;
	copy = malloc((size_t)nregions * sizeof(*copy));
	if (!copy)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for %d mappings", nregions);
	memcpy(copy, regions, (size_t)nregions * sizeof(*copy));
	rc = rebalance_regions(t, o, copy, nregions, r, &t0, err, errlen);
	free(copy);
	return rc;
}

uint64_t smpol_rebalance_not_moved(const struct smpol_rebalance_result *r)
{
	return r->busy + r->shared + r->nomem + r->vanished + r->other;
}
