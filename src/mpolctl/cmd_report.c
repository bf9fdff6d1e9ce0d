/* cmd_report.c - `mpolctl report -j JOBID[.STEP]`: how a job's memory was placed,
 * read back from its AdminComment in accounting (record.h has the format). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "job_record.h"
#include "record.h"
#include "topology.h"
#include "units.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl report -j JOBID[.STEP] [--json] [--fsroot DIR]\n"
		"\n"
		"Show how a finished job's memory was placed, from the record mem_interleave.so\n"
		"wrote into its AdminComment: per step and node, the mode asked for and applied,\n"
		"the kernel path, the weights, and per NUMA node (with its kind: DRAM, CXL, HBM)\n"
		"the target share, the share achieved at the last sample, and the pages at the\n"
		"last sample and at the peak. Read through sacct: users see their own jobs,\n"
		"operators and admins every job; AdminComment reaches accounting when the job ends.\n"
		"\n"
		"  -j, --job JOBID[.STEP]  the job (1234, 1234_7 for an array task), one step\n"
		"                          of it (1234.0, 1234.batch)\n"
		"  --json                  print the record as JSON ({\"job\":..., \"mempolicy\":...})\n"
		"  --fsroot DIR            the topology read for node kinds the record lacks, when\n"
		"                          reporting on the job's own node (default: $MPOL_FSROOT)\n"
		"  -h, --help              show this help\n");
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type) ? v : NULL;
}

static const char *get_str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = get(o, key, json_type_string);

	return v ? json_object_get_string(v) : dflt;
}

/* Sum of the numbers in a {"node": n} object. */
static double sum_of(json_object *counts)
{
	double sum = 0;

	if (!counts)
		return 0;
	json_object_object_foreach(counts, key, val) {
		(void)key;
		sum += json_object_get_double(val);
	}
	return sum;
}

static double value_at(json_object *counts, const char *node)
{
	json_object *v;

	return counts && json_object_object_get_ex(counts, node, &v) ? json_object_get_double(v) : 0;
}

