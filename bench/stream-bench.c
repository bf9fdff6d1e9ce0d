/* stream-bench - STREAM copy and triad under the placements a user could pick, from
 * the CPUs of one initiator (threads pinned as a job's tasks are):
 *   local       the initiator's own node only (MPOL_BIND)
 *   interleave  plain interleave over our plan's nodes
 *   kernel      weighted interleave over them with the kernel's auto weights (Linux
 *               6.16's formula over every memory node's HMAT bandwidth, bit-exact)
 *   ours        weighted interleave with our plan's weights (from the bandwidth table:
 *               measured, raw HMAT or sysfs HMAT, as the plugin resolves it)
 * alternated and repeated in one run; prints MB/s (median of the rounds) and the
 * ratios ours/local and ours/kernel. The global weights are written under the weights
 * lease for each weighted placement and restored at the end (root).
 *   stream-bench [-c CPUS] [-s socket|all] [-b TABLE|none] [-m MIB] [-r ROUNDS] [-n REPEATS]
 */
#include <errno.h>
#include <getopt.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw_file.h"
#include "bw_sources.h"
#include "kernel.h"
#include "lease.h"
#include "plan.h"
#include "stream.h"
#include "topology.h"
#include "units.h"
#include "wi.h"

enum placement { LOCAL, INTERLEAVE, KERNEL, OURS, NPLACEMENTS };
static const char *const names[NPLACEMENTS] = { "local", "interleave", "kernel", "ours" };

struct bench {
	struct smpol_cpus cpus;
	enum smpol_scope scope;
	const char *table;              /* bandwidth table, NULL = the default, "" = none */
	size_t bytes;
	int rounds, repeats;
	struct smpol_host host;
	struct smpol_topology topo;
	struct smpol_bw_table bw;
	struct smpol_plan plan;         /* ours */
	unsigned kernel_w[SMPOL_MAX_NODES];        /* the kernel's, over plan.nodes */
	struct smpol_lease_owner owner;
	bool held;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: stream-bench [-c CPUS] [-s socket|all] [-b TABLE|none] [-m MIB] [-r ROUNDS] [-n REPEATS]\n"
		   "  -c CPUS     the initiator's CPUs the threads run on (default: node of CPU 0, all its CPUs)\n"
		   "  -s SCOPE    our plan's scope (default socket)\n"
		   "  -b TABLE    the bandwidth table (default " SMPOL_BW_FILE_DEFAULT " when present; none)\n"
		   "  -m MIB      each array (default 4 x the largest CPU cache, at least 64)\n"
		   "  -r ROUNDS   rounds of every placement, alternated (default 5)\n"
		   "  -n REPEATS  repeats of each pass within a measurement, median kept (default 3)\n");
}

