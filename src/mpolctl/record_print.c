/* record_print.c - `mpolctl report`'s tables (see record_print.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "record_print.h"
#include "step_ids.h"
#include "text.h"
#include "units.h"

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

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, type) ? v : NULL;
}

static const char *get_str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = get(o, key, json_type_string);

	return v ? json_object_get_string(v) : dflt;
}

static int get_int(json_object *o, const char *key)
{
	return json_object_get_int(get(o, key, json_type_int));
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

struct tiers {
	struct tier_sum t[8];
	int n;
};

static void add_tier(struct tiers *tiers, const char *kind, double last, double expect)
{
	struct tier_sum *t = tiers->t;
	int i;

	for (i = 0; i < tiers->n && strcmp(t[i].kind, kind); i++)
		;
	if (i == tiers->n) {
		if (tiers->n == 8)
			return;
		snprintf(t[i].kind, sizeof(t[i].kind), "%s", kind);
		t[i].last = t[i].expect = 0;
		tiers->n++;
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

static const char *drift_max(json_object *entry)
{
	json_object *d = get(entry, SMPOL_REC_DRIFT_MAX, json_type_double);

	return d ? json_object_get_string(d) : "-";
}

/* The counts under an entry's table rows: a node's, a step's summary "*" of its nodes,
 * a group's entry (steps folded: it has "exp"), or a total across steps ("nsteps"). */
static void print_counts(json_object *entry)
{
	int tasks = get_int(entry, SMPOL_REC_TASKS), samples = get_int(entry, SMPOL_REC_SAMPLES);
	json_object *drift = get(entry, SMPOL_REC_DRIFT, json_type_double);

	if (get(entry, SMPOL_REC_NSTEPS, json_type_int)) {
		printf("  steps: %d, tasks: %d; largest drift of one node in one step: %s; entries with a note: %d\n",
		       get_int(entry, SMPOL_REC_NSTEPS), tasks, drift_max(entry), get_int(entry, SMPOL_REC_NOTES));
	} else if (get(entry, SMPOL_REC_COUNT, json_type_int)) {
		printf("  tasks: %d; largest drift of one node: %s; nodes with a note: %d\n", tasks, drift_max(entry),
		       get_int(entry, SMPOL_REC_NOTES));
	} else if (get(entry, SMPOL_REC_EXPECTED, json_type_object)) {
		printf("  tasks: %d, samples: %d, over the steps; largest drift of one step: %s\n", tasks, samples,
		       drift_max(entry));
	} else {
		printf("  tasks: %d, samples: %d", tasks, samples);
		if (drift)
			printf(", drift from target %s (0 = exact, 1 = all elsewhere)", json_object_get_string(drift));
		printf("\n");
		if (samples == 0)
			printf("  no page counts: the tasks ended before the first sample (about 1 s after start)\n");
	}
}

/* One entry: table rows under label, then its details. node: the Slurm node it is
 * of, NULL for a summary of several. */
static void print_entry(const struct record_print *p, const char *label, const char *node, json_object *entry,
			struct tiers *tiers)
{
	json_object *last = get(entry, SMPOL_REC_LAST, json_type_object), *peak = get(entry, SMPOL_REC_PEAK, json_type_object);
	json_object *target = get(entry, SMPOL_REC_EXPECTED, json_type_object);
	const struct smpol_topology *local = p->local && node && !strcmp(node, p->local_host) ? p->local : NULL;
	double lsum, tsum;
	int ids[SMPOL_MAX_NODES], n = 0;

