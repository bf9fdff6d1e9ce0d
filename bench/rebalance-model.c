/* rebalance-model - what a rebalance moves, computed on model layouts (no kernel):
 * the minimal-move planner against a naive re-layout (every page to where a fresh
 * weighted interleave would put it) and against migrate_pages (whole nodes only),
 * with the planner's own speed. Any host can run it; bench/rebalance adds the real
 * kernel's numbers where the machine has several NUMA nodes.
 *   rebalance-model [PAGES]      (default 1048576 pages = 4 GiB of base pages)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "movement.h"

struct scenario {
	const char *name;
	unsigned from[4];          /* weights of the layout the task has now */
	unsigned to[4];            /* weights of the new plan */
	int first_touch;           /* the layout is all on node 0, not interleaved */
};

static const struct scenario scenarios[] = {
	{ "hot-add: 0,2 at 7:2 -> 0,2,3 at 14:4:3", { 7, 0, 2, 0 }, { 14, 0, 4, 3 }, 0 },
	{ "hot-add: 0,1 at 1:1 -> 0-3 at 1:1:1:1", { 1, 1, 0, 0 }, { 1, 1, 1, 1 }, 0 },
	{ "weights change: 0,2 at 3:1 -> 2:1", { 3, 0, 1, 0 }, { 2, 0, 1, 0 }, 0 },
	{ "first touch on 0 -> 0,2 at 7:2", { 1, 0, 0, 0 }, { 7, 0, 2, 0 }, 1 },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The kernel's weighted interleave: each node takes weight[n] pages in turn. */
static void interleave(int *node, size_t n, const unsigned *w)
{
	int cur = 0;
	unsigned left = w[0];

	for (size_t i = 0; i < n; i++) {
		while (!left) {
			cur = (cur + 1) % 4;
			left = w[cur];
		}
		node[i] = cur;
		left--;
	}
}

/* migrate_pages moves every page of a node: the cheapest whole-node move that
 * gives every new node something is emptying the smallest over-target node into
 * it. Returns its volume and sets *err to the largest resulting miss (pages). */
static uint64_t migrate_volume(const struct smpol_movement *mv, uint64_t *err)
{
	uint64_t after[4], vol = 0, miss = 0;
	int src = -1, dst = -1;

	memcpy(after, mv->count, sizeof(after));
	for (int n = 0; n < 4; n++) {
		if (mv->surplus[n] && (src < 0 || mv->count[n] < mv->count[src]))
			src = n;
		if (mv->deficit[n] && (dst < 0 || mv->deficit[n] > mv->deficit[dst]))
			dst = n;
	}
	if (src >= 0 && dst >= 0) {
		vol = after[src];
		after[dst] += after[src];
		after[src] = 0;
	}
	for (int n = 0; n < 4; n++) {
		uint64_t d = after[n] > mv->target[n] ? after[n] - mv->target[n] : mv->target[n] - after[n];

		if (d > miss)
			miss = d;
	}
	*err = miss;
	return vol;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576;
	int *node = malloc(n * sizeof(int));
	struct smpol_movement *mv = malloc(sizeof(*mv));

	if (!node || !mv || n == 0) {
		fprintf(stderr, "rebalance-model: give a page count above 0 (and enough memory)\n");
		return 1;
	}
	printf("%-42s %10s %10s %10s %10s %14s %12s\n", "scenario", "pages", "minimum", "planner",
	       "naive", "migrate_pages", "planner");
	printf("%-42s %10s %10s %10s %10s %14s %12s\n", "", "", "", "moves", "re-layout", "(miss, pages)",
	       "Mpages/s");
	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		uint64_t count[4] = { 0 }, naive, vol, miss;
		unsigned weight[4];
		char err[SMPOL_ERRLEN];
		double t0, t1;

		if (sc->first_touch)
			memset(node, 0, n * sizeof(int));
		else
			interleave(node, n, sc->from);
		for (size_t i = 0; i < n; i++)
			count[node[i]]++;
		memcpy(weight, sc->to, sizeof(weight));
		naive = smpol_movement_naive(node, n, weight, 3);
		t0 = now();
		if (smpol_movement_init(mv, count, 3, weight, err, sizeof(err)) < 0) {
			fprintf(stderr, "rebalance-model: %s\n", err);
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			smpol_movement_next(mv, node[i]);
		t1 = now();
		vol = migrate_volume(mv, &miss);
		printf("%-42s %10zu %10llu %10llu %10llu %7llu (%4llu) %12.1f\n", sc->name, n,
		       (unsigned long long)mv->minimum, (unsigned long long)mv->chosen, (unsigned long long)naive,
		       (unsigned long long)vol, (unsigned long long)miss, (double)n / (t1 - t0) / 1e6);
		smpol_movement_free(mv);
	}
	printf("\nplanner moves == minimum (the sum of the surpluses) in every row; a naive re-layout\n"
	       "moves what a fresh interleave would place elsewhere; migrate_pages can only move\n"
	       "whole nodes, so it misses the target by the pages in the miss column.\n");
	free(node);
	free(mv);
	return 0;
}
