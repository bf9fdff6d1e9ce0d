/* weights.c - target shares and integer interleave weights (see weights.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "weights.h"

/* Quotients this close are a tie: shares such as 88/99 and 11/99 must not pick a
 * node by rounding noise. */
#define TIE_EPS 1e-12

struct smpol_weight_opts smpol_weight_opts_default(void)
{
	return (struct smpol_weight_opts){ .precision = SMPOL_DEFAULT_PRECISION,
					  .max_sum = SMPOL_DEFAULT_MAX_SUM };
}

static int check_count(int n, char *err, size_t errlen)
{
	if (n < 1)
		return smpol_fail(err, errlen, EINVAL, "no nodes to weigh (count %d)", n);
	return 0;
}

/* Water-filling: nodes whose bandwidth share would not fit take their capacity; the
 * rest of the job is spread over the others by bandwidth, until nothing overflows. */
static void fill_capacity(const double *bw, double bw_total, const uint64_t *cap_kb, uint64_t job_kb,
			  int n, double *share)
{
	bool capped[n], changed = true;
	double left = 1.0, left_bw = bw_total, left_cap = 0;
	const double residue = bw_total * 1e-12;   /* what left_bw -= bw[i] may leave of 0 */

	memset(capped, 0, sizeof(capped));
	while (changed && left_bw > residue) {
		changed = false;
		for (int i = 0; i < n; i++) {
			double cap = (double)cap_kb[i] / (double)job_kb;

			if (capped[i] || !bw[i] || left * bw[i] / left_bw <= cap)
				continue;
			capped[i] = changed = true;
			share[i] = cap;
			left -= cap;
			left_bw -= bw[i];
		}
	}
	if (left_bw > residue) {
		for (int i = 0; i < n; i++)
			if (!capped[i])
				share[i] = left * bw[i] / left_bw;
		return;
	}
	/* only nodes without bandwidth have room left: fill them by capacity */
	for (int i = 0; i < n; i++)
		if (!capped[i])
			left_cap += (double)cap_kb[i];
	for (int i = 0; i < n; i++)
		if (!capped[i])
			share[i] = left_cap > 0 ? left * (double)cap_kb[i] / left_cap : 0;
}

int smpol_shares_from_bandwidth(const double *bw, const uint64_t *cap_kb, uint64_t job_kb,
			       int n, double *share, char *err, size_t errlen)
{
	double total = 0, cap_total = 0;
	int rc = check_count(n, err, errlen);

	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		if (!isfinite(bw[i]) || bw[i] < 0)
			return smpol_fail(err, errlen, EINVAL, "bandwidth %g of node #%d is not a usable number",
					 bw[i], i);
		total += bw[i];
	}
	for (int i = 0; i < n; i++)
		share[i] = total > 0 ? bw[i] / total : 1.0 / n;
	if (!cap_kb || !job_kb)
		return 0;
	for (int i = 0; i < n; i++)
		cap_total += (double)cap_kb[i];
	if (cap_total < (double)job_kb) {
		for (int i = 0; i < n; i++)
			share[i] = cap_total > 0 ? (double)cap_kb[i] / cap_total : 1.0 / n;
		return smpol_fail(err, errlen, ENOSPC,
				 "the job's %llu MiB do not fit in the %llu MiB free on these nodes",
				 (unsigned long long)(job_kb / 1024), (unsigned long long)(cap_total / 1024));
	}
	if (total > 0) {
		fill_capacity(bw, total, cap_kb, job_kb, n, share);
	} else {
		double ones[n];

		for (int i = 0; i < n; i++)
			ones[i] = 1;
		fill_capacity(ones, n, cap_kb, job_kb, n, share);
	}
	return 0;
}

double smpol_weights_efficiency(const double *share, const unsigned *weights, int n)
{
	double worst = INFINITY;
	unsigned sum = 0;

	for (int i = 0; i < n; i++) {
		if (!weights[i])
			continue;
		sum += weights[i];
		if (share[i] / weights[i] < worst)
			worst = share[i] / weights[i];
	}
	return sum ? sum * worst : 0;
}

/* D'Hondt: the next seat goes to the highest share / (seats + 1); lowest index on ties.
 * -1 when every node is full. */
static int next_seat(const double *share, const unsigned *w, int n)
{
	int best = -1;
	double best_q = 0;

	for (int i = 0; i < n; i++) {
		double q;

		if (w[i] >= SMPOL_WEIGHT_MAX || share[i] <= 0)
			continue;
		q = share[i] / (w[i] + 1);
		if (best < 0 || q > best_q * (1 + TIE_EPS)) {
			best = i;
			best_q = q;
		}
	}
	return best;
}

