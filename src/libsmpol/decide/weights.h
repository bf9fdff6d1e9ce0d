/* weights.h - integer interleave weights from target shares. Pure functions, no I/O.
 *
 * Shares f_i (summing to 1) come from bandwidth (smpol_shares_from_bandwidth) and are
 * turned into small integer weights w_i. The streaming model: with weights w and
 * S = sum w, node i receives w_i/S of the traffic, so the step runs at
 * min_i (bw_i / (w_i/S)) and the modelled efficiency against the ideal is
 * eff = S * min_{w_i>0} f_i / w_i  (1.0 = every node saturates together).
 */
#ifndef SMPOL_WEIGHTS_H
#define SMPOL_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#define SMPOL_WEIGHT_MAX 255          /* the kernel stores weights in a u8 */
#define SMPOL_DEFAULT_PRECISION 0.98
#define SMPOL_DEFAULT_MAX_SUM 72
#define SMPOL_KERNEL_WEIGHTINESS 32   /* Linux 6.16 auto mode scale */
#define SMPOL_PRECISION_KNEE 0.01     /* see smpol_weights_optimal */
#define SMPOL_PRECISION_FLOOR 0.02

struct smpol_weight_opts {
	double precision;     /* (0,1]: stop at the smallest sum reaching this efficiency */
	unsigned max_sum;     /* largest weight sum tried, >= number of nodes */
};

/* Default options (precision 0.98, max_sum 72). */
struct smpol_weight_opts smpol_weight_opts_default(void);

/*
 * smpol_shares_from_bandwidth - target shares, proportional to bw, then capped by
 * capacity when job_kb would overflow a node's share (water-filling: a capped node
 * takes what fits, the rest is spread over the others by bandwidth; when only nodes
 * with bandwidth 0 have room left, they take the rest by capacity).
 * cap_kb may be NULL or job_kb 0 (no capacity limit). When the job exceeds the total
 * capacity, shares become proportional to capacity and -ENOSPC is returned with
 * the shares still filled in. Bandwidth 0 everywhere gives equal shares.
 */
int smpol_shares_from_bandwidth(const double *bw, const uint64_t *cap_kb, uint64_t job_kb,
			       int n, double *share, char *err, size_t errlen);

/* eff = S * min_{w_i>0} f_i / w_i ; 0 when every weight is 0. */
double smpol_weights_efficiency(const double *share, const unsigned *weights, int n);

/*
 * smpol_weights_optimal - integer weights for the shares. For every weight sum S up to
 * max_sum, D'Hondt gives the apportionment with the best efficiency of that sum
 * (smpol_weights_dhondt); which S is taken:
 *   1. the smallest S reaching eff >= precision;
 *   2. but a sum at most half as large that reaches precision - SMPOL_PRECISION_KNEE
 *      wins: a point of modelled efficiency is not worth twice the weights (coarser
 *      interleave, and the model's inputs are no more exact than that);
 *   3. when no S reaches the precision, the smallest reaching precision -
 *      SMPOL_PRECISION_FLOOR;
 *   4. when none reaches that either, the S with the highest efficiency (smallest on
 *      ties).
 * On bench/corpus.txt this keeps every vector at 0.96 or better at three quarters of
 * the kernel's mean weight sum (bench/README.md). A node apportioned no seat is left
 * out (weight 0): its share is too small to help at that sum. Seats go to the highest
 * share/(seats+1), lowest index on ties; a node at SMPOL_WEIGHT_MAX takes no more. All
 * shares 0 gives every node weight 1. efficiency may be NULL.
 * Returns 0 or -EINVAL (n < 1, bad precision, max_sum < 1), -ENOMEM.
 */
int smpol_weights_optimal(const double *share, int n, const struct smpol_weight_opts *opts,
			 unsigned *weights, double *efficiency, char *err, size_t errlen);

/*
 * smpol_weights_dhondt - the D'Hondt apportionment of exactly `sum` seats: of all
 * weight vectors with that sum, the one with the best efficiency (it maximizes
 * min f_i/w_i). Seats as above. 0, or -ENOSPC when every node is full (255) or has
 * share 0 before `sum` seats are given (weights then hold what was given).
 */
int smpol_weights_dhondt(const double *share, int n, unsigned sum, unsigned *weights);

/*
 * smpol_weights_kernel - bit-exact Linux 6.16 auto mode (reduce_interleave_weights):
 * w_i = floor(32 * bw_i / sum bw), at least 1, then divided by the GCD of all weights.
 * bw in MB/s as the kernel holds it (unsigned int).
 */
int smpol_weights_kernel(const uint32_t *bw, int n, unsigned *weights, char *err, size_t errlen);

#endif
