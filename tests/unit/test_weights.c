/* test_weights.c - shares, D'Hondt weights, the kernel's auto weights, and properties
 * checked on random vectors. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "weights.h"

#define MAXN 8

/* Optimal weights for a bandwidth vector, default options. */
static void optimal_of(const double *bw, int n, unsigned *w, double *eff)
{
	struct smpol_weight_opts o = smpol_weight_opts_default();
	double share[MAXN];
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_shares_from_bandwidth(bw, NULL, 0, n, share, err, sizeof(err)), 0);
	assert_int_equal(smpol_weights_optimal(share, n, &o, w, eff, err, sizeof(err)), 0);
}

static void expect_weights(const unsigned *got, const unsigned *want, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static void check_optimal(const double *bw, int n, const unsigned *want, double scale)
{
	double scaled[MAXN], eff;
	unsigned w[MAXN];

	for (int i = 0; i < n; i++)
		scaled[i] = bw[i] * scale;
	optimal_of(scaled, n, w, &eff);
	expect_weights(w, want, n);
}

static void check_kernel(const uint32_t *bw, int n, const unsigned *want)
{
	unsigned w[MAXN];
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_weights_kernel(bw, n, w, err, sizeof(err)), 0);
	expect_weights(w, want, n);
}

/* The required cases, in several units: only the ratios may matter. */
static void test_required_optimal(void **state)
{
	static const double scales[] = { 1, 1000, 1e-3, 3.7 };

	(void)state;
	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
		check_optimal((double[]){ 224, 64 }, 2, (unsigned[]){ 7, 2 }, scales[s]);
		check_optimal((double[]){ 88, 11 }, 2, (unsigned[]){ 8, 1 }, scales[s]);
		check_optimal((double[]){ 89, 11 }, 2, (unsigned[]){ 8, 1 }, scales[s]);
		check_optimal((double[]){ 300, 300, 64, 64 }, 4, (unsigned[]){ 5, 5, 1, 1 }, scales[s]);
	}
}

static void test_required_kernel(void **state)
{
	(void)state;
	check_kernel((uint32_t[]){ 224, 64 }, 2, (unsigned[]){ 24, 7 });
	check_kernel((uint32_t[]){ 224000, 64000 }, 2, (unsigned[]){ 24, 7 });
	check_kernel((uint32_t[]){ 88, 11 }, 2, (unsigned[]){ 28, 3 });
	check_kernel((uint32_t[]){ 300, 300, 64, 64 }, 4, (unsigned[]){ 13, 13, 2, 2 });
	check_kernel((uint32_t[]){ 224, 224, 64 }, 3, (unsigned[]){ 7, 7, 2 });
	check_kernel((uint32_t[]){ 224, 224, 64, 64 }, 4, (unsigned[]){ 4, 4, 1, 1 });
}

/* Kernel corner cases: no bandwidth and shares below 1/32 get 1, one node reduces to 1,
 * and 32*bw wraps in 32 bits as it does in the kernel. */
static void test_kernel_edges(void **state)
{
	(void)state;
	check_kernel((uint32_t[]){ 0, 0 }, 2, (unsigned[]){ 1, 1 });
	check_kernel((uint32_t[]){ 500 }, 1, (unsigned[]){ 1 });
	check_kernel((uint32_t[]){ 1000, 0 }, 2, (unsigned[]){ 32, 1 });
	check_kernel((uint32_t[]){ 1000, 10 }, 2, (unsigned[]){ 31, 1 });
	/* exactly 1/32: the kernel's "sum < scaled" is false, so 1 */
	check_kernel((uint32_t[]){ 31, 1 }, 2, (unsigned[]){ 31, 1 });
	check_kernel((uint32_t[]){ 100, 100 }, 2, (unsigned[]){ 1, 1 });
	/* 32 * 2^27 wraps to 0 in u32: the kernel gives that node 1 */
	check_kernel((uint32_t[]){ 1u << 27, 1000 }, 2, (unsigned[]){ 1, 1 });
}

