/* record.c - build, merge and read the placement record in AdminComment (see
 * record.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "record.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Where a comment keeps our record; see record.h. */
enum comment_form { FORM_EMPTY, FORM_OBJECT, FORM_TEXT };

struct located {
	enum comment_form form;
	json_object *root;      /* FORM_OBJECT: the whole comment, owned */
	json_object *record;    /* our object, owned; NULL when there is none */
	size_t start, end;      /* FORM_TEXT: bytes of MARK{...} in the comment, start == end: none */
	char why[160];          /* why a record-looking part was not ours */
};

/* A ratio with four decimals, written as such ("0.75", not 0.75000000000000000). */
static json_object *new_ratio(double x)
{
	char text[32];
	size_t n;

	snprintf(text, sizeof(text), "%.4f", x);
	n = strlen(text);
	while (n > 1 && text[n - 1] == '0' && text[n - 2] != '.')
		text[--n] = '\0';
	return json_object_new_double_s(strtod(text, NULL), text);
}

static void add_node_key(json_object *obj, int node, json_object *val)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", node);
	json_object_object_add(obj, key, val);
}

/* {"0":n0,"2":n2}: the nodes with a non-zero count only. */
static json_object *pages_object(const uint64_t *pages, int max_node)
{
	json_object *o = json_object_new_object();

	for (int i = 0; pages && i <= max_node; i++)
		if (pages[i])
			add_node_key(o, i, json_object_new_uint64(pages[i]));
	return o;
}

static json_object *plan_object(const struct smpol_plan *p)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_array(),
		    *w = json_object_new_array(), *share = json_object_new_array();

	json_object_object_add(o, SMPOL_REC_INIT, json_object_new_int(p->initiator));
	if (p->nserved > 1) {
		json_object *served = json_object_new_object();

		for (int i = 0; i < p->nserved; i++)
			add_node_key(served, p->served[i], json_object_new_int((int)p->served_cpus[i]));
		json_object_object_add(o, SMPOL_REC_SERVES, served);
	}
	for (int i = 0; i < p->nnodes; i++) {
		json_object_array_add(nodes, json_object_new_int(p->nodes[i]));
		json_object_array_add(w, json_object_new_int((int)p->weights[i]));
		json_object_array_add(share, new_ratio(p->shares[i]));
	}
	json_object_object_add(o, SMPOL_REC_NODES, nodes);
	json_object_object_add(o, SMPOL_REC_WEIGHTS, w);
	json_object_object_add(o, SMPOL_REC_SHARE, share);
	json_object_object_add(o, SMPOL_REC_BW, json_object_new_string(smpol_bw_source_name(p->bw_source)));
	return o;
}

static void add_string(json_object *o, const char *key, const char *val)
{
	if (val)
		json_object_object_add(o, key, json_object_new_string(val));
}

/* Write and read back, so that the entry equals what Slurm later hands back. */
static int canonical_form(json_object **obj, char *err, size_t errlen)
{
	json_object *again = json_tokener_parse(json_object_to_json_string_ext(*obj, TO_STRING_FLAGS));

	json_object_put(*obj);
	*obj = again;
	return again ? 0 : smpol_fail(err, errlen, ENOMEM, "out of memory building the placement record");
}

