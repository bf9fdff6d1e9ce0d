/* cmd_plan.c - `mpolctl plan`: the nodes and weights a task would interleave over. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "plan.h"
#include "plan_span.h"
#include "spec.h"
#include "site.h"
#include "topology.h"
#include "units.h"

#define VERB "plan"

enum {
	OPT_MEM = 0x200,
	OPT_CPUS,
	OPT_ALGORITHM,
	OPT_PRECISION,
	OPT_SCOPE,
	OPT_NODES,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl plan [--fsroot DIR] [--mem SIZE] [--cpus LIST] [--algorithm optimal|kernel]\n"
		"                    [--precision P] [--scope socket|all] [--nodes LIST]\n"
		"                    [--bandwidth FILE|none] [--max-source SOURCE] [--plugstack FILE] [--json]\n"
		"\n"
		"Show the interleave plan (nodes, integer weights, target shares, modelled\n"
		"efficiency, and where each node's bandwidth came from) a task would get: for the\n"
		"task's CPUs with --cpus, else one plan per CPU node. Nothing is changed. CPUs on\n"
		"several CPU nodes get one plan over the memory of all of them: node j's target\n"
		"share is the sum over those nodes i of (share of the CPUs on i) x (j's share in\n"
		"i's own plan); its weights are each node's plan's, as one table holds them.\n"
		"Bandwidth per (initiator, node) pair, first source that has it: override and\n"
		"measured lines of the bandwidth table, the raw ACPI HMAT (root only), sysfs HMAT\n"
		"(each node's best initiator), else equal shares.\n"
		"\n"
		"  --fsroot DIR        read sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --mem SIZE          the job's memory on this node (4G, 512M, 1T; plain = MiB):\n"
		"                      caps each node's share by its free memory\n"
		"  --cpus LIST         plan for a task bound to these CPUs (0-3,8), on one CPU node\n"
		"                      or spanning several\n"
		"  --algorithm A       optimal (default): smallest weights reaching --precision;\n"
		"                      kernel: what Linux 6.16 auto mode would set\n"
		"  --precision P       modelled efficiency to reach, 0 < P <= 1 (default %.2f)\n"
		"  --scope S           socket (default): the CPU node and its memory-only nodes;\n"
		"                      all: every node with memory\n"
		"  --nodes LIST        interleave over these nodes only\n"
		"  --bandwidth FILE    the bandwidth table (none: no table); default: the\n"
		"                      plugstack line's bandwidth=, else " SMPOL_BW_FILE_DEFAULT "\n"
		"  --max-source S      use no source ranked above S (sysfs-hmat: what the kernel's\n"
		"                      auto mode sees; acpi-hmat, measured; default override)\n"
		"  --plugstack FILE    the plugstack.conf to find mem_interleave.so's line in\n"
		"                      (default: Slurm's)\n"
		"  --json              print one JSON object with a \"plans\" array\n"
		"  -h, --help          show this help\n",
		SMPOL_DEFAULT_PRECISION);
}

/* A list of ids: NUMBER or NUMBER-NUMBER, comma-separated (mpolctl(8)'s grammar: no
 * sign, blank or newline), each id once: "0,0" is a mistake, not node 0. */
