/* movement.h - the minimal-move planner: which pages of a task move, and where to.
 *
 * Given how many pages of a task sit on each node now and the plan's weights, the
 * target per node is the weighted share of the same total (largest remainder, so
 * every target is within one page of the exact share). Only the surplus of nodes
 * above their target moves, and only to nodes below theirs, so the pages moved are
 * exactly the minimum: the sum of the positive surpluses.
 *
 * The planner streams: the caller walks the task's pages in address order and asks
 * smpol_movement_next() for each. The pages taken from a node are spread evenly over
 * that node's pages (Bresenham), and each destination receives its pages spread
 * evenly over the taken ones, so an interleaved layout stays interleaved. It needs
 * O(nodes) memory whatever the task's size (its arrays are sized by the node range
 * it is given, not by the largest node id Linux allows), and it tolerates a layout that changed
 * since the count: it never takes more than a node's surplus nor gives more than a
 * node's deficit. Pure: no I/O.
 */
#ifndef SMPOL_MOVEMENT_H
#define SMPOL_MOVEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "bitmap.h"

/* Every array has max_node + 1 entries, indexed by node id. */
struct smpol_movement {
	int max_node;                        /* highest node with pages or weight */
	uint64_t total;                      /* pages counted */
	uint64_t minimum;                    /* sum of positive surpluses */
	uint64_t chosen;                     /* pages given a new node so far */
	uint64_t *count;                     /* pages on each node at the count */
	uint64_t *target;                    /* pages each node should hold */
	uint64_t *surplus;                   /* count - target where positive */
	uint64_t *deficit;                   /* target - count where positive */
	uint64_t *taken;                     /* pages taken from the node so far */
	uint64_t *given;                     /* pages given to the node so far */
	uint64_t *acc;                       /* Bresenham accumulator per source node */
	uint64_t *seen;                      /* pages of the node walked so far */
	int ndest;                           /* nodes with a deficit */
	int *dest;
};

/*
 * smpol_movement_init - targets, surpluses and deficits from count[0..max_node] (pages
 * per node now) and weight[] indexed by node (0 = not in the plan; at least one > 0).
 * Returns 0 (free it with smpol_movement_free), or -EINVAL naming the problem (no
 * weights, max_node out of range), or -ENOMEM.
 */
int smpol_movement_init(struct smpol_movement *mv, const uint64_t *count, int max_node,
		       const unsigned *weight, char *err, size_t errlen);

/* Free what init allocated (safe on a zeroed or freed movement). */
void smpol_movement_free(struct smpol_movement *mv);

/*
 * smpol_movement_next - the next page in address order sits on `node` (negative: not
 * present, ignored). Returns the node it should move to, or -1 to leave it.
 */
int smpol_movement_next(struct smpol_movement *mv, int node);

/*
 * smpol_movement_naive - pages a fresh re-layout of the same pages would move: the
 * pages whose node differs from the weighted round-robin sequence the kernel
 * uses (each node takes weight[n] consecutive pages in turn), given the nodes of
 * `n` pages in address order (negative entries are skipped). For comparison only.
 */
uint64_t smpol_movement_naive(const int *nodes, size_t n, const unsigned *weight, int max_node);

#endif