static void test_bad_input(void **state)
{
	struct smpol_weight_opts o = smpol_weight_opts_default();
	double share[2] = { 0.5, 0.5 }, bw[2] = { 1, -1 };
	unsigned w[2];
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_weights_optimal(share, 0, &o, w, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no nodes"));
	o.precision = 0;
	assert_int_equal(smpol_weights_optimal(share, 2, &o, w, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "precision 0"));
	o.precision = 1.01;
	assert_int_equal(smpol_weights_optimal(share, 2, &o, w, NULL, err, sizeof(err)), -EINVAL);
	o.precision = NAN;
	assert_int_equal(smpol_weights_optimal(share, 2, &o, w, NULL, err, sizeof(err)), -EINVAL);
	o = smpol_weight_opts_default();
	o.max_sum = 0;
	assert_int_equal(smpol_weights_optimal(share, 2, &o, w, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at least 1"));
	assert_int_equal(smpol_shares_from_bandwidth(bw, NULL, 0, 2, share, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "-1"));
	bw[1] = NAN;
	assert_int_equal(smpol_shares_from_bandwidth(bw, NULL, 0, 2, share, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_weights_kernel((uint32_t[]){ 1 }, 0, w, err, sizeof(err)), -EINVAL);
}

static void test_shares(void **state)
{
	double share[3];
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 0, 0, 0 }, NULL, 0, 3, share, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		assert_float_equal(share[i], 1.0 / 3, 1e-12);
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 3, 1, 0 }, NULL, 0, 3, share, err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.75, 1e-12);
	assert_float_equal(share[1], 0.25, 1e-12);
	assert_float_equal(share[2], 0, 1e-12);
}

/* Water-filling: bandwidth 3:1, a 100 KiB job, the fast node holds only 50 KiB. */
static void test_capacity(void **state)
{
	double share[3];
	char err[SMPOL_ERRLEN];

	(void)state;
	/* uncapped 75/25 -> capped 50/50 */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 3, 1 }, (uint64_t[]){ 50, 1000 }, 100, 2, share,
						    err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.5, 1e-12);
	assert_float_equal(share[1], 0.5, 1e-12);
	/* room everywhere: the cap changes nothing */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 3, 1 }, (uint64_t[]){ 1000, 1000 }, 100, 2, share,
						    err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.75, 1e-12);
	/* a cascade: 2:1:1 over 100, node0 holds 10, then the rest 45/45 fits node1 (50) */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 2, 1, 1 }, (uint64_t[]){ 10, 50, 1000 }, 100, 3,
						    share, err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.10, 1e-12);
	assert_float_equal(share[1], 0.45, 1e-12);
	assert_float_equal(share[2], 0.45, 1e-12);
	/* and when node1 then overflows too, it is capped and node2 takes the rest */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 2, 1, 1 }, (uint64_t[]){ 10, 30, 1000 }, 100, 3,
						    share, err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.10, 1e-12);
	assert_float_equal(share[1], 0.30, 1e-12);
	assert_float_equal(share[2], 0.60, 1e-12);
	/* only a node without bandwidth has room: it takes the rest */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 100, 0 }, (uint64_t[]){ 20, 1000 }, 100, 2, share,
						    err, sizeof(err)), 0);
	assert_float_equal(share[0], 0.2, 1e-12);
	assert_float_equal(share[1], 0.8, 1e-12);
	/* the job does not fit at all: shares by capacity, and -ENOSPC says so */
	assert_int_equal(smpol_shares_from_bandwidth((double[]){ 3, 1 }, (uint64_t[]){ 1024, 3072 }, 8192, 2,
						    share, err, sizeof(err)), -ENOSPC);
	assert_float_equal(share[0], 0.25, 1e-12);
	assert_float_equal(share[1], 0.75, 1e-12);
	assert_non_null(strstr(err, "8 MiB do not fit in the 4 MiB"));
}