static void parse_list(const char *opt, const char *text, int limit, struct smpol_cpus *out)
{
	char err[SMPOL_ERRLEN], q[SMPOL_QUOTE_LEN], piece[64];
	struct smpol_cpus one = { 0 };

	smpol_quote(text, q, sizeof(q));
	if (text[strspn(text, "0123456789,-")])
		cli_usage_error(VERB, "bad %s %s: give ids and ranges of digits, such as 0-3,8 (no sign or blank)",
				opt, q);
	if (smpol_cpus_parse_list(text, limit, out, err, sizeof(err)))
		cli_usage_error(VERB, "%s: %s", opt, err);
	if (smpol_cpus_empty(out))
		cli_usage_error(VERB, "%s is empty; give a list such as 0-3,8", opt);
	/* each piece parses alone (the whole did); its ids must be new */
	smpol_cpus_clear(out);
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");

		snprintf(piece, sizeof(piece), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
		if (smpol_cpus_parse_list(piece, limit, &one, NULL, 0))
			continue;
		for (int id = smpol_cpus_next(&one, 0); id >= 0; id = smpol_cpus_next(&one, id + 1))
			if (smpol_cpus_test(out, id))
				cli_usage_error(VERB, "bad %s %s: %d is named twice", opt, q, id);
		if (smpol_cpus_or(out, &one) < 0)
			cli_usage_error(VERB, "%s: out of memory", opt);
	}
	smpol_cpus_free(&one);
}

/* A node list (ids below the one node limit): a bad id in a node list's words, then the
 * grammar and repeats as parse_list checks them. */
static void parse_nodes(const char *opt, const char *text, struct smpol_bitmap *out)
{
	struct smpol_cpus ids = { 0 };
	char err[SMPOL_ERRLEN];

	if (!text[strspn(text, "0123456789,-")] && smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, out, err, sizeof(err)))
		cli_usage_error(VERB, "%s: %s", opt, err);
	parse_list(opt, text, SMPOL_MAX_NODES, &ids);
	smpol_cpus_free(&ids);
}

struct plan_args {
	struct cli_common c;
	struct smpol_plan_opts opts;
	bool has_cpus;
	struct smpol_cpus cpus;
};

static void parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option options[] = {
		CLI_COMMON_OPTIONS,
		CLI_SITE_OPTIONS,
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "algorithm", required_argument, NULL, OPT_ALGORITHM },
		{ "precision", required_argument, NULL, OPT_PRECISION },
		{ "scope", required_argument, NULL, OPT_SCOPE },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ NULL, 0, NULL, 0 },
	};
	char err[SMPOL_ERRLEN], q[SMPOL_QUOTE_LEN];
	int opt;

	memset(a, 0, sizeof(*a));
	cli_common_init(&a->c);
	smpol_plan_opts_default(&a->opts);
	while ((opt = cli_getopt(&a->c, VERB, argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_MEM:
			if (smpol_parse_size(optarg, &a->opts.mem_kb, err, sizeof(err)))
				cli_usage_error(VERB, "--mem: %s", err);
			break;
		case OPT_CPUS:
			parse_list("--cpus", optarg, SMPOL_MAX_CPUS, &a->cpus);
			a->has_cpus = true;
			break;
		case OPT_ALGORITHM:
			if (!strcmp(optarg, "optimal"))
				a->opts.algorithm = SMPOL_ALGO_OPTIMAL;
			else if (!strcmp(optarg, "kernel"))
				a->opts.algorithm = SMPOL_ALGO_KERNEL;
			else
				cli_usage_error(VERB, "unknown --algorithm %s (known: optimal, kernel)",
						smpol_quote(optarg, q, sizeof(q)));
			break;
		case OPT_PRECISION:
			if (smpol_precision_parse(optarg, &a->opts.weight.precision, err, sizeof(err)) < 0)
				cli_usage_error(VERB, "--precision: %s", err);
			break;
		case OPT_SCOPE:
			if (!strcmp(optarg, "socket"))
				a->opts.scope = SMPOL_SCOPE_SOCKET;
			else if (!strcmp(optarg, "all"))
				a->opts.scope = SMPOL_SCOPE_ALL;
			else
				cli_usage_error(VERB, "unknown --scope %s (known: socket, all)",
						smpol_quote(optarg, q, sizeof(q)));
			break;
		case OPT_NODES:
			parse_nodes("--nodes", optarg, &a->opts.nodes);
			a->opts.has_nodes = true;
			break;
		default:
			cli_common_option(&a->c, VERB, opt, argc, argv, usage);
		}
	}
	cli_no_operands(&a->c, VERB, argc, argv);
}