int smpol_weights_dhondt(const double *share, int n, unsigned sum, unsigned *weights)
{
	memset(weights, 0, sizeof(*weights) * n);
	for (unsigned s = 0; s < sum; s++) {
		int i = next_seat(share, weights, n);

		if (i < 0)
			return -ENOSPC;
		weights[i]++;
	}
	return 0;
}

/* The smallest sum up to max_sum whose efficiency reaches target, or 0. */
static unsigned first_reaching(const double *eff, unsigned max_sum, double target)
{
	for (unsigned s = 1; s <= max_sum; s++)
		if (eff[s] >= target - TIE_EPS)
			return s;
	return 0;
}

/* The sum with the highest efficiency, the smallest on ties; 0 when none has a seat. */
static unsigned most_efficient(const double *eff, unsigned max_sum)
{
	unsigned best = 0;

	for (unsigned s = 1; s <= max_sum; s++)
		if (eff[s] > (best ? eff[best] : 0) * (1 + TIE_EPS))
			best = s;
	return best;
}

/* Which sum to take, by the rule of weights.h. eff[s] for s = 1..max_sum. */
static unsigned choose_sum(const double *eff, unsigned max_sum, double precision)
{
	unsigned target = first_reaching(eff, max_sum, precision), near;

	if (target) {
		near = first_reaching(eff, target / 2, precision - SMPOL_PRECISION_KNEE);
		return near ? near : target;
	}
	near = first_reaching(eff, max_sum, precision - SMPOL_PRECISION_FLOOR);
	return near ? near : most_efficient(eff, max_sum);
}

int smpol_weights_optimal(const double *share, int n, const struct smpol_weight_opts *opts,
			 unsigned *weights, double *efficiency, char *err, size_t errlen)
{
	unsigned w[n > 0 ? n : 1], sum, s;
	double *eff;
	int rc = check_count(n, err, errlen);

	if (rc)
		return rc;
	if (!(opts->precision > 0 && opts->precision <= 1))
		return smpol_fail(err, errlen, EINVAL, "precision %g is outside (0, 1]", opts->precision);
	if (opts->max_sum < 1)
		return smpol_fail(err, errlen, EINVAL, "the largest weight sum must be at least 1");
	for (int i = 0; i < n; i++)
		if (!isfinite(share[i]) || share[i] < 0)
			return smpol_fail(err, errlen, EINVAL, "share %g of node #%d is not a usable number",
					 share[i], i);
	eff = calloc((size_t)opts->max_sum + 1, sizeof(*eff));
	if (!eff)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	/* D'Hondt is house-monotone: the apportionment for S+1 seats adds one seat to
	 * the one for S, so one pass rates every S (0 once every node is full). */
	memset(w, 0, sizeof(w));
	for (s = 1; s <= opts->max_sum; s++) {
		int i = next_seat(share, w, n);

		if (i < 0)
			break;
		w[i]++;
		eff[s] = smpol_weights_efficiency(share, w, n);
	}
	sum = choose_sum(eff, opts->max_sum, opts->precision);
	free(eff);
	if (!sum || smpol_weights_dhondt(share, n, sum, weights) < 0) {
		/* every share is 0: nothing tells the nodes apart, weigh them equally */
		for (int i = 0; i < n; i++)
			weights[i] = 1;
	}
	if (efficiency)
		*efficiency = smpol_weights_efficiency(share, weights, n);
	return 0;
}

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * As mm/mempolicy.c does it: the sum is 64-bit, the scaled bandwidth 32-bit (it
 * wraps like the kernel's for bandwidths >= 2^27 MB/s), a node with no bandwidth
 * or a share below 1/32 gets 1, then all weights are divided by their GCD.
 */
int smpol_weights_kernel(const uint32_t *bw, int n, unsigned *weights, char *err, size_t errlen)
{
	uint64_t sum_bw = 0;
	unsigned iw_gcd = 0;
	int rc = check_count(n, err, errlen);

	if (rc)
		return rc;
	for (int i = 0; i < n; i++)
		sum_bw += bw[i];
	for (int i = 0; i < n; i++) {
		uint32_t scaled = (uint32_t)SMPOL_KERNEL_WEIGHTINESS * bw[i];

		if (bw[i] && sum_bw < scaled)
			weights[i] = (uint8_t)(scaled / (uint32_t)sum_bw);
		else
			weights[i] = 1;
		if (!iw_gcd)
			iw_gcd = weights[i];
		iw_gcd = gcd(iw_gcd, weights[i]);
	}
	for (int i = 0; i < n; i++)
		weights[i] /= iw_gcd;
	return 0;
}
