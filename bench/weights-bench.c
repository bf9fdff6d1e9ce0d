/* weights-bench - the optimal and kernel weights over a corpus of bandwidth vectors:
 * per vector and in total, the modelled efficiency (weights.h), the weight sum, and the
 * ratios optimal/kernel. Pure arithmetic, any host.
 *   weights-bench [-p PRECISION] [-m MAX_SUM] CORPUS
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "spec.h"
#include "weights.h"

#define MAX_NODES 16

struct vec {
	char name[64];
	int n;
	uint32_t bw[MAX_NODES];
};

struct result {
	unsigned w[MAX_NODES];
	unsigned sum;
	double eff;
};

struct totals {
	double eff_sum, eff_min, weight_sum;
	int count;
};

/* "NAME: BW BW ... # source"; 1 parsed, 0 blank or comment, -1 malformed (why says). */
static int parse_line(char *line, struct vec *v, char *why, size_t whylen)
{
	char *hash = strchr(line, '#'), *colon, *p, *end;

	if (hash)
		*hash = '\0';
	p = line + strspn(line, " \t\r\n");
	if (!*p)
		return 0;
	colon = strchr(p, ':');
	if (!colon || colon == p || (size_t)(colon - p) >= sizeof(v->name)) {
		smpol_fail(why, whylen, EINVAL, "expected 'NAME: BW BW ...' (a name of 1-63 characters)");
		return -1;
	}
	snprintf(v->name, sizeof(v->name), "%.*s", (int)(colon - p), p);
	v->n = 0;
	for (p = colon + 1;;) {
		unsigned long bw;

		p += strspn(p, " \t\r\n");
		if (!*p)
			break;
		if (v->n == MAX_NODES) {
			smpol_fail(why, whylen, E2BIG, "more than %d bandwidths", MAX_NODES);
			return -1;
		}
		errno = 0;
		bw = strtoul(p, &end, 10);
		if (end == p || errno || bw < 1 || bw > UINT32_MAX || (*end && !strchr(" \t\r\n", *end))) {
			smpol_fail(why, whylen, EINVAL, "'%.*s' is not a bandwidth in MB/s (1-%u)",
				  (int)strcspn(p, " \t\r\n"), p, UINT32_MAX);
			return -1;
		}
		v->bw[v->n++] = (uint32_t)bw;
		p = end;
	}
	if (!v->n) {
		smpol_fail(why, whylen, EINVAL, "no bandwidths after the name");
		return -1;
	}
	return 1;
}

static int run_vector(const struct vec *v, const struct smpol_weight_opts *o, struct result *opt,
		      struct result *ker, char *err, size_t errlen)
{
	double bw[MAX_NODES], share[MAX_NODES];
	int rc;

	for (int i = 0; i < v->n; i++)
		bw[i] = v->bw[i];
	rc = smpol_shares_from_bandwidth(bw, NULL, 0, v->n, share, err, errlen);
	if (!rc)
		rc = smpol_weights_optimal(share, v->n, o, opt->w, &opt->eff, err, errlen);
	if (!rc)
		rc = smpol_weights_kernel(v->bw, v->n, ker->w, err, errlen);
	if (rc)
		return rc;
	ker->eff = smpol_weights_efficiency(share, ker->w, v->n);
	opt->sum = ker->sum = 0;
	for (int i = 0; i < v->n; i++) {
		opt->sum += opt->w[i];
		ker->sum += ker->w[i];
	}
	return 0;
}

static void weights_text(const unsigned *w, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ":" : "", w[i]);
}

static void add(struct totals *t, const struct result *r)
{
	t->eff_sum += r->eff;
	t->weight_sum += r->sum;
	t->eff_min = t->count ? fmin(t->eff_min, r->eff) : r->eff;
	t->count++;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: weights-bench [-p PRECISION] [-m MAX_SUM] CORPUS\n"
		   "  -p P   precision of the optimal algorithm, 0 < P <= 1 (default %.2f)\n"
		   "  -m N   largest weight sum it tries, 1-1024 (default %d)\n",
		SMPOL_DEFAULT_PRECISION, SMPOL_DEFAULT_MAX_SUM);
}

int main(int argc, char **argv)
{
	struct smpol_weight_opts o = smpol_weight_opts_default();
	struct totals topt = { 0 }, tker = { 0 };
	char line[1024], err[SMPOL_ERRLEN], ow[128], kw[128], *end;
	int opt, lineno = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "p:m:h")) != -1) {
		switch (opt) {
		case 'p':
			if (smpol_precision_parse(optarg, &o.precision, err, sizeof(err))) {
				fprintf(stderr, "weights-bench: -p: %s\n", err);
				return 2;
			}
			break;
		case 'm':
			o.max_sum = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !*optarg || o.max_sum < 1 || o.max_sum > 1024) {
				fprintf(stderr, "weights-bench: -m '%s': give a whole number 1-1024\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		fprintf(stderr, "weights-bench: cannot open %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	printf("optimal: precision %.3g, max weight sum %u; kernel: Linux 6.16 auto mode\n", o.precision, o.max_sum);
	printf("%-22s %2s  %-24s %6s %4s  %-24s %6s %4s  %7s %7s\n", "vector", "n", "optimal", "eff", "sum",
	       "kernel", "eff", "sum", "eff o/k", "sum o/k");
	while (fgets(line, sizeof(line), f)) {
		struct result ropt, rker;
		struct vec v;
		int rc;

		lineno++;
		rc = parse_line(line, &v, err, sizeof(err));
		if (rc == 0)
			continue;
		if (rc < 0 || run_vector(&v, &o, &ropt, &rker, err, sizeof(err)) < 0) {
			fprintf(stderr, "weights-bench: %s:%d: %s\n", argv[optind], lineno, err);
			fclose(f);
			return 1;
		}
		weights_text(ropt.w, v.n, ow, sizeof(ow));
		weights_text(rker.w, v.n, kw, sizeof(kw));
		printf("%-22s %2d  %-24s %6.3f %4u  %-24s %6.3f %4u  %7.3f %7.3f\n", v.name, v.n, ow, ropt.eff,
		       ropt.sum, kw, rker.eff, rker.sum, ropt.eff / rker.eff, (double)ropt.sum / rker.sum);
		add(&topt, &ropt);
		add(&tker, &rker);
	}
	fclose(f);
	if (!topt.count) {
		fprintf(stderr, "weights-bench: %s holds no vectors\n", argv[optind]);
		return 1;
	}
	printf("\ntotal over %d vectors     mean eff  min eff  mean sum\n", topt.count);
	printf("  optimal                 %8.4f %8.4f %9.2f\n", topt.eff_sum / topt.count, topt.eff_min,
	       topt.weight_sum / topt.count);
	printf("  kernel                  %8.4f %8.4f %9.2f\n", tker.eff_sum / tker.count, tker.eff_min,
	       tker.weight_sum / tker.count);
	printf("  optimal/kernel          %8.4f %8.4f %9.4f\n", topt.eff_sum / tker.eff_sum,
	       topt.eff_min / tker.eff_min, topt.weight_sum / tker.weight_sum);
	return 0;
}