/*
 * The plan for the CPUs, from every CPU node's plan: theirs, or the combined plan of
 * the CPU nodes they span (plan_span.h), into all[0]; with a combined plan, all[1]
 * gets it again with the weights a step owning the node would write (scaled to the
 * CPUs), *scaled saying whether they differ.
 */
static int plan_for_cpus(const struct smpol_topology *topo, const struct plan_args *a, struct smpol_plan *all,
			 int nall, struct smpol_plan **plans, bool *scaled, char *err, size_t errlen)
{
	struct smpol_plan *out = calloc(2, sizeof(*out));
	int rc;

	if (!out)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	rc = smpol_plan_pick(topo, all, nall, &a->cpus, &a->opts, &out[0], err, errlen);
	if (!rc && out[0].nserved > 1 &&
	    smpol_plan_scale_for_span(topo, all, nall, &a->cpus, &a->opts.weight) > 0) {
		rc = smpol_plan_pick(topo, all, nall, &a->cpus, &a->opts, &out[1], err, errlen);
		*scaled = !rc;
	}
	if (rc)
		smpol_plans_free(out, 2);
	else
		*plans = out;
	return rc;
}

/* The plans asked for: one for the CPUs (see above), or one per CPU node. Exit status. */
static int make_plans(const struct smpol_topology *topo, const struct plan_args *a,
		      struct smpol_plan **plans, int *nplans, bool *scaled)
{
	struct smpol_plan *all = NULL;
	char err[SMPOL_ERRLEN];
	int nall = 0, rc;

	*scaled = false;
	rc = smpol_plan_all(topo, &a->opts, &all, &nall, err, sizeof(err));
	if (!rc && a->has_cpus) {
		rc = plan_for_cpus(topo, a, all, nall, plans, scaled, err, sizeof(err));
		*nplans = 1;
		smpol_plans_free(all, nall);
		if (rc == -ENOENT) {
			cli_error(VERB, "%s", err);
			return 2;
		}
	} else if (!rc) {
		*plans = all;
		*nplans = nall;
	}
	if (!rc)
		return 0;
	cli_error(VERB, "%s", err);
	*plans = NULL;
	/* a node list the topology cannot serve is the caller's mistake */
	return rc == -EINVAL && a->opts.has_nodes ? 2 : 1;
}

/* "CPU nodes 0,1 (CPUs 0-15: 8 on node0, 8 on node1)" for a plan serving several. */
static void print_served(const struct plan_args *a, const struct smpol_plan *p)
{
	char cpus[128] = "-";
	unsigned total = 0;

	smpol_cpus_format_list(&a->cpus, cpus, sizeof(cpus));
	for (int i = 0; i < p->nserved; i++)
		total += p->served_cpus[i];
	printf("CPU nodes ");
	for (int i = 0; i < p->nserved; i++)
		printf("%s%d", i ? "," : "", p->served[i]);
	printf(" (CPUs %s:", cpus);
	for (int i = 0; i < p->nserved; i++)
		printf("%s %u on node%d (%.0f%%)", i ? "," : "", p->served_cpus[i], p->served[i],
		       100.0 * p->served_cpus[i] / total);
	printf("): ");
}

/*
 * The nodes of p weighed by a sysfs HMAT number that is not the initiator's own: sysfs
 * gives each memory node's bandwidth from its best initiator only, so a remote socket's
 * DRAM reads as fast as local (scope=all). Their list into buf ("" when none).
 */
static void sysfs_remote_nodes(const struct smpol_topology *topo, const struct smpol_plan *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->nnodes && used < len; i++) {
		const struct smpol_node *n = smpol_topology_node(topo, p->nodes[i]);

		if (p->sources[i] != SMPOL_BW_SYSFS || !n || smpol_node_initiator(topo, n) == p->initiator)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", p->nodes[i]);
	}
}