int smpol_record_entry_build(const struct smpol_record_node *in, json_object **entry,
			    char *err, size_t errlen)
{
	json_object *e = json_object_new_object(), *plans;
	double drift;

	if (!e)
		return smpol_fail(err, errlen, ENOMEM, "out of memory building the placement record");
	add_string(e, SMPOL_REC_REQ, in->requested);
	add_string(e, SMPOL_REC_MODE, in->applied);
	add_string(e, SMPOL_REC_PATH, in->path);
	json_object_object_add(e, SMPOL_REC_SYSFS, json_object_new_boolean(in->sysfs_written));
	plans = json_object_new_array();
	for (int i = 0; i < in->nplans; i++)
		json_object_array_add(plans, plan_object(&in->plans[i]));
	json_object_object_add(e, SMPOL_REC_PLANS, plans);
	add_string(e, SMPOL_REC_POLICY, in->policy);
	json_object_object_add(e, SMPOL_REC_TASKS, json_object_new_int(in->ntasks));
	json_object_object_add(e, SMPOL_REC_SAMPLES, json_object_new_int(in->nsamples));
	if (in->nsamples > 0) {
		json_object_object_add(e, SMPOL_REC_TIME, json_object_new_int64(in->last_time));
		json_object_object_add(e, SMPOL_REC_LAST, pages_object(in->last, in->max_node));
		json_object_object_add(e, SMPOL_REC_PEAK, pages_object(in->peak, in->max_node));
	}
	if (in->target) {
		json_object *t = json_object_new_object();
		double sum = 0;

		for (int i = 0; i <= in->max_node; i++)
			sum += in->target[i] > 0 ? in->target[i] : 0;
		/* shares, whether given as shares or as expected pages */
		for (int i = 0; sum > 0 && i <= in->max_node; i++)
			if (in->target[i] > 0)
				add_node_key(t, i, new_ratio(in->target[i] / sum));
		json_object_object_add(e, SMPOL_REC_TARGET, t);
		drift = in->nsamples > 0 ? smpol_placement_drift(in->target, in->last, in->max_node) : -1;
		if (drift >= 0)
			json_object_object_add(e, SMPOL_REC_DRIFT, new_ratio(drift));
	}
	if (in->kind) {
		json_object *k = json_object_new_object();

		for (int i = 0; i <= in->max_node; i++)
			if (in->kind[i])
				add_node_key(k, i, json_object_new_string(in->kind[i]));
		json_object_object_add(e, SMPOL_REC_KIND, k);
	}
	if (in->regions) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, SMPOL_REC_ALLOCATION, json_object_new_int(in->regions->allocation));
		json_object_object_add(r, SMPOL_REC_SAMPLER, json_object_new_int(in->regions->sampler));
		json_object_object_add(r, SMPOL_REC_PENDING, json_object_new_int(in->regions->pending));
		json_object_object_add(e, SMPOL_REC_REGIONS, r);
	}
	add_string(e, SMPOL_REC_NOTE, in->note);
	*entry = e;
	return canonical_form(entry, err, errlen);
}

double smpol_placement_drift(const double *target, const uint64_t *pages, int max_node)
{
	double tsum = 0, psum = 0, dist = 0;

	for (int i = 0; i <= max_node; i++) {
		tsum += target[i] > 0 ? target[i] : 0;
		psum += (double)pages[i];
	}
	if (tsum <= 0 || psum <= 0)
		return -1;
	for (int i = 0; i <= max_node; i++)
		dist += fabs((target[i] > 0 ? target[i] : 0) / tsum - (double)pages[i] / psum);
	return dist / 2;
}

/* Ours: an object of exactly our version. Another version (a future "v":2, someone's
 * "v":99) is left alone as foreign text: merging into a format we do not know could
 * drop what it holds. */
static bool is_ours(json_object *obj)
{
	json_object *v;

	return json_object_is_type(obj, json_type_object) &&
	       json_object_object_get_ex(obj, SMPOL_REC_VERSION, &v) && json_object_is_type(v, json_type_int) &&
	       json_object_get_int64(v) == SMPOL_RECORD_VERSION;
}

/* Why obj, found where our record would be, is not ours (for the reader's sentence). */
static void not_ours_why(json_object *obj, const char *where, char *why, size_t whylen)
{
	json_object *v;

	if (json_object_is_type(obj, json_type_object) && json_object_object_get_ex(obj, SMPOL_REC_VERSION, &v) &&
	    json_object_is_type(v, json_type_int))
		snprintf(why, whylen, "%s is a placement record of version %lld, which this build (version %d) "
			 "leaves alone", where, (long long)json_object_get_int64(v), SMPOL_RECORD_VERSION);
	else
		snprintf(why, whylen, "%s is not a placement record", where);
}

/* Parse an object starting at text; *used = bytes it took. NULL if it is not one. */
static json_object *parse_object_at(const char *text, size_t len, size_t *used)
{
	json_tokener *tok = json_tokener_new();
	json_object *obj;

	if (!tok)
		return NULL;
	obj = json_tokener_parse_ex(tok, text, (int)len);
	*used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* the tokener may have consumed whitespace after the object: that is not ours */
	while (*used > 0 && isspace((unsigned char)text[*used - 1]))
		(*used)--;
	if (obj && !json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		obj = NULL;
	}
	return obj;
}