static void test_optimal_shapes(void **state)
{
	struct smpol_weight_opts o = smpol_weight_opts_default();
	unsigned w[4];
	double eff;
	char err[SMPOL_ERRLEN];

	(void)state;
	/* one node: weight 1, perfect */
	assert_int_equal(smpol_weights_optimal((double[]){ 1 }, 1, &o, w, &eff, err, sizeof(err)), 0);
	assert_int_equal(w[0], 1);
	assert_float_equal(eff, 1, 1e-12);
	/* equal shares: 1:1 */
	assert_int_equal(smpol_weights_optimal((double[]){ 0.5, 0.5 }, 2, &o, w, &eff, err, sizeof(err)), 0);
	expect_weights(w, (unsigned[]){ 1, 1 }, 2);
	/* a node with 1% is left out at the default precision: eff 0.99 without it */
	assert_int_equal(smpol_weights_optimal((double[]){ 0.99, 0.01 }, 2, &o, w, &eff, err, sizeof(err)), 0);
	expect_weights(w, (unsigned[]){ 1, 0 }, 2);
	assert_float_equal(eff, 0.99, 1e-12);
	/* ... and kept when the precision asks for it */
	o.precision = 1;
	o.max_sum = 200;
	assert_int_equal(smpol_weights_optimal((double[]){ 0.99, 0.01 }, 2, &o, w, &eff, err, sizeof(err)), 0);
	expect_weights(w, (unsigned[]){ 99, 1 }, 2);
	assert_float_equal(eff, 1, 1e-9);
	/* precision out of reach (7:2 at sum 9 would be exact): the best sum tried, 4:1 */
	o.precision = 1;
	o.max_sum = 8;
	assert_int_equal(smpol_weights_optimal((double[]){ 224.0 / 288, 64.0 / 288 }, 2, &o, w, &eff, err,
					      sizeof(err)), 0);
	expect_weights(w, (unsigned[]){ 4, 1 }, 2);
	assert_float_equal(eff, 5 * (224.0 / 288) / 4, 1e-12);
	/* weights never pass 255, even when the sum allows it */
	o.max_sum = 1024;
	assert_int_equal(smpol_weights_optimal((double[]){ 0.999, 0.001 }, 2, &o, w, &eff, err, sizeof(err)), 0);
	assert_true(w[0] <= SMPOL_WEIGHT_MAX && w[1] <= SMPOL_WEIGHT_MAX);
	/* all shares 0: nothing to tell apart, equal weights */
	o = smpol_weight_opts_default();
	assert_int_equal(smpol_weights_optimal((double[]){ 0, 0, 0 }, 3, &o, w, &eff, err, sizeof(err)), 0);
	expect_weights(w, (unsigned[]){ 1, 1, 1 }, 3);
}

static void test_efficiency(void **state)
{
	(void)state;
	assert_float_equal(smpol_weights_efficiency((double[]){ 0.75, 0.25 }, (unsigned[]){ 3, 1 }, 2), 1, 1e-12);
	assert_float_equal(smpol_weights_efficiency((double[]){ 0.75, 0.25 }, (unsigned[]){ 1, 1 }, 2), 0.5, 1e-12);
	assert_float_equal(smpol_weights_efficiency((double[]){ 0.75, 0.25 }, (unsigned[]){ 1, 0 }, 2), 0.75, 1e-12);
	assert_float_equal(smpol_weights_efficiency((double[]){ 0.75, 0.25 }, (unsigned[]){ 0, 0 }, 2), 0, 0);
}

/*
 * Properties over random bandwidth vectors (2-8 nodes, 1-1000000 MB/s, fixed seed):
 * - optimal: sum <= max_sum, each weight <= 255, the reported efficiency is the one
 *   recomputed from the weights, and either it reaches the precision or no sum up to
 *   max_sum does better;
 * - kernel: every weight in 1..32, GCD 1;
 * - optimal vs kernel: D'Hondt gives the best efficiency of any apportionment of a
 *   given sum, so optimal's efficiency >= min(precision, kernel's) whenever the
 *   kernel's sum <= max_sum. optimal >= kernel does NOT hold in general: optimal
 *   stops at the smallest sum reaching the precision, where the kernel may land on
 *   a better one (counted below, and it must happen, or the claim would be vacuous).
 */
