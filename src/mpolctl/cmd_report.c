/* cmd_report.c - `mpolctl report -j JOBID[.STEP]`: how a job's memory was placed,
 * read back from its AdminComment in accounting (record.h has the format). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "job_id.h"
#include "job_record.h"
#include "record.h"
#include "text.h"
#include "topology.h"
#include "units.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl report -j JOBID[.STEP] [--json] [--fsroot DIR]\n"
		"\n"
		"Show how a finished job's memory was placed, from the record mem_interleave.so\n"
		"wrote into its AdminComment (or its Extra, with record=extra): per step and\n"
		"node, the mode asked for and applied, the kernel path, the weights, and per NUMA\n"
		"node (with its kind: DRAM, CXL, HBM) the target share, the share achieved at\n"
		"the last sample, and the pages at the last sample and at the peak. Read through\n"
		"sacct: users see their own jobs, operators and admins every job; the fields\n"
		"reach accounting when the job ends. Text from the record is printed escaped.\n"
		"\n"
		"  -j, --job JOBID[.STEP]  the job (1234, 1234_7 for an array task), one step\n"
		"                          of it (1234.0, 1234.batch); one job per run\n"
		"  --json                  print the record as JSON ({\"job\":..., \"mempolicy\":...}):\n"
		"                          as stored (pages of unit_kib KiB, t in Unix seconds),\n"
		"                          and per entry last_bytes, peak_bytes and time (ISO 8601)\n"
		"  --fsroot DIR            the topology read for node kinds the record lacks, when\n"
		"                          reporting on the job's own node (default: $MPOL_FSROOT)\n"
		"  -h, --help              show this help\n");
}

/* Text of the record as it may be printed: anyone who could write the field wrote it.
 * Up to four at a time (one per slot) in one printf. */
static const char *safe(const char *text, int slot)
{
	static char buf[4][512];

	return smpol_text_printable(text, buf[slot & 3], sizeof(buf[0]));
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

/* {"node": pages} as {"node": bytes}: what a script wants without knowing unit_kib. */
static json_object *json_bytes(json_object *pages, int unit_kib)
{
	json_object *bytes = json_object_new_object();

	json_object_object_foreach(pages, key, val)
		json_object_object_add(bytes, key, json_object_new_int64((int64_t)(json_object_get_double(val) *
									   unit_kib * 1024)));
	return bytes;
}

/* Beside each entry's pages and Unix time (the record as stored): last_bytes,
 * peak_bytes and time (ISO 8601, UTC). */
static void json_decode_entries(json_object *steps, int unit_kib)
{
	json_object_object_foreach(steps, step, nodes) {
		(void)step;
		if (!json_object_is_type(nodes, json_type_object))
			continue;
		json_object_object_foreach(nodes, node, entry) {
			json_object *last = get(entry, SMPOL_REC_LAST, json_type_object);
			json_object *peak = get(entry, SMPOL_REC_PEAK, json_type_object);
			json_object *t = get(entry, SMPOL_REC_TIME, json_type_int);
			time_t when = t ? (time_t)json_object_get_int64(t) : 0;
			struct tm tm;
			char iso[32];

			(void)node;
			if (last)
				json_object_object_add(entry, "last_bytes", json_bytes(last, unit_kib));
			if (peak)
				json_object_object_add(entry, "peak_bytes", json_bytes(peak, unit_kib));
			if (t && gmtime_r(&when, &tm) && strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm))
				json_object_object_add(entry, "time", json_object_new_string(iso));
		}
	}
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
	const char *kind = get_str(get(entry, SMPOL_REC_KIND, json_type_object), id, NULL);
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
		json_object *nodes = get(p, SMPOL_REC_NODES, json_type_array), *w = get(p, SMPOL_REC_WEIGHTS, json_type_array);
		json_object *init = get(p, SMPOL_REC_INIT, json_type_int), *served = get(p, SMPOL_REC_SERVES, json_type_object);

		printf("%s", i ? "; " : "weights ");
		for (size_t j = 0; nodes && w && j < json_object_array_length(nodes); j++)
			printf("%s%d:%d", j ? "," : "", json_object_get_int(json_object_array_get_idx(nodes, j)),
			       json_object_get_int(json_object_array_get_idx(w, j)));
		if (served) {
			const char *sep = " (CPU nodes ";

			json_object_object_foreach(served, node, cpus) {
				printf("%s%s: %d CPUs", sep, safe(node, 0), json_object_get_int(cpus));
				sep = ", ";
			}
			printf(")");
		} else if (init && json_object_get_int(init) >= 0) {
			printf(" (CPU node %d)", json_object_get_int(init));
		}
	}
	if (n)
		printf("\n");
}