static void print_plan(const struct smpol_topology *topo, const struct plan_args *a, const struct smpol_plan *p,
		       const struct smpol_plan *scaled)
{
	char nodes[256] = "", weights[256] = "", cpus[128] = "-", remote[128];
	const struct smpol_node *init = smpol_topology_node(topo, p->initiator);
	int i;

	smpol_plan_format_nodes(p, nodes, sizeof(nodes));
	smpol_plan_format_weights(p, weights, sizeof(weights));
	if (init && !smpol_cpus_empty(&init->cpus))
		smpol_cpus_format_list(&init->cpus, cpus, sizeof(cpus));
	if (p->nserved > 1)
		print_served(a, p);
	else if (p->initiator >= 0)
		printf("initiator node%d (CPUs %s): ", p->initiator, cpus);
	printf("nodes %s weights %s (%s, sum %u, modelled efficiency %.1f%%)\n", nodes, weights,
	       smpol_algorithm_name(p->algorithm), p->weight_sum, 100 * p->efficiency);
	printf("  %-5s %-8s %9s %-10s %8s %7s %8s\n", "NODE", "KIND", "BW_MB/s", "SOURCE", "TARGET", "WEIGHT", "GETS");
	for (i = 0; i < p->nnodes; i++) {
		const struct smpol_node *n = smpol_topology_node(topo, p->nodes[i]);
		char bwtext[16] = "-";

		if (p->bandwidth[i])
			snprintf(bwtext, sizeof(bwtext), "%u", p->bandwidth[i]);
		printf("  %-5d %-8s %9s %-10s %7.1f%% %7u %7.1f%%\n", p->nodes[i],
		       n ? smpol_node_kind_name(n->kind) : "?", bwtext, smpol_bw_source_name(p->sources[i]),
		       100 * p->shares[i], p->weights[i], p->weight_sum ? 100.0 * p->weights[i] / p->weight_sum : 0.0);
	}
	if (!p->bandwidth_known)
		printf("  no HMAT bandwidth for these nodes: equal shares were used\n");
	if (p->capacity_capped)
		printf("  shares were capped by free memory (--mem)\n");
	for (i = 0; i < p->nleft_out; i++)
		printf("  left out node%d: %s\n", p->left_out[i].node, p->left_out[i].reason);
	if (p->notes)
		printf("  note: %s\n", p->notes);
	sysfs_remote_nodes(topo, p, remote, sizeof(remote));
	if (remote[0])
		printf("  note: nodes %s are weighed by sysfs HMAT, which gives each node's bandwidth from its best\n"
		       "  initiator only: from node%d they are likely slower than shown. The raw ACPI HMAT (as root)\n"
		       "  or mpolctl calibrate gives the numbers from this initiator.\n", remote, p->initiator);
	if (!smpol_bitmap_empty(&p->standby)) {
		char list[256];

		smpol_bitmap_format_list(&p->standby, list, sizeof(list));
		printf("  standby nodes %s: no memory yet; named in the policy so hot-added memory there takes new pages\n",
		       list);
	}
	if (scaled) {
		smpol_plan_format_weights(scaled, weights, sizeof(weights));
		printf("  a step that owns the node and writes its weights gives this task weights %s (each CPU node's "
		       "weights scaled to its CPUs; sum %u, modelled efficiency %.1f%%)\n", weights, scaled->weight_sum,
		       100 * scaled->efficiency);
	}
}