	if (!target)
		target = get(entry, SMPOL_REC_TARGET, json_type_object);
	lsum = sum_of(last);
	tsum = sum_of(target);
	add_ids(last, ids, &n, SMPOL_MAX_NODES);
	add_ids(peak, ids, &n, SMPOL_MAX_NODES);
	add_ids(target, ids, &n, SMPOL_MAX_NODES);
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_int);
	for (int i = 0; i < n; i++) {
		char id[16], tshare[16], ashare[16], lsize[24], psize[24];
		const char *kind;

		snprintf(id, sizeof(id), "%d", ids[i]);
		kind = kind_of(entry, id, local);
		format_share(value_at(target, id), tsum, tshare, sizeof(tshare));
		format_share(value_at(last, id), lsum, ashare, sizeof(ashare));
		format_pages(value_at(last, id), p->unit_kib, lsize, sizeof(lsize));
		format_pages(value_at(peak, id), p->unit_kib, psize, sizeof(psize));
		printf("%-16s %4d  %-7s %7s %9s %10s %10s\n", i ? "" : label, ids[i], safe(kind, 0), tshare, ashare,
		       lsize, psize);
		add_tier(tiers, kind, value_at(last, id), tsum > 0 && lsum > 0 ? value_at(target, id) / tsum * lsum : 0);
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
	print_counts(entry);
	if (get(entry, SMPOL_REC_REGIONS, json_type_object)) {
		json_object *r = get(entry, SMPOL_REC_REGIONS, json_type_object);

		printf("  large mappings at the last sample: %d placed as allocated, %d by the sampler, %d not on "
		       "the plan\n", get_int(r, SMPOL_REC_ALLOCATION), get_int(r, SMPOL_REC_SAMPLER),
		       get_int(r, SMPOL_REC_PENDING));
	}
	if (get(entry, SMPOL_REC_NOTE, json_type_string))
		printf("  note: %s\n", safe(get_str(entry, SMPOL_REC_NOTE, ""), 0));
}

/* The names a summary keeps, on one line; or that it lost them. */
static void print_hosts(json_object *summary)
{
	json_object *hosts = get(summary, SMPOL_REC_HOSTS, json_type_array);

	if (!hosts) {
		printf("  node names: dropped to fit the field\n");
		return;
	}
	printf("  nodes:");
	for (size_t i = 0; i < json_object_array_length(hosts); i++)
		printf(" %s", safe(json_object_get_string(json_object_array_get_idx(hosts, i)), 0));
	printf("\n");
}

/* The first column of a summary "*": its node count when it has one. */
static void summary_label(json_object *summary, char *buf, size_t len)
{
	if (get(summary, SMPOL_REC_COUNT, json_type_int))
		snprintf(buf, len, "%d nodes", get_int(summary, SMPOL_REC_COUNT));
	else
		snprintf(buf, len, "several nodes");
}

static void print_tiers(const struct tiers *tiers, int nentries)
{
	double lsum = 0, esum = 0;

	for (int i = 0; i < tiers->n; i++) {
		lsum += tiers->t[i].last;
		esum += tiers->t[i].expect;
	}
	if (tiers->n > 1 || nentries > 1) {
		printf("  by kind, all nodes:");
		for (int i = 0; i < tiers->n; i++) {
			char a[16], t[16];

			format_share(tiers->t[i].last, lsum, a, sizeof(a));
			format_share(tiers->t[i].expect, esum, t, sizeof(t));
			printf("%s %s %s (target %s)", i ? "," : "", safe(tiers->t[i].kind, 0), a, t);
		}
		printf("\n");
	}
	printf("\n");
}

static void print_header(void)
{
	printf("%-16s %4s  %-7s %7s %9s %10s %10s\n", "NODE", "NUMA", "KIND", "TARGET", "ACHIEVED", "LAST", "PEAK");
}