static int parse(int argc, char **argv, struct bench *b)
{
	char err[SMPOL_ERRLEN], *end;
	int opt;
	long v;

	b->scope = SMPOL_SCOPE_SOCKET;
	b->rounds = 5;
	b->repeats = 3;
	while ((opt = getopt(argc, argv, "c:s:b:m:r:n:h")) != -1) {
		switch (opt) {
		case 'c':
			if (smpol_cpus_parse_list(optarg, SMPOL_MAX_CPUS, &b->cpus, err, sizeof(err)) ||
			    smpol_cpus_empty(&b->cpus)) {
				fprintf(stderr, "stream-bench: -c '%s': give CPUs (0-3)\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (strcmp(optarg, "socket") && strcmp(optarg, "all")) {
				fprintf(stderr, "stream-bench: -s '%s': socket or all\n", optarg);
				return 2;
			}
			b->scope = strcmp(optarg, "all") ? SMPOL_SCOPE_SOCKET : SMPOL_SCOPE_ALL;
			break;
		case 'b':
			b->table = strcmp(optarg, "none") ? optarg : "";
			break;
		case 'm': case 'r': case 'n':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || errno || v < 1 || v > (opt == 'm' ? 1 << 20 : 1000)) {
				fprintf(stderr, "stream-bench: -%c '%s': give a whole number above 0\n", opt, optarg);
				return 2;
			}
			if (opt == 'm')
				b->bytes = (size_t)v << 20;
			else if (opt == 'r')
				b->rounds = (int)v;
			else
				b->repeats = (int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	return optind == argc ? 0 : (usage(stderr), 2);
}

/* Our plan for the CPUs' initiator, and the kernel's auto weights over its nodes. */
static int make_plans(struct bench *b)
{
	struct smpol_plan_opts opts;
	struct smpol_bw_origin origin;
	uint32_t bw[SMPOL_MAX_NODES];
	unsigned kernel_of[SMPOL_MAX_NODES] = { 0 };
	unsigned all_w[SMPOL_MAX_NODES];
	int ids[SMPOL_MAX_NODES], n = 0, init;
	char err[SMPOL_ERRLEN];

	if (smpol_bw_resolve(&b->topo, b->table ? b->table : SMPOL_BW_FILE_DEFAULT, b->table && *b->table, &b->bw,
			     &origin))
		return fprintf(stderr, "stream-bench: out of memory\n"), 1;
	if (smpol_initiator_for_cpus(&b->topo, &b->cpus, &init, err, sizeof(err)))
		return fprintf(stderr, "stream-bench: %s\n", err), 1;
	smpol_plan_opts_default(&opts);
	opts.scope = b->scope;
	opts.bandwidth = &b->bw;
	if (smpol_plan_for_initiator(&b->topo, init, &opts, &b->plan, err, sizeof(err)))
		return fprintf(stderr, "stream-bench: %s\n", err), 1;
	/* auto mode weighs every memory node by its sysfs HMAT bandwidth */
	for (int i = 0; i < b->topo.nnodes; i++)
		if (b->topo.nodes[i].has_memory && n < SMPOL_MAX_NODES) {
			ids[n] = b->topo.nodes[i].id;
			bw[n++] = smpol_node_bandwidth(&b->topo.nodes[i]);
		}
	if (smpol_weights_kernel(bw, n, all_w, err, sizeof(err)))
		return fprintf(stderr, "stream-bench: %s\n", err), 1;
	for (int i = 0; i < n; i++)
		kernel_of[ids[i]] = all_w[i];
	for (int i = 0; i < b->plan.nnodes; i++)
		b->kernel_w[i] = kernel_of[b->plan.nodes[i]];
	printf("initiator node%d, %d threads; bandwidth source %s\n", init, smpol_cpus_count(&b->cpus),
	       smpol_bw_source_name(b->plan.bw_source));
	return 0;
}

/* Write the plan's nodes' weights under the lease (kept across placements). */
static int set_weights(struct bench *b, const unsigned *w)
{
	struct smpol_wi_table t = { 0 };
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	smpol_bitmap_clear(&which);
	for (int i = 0; i < b->plan.nnodes; i++) {
		t.weight[b->plan.nodes[i]] = (uint8_t)w[i];
		smpol_bitmap_set(&which, b->plan.nodes[i]);
	}
	if (!b->held && smpol_lease_owner_self(&b->owner, err, sizeof(err))) {
		fprintf(stderr, "stream-bench: %s\n", err);
		return 1;
	}
	if (smpol_lease_acquire(&b->host, &b->owner, &t, &which, err, sizeof(err))) {
		fprintf(stderr, "stream-bench: cannot set the weights: %s\n", err);
		return 1;
	}
	b->held = true;
	return 0;
}

static int measure(struct bench *b, enum placement p, struct smpol_stream_result *r)
{
	struct smpol_stream_opts o = { .array_bytes = b->bytes, .repeats = b->repeats };
	char err[SMPOL_ERRLEN];
	int local = b->plan.initiator, rc;

	if (!smpol_topology_node(&b->topo, local)->has_memory)
		local = b->plan.nodes[0];
	smpol_bitmap_clear(&o.nodes);
	if (p == LOCAL) {
		o.mode = MPOL_BIND;
		smpol_bitmap_set(&o.nodes, local);
	} else {
		o.mode = p == INTERLEAVE ? MPOL_INTERLEAVE : MPOL_WEIGHTED_INTERLEAVE;
		for (int i = 0; i < b->plan.nnodes; i++)
			smpol_bitmap_set(&o.nodes, b->plan.nodes[i]);
		if ((p == KERNEL && set_weights(b, b->kernel_w)) || (p == OURS && set_weights(b, b->plan.weights)))
			return 1;
	}
	if (smpol_cpus_copy(&o.cpus, &b->cpus) < 0)
		return fprintf(stderr, "stream-bench: out of memory\n"), 1;
	rc = smpol_stream_run(&o, r, err, sizeof(err));
	smpol_cpus_free(&o.cpus);
	if (rc)
		fprintf(stderr, "stream-bench: %s: %s\n", names[p], err);
	return rc ? 1 : 0;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return a < c ? -1 : a > c;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void weights_text(const struct smpol_plan *p, const unsigned *w, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->nnodes && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d:%u", i ? " " : "", p->nodes[i], w[i]);
}

/* Every placement, rounds times, rotated so none always goes first. */
static int run(struct bench *b, int nplacements)
{
	double (*copy)[NPLACEMENTS] = calloc((size_t)b->rounds, sizeof(*copy));
	double (*triad)[NPLACEMENTS] = calloc((size_t)b->rounds, sizeof(*triad));
	double med_copy[NPLACEMENTS], med_triad[NPLACEMENTS], col[1000];
	int rc = 0;

	if (!copy || !triad)
		return fprintf(stderr, "stream-bench: out of memory\n"), 1;
	for (int r = 0; !rc && r < b->rounds; r++) {
		for (int k = 0; !rc && k < nplacements; k++) {
			enum placement p = (enum placement)((k + r) % nplacements);
			struct smpol_stream_result res;

			rc = measure(b, p, &res);
			copy[r][p] = res.median[SMPOL_STREAM_COPY];
			triad[r][p] = res.median[SMPOL_STREAM_TRIAD];
		}
		if (!rc)
			fprintf(stderr, "stream-bench: round %d of %d done\n", r + 1, b->rounds);
	}
	for (int p = 0; !rc && p < nplacements; p++) {
		for (int r = 0; r < b->rounds; r++)
			col[r] = copy[r][p];
		med_copy[p] = median(col, b->rounds);
		for (int r = 0; r < b->rounds; r++)
			col[r] = triad[r][p];
		med_triad[p] = median(col, b->rounds);
	}
	if (!rc) {
		printf("\n%-11s %12s %12s   (MB/s, median of %d rounds)\n", "placement", "copy", "triad", b->rounds);
		for (int p = 0; p < nplacements; p++)
			printf("%-11s %12.0f %12.0f\n", names[p], med_copy[p], med_triad[p]);
		if (nplacements == NPLACEMENTS) {
			printf("%-11s %12.3f %12.3f\n", "ours/local", med_copy[OURS] / med_copy[LOCAL],
			       med_triad[OURS] / med_triad[LOCAL]);
			printf("%-11s %12.3f %12.3f\n", "ours/kernel", med_copy[OURS] / med_copy[KERNEL],
			       med_triad[OURS] / med_triad[KERNEL]);
		}
	}
	free(copy);
	free(triad);
	return rc;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	struct smpol_wi_table wi;
	char err[SMPOL_ERRLEN], text[256], ours[512], kern[512];
	int nmem = 0, rc;
	bool auto_failed = false;

	if (smpol_host_default(&b.host) < 0)
		return fprintf(stderr, "stream-bench: out of memory\n"), 1;
	rc = parse(argc, argv, &b);
	if (rc)
		return rc;
	if (smpol_topology_read(&b.host, &b.topo, err, sizeof(err))) {
		fprintf(stderr, "stream-bench: %s\n", err);
		return 1;
	}
	for (int i = 0; i < b.topo.nnodes && smpol_cpus_empty(&b.cpus); i++)
		if (smpol_cpus_copy(&b.cpus, &b.topo.nodes[i].cpus) < 0)
			return fprintf(stderr, "stream-bench: out of memory\n"), 1;
	if (!b.bytes)
		b.bytes = smpol_stream_array_bytes("/", 4);
	for (int i = 0; i < b.topo.nnodes; i++)
		nmem += b.topo.nodes[i].has_memory;
	if (make_plans(&b))
		return 1;
	smpol_format_size(b.bytes >> 10, text, sizeof(text));
	weights_text(&b.plan, b.plan.weights, ours, sizeof(ours));
	weights_text(&b.plan, b.kernel_w, kern, sizeof(kern));
	printf("arrays %s each, %d repeats per measurement; ours %s, kernel %s\n", text, b.repeats, ours, kern);
	smpol_wi_read(&b.host, &wi, err, sizeof(err));
	if (nmem < 2 || b.plan.nnodes < 2) {
		printf("this machine has %s: local, interleave, kernel and ours are the same placement, so there is "
		       "nothing to compare; local alone:\n", nmem < 2 ? "one memory node" : "one node in the plan");
		rc = run(&b, 1);
	} else if (!wi.present) {
		printf("this kernel has no weighted interleave (Linux 6.9): kernel and ours cannot be measured, only "
		       "local and interleave\n");
		rc = run(&b, 2);
	} else if (geteuid() != 0) {
		printf("kernel and ours need the node's weights written (root): only local and interleave\n");
		rc = run(&b, 2);
	} else {
		rc = run(&b, NPLACEMENTS);
	}
	if (b.held && smpol_lease_release(&b.host, &b.owner, &auto_failed, err, sizeof(err))) {
		fprintf(stderr, "stream-bench: restoring the weights: %s (mpolctl recover puts them back)\n", err);
		rc = 1;
	}
	smpol_plan_free(&b.plan);
	smpol_cpus_free(&b.cpus);
	smpol_bw_free(&b.bw);
	smpol_topology_free(&b.topo);
	smpol_host_free(&b.host);
	return rc;
}
