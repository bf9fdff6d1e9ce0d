/* test_movement.c - the minimal-move planner on random and hand-made layouts. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "movement.h"

/* A small deterministic generator, so a failure can be replayed from its seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct layout {
	int max_node;
	size_t n;
	int *node;                    /* per page, negative = not present */
	unsigned weight[SMPOL_MAX_NODES];
	uint64_t count[SMPOL_MAX_NODES];
};

static void count_pages(struct layout *l)
{
	memset(l->count, 0, sizeof(l->count));
	for (size_t i = 0; i < l->n; i++)
		if (l->node[i] >= 0)
			l->count[l->node[i]]++;
}

/* The fewest moves any layout within one page of every exact share can take:
 * try every floor/ceiling choice that sums to the total (few nodes, so 2^n is cheap). */
static uint64_t brute_minimum(const struct layout *l, uint64_t total)
{
	uint64_t wsum = 0, best = UINT64_MAX;
	int nn = l->max_node + 1;

	for (int i = 0; i < nn; i++)
		wsum += l->weight[i];
	for (unsigned mask = 0; mask < (1u << nn); mask++) {
		uint64_t sum = 0, moves = 0;
		int ok = 1;

		for (int i = 0; i < nn && ok; i++) {
			uint64_t fl = total * l->weight[i] / wsum;
			int frac = (total * l->weight[i]) % wsum != 0;
			uint64_t t = fl;

			if (mask & (1u << i)) {
				if (!frac)
					ok = 0;
				t = fl + 1;
			}
			sum += t;
			if (l->count[i] > t)
				moves += l->count[i] - t;
		}
		if (ok && sum == total && moves < best)
			best = moves;
	}
	return best;
}

/* Run the planner over the layout, apply its moves, check every promise. */
static void check_layout(struct layout *l, uint64_t seed)
{
	struct smpol_movement *mv = malloc(sizeof(*mv));
	char err[SMPOL_ERRLEN];
	uint64_t total = 0, wsum = 0, surplus = 0, after[SMPOL_MAX_NODES] = { 0 };

	assert_non_null(mv);
	count_pages(l);
	for (int i = 0; i <= l->max_node; i++) {
		total += l->count[i];
		wsum += l->weight[i];
	}
	assert_int_equal(smpol_movement_init(mv, l->count, l->max_node, l->weight, err, sizeof(err)), 0);
	for (size_t i = 0; i < l->n; i++) {
		int to = smpol_movement_next(mv, l->node[i]);

		if (to >= 0) {
			assert_true(l->weight[to] > 0);
			assert_int_not_equal(to, l->node[i]);
			l->node[i] = to;
		}
	}
	count_pages(l);
	for (int i = 0; i <= l->max_node; i++) {
		double exact = (double)total * l->weight[i] / (double)wsum;

		after[i] = l->count[i];
		if (fabs((double)after[i] - exact) >= 1.0)
			fail_msg("seed %llu: node %d holds %llu pages, exact share %.3f",
				 (unsigned long long)seed, i, (unsigned long long)after[i], exact);
		assert_int_equal(after[i], mv->target[i]);
		if (mv->count[i] > mv->target[i])
			surplus += mv->count[i] - mv->target[i];
	}
	assert_int_equal(mv->minimum, surplus);
	if (mv->chosen != mv->minimum)
		fail_msg("seed %llu: moved %llu, minimum %llu", (unsigned long long)seed,
			 (unsigned long long)mv->chosen, (unsigned long long)mv->minimum);
	/* Recount with the original layout to compare with the best possible rounding. */
	memcpy(l->count, mv->count, ((size_t)l->max_node + 1) * sizeof(*mv->count));
	if (l->max_node < 12)
		assert_int_equal(mv->minimum, brute_minimum(l, total));
	smpol_movement_free(mv);
	free(mv);
}

static void random_layout(struct layout *l, uint64_t *s)
{
	memset(l->weight, 0, sizeof(l->weight));
	l->max_node = (int)(rnd(s) % 9);
	do {
		for (int i = 0; i <= l->max_node; i++)
			l->weight[i] = rnd(s) % 3 ? (unsigned)(rnd(s) % 32) : 0;
	} while (!l->weight[rnd(s) % (l->max_node + 1)] && l->max_node > 0);
	if (l->max_node == 0 || !l->weight[0])
		l->weight[rnd(s) % (l->max_node + 1)] = 1 + (unsigned)(rnd(s) % 7);
	l->n = (size_t)(rnd(s) % 3000);
	l->node = realloc(l->node, (l->n + 1) * sizeof(int));
	for (size_t i = 0; i < l->n; i++) {
		uint64_t r = rnd(s) % 100;

		/* Some pages missing, some runs on one node, the rest anywhere. */
		if (r < 5)
			l->node[i] = -ENOENT;
		else if (r < 30 && i > 0)
			l->node[i] = l->node[i - 1];
		else
			l->node[i] = (int)(rnd(s) % (l->max_node + 1));
	}
}

