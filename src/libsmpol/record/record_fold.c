/* record_fold.c - fold a placement record into its budget (see record_fold.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "record.h"
#include "record_fold.h"
#include "record_json.h"
#include "step_ids.h"

#define get smpol_rec_get

/* What changes from one run of a step to the next: left out when steps are compared,
 * added up when they are folded (the last three are what folding makes of the others). */
static const char *const varying[] = {
	SMPOL_REC_TASKS, SMPOL_REC_SAMPLES, SMPOL_REC_TIME, SMPOL_REC_LAST, SMPOL_REC_PEAK,
	SMPOL_REC_REGIONS, SMPOL_REC_TARGET, SMPOL_REC_DRIFT, SMPOL_REC_EXPECTED, SMPOL_REC_DRIFT_MAX,
};

static void set_int(json_object *obj, const char *key, int64_t v)
{
	json_object_object_add(obj, key, json_object_new_int64(v));
}

/* A text every folded entry shares (the mode asked for, applied, the path), or "mixed". */
static void fold_text(json_object *sum, json_object *entry, const char *key)
{
	json_object *m = get(entry, key), *s = get(sum, key);
	const char *mine = json_object_is_type(m, json_type_string) ? json_object_get_string(m) : NULL;
	const char *so_far = json_object_is_type(s, json_type_string) ? json_object_get_string(s) : NULL;

	if (mine && (!so_far || strcmp(so_far, mine)))
		json_object_object_add(sum, key, json_object_new_string(so_far ? "mixed" : mine));
}

/*
 * Add what entry counts (a node's entry, or one folded already) into sum: tasks,
 * samples, pages, large mappings by how they were placed, expected pages, drift. peak_sum:
 * the entries are the nodes of one step, whose peaks add up; across steps the largest
 * peak is kept instead.
 */
static void add_numbers(json_object *sum, json_object *entry, bool peak_sum)
{
	json_object *last = get(entry, SMPOL_REC_LAST), *exp = get(entry, SMPOL_REC_EXPECTED);
	double drift_max = smpol_rec_double(sum, SMPOL_REC_DRIFT_MAX, -1);
	const char *drifts[] = { SMPOL_REC_DRIFT, SMPOL_REC_DRIFT_MAX };
	json_object *t = get(entry, SMPOL_REC_TIME);

	set_int(sum, SMPOL_REC_TASKS, smpol_rec_add_counts(smpol_rec_count(sum, SMPOL_REC_TASKS),
							   smpol_rec_count(entry, SMPOL_REC_TASKS)));
	if (get(entry, SMPOL_REC_SAMPLES))
		set_int(sum, SMPOL_REC_SAMPLES, smpol_rec_add_counts(smpol_rec_count(sum, SMPOL_REC_SAMPLES),
								     smpol_rec_count(entry, SMPOL_REC_SAMPLES)));
	if (json_object_is_type(t, json_type_int) && json_object_get_int64(t) > json_object_get_int64(get(sum, SMPOL_REC_TIME)))
		set_int(sum, SMPOL_REC_TIME, json_object_get_int64(t));
	smpol_rec_add_pages(smpol_rec_child(sum, SMPOL_REC_LAST), last, 1, true, false);
	smpol_rec_add_pages(smpol_rec_child(sum, SMPOL_REC_PEAK), get(entry, SMPOL_REC_PEAK), 1, true, !peak_sum);
	/* region-aware steps: large mappings by how they were placed */
	if (get(entry, SMPOL_REC_REGIONS))
		smpol_rec_add_pages(smpol_rec_child(sum, SMPOL_REC_REGIONS), get(entry, SMPOL_REC_REGIONS), 1, true, false);
	/* expected pages: the target shares times the pages they apply to */
	if (exp)
		smpol_rec_add_pages(smpol_rec_child(sum, SMPOL_REC_EXPECTED), exp, 1, false, false);
	else
		smpol_rec_add_pages(smpol_rec_child(sum, SMPOL_REC_EXPECTED), get(entry, SMPOL_REC_TARGET),
				    smpol_rec_total(last), false, false);
	for (size_t i = 0; i < sizeof(drifts) / sizeof(drifts[0]); i++) {
		double d = smpol_rec_double(entry, drifts[i], -1);

		if (isfinite(d) && d > drift_max)
			drift_max = d;
	}
	if (drift_max >= 0 && drift_max > smpol_rec_double(sum, SMPOL_REC_DRIFT_MAX, -1))
		json_object_object_add(sum, SMPOL_REC_DRIFT_MAX, smpol_rec_ratio(drift_max));
}