/* The last marked object in text that is ours: its byte range and the object. */
static json_object *find_marked(const char *text, size_t *start, size_t *end, char *why, size_t whylen)
{
	size_t marklen = strlen(SMPOL_RECORD_MARK), len = strlen(text);
	json_object *found = NULL;

	for (const char *p = strstr(text, SMPOL_RECORD_MARK); p; p = strstr(p + 1, SMPOL_RECORD_MARK)) {
		size_t at = (size_t)(p - text), used;
		json_object *obj;

		/* a word of its own: "xmempolicy=" is someone else's */
		if (at > 0 && !isspace((unsigned char)text[at - 1]))
			continue;
		obj = parse_object_at(p + marklen, len - at - marklen, &used);
		if (!is_ours(obj)) {
			char where[64];

			snprintf(where, sizeof(where), "the text after '%s' at byte %zu", SMPOL_RECORD_MARK, at);
			not_ours_why(obj, where, why, whylen);
			json_object_put(obj);
			continue;
		}
		json_object_put(found);
		found = obj;
		*start = at;
		*end = at + marklen + used;
	}
	return found;
}

static void locate(const char *comment, struct located *loc)
{
	size_t len = comment ? strlen(comment) : 0, used = 0;
	json_object *root, *rec;

	memset(loc, 0, sizeof(*loc));
	if (len == 0 || comment[strspn(comment, " \t\r\n")] == '\0') {
		loc->form = FORM_EMPTY;
		return;
	}
	root = parse_object_at(comment, len, &used);
	if (root && comment[used + strspn(comment + used, " \t\r\n")] == '\0') {
		if (!json_object_object_get_ex(root, SMPOL_RECORD_KEY, &rec)) {
			loc->form = FORM_OBJECT;
			loc->root = root;
			return;
		}
		if (is_ours(rec)) {
			loc->form = FORM_OBJECT;
			loc->root = root;
			loc->record = json_object_get(rec);
			return;
		}
		not_ours_why(rec, "the comment's \"" SMPOL_RECORD_KEY "\" key", loc->why, sizeof(loc->why));
	}
	json_object_put(root);
	loc->form = FORM_TEXT;
	loc->record = find_marked(comment, &loc->start, &loc->end, loc->why, sizeof(loc->why));
}

static void located_free(struct located *loc)
{
	json_object_put(loc->record);
	json_object_put(loc->root);
}

int smpol_record_find(const char *comment, json_object **record, char *err, size_t errlen)
{
	struct located loc;
	int rc = 0;

	*record = NULL;
	locate(comment, &loc);
	if (loc.record)
		*record = json_object_get(loc.record);
	else if (loc.why[0])
		rc = smpol_fail(err, errlen, EBADMSG, "no placement record: %s", loc.why);
	else
		rc = smpol_fail(err, errlen, ENOENT, "the comment holds no placement record");
	located_free(&loc);
	return rc;
}

/* obj[key] as an object, created when missing or of another type. */
static json_object *child_object(json_object *obj, const char *key)
{
	json_object *c;

	if (json_object_object_get_ex(obj, key, &c) && json_object_is_type(c, json_type_object))
		return c;
	c = json_object_new_object();
	json_object_object_add(obj, key, c);
	return c;
}

static int64_t get_int(json_object *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) ? json_object_get_int64(v) : 0;
}

/* A small count (nodes, tasks, notes); a damaged one (negative, past INT_MAX) counts 0. */
static int get_count(json_object *obj, const char *key)
{
	int64_t v = get_int(obj, key);

	return v >= 0 && v <= INT_MAX ? (int)v : 0;
}

/* a + b for two counts from get_count, saturating rather than overflowing */
static int add_counts_int(int a, int b)
{
	return a > INT_MAX - b ? INT_MAX : a + b;
}

static double get_double(json_object *obj, const char *key, double dflt)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) ? json_object_get_double(v) : dflt;
}