/* A step's entries, or a folded part's ({NODE:ENTRY}), under a title line. */
static void print_entries(const struct record_print *p, const char *title, json_object *entries)
{
	struct tiers tiers = { .n = 0 };
	int n = 0;

	printf("%s\n", title);
	print_header();
	if (!entries)
		entries = json_object_new_object();
	else
		json_object_get(entries);
	json_object_object_foreach(entries, node, entry) {
		char label[64];
		bool summary = !strcmp(node, SMPOL_RECORD_SUMMARY);

		if (!json_object_is_type(entry, json_type_object)) {
			printf("%-16s (malformed entry, skipped)\n", safe(node, 0));
			continue;
		}
		if (summary)
			summary_label(entry, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%s", safe(node, 0));
		print_entry(p, label, summary ? NULL : node, entry, &tiers);
		if (summary && get(entry, SMPOL_REC_NSTEPS, json_type_int))
			print_hosts(entry);
		n++;
	}
	json_object_put(entries);
	print_tiers(&tiers, n);
}

/* ---- the folded parts ---- */

/* What a folded part lists ("steps 0-131,140"), or that it no longer does. */
static void part_steps(json_object *part, char *buf, size_t len)
{
	const char *ids = get_str(part, SMPOL_REC_IDS, NULL);

	if (ids)
		snprintf(buf, len, "steps %s", safe(ids, 0));
	else
		snprintf(buf, len, "steps no longer listed");
}

/* Whether a step list ("0-131,140", step_ids.h) lists step. */
static bool ids_hold(const char *text, const char *step)
{
	struct smpol_step_ids ids;
	bool holds;

	smpol_step_ids_init(&ids);
	holds = smpol_step_ids_parse(text, &ids, NULL, 0) == 0 && smpol_step_ids_has(&ids, step);
	smpol_step_ids_free(&ids);
	return holds;
}

/* Whether a folded part lists step, or counts steps it no longer lists. */
static bool part_holds(json_object *part, const char *step)
{
	const char *text = get_str(part, SMPOL_REC_IDS, NULL);

	return text ? ids_hold(text, step) : get_int(part, SMPOL_REC_NSTEPS) > 0;
}

static void print_folded(const struct record_print *p, json_object *folded, const char *step)
{
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array), *by_node = get(folded, SMPOL_REC_BY_NODE, json_type_object);
	json_object *job = get(folded, SMPOL_REC_JOB, json_type_object);
	char title[600], steps[512];

	for (size_t i = 0; same && i < json_object_array_length(same); i++) {
		json_object *group = json_object_array_get_idx(same, i);

		if (*step && !part_holds(group, step))
			continue;
		part_steps(group, steps, sizeof(steps));
		snprintf(title, sizeof(title), "job %s %s: %d identical steps, folded", p->job, steps,
			 get_int(group, SMPOL_REC_NSTEPS));
		print_entries(p, title, get(group, SMPOL_REC_ENTRIES, json_type_object));
	}
	if (by_node && (!*step || part_holds(by_node, step))) {
		part_steps(by_node, steps, sizeof(steps));
		snprintf(title, sizeof(title), "job %s %s: %d steps, folded per node", p->job, steps,
			 get_int(by_node, SMPOL_REC_NSTEPS));
		print_entries(p, title, get(by_node, SMPOL_REC_ENTRIES, json_type_object));
	}
	if (job && (!*step || part_holds(job, step))) {
		struct tiers tiers = { .n = 0 };

		part_steps(job, steps, sizeof(steps));
		printf("job %s %s: %d steps, folded into one total for the job\n", p->job, steps, get_int(job, SMPOL_REC_NSTEPS));
		print_header();
		print_entry(p, "all nodes", NULL, job, &tiers);
		print_hosts(job);
		print_tiers(&tiers, 1);
	}
}

/* The nodes a step's record was written without (record_missing.h): lost, or their
 * entries never reached the step's writer. */
static void print_missing(const struct record_print *p, json_object *record, const char *step)
{
	json_object *missing = get(record, SMPOL_REC_MISSING, json_type_object);
	bool any = false;

	if (!missing)
		return;
	json_object_object_foreach(missing, node, ids) {
		if (!json_object_is_type(ids, json_type_string) || (*step && !ids_hold(json_object_get_string(ids), step)))
			continue;
		printf("job %s node %s: no entry (lost) for step%s %s\n", p->job, safe(node, 0),
		       strpbrk(json_object_get_string(ids), ",-") ? "s" : "", safe(json_object_get_string(ids), 1));
		any = true;
	}
	if (any)
		printf("(the node went down, or its entry never reached the step's writer)\n\n");
}

void record_print(const struct record_print *p, json_object *record, const char *step)
{
	json_object *steps = get(record, SMPOL_REC_STEPS, json_type_object), *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	char title[600];
	uint32_t run = smpol_record_run_of(record);

	/* sacct shows a job's latest row: a requeued job's earlier runs are rows of their own */
	if (run > 0)
		printf("job %s: the record of its run %u (the job was requeued; each run's record is in its own "
		       "row: sacct -D -j %s -o JobID,State,AdminComment)\n\n", p->job, run, p->job);
	if (steps) {
		json_object_object_foreach(steps, key, nodes) {
			if (*step && strcmp(key, step))
				continue;
			if (!json_object_is_type(nodes, json_type_object)) {
				printf("job %s step %s: malformed record, skipped\n\n", p->job, safe(key, 0));
				continue;
			}
			snprintf(title, sizeof(title), "job %s step %s", p->job, safe(key, 0));
			print_entries(p, title, nodes);
		}
	}
	if (folded)
		print_folded(p, folded, step);
	print_missing(p, record, step);
	printf("TARGET: the share the weights in effect aim at; ACHIEVED, LAST: anonymous memory\n"
	       "at the last sample while the tasks ran; PEAK: the most seen on that NUMA node.\n");
	if (folded)
		printf("Folded steps: LAST adds up the steps' last samples, TARGET their expected pages,\n"
		       "PEAK is the most one node saw in one step (mem_interleave(8), RECORD).\n");
}