/* Count the entries with a note among the `times` entries entry stands for, and keep
 * the first note. */
static void add_notes(json_object *sum, json_object *entry, int times)
{
	json_object *note = get(entry, SMPOL_REC_NOTE);
	int64_t notes = get(entry, SMPOL_REC_NOTES) ? smpol_rec_count(entry, SMPOL_REC_NOTES) : note ? 1 : 0;

	if (notes == 0)
		return;
	notes *= times;
	set_int(sum, SMPOL_REC_NOTES, smpol_rec_add_counts(smpol_rec_count(sum, SMPOL_REC_NOTES),
							   notes > INT_MAX ? INT_MAX : (int)notes));
	if (note && !get(sum, SMPOL_REC_NOTE))
		json_object_object_add(sum, SMPOL_REC_NOTE, json_object_get(note));
}

/* The kind of each NUMA node ("dram", "cxl"), "mixed" where the entries differ (NUMA
 * node 1 of one node is CXL, of another HBM). */
static void fold_kinds(json_object *total, json_object *entry)
{
	json_object *kinds = get(entry, SMPOL_REC_KIND);

	if (!json_object_is_type(kinds, json_type_object))
		return;
	json_object_object_foreach(kinds, id, kind) {
		(void)kind;
		fold_text(smpol_rec_child(total, SMPOL_REC_KIND), kinds, id);
	}
}

/* A total (a step's "*", a node's or the job's across steps) takes entry's modes,
 * node kinds, numbers and notes. */
static void add_to_total(json_object *total, json_object *entry, bool peak_sum, int times)
{
	fold_text(total, entry, SMPOL_REC_REQ);
	fold_text(total, entry, SMPOL_REC_MODE);
	fold_text(total, entry, SMPOL_REC_PATH);
	fold_kinds(total, entry);
	add_numbers(total, entry, peak_sum);
	add_notes(total, entry, times);
}

static void add_host(json_object *hosts, const char *node)
{
	if (json_object_is_type(hosts, json_type_array))
		json_object_array_add(hosts, json_object_new_string(node));
}

void smpol_record_summary_add(json_object *summary, const char *node, json_object *entry)
{
	bool fresh = !get(summary, SMPOL_REC_COUNT);

	if (!fresh && smpol_rec_names(summary, node))
		return;
	if (fresh)
		json_object_object_add(summary, SMPOL_REC_HOSTS, json_object_new_array());
	set_int(summary, SMPOL_REC_COUNT, smpol_rec_add_counts(smpol_rec_count(summary, SMPOL_REC_COUNT), 1));
	add_host(get(summary, SMPOL_REC_HOSTS), node);
	add_to_total(summary, entry, true, 1);
}

/* A summary's node names take those of another: the union, or none when the other
 * lost its names (then this one cannot name every node either). */
static void add_hosts_of(json_object *summary, json_object *other)
{
	json_object *theirs = get(other, SMPOL_REC_HOSTS);

	if (!json_object_is_type(theirs, json_type_array)) {
		json_object_object_del(summary, SMPOL_REC_HOSTS);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(theirs); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(theirs, i));

		if (name && !smpol_rec_names(summary, name))
			add_host(get(summary, SMPOL_REC_HOSTS), name);
	}
}

/* ---- the steps a folded part lists ---- */

/* The steps part lists, into ids; false when it counts steps it no longer lists (or
 * lists them in a damaged form). A new part lists its zero steps. */
static bool read_ids(json_object *part, struct smpol_step_ids *ids)
{
	json_object *v = get(part, SMPOL_REC_IDS);

	smpol_step_ids_init(ids);
	if (!v)
		return smpol_rec_count(part, SMPOL_REC_NSTEPS) == 0;
	return json_object_is_type(v, json_type_string) &&
	       smpol_step_ids_parse(json_object_get_string(v), ids, NULL, 0) == 0;
}