/* One node's entry (or the step's summary "*"): table rows, then its details. */
static void print_entry(const char *node, json_object *entry, int unit_kib, const struct smpol_topology *local,
			const char *local_host, struct tier_sum *tiers, int *ntiers)
{
	bool summary = !strcmp(node, SMPOL_RECORD_SUMMARY);
	json_object *last = get(entry, SMPOL_REC_LAST, json_type_object), *peak = get(entry, SMPOL_REC_PEAK, json_type_object);
	json_object *target = get(entry, summary ? SMPOL_REC_EXPECTED : SMPOL_REC_TARGET, json_type_object);
	double lsum = sum_of(last), tsum = sum_of(target);
	char label[64];
	int ids[SMPOL_MAX_NODES], n = 0;

	if (summary)
		snprintf(label, sizeof(label), "%d nodes", json_object_get_int(get(entry, SMPOL_REC_COUNT, json_type_int)));
	else
		snprintf(label, sizeof(label), "%s", safe(node, 0));
	add_ids(last, ids, &n, SMPOL_MAX_NODES);
	add_ids(peak, ids, &n, SMPOL_MAX_NODES);
	add_ids(target, ids, &n, SMPOL_MAX_NODES);
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_int);
	for (int i = 0; i < n; i++) {
		char id[16], tshare[16], ashare[16], lsize[24], psize[24];
		const char *kind;

		snprintf(id, sizeof(id), "%d", ids[i]);
		kind = kind_of(entry, id, local && local_host && !strcmp(node, local_host) ? local : NULL);
		format_share(value_at(target, id), tsum, tshare, sizeof(tshare));
		format_share(value_at(last, id), lsum, ashare, sizeof(ashare));
		format_pages(value_at(last, id), unit_kib, lsize, sizeof(lsize));
		format_pages(value_at(peak, id), unit_kib, psize, sizeof(psize));
		printf("%-16s %4d  %-7s %7s %9s %10s %10s\n", i ? "" : label, ids[i], safe(kind, 0), tshare, ashare,
		       lsize, psize);
		if (tsum > 0 && lsum > 0)
			add_tier(tiers, ntiers, kind, value_at(last, id), value_at(target, id) / tsum * lsum);
		else
			add_tier(tiers, ntiers, kind, value_at(last, id), 0);
	}
	if (n == 0)
		printf("%-16s %4s  %-7s %7s %9s %10s %10s\n", label, "-", "-", "-", "-", "-", "-");

	printf("  %s: requested %s, applied %s (kernel path %s)%s\n", label, safe(get_str(entry, SMPOL_REC_REQ, "?"), 1),
	       safe(get_str(entry, SMPOL_REC_MODE, "?"), 2), safe(get_str(entry, SMPOL_REC_PATH, "?"), 3),
	       json_object_get_boolean(get(entry, SMPOL_REC_SYSFS, json_type_boolean)) ? ", wrote the node's weights" : "");
	if (get(entry, SMPOL_REC_PLANS, json_type_array)) {
		printf("  ");
		print_plans(get(entry, SMPOL_REC_PLANS, json_type_array));
	}
	if (get(entry, SMPOL_REC_POLICY, json_type_string))
		printf("  policy seen on the tasks' memory: %s\n", safe(get_str(entry, SMPOL_REC_POLICY, ""), 0));
	if (summary) {
		printf("  tasks: %d; largest drift of one node: %s; nodes with a note: %d\n",
		       json_object_get_int(get(entry, SMPOL_REC_TASKS, json_type_int)),
		       get(entry, SMPOL_REC_DRIFT_MAX, json_type_double) ?
		       json_object_get_string(get(entry, SMPOL_REC_DRIFT_MAX, json_type_double)) : "-",
		       json_object_get_int(get(entry, SMPOL_REC_NOTES, json_type_int)));
	} else {
		int samples = json_object_get_int(get(entry, SMPOL_REC_SAMPLES, json_type_int));
		json_object *drift = get(entry, SMPOL_REC_DRIFT, json_type_double);

		printf("  tasks: %d, samples: %d", json_object_get_int(get(entry, SMPOL_REC_TASKS, json_type_int)), samples);
		if (drift)
			printf(", drift from target %s (0 = exact, 1 = all elsewhere)", json_object_get_string(drift));
		printf("\n");
		if (samples == 0)
			printf("  no page counts: the tasks ended before the first sample (about 1 s after start)\n");
	}
	if (get(entry, SMPOL_REC_REGIONS, json_type_object)) {
		json_object *r = get(entry, SMPOL_REC_REGIONS, json_type_object);

		printf("  large mappings at the last sample: %d placed as allocated, %d by the sampler, %d not on "
		       "the plan\n", json_object_get_int(get(r, SMPOL_REC_ALLOCATION, json_type_int)),
		       json_object_get_int(get(r, SMPOL_REC_SAMPLER, json_type_int)),
		       json_object_get_int(get(r, SMPOL_REC_PENDING, json_type_int)));
	}
	if (get(entry, SMPOL_REC_NOTE, json_type_string))
		printf("  note: %s\n", safe(get_str(entry, SMPOL_REC_NOTE, ""), 0));
}

