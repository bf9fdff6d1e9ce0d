/* bench_util.h - what the bench programs share: a monotonic clock, the median, and a
 * whole-number argument (number.h's rules) that exits 2 saying why. */
#ifndef SMPOL_BENCH_UTIL_H
#define SMPOL_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "error.h"
#include "number.h"

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A whole number 1..max, or exit 2 with "PROG: WHAT: why". */
static inline uint64_t bench_whole_arg(const char *prog, const char *what, const char *text, uint64_t max)
{
	char err[SMPOL_ERRLEN];
	uint64_t v;

	if (smpol_number_parse(text, 0, 1, max, &v, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, err);
		exit(2);
	}
	return v;
}

#endif