/* part lists and counts the steps of ids besides its own (n of them); known: false
 * when the steps are counted but not listed. A list that cannot be had (a part or
 * ids that lost theirs, or past SMPOL_STEP_IDS_MAX) goes, and the count goes on. */
static int add_steps(json_object *part, const struct smpol_step_ids *ids, bool known, int n,
		     char *err, size_t errlen)
{
	struct smpol_step_ids mine;
	char *text = NULL;
	int rc = -ENODATA;

	if (read_ids(part, &mine) && known) {
		rc = smpol_step_ids_merge(&mine, ids, err, errlen);
		if (rc == 0 && !(text = smpol_step_ids_format(&mine)))
			rc = smpol_fail(err, errlen, ENOMEM, "out of memory folding the placement record");
	}
	if (rc == 0) {
		json_object_object_add(part, SMPOL_REC_IDS, json_object_new_string(text));
		set_int(part, SMPOL_REC_NSTEPS, (int64_t)smpol_step_ids_count(&mine));
	} else if (rc == -ENODATA || rc == -E2BIG) {
		json_object_object_del(part, SMPOL_REC_IDS);
		set_int(part, SMPOL_REC_NSTEPS, smpol_rec_add_counts(smpol_rec_count(part, SMPOL_REC_NSTEPS), n));
		rc = 0;
	}
	free(text);
	smpol_step_ids_free(&mine);
	return rc;
}

/* ---- 1. identical steps ---- */

/* What makes two steps the same: their {NODE:ENTRY} without what varies. */
static json_object *step_shape(json_object *nodes)
{
	json_object *shape = json_object_new_object();

	if (!json_object_is_type(nodes, json_type_object))
		return shape;
	json_object_object_foreach(nodes, node, entry) {
		json_object *copy = NULL;

		if (json_object_deep_copy(entry, &copy, NULL) < 0)
			continue;
		for (size_t i = 0; json_object_is_type(copy, json_type_object) && i < sizeof(varying) / sizeof(varying[0]); i++)
			json_object_object_del(copy, varying[i]);
		json_object_object_add(shape, node, copy);
	}
	return shape;
}

static json_object *folded_part(json_object *record, const char *key)
{
	return get(get(record, SMPOL_REC_FOLDED), key);
}

/* The group of steps in "same" shaped like shape, or NULL. */
static json_object *group_like(json_object *same, json_object *shape)
{
	for (size_t i = 0; json_object_is_type(same, json_type_array) && i < json_object_array_length(same); i++) {
		json_object *g = json_object_array_get_idx(same, i), *other = step_shape(get(g, SMPOL_REC_ENTRIES));
		bool like = json_object_equal(other, shape);

		json_object_put(other);
		if (like)
			return g;
	}
	return NULL;
}

/* Fold step (of "steps") into the group of steps identical to it, a new group when
 * none is. */
static int fold_step(json_object *record, const char *step, char *err, size_t errlen)
{
	json_object *steps = get(record, SMPOL_REC_STEPS), *nodes = get(steps, step);
	json_object *folded = smpol_rec_child(record, SMPOL_REC_FOLDED), *same = get(folded, SMPOL_REC_SAME);
	json_object *shape = step_shape(nodes), *group, *entries;
	struct smpol_step_ids one;
	int rc;

	if (!json_object_is_type(same, json_type_array)) {
		same = json_object_new_array();
		json_object_object_add(folded, SMPOL_REC_SAME, same);
	}
	group = group_like(same, shape);
	if (!group) {
		group = json_object_new_object();
		json_object_object_add(group, SMPOL_REC_ENTRIES, json_object_get(shape));
		json_object_array_add(same, group);
	}
	json_object_put(shape);
	entries = smpol_rec_child(group, SMPOL_REC_ENTRIES);
	smpol_step_ids_init(&one);
	rc = smpol_step_ids_add(&one, step, err, errlen);
	if (rc == 0)
		rc = add_steps(group, &one, true, 1, err, errlen);
	smpol_step_ids_free(&one);
	if (rc < 0)
		return rc;
	if (json_object_is_type(nodes, json_type_object)) {
		json_object_object_foreach(nodes, node, entry)
			add_numbers(smpol_rec_child(entries, node), entry, false);
	}
	json_object_object_del(steps, step);
	return 0;
}