static void print_text(const struct smpol_topology *topo, const struct plan_args *a,
		       const struct smpol_bw_origin *origin, const struct smpol_plan *plans, int nplans, bool scaled)
{
	char mem[32] = "unknown", warning[SMPOL_ERRLEN + 64];

	if (a->opts.mem_kb)
		smpol_format_size(a->opts.mem_kb, mem, sizeof(mem));
	printf("scope %s, algorithm %s, precision %g, job memory %s; bandwidth in decimal MB/s (10^6 bytes/s)\n",
	       smpol_scope_name(a->opts.scope), smpol_algorithm_name(a->opts.algorithm),
	       a->opts.weight.precision, mem);
	cli_print_bw_origin(origin);
	printf("\n");
	for (int i = 0; i < nplans; i++) {
		print_plan(topo, a, &plans[i], scaled ? &plans[1] : NULL);
		if (i + 1 < nplans)
			printf("\n");
	}
	for (int i = 0; i < topo->nwarnings; i++)
		fprintf(stderr, "mpolctl %s: warning: %s\n", VERB, topo->warnings[i]);
	smpol_bw_origin_warning(origin, warning, sizeof(warning));
	if (warning[0])
		fprintf(stderr, "mpolctl %s: warning: %s\n", VERB, warning);
}

/* [{"node":0,"cpus":8,"share":0.5},...]: the CPU nodes served and the CPUs there. */
static json_object *json_served(const struct smpol_plan *p)
{
	json_object *arr = json_object_new_array();
	unsigned total = 0;

	for (int i = 0; i < p->nserved; i++)
		total += p->served_cpus[i];
	for (int i = 0; i < p->nserved; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "node", json_object_new_int(p->served[i]));
		json_object_object_add(o, "cpus", json_object_new_int((int)p->served_cpus[i]));
		json_object_object_add(o, "share", json_object_new_double((double)p->served_cpus[i] / total));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *json_weights(const struct smpol_plan *p)
{
	json_object *weights = json_object_new_array();

	for (int i = 0; i < p->nnodes; i++)
		json_object_array_add(weights, json_object_new_int((int)p->weights[i]));
	return weights;
}

static json_object *json_plan(const struct smpol_topology *topo, const struct smpol_plan *p,
			       const struct smpol_plan *scaled)
{
	char remote[128];
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	json_object *shares = json_object_new_array();
	json_object *left = json_object_new_array(), *standby = json_object_new_array();
	json_object *bw = json_object_new_array(), *sources = json_object_new_array();
	int i;

	for (i = 0; i < p->nnodes; i++) {
		json_object_array_add(nodes, json_object_new_int(p->nodes[i]));
		json_object_array_add(shares, json_object_new_double(p->shares[i]));
		json_object_array_add(bw, p->bandwidth[i] ? json_object_new_int64(p->bandwidth[i]) : NULL);
		json_object_array_add(sources, json_object_new_string(smpol_bw_source_name(p->sources[i])));
	}
	for (i = 0; i < p->nleft_out; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "node", json_object_new_int(p->left_out[i].node));
		json_object_object_add(l, "reason", json_object_new_string(p->left_out[i].reason));
		json_object_array_add(left, l);
	}
	json_object_object_add(o, "initiator", p->initiator >= 0 ? json_object_new_int(p->initiator) : NULL);
	json_object_object_add(o, "serves", json_served(p));
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "weights", json_weights(p));
	if (scaled) {
		json_object *sc = json_object_new_object();

		json_object_object_add(sc, "weights", json_weights(scaled));
		json_object_object_add(sc, "efficiency", json_object_new_double(scaled->efficiency));
		json_object_object_add(o, "owner_weights", sc);
	}
	json_object_object_add(o, "shares", shares);
	json_object_object_add(o, "bandwidth", bw);
	json_object_object_add(o, "sources", sources);
	json_object_object_add(o, "bandwidth_source", json_object_new_string(smpol_bw_source_name(p->bw_source)));
	json_object_object_add(o, "efficiency", json_object_new_double(p->efficiency));
	json_object_object_add(o, "weight_sum", json_object_new_int((int)p->weight_sum));
	json_object_object_add(o, "algorithm", json_object_new_string(smpol_algorithm_name(p->algorithm)));
	json_object_object_add(o, "capacity_capped", json_object_new_boolean(p->capacity_capped));
	json_object_object_add(o, "bandwidth_known", json_object_new_boolean(p->bandwidth_known));
	json_object_object_add(o, "left_out", left);
	for (i = smpol_bitmap_next(&p->standby, 0); i >= 0; i = smpol_bitmap_next(&p->standby, i + 1))
		json_object_array_add(standby, json_object_new_int(i));
	json_object_object_add(o, "standby", standby);
	json_object_object_add(o, "notes", json_object_new_string(p->notes ? p->notes : ""));
	/* nodes weighed by their best initiator's number, not this one's (see print_plan) */
	sysfs_remote_nodes(topo, p, remote, sizeof(remote));
	json_object_object_add(o, "best_initiator_only", json_object_new_string(remote));
	return o;
}