static void test_random_layouts(void **state)
{
	struct layout l = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 3000; seed++) {
		uint64_t s = seed * 0x9E3779B97F4A7C15ull;

		random_layout(&l, &s);
		check_layout(&l, seed);
	}
	free(l.node);
}

/* Interleaved 0,2 at 1:1, new plan 1:1:1 over 0,2,3: a third of each node moves,
 * and the moved pages are spread so that no long run lands on node 3. */
static void test_interleave_stays_interleaved(void **state)
{
	struct layout l = { 0 };
	size_t run = 0, longest = 0;

	(void)state;
	l.max_node = 3;
	l.n = 6000;
	l.node = malloc(l.n * sizeof(int));
	assert_non_null(l.node);
	for (size_t i = 0; i < l.n; i++)
		l.node[i] = i % 2 ? 2 : 0;
	l.weight[0] = l.weight[2] = l.weight[3] = 1;
	check_layout(&l, 0);
	assert_int_equal(l.count[0], 3000);
	for (size_t i = 0; i < l.n; i++) {
		run = l.node[i] == 3 ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	assert_true(longest <= 2);
	free(l.node);
}

/* Already balanced: nothing moves. */
static void test_balanced_moves_nothing(void **state)
{
	struct smpol_movement mv;
	uint64_t count[3] = { 700, 0, 200 };
	unsigned weight[3] = { 7, 0, 2 };

	(void)state;
	assert_int_equal(smpol_movement_init(&mv, count, 2, weight, NULL, 0), 0);
	assert_int_equal(mv.minimum, 0);
	for (int i = 0; i < 900; i++)
		assert_int_equal(smpol_movement_next(&mv, i % 9 < 7 ? 0 : 2), -1);
	smpol_movement_free(&mv);
}

/* The layout grew after the count: the planner never exceeds a surplus or deficit. */
static void test_layout_changed_since_count(void **state)
{
	struct smpol_movement mv;
	uint64_t count[2] = { 10, 0 };
	unsigned weight[2] = { 1, 1 };
	int moved = 0;

	(void)state;
	assert_int_equal(smpol_movement_init(&mv, count, 1, weight, NULL, 0), 0);
	assert_int_equal(mv.minimum, 5);
	for (int i = 0; i < 100; i++)
		moved += smpol_movement_next(&mv, 0) == 1;
	assert_int_equal(moved, 5);
	assert_int_equal(smpol_movement_next(&mv, 1), -1);
	assert_int_equal(smpol_movement_next(&mv, -EFAULT), -1);
	assert_int_equal(smpol_movement_next(&mv, 7), -1);
	smpol_movement_free(&mv);
	smpol_movement_free(&mv);     /* twice is harmless */
}

/* A page of the surplus node gone between the count and the walk (the task freed it, or
 * it moved by itself): the whole surplus still moves, the takes being centred. */
static void test_page_lost_since_count(void **state)
{
	struct smpol_movement mv;
	uint64_t count[2] = { 3000, 0 };
	unsigned weight[2] = { 2, 1 };
	int moved = 0;

	(void)state;
	assert_int_equal(smpol_movement_init(&mv, count, 1, weight, NULL, 0), 0);
	assert_int_equal(mv.minimum, 1000);
	for (int i = 0; i < 3000; i++)
		moved += smpol_movement_next(&mv, i == 1500 ? -ENOENT : 0) == 1;
	assert_int_equal(moved, 1000);
	smpol_movement_free(&mv);
}

static void test_bad_input(void **state)
{
	struct smpol_movement mv;
	uint64_t count[2] = { 1, 1 };
	unsigned none[2] = { 0, 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_movement_init(&mv, count, 1, none, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no node with a weight"));
	assert_int_equal(smpol_movement_init(&mv, count, SMPOL_MAX_NODES, none, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_movement_init(&mv, count, -1, none, err, sizeof(err)), -EINVAL);
}

/* A fresh 1:1 re-layout of 0,0,2,2 moves two pages; of 0,2,0,2 none. */
static void test_naive_relayout(void **state)
{
	int a[4] = { 0, 0, 2, 2 }, b[5] = { 0, -ENOENT, 2, 0, 2 };
	unsigned w[3] = { 1, 0, 1 };

	(void)state;
	assert_int_equal(smpol_movement_naive(a, 4, w, 2), 2);
	assert_int_equal(smpol_movement_naive(b, 5, w, 2), 0);
	assert_int_equal(smpol_movement_naive(b, 5, (unsigned[3]){ 0, 0, 0 }, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_layouts),
		cmocka_unit_test(test_interleave_stays_interleaved),
		cmocka_unit_test(test_balanced_moves_nothing),
		cmocka_unit_test(test_layout_changed_since_count),
		cmocka_unit_test(test_page_lost_since_count),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_naive_relayout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