/* sum[k] += scale * src[k] for every node key of src. */
static void add_counts(json_object *sum, json_object *src, double scale, bool integral)
{
	if (!src || !json_object_is_type(src, json_type_object))
		return;
	json_object_object_foreach(src, key, val) {
		double v = json_object_get_double(val) * scale;
		json_object *old;

		if (json_object_object_get_ex(sum, key, &old))
			v += json_object_get_double(old);
		/* a damaged count (1e999, negative) would print as "inf" (invalid JSON) or wrap */
		if (!isfinite(v) || v < 0 || v >= 0x1p63)
			continue;
		json_object_object_add(sum, key, integral ? json_object_new_uint64((uint64_t)llround(v))
							  : new_ratio(v));
	}
}

static json_object *get(json_object *obj, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(obj, key, &v);
	return v;
}

/* Whether a step summary names node (one whose names were dropped to fit names none). */
static bool summary_names(json_object *summary, const char *node)
{
	json_object *hosts = get(summary, SMPOL_REC_HOSTS);

	for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(hosts, i)), node))
			return true;
	return false;
}

/*
 * Fold one node's entry into a step summary: counts add up (pages, tasks, large
 * mappings by how they were placed), expected pages ("exp", target share times the
 * node's pages) add up so the step's target stays right, drift is recomputed from the
 * sums, and the largest per-node drift is kept.
 */
/* A text every folded node shares (the mode asked for, applied), or "mixed". */
static void fold_text(json_object *summary, json_object *entry, const char *key)
{
	const char *mine = json_object_get_string(get(entry, key)), *so_far = json_object_get_string(get(summary, key));

	if (mine && (!so_far || strcmp(so_far, mine)))
		json_object_object_add(summary, key, json_object_new_string(so_far ? "mixed" : mine));
}

static void fold_entry(json_object *summary, const char *node, json_object *entry)
{
	json_object *hosts = get(summary, SMPOL_REC_HOSTS), *last = get(entry, SMPOL_REC_LAST);
	double pages = 0, drift = get_double(entry, SMPOL_REC_DRIFT, -1);
	json_object *note = get(entry, SMPOL_REC_NOTE);

	if (get(summary, SMPOL_REC_COUNT) && summary_names(summary, node))
		return;
	if (!get(summary, SMPOL_REC_COUNT))
		json_object_object_add(summary, SMPOL_REC_HOSTS, hosts = json_object_new_array());
	json_object_object_add(summary, SMPOL_REC_COUNT, json_object_new_int(add_counts_int(get_count(summary, SMPOL_REC_COUNT), 1)));
	if (hosts)
		json_object_array_add(hosts, json_object_new_string(node));
	fold_text(summary, entry, SMPOL_REC_MODE);
	fold_text(summary, entry, SMPOL_REC_REQ);
	if (!get(summary, SMPOL_REC_PATH) && get(entry, SMPOL_REC_PATH))
		json_object_object_add(summary, SMPOL_REC_PATH, json_object_get(get(entry, SMPOL_REC_PATH)));
	json_object_object_add(summary, SMPOL_REC_TASKS,
			       json_object_new_int(add_counts_int(get_count(summary, SMPOL_REC_TASKS), get_count(entry, SMPOL_REC_TASKS))));
	add_counts(child_object(summary, SMPOL_REC_LAST), last, 1, true);
	add_counts(child_object(summary, SMPOL_REC_PEAK), get(entry, SMPOL_REC_PEAK), 1, true);
	if (last && json_object_is_type(last, json_type_object)) {
		json_object_object_foreach(last, key, val) {
			(void)key;
			pages += json_object_get_double(val);
		}
	}
	add_counts(child_object(summary, SMPOL_REC_EXPECTED), get(entry, SMPOL_REC_TARGET), pages, false);
	if (get(entry, SMPOL_REC_REGIONS))
		add_counts(child_object(summary, SMPOL_REC_REGIONS), get(entry, SMPOL_REC_REGIONS), 1, true);
	if (isfinite(drift) && drift > get_double(summary, SMPOL_REC_DRIFT_MAX, -1))
		json_object_object_add(summary, SMPOL_REC_DRIFT_MAX, new_ratio(drift));
	if (note) {
		json_object_object_add(summary, SMPOL_REC_NOTES, json_object_new_int(add_counts_int(get_count(summary, SMPOL_REC_NOTES), 1)));
		if (!get(summary, SMPOL_REC_NOTE))
			json_object_object_add(summary, SMPOL_REC_NOTE, json_object_get(note));
	}
}