static int print_json(const struct smpol_topology *topo, const struct plan_args *a,
		      const struct smpol_bw_origin *origin, const struct smpol_plan *plans, int nplans, bool scaled)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object *warnings = json_object_new_array();
	char warning[SMPOL_ERRLEN + 64];
	int i;

	json_object_object_add(o, "fsroot", json_object_new_string(topo->host->fsroot));
	json_object_object_add(o, "scope", json_object_new_string(smpol_scope_name(a->opts.scope)));
	json_object_object_add(o, "algorithm", json_object_new_string(smpol_algorithm_name(a->opts.algorithm)));
	json_object_object_add(o, "precision", json_object_new_double(a->opts.weight.precision));
	json_object_object_add(o, "mem_kb", a->opts.mem_kb ? json_object_new_int64((int64_t)a->opts.mem_kb) : NULL);
	json_object_object_add(o, "bandwidth_sources", cli_json_bw_origin(origin));
	for (i = 0; i < nplans; i++)
		json_object_array_add(arr, json_plan(topo, &plans[i], scaled ? &plans[1] : NULL));
	json_object_object_add(o, "plans", arr);
	for (i = 0; i < topo->nwarnings; i++)
		json_object_array_add(warnings, json_object_new_string(topo->warnings[i]));
	smpol_bw_origin_warning(origin, warning, sizeof(warning));
	if (warning[0])
		json_object_array_add(warnings, json_object_new_string(warning));
	json_object_object_add(o, "warnings", warnings);
	return cli_print_json(o);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a;
	struct smpol_plan *plans = NULL;
	struct smpol_topology topo;
	struct smpol_bw_table bandwidth;
	struct smpol_bw_origin origin;
	struct cli_site site;
	char err[SMPOL_ERRLEN];
	int nplans = 0, rc;
	bool scaled;

	parse_args(argc, argv, &a);
	if (smpol_topology_read(&a.c.host, &topo, err, sizeof(err))) {
		cli_error(VERB, "%s", err);
		return 1;
	}
	cli_site_read(&a.c, &site);
	if (!cli_site_usable(&a.c, &site, VERB)) {
		smpol_topology_free(&topo);
		return 1;
	}
	if (cli_site_bandwidth(&site, &topo, &bandwidth, &origin) < 0) {
		fprintf(stderr, "mpolctl %s: out of memory\n", VERB);
		smpol_topology_free(&topo);
		return 1;
	}
	a.opts.bandwidth = &bandwidth;
	rc = make_plans(&topo, &a, &plans, &nplans, &scaled);
	if (!rc) {
		if (a.c.json) {
			rc = print_json(&topo, &a, &origin, plans, nplans, scaled);
		} else {
			print_text(&topo, &a, &origin, plans, nplans, scaled);
			rc = fflush(stdout) ? 1 : 0;
		}
	}
	smpol_cpus_free(&a.cpus);
	smpol_plans_free(plans, nplans + (plans && scaled ? 1 : 0));   /* a scaled plan follows the one asked */
	smpol_bw_free(&bandwidth);
	smpol_topology_free(&topo);
	cli_site_free(&site);
	return rc;
}