bool record_holds(json_object *record, const char *step)
{
	json_object *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array);

	if (get(get(record, SMPOL_REC_STEPS, json_type_object), step, json_type_object))
		return true;
	for (size_t i = 0; same && i < json_object_array_length(same); i++)
		if (part_holds(json_object_array_get_idx(same, i), step))
			return true;
	return (get(folded, SMPOL_REC_BY_NODE, json_type_object) && part_holds(get(folded, SMPOL_REC_BY_NODE, json_type_object), step)) ||
	       (get(folded, SMPOL_REC_JOB, json_type_object) && part_holds(get(folded, SMPOL_REC_JOB, json_type_object), step));
}

/* ---- which steps and nodes ---- */

bool record_has_node(json_object *record, const char *node)
{
	json_object *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array), *steps = get(record, SMPOL_REC_STEPS, json_type_object);

	if (steps) {
		json_object_object_foreach(steps, step, nodes) {
			(void)step;
			if (get(nodes, node, json_type_object))
				return true;
		}
	}
	for (size_t i = 0; same && i < json_object_array_length(same); i++)
		if (get(get(json_object_array_get_idx(same, i), SMPOL_REC_ENTRIES, json_type_object), node, json_type_object))
			return true;
	return get(get(get(folded, SMPOL_REC_BY_NODE, json_type_object), SMPOL_REC_ENTRIES, json_type_object), node,
		   json_type_object) != NULL;
}

static void add_part_steps(json_object *part, struct smpol_step_ids *all, size_t *unlisted)
{
	const char *text = get_str(part, SMPOL_REC_IDS, NULL);

	if (!part)
		return;
	if (!text || smpol_step_ids_parse(text, all, NULL, 0) < 0)
		*unlisted += (size_t)get_int(part, SMPOL_REC_NSTEPS);
}

char *record_steps(json_object *record, size_t *unlisted)
{
	json_object *steps = get(record, SMPOL_REC_STEPS, json_type_object), *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array);
	struct smpol_step_ids all;
	char *text;

	*unlisted = 0;
	smpol_step_ids_init(&all);
	if (steps) {
		json_object_object_foreach(steps, key, nodes) {
			(void)nodes;
			if (smpol_step_ids_add(&all, key, NULL, 0) < 0)
				(*unlisted)++;
		}
	}
	for (size_t i = 0; same && i < json_object_array_length(same); i++)
		add_part_steps(json_object_array_get_idx(same, i), &all, unlisted);
	add_part_steps(get(folded, SMPOL_REC_BY_NODE, json_type_object), &all, unlisted);
	add_part_steps(get(folded, SMPOL_REC_JOB, json_type_object), &all, unlisted);
	text = smpol_step_ids_format(&all);
	smpol_step_ids_free(&all);
	return text;
}

void record_keep_step(json_object *record, const char *step)
{
	json_object *steps = get(record, SMPOL_REC_STEPS, json_type_object), *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array);
	const char *parts[] = { SMPOL_REC_BY_NODE, SMPOL_REC_JOB };

	if (steps) {
		json_object_object_foreach(steps, key, nodes) {
			(void)nodes;
			if (strcmp(key, step))
				json_object_object_del(steps, key);
		}
	}
	for (size_t i = same ? json_object_array_length(same) : 0; i-- > 0;)
		if (!part_holds(json_object_array_get_idx(same, i), step))
			json_object_array_del_idx(same, i, 1);
	for (size_t i = 0; folded && i < sizeof(parts) / sizeof(parts[0]); i++)
		if (get(folded, parts[i], json_type_object) && !part_holds(get(folded, parts[i], json_type_object), step))
			json_object_object_del(folded, parts[i]);
}