/* The oldest step of "steps" that can be listed, but keep_step; NULL when none. */
static const char *oldest_step(json_object *record, const char *keep_step)
{
	json_object *steps = get(record, SMPOL_REC_STEPS);
	const char *oldest = NULL;

	if (!json_object_is_type(steps, json_type_object))
		return NULL;
	json_object_object_foreach(steps, step, nodes) {
		(void)nodes;
		if (strcmp(step, keep_step) && smpol_step_key_listable(step) &&
		    (!oldest || smpol_step_key_cmp(step, oldest) < 0))
			oldest = step;
	}
	return oldest;
}

/* ---- 2. per node ---- */

/* The newest step of a set, as smpol_step_key_cmp orders them: named steps after
 * numbered ones. -1, 0, 1 as a's newest is older, the same, newer than b's. */
static int newest_cmp(const struct smpol_step_ids *a, const struct smpol_step_ids *b)
{
	int na = a->nnames ? 2 : a->n ? 1 : 0, nb = b->nnames ? 2 : b->n ? 1 : 0;

	if (na != nb)
		return na < nb ? -1 : 1;
	if (na == 2)
		return strcmp(a->names[a->nnames - 1], b->names[b->nnames - 1]);
	if (na == 1)
		return a->ids[a->n - 1] < b->ids[b->n - 1] ? -1 : a->ids[a->n - 1] > b->ids[b->n - 1];
	return 0;
}

/* The index in "same" of the group whose newest step is the oldest (one whose list is
 * lost goes first); -1 when there is none. */
static int oldest_group(json_object *same)
{
	struct smpol_step_ids best, ids;
	int at = -1;

	smpol_step_ids_init(&best);
	for (size_t i = 0; json_object_is_type(same, json_type_array) && i < json_object_array_length(same); i++) {
		bool known = read_ids(json_object_array_get_idx(same, i), &ids);

		if (!known) {
			smpol_step_ids_free(&ids);
			smpol_step_ids_free(&best);
			return (int)i;
		}
		if (at < 0 || newest_cmp(&ids, &best) < 0) {
			smpol_step_ids_free(&best);
			best = ids;
			at = (int)i;
		} else {
			smpol_step_ids_free(&ids);
		}
	}
	smpol_step_ids_free(&best);
	return at;
}

/* Fold a part ({"ids","nsteps"} of entries) into another's step list. */
static int add_steps_of(json_object *into, json_object *part, char *err, size_t errlen)
{
	struct smpol_step_ids ids;
	bool known = read_ids(part, &ids);
	int rc = add_steps(into, &ids, known, smpol_rec_count(part, SMPOL_REC_NSTEPS), err, errlen);

	smpol_step_ids_free(&ids);
	return rc;
}

/* Fold group `at` of "same" into "by_node". */
static int fold_group(json_object *record, int at, char *err, size_t errlen)
{
	json_object *folded = get(record, SMPOL_REC_FOLDED), *same = get(folded, SMPOL_REC_SAME);
	json_object *group = json_object_array_get_idx(same, (size_t)at), *entries = get(group, SMPOL_REC_ENTRIES);
	json_object *by_node = smpol_rec_child(folded, SMPOL_REC_BY_NODE), *totals;
	int nsteps = smpol_rec_count(group, SMPOL_REC_NSTEPS), rc;

	rc = add_steps_of(by_node, group, err, errlen);
	if (rc < 0)
		return rc;
	totals = smpol_rec_child(by_node, SMPOL_REC_ENTRIES);
	if (json_object_is_type(entries, json_type_object)) {
		json_object_object_foreach(entries, node, entry) {
			json_object *total = get(totals, node);
			bool star = !strcmp(node, SMPOL_RECORD_SUMMARY);

			if (!json_object_is_type(total, json_type_object)) {
				total = json_object_new_object();
				if (star)
					json_object_object_add(total, SMPOL_REC_HOSTS, json_object_new_array());
				json_object_object_add(totals, node, total);
			}
			set_int(total, SMPOL_REC_NSTEPS, smpol_rec_add_counts(smpol_rec_count(total, SMPOL_REC_NSTEPS), nsteps));
			add_to_total(total, entry, false, nsteps);
			if (star)
				add_hosts_of(total, entry);
		}
	}
	json_object_array_del_idx(same, (size_t)at, 1);
	if (json_object_array_length(same) == 0)
		json_object_object_del(folded, SMPOL_REC_SAME);
	return 0;
}