/* Replace a step's node entries by one summary. */
static void fold_step(json_object *steps, const char *step)
{
	json_object *old = get(steps, step), *fresh = json_object_new_object();
	json_object *summary = child_object(fresh, SMPOL_RECORD_SUMMARY);

	json_object_object_foreach(old, node, entry) {
		if (!strcmp(node, SMPOL_RECORD_SUMMARY))
			continue;
		fold_entry(summary, node, entry);
	}
	json_object_object_add(steps, step, fresh);
}

/* The unsummarized step with the most node entries, or NULL. */
static const char *largest_step(json_object *steps)
{
	const char *best = NULL;
	int most = 0;

	json_object_object_foreach(steps, step, nodes) {
		int n = json_object_is_type(nodes, json_type_object) ? json_object_object_length(nodes) : 0;

		if (!get(nodes, SMPOL_RECORD_SUMMARY) && n > most) {
			most = n;
			best = step;
		}
	}
	return best;
}

/* Drop the names of one summary that still has them, keep_step's last (its writers
 * confirm their entries by them). false when no summary has names left. */
static bool drop_names(json_object *steps, const char *keep_step)
{
	json_object *last = NULL;

	json_object_object_foreach(steps, step, nodes) {
		json_object *summary = get(nodes, SMPOL_RECORD_SUMMARY);

		if (!summary || !get(summary, SMPOL_REC_HOSTS))
			continue;
		if (strcmp(step, keep_step)) {
			json_object_object_del(summary, SMPOL_REC_HOSTS);
			return true;
		}
		last = summary;
	}
	if (!last)
		return false;
	json_object_object_del(last, SMPOL_REC_HOSTS);
	return true;
}

/* Make the record fit the budget: fold the largest steps, then drop summary names,
 * oldest step first and keep_step (the one being written) last. */
static int fit_budget(json_object *record, const char *keep_step, size_t budget, char *err, size_t errlen)
{
	json_object *steps = get(record, SMPOL_REC_STEPS);
	const char *step;

	while (strlen(json_object_to_json_string_ext(record, TO_STRING_FLAGS)) > budget) {
		step = largest_step(steps);
		if (step)
			fold_step(steps, step);
		else if (!drop_names(steps, keep_step))
			return smpol_fail(err, errlen, E2BIG,
					 "the placement record needs more than %zu bytes even summarized", budget);
	}
	return 0;
}

/* text[0..start) + insert + text[end..) */
static char *splice(const char *text, size_t start, size_t end, const char *insert)
{
	size_t len = strlen(text), ins = strlen(insert);
	char *out = malloc(len - (end - start) + ins + 1);

	if (!out)
		return NULL;
	memcpy(out, text, start);
	memcpy(out + start, insert, ins);
	memcpy(out + start + ins, text + end, len - end + 1);
	return out;
}