static void add_ids(json_object *counts, int *ids, int *n, int max)
{
	if (!counts)
		return;
	json_object_object_foreach(counts, key, val) {
		char *end;
		long id = strtol(key, &end, 10);
		int i;

		(void)val;
		if (*end || id < 0 || id >= SMPOL_MAX_NODES)
			continue;
		for (i = 0; i < *n && ids[i] != id; i++)
			;
		if (i == *n && *n < max)
			ids[(*n)++] = (int)id;
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void format_pages(double pages, int unit_kib, char *buf, size_t len)
{
	if (pages <= 0)
		snprintf(buf, len, "0");
	else
		smpol_format_size((uint64_t)(pages * unit_kib), buf, len);
}

static void format_share(double part, double whole, char *buf, size_t len)
{
	if (whole > 0)
		snprintf(buf, len, "%.1f%%", 100.0 * part / whole);
	else
		snprintf(buf, len, "-");
}

/* The kind of NUMA node id: the record's, else this host's when the job ran here. */
static const char *kind_of(json_object *entry, const char *id, const struct smpol_topology *local)
{
	const char *kind = get_str(get(entry, "kind", json_type_object), id, NULL);
	const struct smpol_node *n;

	if (kind)
		return kind;
	n = local ? smpol_topology_node(local, atoi(id)) : NULL;
	return n ? smpol_node_kind_name(n->kind) : "-";
}

/* Per kind (tier) sums over all nodes of a step: achieved and target pages. */
struct tier_sum {
	char kind[16];
	double last, expect;
};

static void add_tier(struct tier_sum *t, int *nt, const char *kind, double last, double expect)
{
	int i;

	for (i = 0; i < *nt && strcmp(t[i].kind, kind); i++)
		;
	if (i == *nt) {
		if (*nt == 8)
			return;
		snprintf(t[i].kind, sizeof(t[i].kind), "%s", kind);
		t[i].last = t[i].expect = 0;
		(*nt)++;
	}
	t[i].last += last;
	t[i].expect += expect;
}

static void print_plans(json_object *plans)
{
	size_t n = plans ? json_object_array_length(plans) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(plans, i);
		json_object *nodes = get(p, "nodes", json_type_array), *w = get(p, "w", json_type_array);
		json_object *init = get(p, "init", json_type_int);

		printf("%s", i ? "; " : "weights ");
		for (size_t j = 0; nodes && w && j < json_object_array_length(nodes); j++)
			printf("%s%d:%d", j ? "," : "", json_object_get_int(json_object_array_get_idx(nodes, j)),
			       json_object_get_int(json_object_array_get_idx(w, j)));
		if (init && json_object_get_int(init) >= 0)
			printf(" (CPU node %d)", json_object_get_int(init));
	}
	if (n)
		printf("\n");
}

/* One node's entry (or the step's summary "*"): table rows, then its details. */
static void print_entry(const char *node, json_object *entry, int unit_kib, const struct smpol_topology *local,
			const char *local_host, struct tier_sum *tiers, int *ntiers)
{
	bool summary = !strcmp(node, SMPOL_RECORD_SUMMARY);
	json_object *last = get(entry, "last", json_type_object), *peak = get(entry, "peak", json_type_object);
	json_object *target = get(entry, summary ? "exp" : "target", json_type_object);
	double lsum = sum_of(last), tsum = sum_of(target);
	char label[64];
	int ids[SMPOL_MAX_NODES], n = 0;

	if (summary)
		snprintf(label, sizeof(label), "%d nodes", json_object_get_int(get(entry, "n", json_type_int)));
	else
		snprintf(label, sizeof(label), "%s", node);
	add_ids(last, ids, &n, SMPOL_MAX_NODES);
	add_ids(peak, ids, &n, SMPOL_MAX_NODES);
	add_ids(target, ids, &n, SMPOL_MAX_NODES);
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_int);
	for (int i = 0; i < n; i++) {
		char id[16], tshare[16], ashare[16], lsize[16], psize[16];
		const char *kind;

		snprintf(id, sizeof(id), "%d", ids[i]);
		kind = kind_of(entry, id, local && local_host && !strcmp(node, local_host) ? local : NULL);
		format_share(value_at(target, id), tsum, tshare, sizeof(tshare));
		format_share(value_at(last, id), lsum, ashare, sizeof(ashare));
		format_pages(value_at(last, id), unit_kib, lsize, sizeof(lsize));
		format_pages(value_at(peak, id), unit_kib, psize, sizeof(psize));
		printf("%-16s %4d  %-7s %7s %9s %9s %9s\n", i ? "" : label, ids[i], kind, tshare, ashare, lsize, psize);
		if (tsum > 0 && lsum > 0)
			add_tier(tiers, ntiers, kind, value_at(last, id), value_at(target, id) / tsum * lsum);
		else
			add_tier(tiers, ntiers, kind, value_at(last, id), 0);
	}
	if (n == 0)
		printf("%-16s %4s  %-7s %7s %9s %9s %9s\n", label, "-", "-", "-", "-", "-", "-");

	printf("  %s: requested %s, applied %s (kernel path %s)%s\n", label, get_str(entry, "req", "?"),
	       get_str(entry, "mode", "?"), get_str(entry, "path", "?"),
	       json_object_get_boolean(get(entry, "sysfs", json_type_boolean)) ? ", wrote the node's weights" : "");
	if (get(entry, "plans", json_type_array)) {
		printf("  ");
		print_plans(get(entry, "plans", json_type_array));
	}
	if (get(entry, "policy", json_type_string))
		printf("  policy seen on the tasks' memory: %s\n", get_str(entry, "policy", ""));
	if (summary) {
		printf("  tasks: %d; largest drift of one node: %s; nodes with a note: %d\n",
		       json_object_get_int(get(entry, "tasks", json_type_int)),
		       get(entry, "drift_max", json_type_double) ?
		       json_object_get_string(get(entry, "drift_max", json_type_double)) : "-",
		       json_object_get_int(get(entry, "notes", json_type_int)));
	} else {
		int samples = json_object_get_int(get(entry, "samples", json_type_int));
		json_object *drift = get(entry, "drift", json_type_double);

		printf("  tasks: %d, samples: %d", json_object_get_int(get(entry, "tasks", json_type_int)), samples);
		if (drift)
			printf(", drift from target %s (0 = exact, 1 = all elsewhere)", json_object_get_string(drift));
		printf("\n");
		if (samples == 0)
			printf("  no page counts: the tasks ended before the first sample (about 1 s after start)\n");
	}
	if (get(entry, "note", json_type_string))
		printf("  note: %s\n", get_str(entry, "note", ""));
}

static void print_step(const char *job, const char *step, json_object *nodes, int unit_kib,
		       const struct smpol_topology *local, const char *local_host)
{
	struct tier_sum tiers[8];
	int ntiers = 0, nnodes = 0;
	double lsum = 0, esum = 0;

	printf("job %s step %s\n", job, step);
	printf("%-16s %4s  %-7s %7s %9s %9s %9s\n", "NODE", "NUMA", "KIND", "TARGET", "ACHIEVED", "LAST", "PEAK");
	json_object_object_foreach(nodes, node, entry) {
		if (!json_object_is_type(entry, json_type_object)) {
			printf("%-16s (malformed entry, skipped)\n", node);
			continue;
		}
		print_entry(node, entry, unit_kib, local, local_host, tiers, &ntiers);
		nnodes++;
	}
	for (int i = 0; i < ntiers; i++) {
		lsum += tiers[i].last;
		esum += tiers[i].expect;
	}
	if (ntiers > 1 || nnodes > 1) {
		printf("  by kind, all nodes:");
		for (int i = 0; i < ntiers; i++) {
			char a[16], t[16];

			format_share(tiers[i].last, lsum, a, sizeof(a));
			format_share(tiers[i].expect, esum, t, sizeof(t));
			printf("%s %s %s (target %s)", i ? "," : "", tiers[i].kind, a, t);
		}
		printf("\n");
	}
	printf("\n");
}