/* ---- 3. the job ---- */

static int fold_by_node(json_object *record, char *err, size_t errlen)
{
	json_object *folded = get(record, SMPOL_REC_FOLDED), *by_node = get(folded, SMPOL_REC_BY_NODE);
	json_object *job = smpol_rec_child(folded, SMPOL_REC_JOB), *totals = get(by_node, SMPOL_REC_ENTRIES);
	int rc;

	if (!get(job, SMPOL_REC_NSTEPS) && !get(job, SMPOL_REC_IDS))
		json_object_object_add(job, SMPOL_REC_HOSTS, json_object_new_array());
	rc = add_steps_of(job, by_node, err, errlen);
	if (rc < 0)
		return rc;
	if (json_object_is_type(totals, json_type_object)) {
		json_object_object_foreach(totals, node, total) {
			add_to_total(job, total, false, 1);
			if (!strcmp(node, SMPOL_RECORD_SUMMARY))
				add_hosts_of(job, total);
			else if (!smpol_rec_names(job, node))
				add_host(get(job, SMPOL_REC_HOSTS), node);
		}
	}
	json_object_object_del(folded, SMPOL_REC_BY_NODE);
	return 0;
}

/* ---- 4. the step being written ---- */

/* Replace the step's node entries by one summary "*"; false when it has one already,
 * or fewer than two entries (a summary of one node saves nothing). */
static bool summarize_step(json_object *record, const char *step)
{
	json_object *steps = get(record, SMPOL_REC_STEPS), *nodes = get(steps, step), *fresh, *summary;

	if (!json_object_is_type(nodes, json_type_object) || get(nodes, SMPOL_RECORD_SUMMARY) ||
	    json_object_object_length(nodes) < 2)
		return false;
	fresh = json_object_new_object();
	summary = smpol_rec_child(fresh, SMPOL_RECORD_SUMMARY);
	json_object_object_foreach(nodes, node, entry)
		smpol_record_summary_add(summary, node, entry);
	json_object_object_add(steps, step, fresh);
	return true;
}

/* ---- 5. the last resorts ---- */

/* Drop the job's node names; false when it has none. */
static bool drop_job_hosts(json_object *record)
{
	json_object *job = folded_part(record, SMPOL_REC_JOB);

	if (!get(job, SMPOL_REC_HOSTS))
		return false;
	json_object_object_del(job, SMPOL_REC_HOSTS);
	return true;
}

/* Drop one list of names: the job's step list, then the node names of the summaries
 * still in "steps", keep_step's last (its writers confirm their entries by them).
 * false when none is left. */
static bool drop_names(json_object *record, const char *keep_step)
{
	json_object *job = folded_part(record, SMPOL_REC_JOB), *steps = get(record, SMPOL_REC_STEPS), *kept = NULL;

	if (get(job, SMPOL_REC_IDS)) {
		json_object_object_del(job, SMPOL_REC_IDS);
		return true;
	}
	if (!json_object_is_type(steps, json_type_object))
		return false;
	json_object_object_foreach(steps, step, nodes) {
		json_object *summary = get(nodes, SMPOL_RECORD_SUMMARY);

		if (!get(summary, SMPOL_REC_HOSTS))
			continue;
		if (strcmp(step, keep_step)) {
			json_object_object_del(summary, SMPOL_REC_HOSTS);
			return true;
		}
		kept = summary;
	}
	if (!kept)
		return false;
	json_object_object_del(kept, SMPOL_REC_HOSTS);
	return true;
}

/* One fold, the least recent possible (record_fold.h): the job's node names go before
 * the step being written does, its writers confirm their entries by its detail. 1 when
 * something was folded, 0 when nothing is left to fold, -errno. */
