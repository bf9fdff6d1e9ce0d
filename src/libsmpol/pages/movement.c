/* movement.c - the minimal-move planner (see movement.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movement.h"

/* Every target is the floor or, where the exact share has a fraction, the ceiling of
 * the exact share, so |target - exact| < 1. The pages left after the floors go first
 * to nodes that already hold more than their floor (each such page is one page less
 * to move), then by largest remainder, lowest node on ties. */
static void apportion(struct smpol_movement *mv, const unsigned *weight, uint64_t wsum, uint64_t *rem)
{
	uint64_t left = mv->total;

	for (int n = 0; n <= mv->max_node; n++) {
		unsigned __int128 exact = (unsigned __int128)mv->total * weight[n];

		mv->target[n] = (uint64_t)(exact / wsum);
		rem[n] = (uint64_t)(exact % wsum);
		left -= mv->target[n];
	}
	while (left > 0) {
		int best = -1;

		for (int n = 0; n <= mv->max_node; n++) {
			bool over = mv->count[n] > mv->target[n];

			if (!rem[n])
				continue;
			if (best < 0 || over > (mv->count[best] > mv->target[best]) ||
			    (over == (mv->count[best] > mv->target[best]) && rem[n] > rem[best]))
				best = n;
		}
		mv->target[best]++;
		rem[best] = 0;
		left--;
	}
}

int smpol_movement_init(struct smpol_movement *mv, const uint64_t *count, int max_node,
		       const unsigned *weight, char *err, size_t errlen)
{
	/* count, target, surplus, deficit, taken, given, acc, seen, and remainders */
	enum { ARRAYS = 9 };
	uint64_t wsum = 0, *block;
	size_t len = (size_t)max_node + 1;

	memset(mv, 0, sizeof(*mv));
	if (max_node < 0 || max_node >= SMPOL_MAX_NODES)
		return smpol_fail(err, errlen, EINVAL, "node range 0-%d is outside 0-%d", max_node,
				 SMPOL_MAX_NODES - 1);
	block = calloc(ARRAYS * len, sizeof(uint64_t));
	mv->dest = calloc(len, sizeof(int));
	if (!block || !mv->dest) {
		free(block);
		free(mv->dest);
		mv->dest = NULL;
		return smpol_fail(err, errlen, ENOMEM, "out of memory planning %zu nodes", len);
	}
	mv->count = block;
	mv->target = block + len;
	mv->surplus = block + 2 * len;
	mv->deficit = block + 3 * len;
	mv->taken = block + 4 * len;
	mv->given = block + 5 * len;
	mv->acc = block + 6 * len;
	mv->seen = block + 7 * len;
	mv->max_node = max_node;
	for (int n = 0; n <= max_node; n++) {
		wsum += weight[n];
		mv->count[n] = count[n];
		mv->total += count[n];
	}
	if (wsum == 0) {
		smpol_movement_free(mv);
		return smpol_fail(err, errlen, EINVAL, "the target plan has no node with a weight");
	}
	apportion(mv, weight, wsum, block + 8 * len);
	for (int n = 0; n <= max_node; n++) {
		if (mv->count[n] > mv->target[n]) {
			mv->surplus[n] = mv->count[n] - mv->target[n];
			mv->acc[n] = mv->count[n] / 2;
			mv->minimum += mv->surplus[n];
		} else if (mv->count[n] < mv->target[n]) {
			mv->deficit[n] = mv->target[n] - mv->count[n];
			mv->dest[mv->ndest++] = n;
		}
	}
	return 0;
}

void smpol_movement_free(struct smpol_movement *mv)
{
	free(mv->count);       /* the block every array lives in */
	free(mv->dest);
	memset(mv, 0, sizeof(*mv));
	mv->max_node = -1;
}

/* Should this page of a surplus node be taken? Bresenham over the node's pages, started
 * half a step in: take when (k*s + c/2)/c crosses an integer, so s of its c pages go,
 * evenly spaced and centred. Centred, the last take comes about c/(2s) pages before the
 * node's last page, so a page the running task freed or that moved by itself between
 * the count and the walk does not cost the node a move (uncentred, the take fell on
 * the very last page). */
static int take_page(struct smpol_movement *mv, int node)
{
	uint64_t c = mv->count[node], s = mv->surplus[node];

	if (mv->seen[node]++ >= c || mv->taken[node] >= s)
		return 0;
	mv->acc[node] += s;
	if (mv->acc[node] < c)
		return 0;
	mv->acc[node] -= c;
	return 1;
}

/* The destination that is furthest behind its even spacing: smallest
 * (given + 1) / deficit, lowest node on ties; -1 when every deficit is filled. */
static int pick_dest(const struct smpol_movement *mv)
{
	int best = -1;

	for (int i = 0; i < mv->ndest; i++) {
		int n = mv->dest[i];

		if (mv->given[n] >= mv->deficit[n])
			continue;
		if (best < 0 || (unsigned __int128)(mv->given[n] + 1) * mv->deficit[best] <
					(unsigned __int128)(mv->given[best] + 1) * mv->deficit[n])
			best = n;
	}
	return best;
}

int smpol_movement_next(struct smpol_movement *mv, int node)
{
	int to;

	if (node < 0 || node > mv->max_node || !mv->surplus[node])
		return -1;
	if (!take_page(mv, node))
		return -1;
	to = pick_dest(mv);
	if (to < 0)
		return -1;
	mv->taken[node]++;
	mv->given[to]++;
	mv->chosen++;
	return to;
}

uint64_t smpol_movement_naive(const int *nodes, size_t n, const unsigned *weight, int max_node)
{
	uint64_t moved = 0, wsum = 0;
	int cur = -1;
	unsigned left = 0;

	for (int i = 0; i <= max_node; i++)
		wsum += weight[i];
	if (max_node < 0 || wsum == 0)
		return 0;

	for (size_t i = 0; i < n; i++) {
		if (nodes[i] < 0)
			continue;
		while (left == 0) {
			cur = cur >= max_node ? 0 : cur + 1;
			left = weight[cur];
		}
		if (nodes[i] != cur)
			moved++;
		left--;
	}
	return moved;
}