int smpol_record_merge_nodes(const char *comment, const char *step, json_object *entries, size_t budget,
			    char **merged, char *err, size_t errlen)
{
	json_object *record, *nodes, *summary;
	struct located loc;
	char *marked = NULL;
	int rc;

	*merged = NULL;
	if (!step || !*step || !json_object_is_type(entries, json_type_object))
		return smpol_fail(err, errlen, EINVAL, "a placement record needs a step ('%s') and node entries",
				 step ? step : "");
	json_object_object_foreach(entries, name, e) {
		(void)e;
		if (!*name || !strcmp(name, SMPOL_RECORD_SUMMARY))
			return smpol_fail(err, errlen, EINVAL, "a placement record needs a node name, not '%s'", name);
	}
	/* jobstats decodes everything after "JS1:" as base64: a record after it breaks
	 * that summary, and one before it hides it */
	if (comment && !strncmp(comment, SMPOL_JOBSTATS_MARK, strlen(SMPOL_JOBSTATS_MARK)))
		return smpol_fail(err, errlen, EEXIST, "the field holds a jobstats summary (" SMPOL_JOBSTATS_MARK
				 "...), which any text of ours would break; with jobstats, record=extra keeps "
				 "the placement record beside it");
	locate(comment, &loc);
	if (!loc.record) {
		loc.record = json_object_new_object();
		json_object_object_add(loc.record, SMPOL_REC_VERSION, json_object_new_int(SMPOL_RECORD_VERSION));
		json_object_object_add(loc.record, SMPOL_REC_UNIT_KIB, json_object_new_int(4));
	}
	record = loc.record;
	nodes = child_object(child_object(record, SMPOL_REC_STEPS), step);
	summary = get(nodes, SMPOL_RECORD_SUMMARY);
	json_object_object_foreach(entries, node, entry) {
		if (summary)
			fold_entry(summary, node, entry);
		else
			json_object_object_add(nodes, node, json_object_get(entry));
	}
	rc = fit_budget(record, step, budget, err, errlen);
	if (rc < 0)
		goto out;

	switch (loc.form) {
	case FORM_EMPTY:
		loc.root = json_object_new_object();
		/* fall through */
	case FORM_OBJECT:
		json_object_object_add(loc.root, SMPOL_RECORD_KEY, json_object_get(record));
		*merged = strdup(json_object_to_json_string_ext(loc.root, TO_STRING_FLAGS));
		break;
	case FORM_TEXT: {
		const char *json = json_object_to_json_string_ext(record, TO_STRING_FLAGS);
		size_t len = strlen(comment);
		bool append = loc.start == loc.end;
		bool space = append && len > 0 && !isspace((unsigned char)comment[len - 1]);

		if (asprintf(&marked, "%s%s%s", space ? " " : "", SMPOL_RECORD_MARK, json) < 0) {
			marked = NULL;
			break;
		}
		*merged = append ? splice(comment, len, len, marked) : splice(comment, loc.start, loc.end, marked);
		break;
	}
	}
	if (!*merged)
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory merging the placement record");
out:
	free(marked);
	located_free(&loc);
	return rc;
}

int smpol_record_one_node(const char *node, json_object *entry, json_object **entries, char *err, size_t errlen)
{
	*entries = NULL;
	if (!node || !*node)
		return smpol_fail(err, errlen, EINVAL, "a placement record needs a node name");
	*entries = json_object_new_object();
	if (!*entries)
		return smpol_fail(err, errlen, ENOMEM, "out of memory building the placement record");
	json_object_object_add(*entries, node, json_object_get(entry));
	return 0;
}

int smpol_record_merge(const char *comment, const char *step, const char *node,
		      json_object *entry, size_t budget, char **merged, char *err, size_t errlen)
{
	json_object *entries;
	int rc;

	*merged = NULL;
	rc = smpol_record_one_node(node, entry, &entries, err, errlen);
	if (rc == 0)
		rc = smpol_record_merge_nodes(comment, step, entries, budget, merged, err, errlen);
	json_object_put(entries);
	return rc;
}

/* Our record's node entries of step (a borrowed reference into *record, which the
 * caller puts), or NULL. */
static json_object *step_nodes(const char *comment, const char *step, json_object **record)
{
	if (smpol_record_find(comment, record, NULL, 0) < 0) {
		*record = NULL;
		return NULL;
	}
	return get(get(*record, SMPOL_REC_STEPS), step);
}

bool smpol_record_contains(const char *comment, const char *step, const char *node, json_object *entry)
{
	json_object *record, *nodes = step_nodes(comment, step, &record), *summary, *mine;
	bool found = false;

	summary = nodes ? get(nodes, SMPOL_RECORD_SUMMARY) : NULL;
	if (summary)
		found = summary_names(summary, node);
	else if (nodes && (mine = get(nodes, node)))
		found = json_object_equal(mine, entry);
	json_object_put(record);
	return found;
}

bool smpol_record_names_dropped(const char *comment, const char *step)
{
	json_object *record, *nodes = step_nodes(comment, step, &record), *summary;
	bool dropped;

	summary = nodes ? get(nodes, SMPOL_RECORD_SUMMARY) : NULL;
	dropped = summary && !get(summary, SMPOL_REC_HOSTS);
	json_object_put(record);
	return dropped;
}