static void test_properties(void **state)
{
	struct smpol_weight_opts o = smpol_weight_opts_default();
	int kernel_better = 0;
	char err[SMPOL_ERRLEN];

	(void)state;
	srand(12345);
	for (int iter = 0; iter < 4000; iter++) {
		int n = 2 + rand() % (MAXN - 1);
		double bw[MAXN], share[MAXN], eff, keff;
		uint32_t kbw[MAXN];
		unsigned w[MAXN], kw[MAXN], sum = 0, ksum = 0, g = 0;

		o.precision = (iter % 4 == 0) ? 1.0 : 0.9 + 0.1 * rand() / RAND_MAX;
		o.max_sum = (unsigned)(n + rand() % 300);
		for (int i = 0; i < n; i++) {
			kbw[i] = 1 + (uint32_t)(rand() % (iter % 2 ? 1000000 : 1000));
			bw[i] = kbw[i];
		}
		assert_int_equal(smpol_shares_from_bandwidth(bw, NULL, 0, n, share, err, sizeof(err)), 0);
		assert_int_equal(smpol_weights_optimal(share, n, &o, w, &eff, err, sizeof(err)), 0);
		for (int i = 0; i < n; i++) {
			assert_true(w[i] <= SMPOL_WEIGHT_MAX);
			sum += w[i];
		}
		assert_true(sum >= 1 && sum <= o.max_sum);
		assert_true(eff == smpol_weights_efficiency(share, w, n));
		if (eff < o.precision - 1e-12) {
			/* then no sum does better: check a few exhaustively small cases */
			struct smpol_weight_opts full = o;
			unsigned w2[MAXN];
			double eff2;

			full.precision = 1;
			assert_int_equal(smpol_weights_optimal(share, n, &full, w2, &eff2, err, sizeof(err)), 0);
			assert_true(eff2 <= eff + 1e-12);
		}
		assert_int_equal(smpol_weights_kernel(kbw, n, kw, err, sizeof(err)), 0);
		for (int i = 0; i < n; i++) {
			unsigned a = g, b = kw[i];

			assert_true(kw[i] >= 1 && kw[i] <= SMPOL_KERNEL_WEIGHTINESS);
			ksum += kw[i];
			while (b) {
				unsigned t = a % b;

				a = b;
				b = t;
			}
			g = a;
		}
		assert_int_equal(g, 1);
		keff = smpol_weights_efficiency(share, kw, n);
		if (ksum <= o.max_sum)
			assert_true(eff >= fmin(o.precision, keff) - 1e-9);
		kernel_better += keff > eff + 1e-9;
	}
	assert_true(kernel_better > 0);
}

/* Water-filling on random vectors: shares sum to 1, no node gets more than fits, and
 * the nodes below their cap share in proportion to bandwidth. */
static void test_capacity_properties(void **state)
{
	char err[SMPOL_ERRLEN];

	(void)state;
	srand(777);
	for (int iter = 0; iter < 4000; iter++) {
		int n = 1 + rand() % MAXN;
		double bw[MAXN], share[MAXN], sum = 0, ratio = -1;
		uint64_t cap[MAXN], cap_total = 0, job;

		for (int i = 0; i < n; i++) {
			bw[i] = rand() % 4 ? 1 + rand() % 1000000 : 0;
			cap[i] = (uint64_t)(rand() % 100000);
			cap_total += cap[i];
		}
		job = 1 + (uint64_t)((double)rand() / RAND_MAX * (double)cap_total);
		if (smpol_shares_from_bandwidth(bw, cap, job, n, share, err, sizeof(err)) == -ENOSPC) {
			assert_true(job > cap_total);
			continue;
		}
		for (int i = 0; i < n; i++) {
			sum += share[i];
			assert_true(share[i] >= 0);
			assert_true(share[i] * (double)job <= (double)cap[i] * (1 + 1e-9) + 1e-6);
			if (bw[i] > 0 && share[i] * (double)job < (double)cap[i] * (1 - 1e-9)) {
				if (ratio < 0)
					ratio = share[i] / bw[i];
				assert_float_equal(share[i] / bw[i], ratio, ratio * 1e-9);
			}
		}
		assert_float_equal(sum, 1, 1e-9);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_required_optimal),
		cmocka_unit_test(test_required_kernel),
		cmocka_unit_test(test_kernel_edges),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_optimal_shapes),
		cmocka_unit_test(test_efficiency),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_capacity_properties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