static void print_step(const char *job, const char *step, json_object *nodes, int unit_kib,
		       const struct smpol_topology *local, const char *local_host)
{
	struct tier_sum tiers[8];
	int ntiers = 0, nnodes = 0;
	double lsum = 0, esum = 0;

	printf("job %s step %s\n", job, safe(step, 0));
	printf("%-16s %4s  %-7s %7s %9s %10s %10s\n", "NODE", "NUMA", "KIND", "TARGET", "ACHIEVED", "LAST", "PEAK");
	json_object_object_foreach(nodes, node, entry) {
		if (!json_object_is_type(entry, json_type_object)) {
			printf("%-16s (malformed entry, skipped)\n", safe(node, 0));
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
			printf("%s %s %s (target %s)", i ? "," : "", safe(tiers[i].kind, 0), a, t);
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

/* The record in the job's Extra (record=extra, Slurm 23.02 on; an sacct without the
 * field fails quietly). 0 with *record, or -ENOENT. */
static int find_in_extra(const char *job, json_object **record)
{
	char err[SMPOL_ERRLEN], *extra = NULL;
	int rc = job_record_field(job, "Extra", &extra, err, sizeof(err));

	if (rc == 0)
		rc = smpol_record_find(extra, record, err, sizeof(err));
	free(extra);
	return rc == 0 ? 0 : -ENOENT;
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
	struct job_id id;
	char err[SMPOL_ERRLEN], host[256], *comment = NULL, *job = id.job_text, *step = id.step;
	const char *jobarg = NULL;
	json_object *record = NULL, *steps;
	int opt, rc, unit_kib;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, "report", argc, argv, ":hj:", options)) != -1) {
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
	if (job_id_parse(jobarg, true, &id, err, sizeof(err)) < 0)
		cli_usage_error("report", "-j: %s", err);

	rc = job_record_field(job, "AdminComment", &comment, err, sizeof(err));
	if (rc == 0)
		rc = smpol_record_find(comment, &record, err, sizeof(err));
	if (rc == -ENOENT && comment && find_in_extra(job, &record) == 0)
		rc = 0;
	if (rc < 0) {
		if (comment && !strncmp(comment, SMPOL_JOBSTATS_MARK, strlen(SMPOL_JOBSTATS_MARK)) && rc == -ENOENT)
			cli_error("report", "job %s has no placement record; its AdminComment holds a jobstats summary "
				  "(" SMPOL_JOBSTATS_MARK "...), and Extra none (where record=extra puts it beside "
				  "jobstats)", job);
		else if (comment && *comment && rc == -ENOENT)
			cli_error("report", "job %s has no placement record; its AdminComment holds "
				  "other text (%zu bytes), left as it is. Was it run with --mem-interleave?",
				  job, strlen(comment));
		else if (comment && rc == -ENOENT)
			cli_error("report", "job %s has no placement record (empty AdminComment). "
				  "Was it run with --mem-interleave, and has it ended?", job);
		else
			cli_error("report", "job %s: %s", job, safe(err, 0));
		free(comment);
		return 1;
	}
	free(comment);

	steps = get(record, SMPOL_REC_STEPS, json_type_object);
	if (!steps) {
		cli_error("report", "job %s: the placement record has no steps (malformed)", job);
		json_object_put(record);
		return 1;
	}
	if (*step && !json_object_object_get_ex(steps, step, NULL)) {
		char recorded[512] = "";

		json_object_object_foreach(steps, key, val) {
			(void)val;
			snprintf(recorded + strlen(recorded), sizeof(recorded) - strlen(recorded), " %s", safe(key, 0));
		}
		cli_error("report", "job %s has no record of step %s; recorded steps:%s", job, step, recorded);
		json_object_put(record);
		return 1;
	}
	unit_kib = get(record, SMPOL_REC_UNIT_KIB, json_type_int) ? json_object_get_int(get(record, SMPOL_REC_UNIT_KIB, json_type_int)) : 4;
	if (c.json) {
		json_object *out = json_object_new_object(), *filtered = record;

		if (*step) {
			/* the record with only the step asked for */
			filtered = json_tokener_parse(json_object_to_json_string(record));
			json_object_object_foreach(get(filtered, SMPOL_REC_STEPS, json_type_object), key, val) {
				(void)val;
				if (strcmp(key, step))
					json_object_object_del(get(filtered, SMPOL_REC_STEPS, json_type_object), key);
			}
			json_object_put(record);
		}
		json_decode_entries(get(filtered, SMPOL_REC_STEPS, json_type_object), unit_kib);
		json_object_object_add(out, "job", json_object_new_string(job));
		json_object_object_add(out, SMPOL_RECORD_KEY, filtered);
		return cli_print_json(out);
	}
	local = local_topology(steps, &c.host, &topo, host, sizeof(host));
	json_object_object_foreach(steps, key, nodes) {
		if (*step && strcmp(key, step))
			continue;
		if (!json_object_is_type(nodes, json_type_object)) {
			printf("job %s step %s: malformed record, skipped\n\n", job, safe(key, 0));
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