/* The topology of this host (short name in host) when the record has a node of that
 * name, else NULL. */
static struct smpol_topology *local_topology(json_object *steps, const struct smpol_host *h, struct smpol_topology *topo,
					    char *host, size_t hostlen)
{
	char err[SMPOL_ERRLEN];
	bool here = false;

	host[0] = '\0';
	if (gethostname(host, hostlen - 1) < 0)
		return NULL;
	host[hostlen - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	json_object_object_foreach(steps, step, nodes) {
		(void)step;
		if (json_object_is_type(nodes, json_type_object) && json_object_object_get_ex(nodes, host, NULL))
			here = true;
	}
	if (!here || smpol_topology_read(h, topo, err, sizeof(err)) < 0)
		return NULL;
	return topo;
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "job", required_argument, NULL, 'j' },
		CLI_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c;
	struct smpol_topology topo, *local;
	char job[64], step[32], err[SMPOL_ERRLEN], host[256], *comment = NULL;
	const char *jobarg = NULL;
	json_object *record = NULL, *steps;
	int opt, rc, unit_kib;

	cli_common_init(&c);
	while ((opt = getopt_long(argc, argv, ":hj:", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			jobarg = optarg;
			break;
		default:
			cli_common_option(&c, "report", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&c, "report", argc, argv);
	if (!jobarg)
		cli_usage_error("report", "which job? give -j JOBID[.STEP]");
	if (job_id_split(jobarg, job, sizeof(job), step, sizeof(step), err, sizeof(err)) < 0)
		cli_usage_error("report", "%s", err);

	rc = job_admin_comment(job, &comment, err, sizeof(err));
	if (rc == 0)
		rc = smpol_record_find(comment, &record, err, sizeof(err));
	if (rc < 0) {
		if (comment && *comment && rc == -ENOENT)
			fprintf(stderr, "mpolctl report: job %s has no placement record; its AdminComment holds "
				"other text (%zu bytes), left as it is. Was it run with --mem-interleave?\n",
				job, strlen(comment));
		else if (comment && rc == -ENOENT)
			fprintf(stderr, "mpolctl report: job %s has no placement record (empty AdminComment). "
				"Was it run with --mem-interleave, and has it ended?\n", job);
		else
			fprintf(stderr, "mpolctl report: job %s: %s\n", job, err);
		free(comment);
		return 1;
	}
	free(comment);

	steps = get(record, "steps", json_type_object);
	if (!steps) {
		fprintf(stderr, "mpolctl report: job %s: the placement record has no steps (malformed)\n", job);
		json_object_put(record);
		return 1;
	}
	if (*step && !json_object_object_get_ex(steps, step, NULL)) {
		fprintf(stderr, "mpolctl report: job %s has no record of step %s; recorded steps:", job, step);
		json_object_object_foreach(steps, key, val) {
			(void)val;
			fprintf(stderr, " %s", key);
		}
		fprintf(stderr, "\n");
		json_object_put(record);
		return 1;
	}
	if (c.json) {
		json_object *out = json_object_new_object(), *filtered = record;

		if (*step) {
			/* the record with only the step asked for */
			filtered = json_tokener_parse(json_object_to_json_string(record));
			json_object_object_foreach(get(filtered, "steps", json_type_object), key, val) {
				(void)val;
				if (strcmp(key, step))
					json_object_object_del(get(filtered, "steps", json_type_object), key);
			}
			json_object_put(record);
		}
		json_object_object_add(out, "job", json_object_new_string(job));
		json_object_object_add(out, SMPOL_RECORD_KEY, filtered);
		return cli_print_json(out);
	}
	unit_kib = get(record, "unit_kib", json_type_int) ? json_object_get_int(get(record, "unit_kib", json_type_int)) : 4;
	local = local_topology(steps, &c.host, &topo, host, sizeof(host));
	json_object_object_foreach(steps, key, nodes) {
		if (*step && strcmp(key, step))
			continue;
		if (!json_object_is_type(nodes, json_type_object)) {
			printf("job %s step %s: malformed record, skipped\n\n", job, key);
			continue;
		}
		print_step(job, key, nodes, unit_kib, local, host);
	}
	printf("TARGET: the share the weights in effect aim at; ACHIEVED, LAST: anonymous memory\n"
	       "at the last sample while the tasks ran; PEAK: the most seen on that NUMA node.\n");
	if (local)
		smpol_topology_free(local);
	json_object_put(record);
	return 0;
}