static int fold_once(json_object *record, const char *keep_step, char *err, size_t errlen)
{
	const char *step = oldest_step(record, keep_step);
	json_object *same = folded_part(record, SMPOL_REC_SAME);
	int rc = 0;

	if (step)
		rc = fold_step(record, step, err, errlen);
	else if (json_object_is_type(same, json_type_array) && json_object_array_length(same) > 0)
		rc = fold_group(record, oldest_group(same), err, errlen);
	else if (folded_part(record, SMPOL_REC_BY_NODE))
		rc = fold_by_node(record, err, errlen);
	else if (summarize_step(record, keep_step) || drop_job_hosts(record))
		rc = 0;
	else if (get(get(record, SMPOL_REC_STEPS), keep_step) && smpol_step_key_listable(keep_step))
		rc = fold_step(record, keep_step, err, errlen);
	else
		return drop_names(record, keep_step) ? 1 : 0;
	return rc < 0 ? rc : 1;
}

int smpol_record_fit(json_object *record, const char *keep_step, size_t budget, char *err, size_t errlen)
{
	int rc = 1;

	while (rc > 0 && strlen(json_object_to_json_string_ext(record, SMPOL_REC_JSON_FLAGS)) > budget) {
		rc = fold_once(record, keep_step, err, errlen);
		if (rc == 0)
			rc = smpol_fail(err, errlen, E2BIG, "the placement record needs more than %zu bytes even folded "
				       "into one total for the job", budget);
	}
	/* readers of version 1 read a record that has nothing folded */
	set_int(record, SMPOL_REC_VERSION, get(record, SMPOL_REC_FOLDED) ? SMPOL_RECORD_VERSION
									 : SMPOL_RECORD_VERSION_FLAT);
	return rc < 0 ? rc : 0;
}

/* ---- what the folded part holds ---- */

/* What a folded part's {NODE:ENTRY} says of node. */
static enum smpol_folded entries_have(json_object *entries, const char *node)
{
	json_object *star = get(entries, SMPOL_RECORD_SUMMARY);

	if (get(entries, node) || smpol_rec_names(star, node))
		return SMPOL_FOLDED_NAMED;
	return star && !get(star, SMPOL_REC_HOSTS) ? SMPOL_FOLDED_NAMELESS : SMPOL_FOLDED_NO;
}

/* What a part (listing its steps) whose nodes say `nodes` holds of step. */
static enum smpol_folded part_has(json_object *part, enum smpol_folded nodes, const char *step)
{
	struct smpol_step_ids ids;
	bool known = read_ids(part, &ids), listed = known && smpol_step_ids_has(&ids, step);

	smpol_step_ids_free(&ids);
	if (nodes == SMPOL_FOLDED_NO || (known && !listed))
		return SMPOL_FOLDED_NO;
	return listed ? nodes : SMPOL_FOLDED_NAMELESS;
}

static enum smpol_folded better(enum smpol_folded a, enum smpol_folded b)
{
	return a == SMPOL_FOLDED_NAMED || b == SMPOL_FOLDED_NAMED ? SMPOL_FOLDED_NAMED
	       : a == SMPOL_FOLDED_NAMELESS || b == SMPOL_FOLDED_NAMELESS ? SMPOL_FOLDED_NAMELESS : SMPOL_FOLDED_NO;
}

enum smpol_folded smpol_record_folded_has(json_object *record, const char *step, const char *node)
{
	json_object *same = folded_part(record, SMPOL_REC_SAME), *by_node = folded_part(record, SMPOL_REC_BY_NODE);
	json_object *job = folded_part(record, SMPOL_REC_JOB);
	enum smpol_folded found = SMPOL_FOLDED_NO, job_nodes;

	for (size_t i = 0; json_object_is_type(same, json_type_array) && i < json_object_array_length(same); i++) {
		json_object *g = json_object_array_get_idx(same, i);

		found = better(found, part_has(g, entries_have(get(g, SMPOL_REC_ENTRIES), node), step));
	}
	if (by_node)
		found = better(found, part_has(by_node, entries_have(get(by_node, SMPOL_REC_ENTRIES), node), step));
	if (job) {
		job_nodes = smpol_rec_names(job, node) ? SMPOL_FOLDED_NAMED
			    : get(job, SMPOL_REC_HOSTS) ? SMPOL_FOLDED_NO : SMPOL_FOLDED_NAMELESS;
		found = better(found, part_has(job, job_nodes, step));
	}
	return found;
}
