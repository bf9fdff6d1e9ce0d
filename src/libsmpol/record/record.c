/* record.c - build, merge and read the placement record in AdminComment (see
 * record.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "record.h"
#include "record_fold.h"
#include "record_json.h"
#include "record_missing.h"

#define TO_STRING_FLAGS SMPOL_REC_JSON_FLAGS

/* Where a comment keeps our record; see record.h. */
enum comment_form { FORM_EMPTY, FORM_OBJECT, FORM_TEXT };

struct located {
	enum comment_form form;
	json_object *root;      /* FORM_OBJECT: the whole comment, owned */
	json_object *record;    /* our object, owned; NULL when there is none */
	size_t start, end;      /* FORM_TEXT: bytes of MARK{...} in the comment, start == end: none */
	char why[160];          /* why a record-looking part was not ours */
};

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
		json_object_array_add(share, smpol_rec_ratio(p->shares[i]));
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
				add_node_key(t, i, smpol_rec_ratio(in->target[i] / sum));
		json_object_object_add(e, SMPOL_REC_TARGET, t);
		drift = in->nsamples > 0 ? smpol_placement_drift(in->target, in->last, in->max_node) : -1;
		if (drift >= 0)
			json_object_object_add(e, SMPOL_REC_DRIFT, smpol_rec_ratio(drift));
	}
	if (in->kind) {
		json_object *k = json_object_new_object();

		for (int i = 0; i <= in->max_node && i < in->nkind; i++)
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

/* Ours: an object of a version we know (1: nothing folded, 2). Another version (a
 * future "v":3, someone's "v":99) is left alone as foreign text: merging into a
 * format we do not know could drop what it holds. */
static bool is_ours(json_object *obj)
{
	json_object *v;

	return json_object_is_type(obj, json_type_object) &&
	       json_object_object_get_ex(obj, SMPOL_REC_VERSION, &v) && json_object_is_type(v, json_type_int) &&
	       (json_object_get_int64(v) == SMPOL_RECORD_VERSION || json_object_get_int64(v) == SMPOL_RECORD_VERSION_FLAT);
}

/* Why obj, found where our record would be, is not ours (for the reader's sentence). */
static void not_ours_why(json_object *obj, const char *where, char *why, size_t whylen)
{
	json_object *v;

	if (json_object_is_type(obj, json_type_object) && json_object_object_get_ex(obj, SMPOL_REC_VERSION, &v) &&
	    json_object_is_type(v, json_type_int))
		snprintf(why, whylen, "%s is a placement record of version %lld, which this build (versions %d "
			 "and %d) leaves alone", where, (long long)json_object_get_int64(v), SMPOL_RECORD_VERSION_FLAT,
			 SMPOL_RECORD_VERSION);
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

bool smpol_record_is_jobstats(const char *comment)
{
	/* 22.05's sacctmgr stores jobstats' summary lower-cased ("js1:h4si..."): broken for
	 * jobstats' decoder, but still its text, put over ours */
	return comment && !strncasecmp(comment, SMPOL_JOBSTATS_MARK, strlen(SMPOL_JOBSTATS_MARK));
}

/* jobstats decodes everything after "JS1:" as base64: a record after it breaks that
 * summary, and one before it hides it. */
static int jobstats_refused(char *err, size_t errlen)
{
	return smpol_fail(err, errlen, EEXIST, "the field holds a jobstats summary (" SMPOL_JOBSTATS_MARK
			 "...), which any text of ours would break; the record goes to SystemComment beside it");
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

uint32_t smpol_record_run_of(json_object *record)
{
	json_object *v = smpol_rec_get(record, SMPOL_REC_RUN);
	int64_t run = v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;

	return run > 0 && run <= UINT32_MAX ? (uint32_t)run : 0;
}

/* comment (located as loc) with record where loc says ours goes: *merged, malloc'ed. */
static int place(const char *comment, struct located *loc, json_object *record, char **merged, char *err,
		 size_t errlen)
{
	char *marked = NULL;

	switch (loc->form) {
	case FORM_EMPTY:
		loc->root = json_object_new_object();
		/* fall through */
	case FORM_OBJECT:
		json_object_object_add(loc->root, SMPOL_RECORD_KEY, json_object_get(record));
		*merged = strdup(json_object_to_json_string_ext(loc->root, TO_STRING_FLAGS));
		break;
	case FORM_TEXT: {
		const char *json = json_object_to_json_string_ext(record, TO_STRING_FLAGS);
		size_t len = strlen(comment);
		bool append = loc->start == loc->end;
		bool space = append && len > 0 && !isspace((unsigned char)comment[len - 1]);

		if (asprintf(&marked, "%s%s%s", space ? " " : "", SMPOL_RECORD_MARK, json) < 0) {
			marked = NULL;
			break;
		}
		*merged = append ? splice(comment, len, len, marked) : splice(comment, loc->start, loc->end, marked);
		break;
	}
	}
	free(marked);
	return *merged ? 0 : smpol_fail(err, errlen, ENOMEM, "out of memory merging the placement record");
}

/* Whether step names a step and entries is {NODE:ENTRY|null} with names: 0, or -EINVAL
 * with a sentence. */
static int check_entries(const char *step, json_object *entries, char *err, size_t errlen)
{
	if (!step || !*step || !json_object_is_type(entries, json_type_object))
		return smpol_fail(err, errlen, EINVAL, "a placement record needs a step ('%s') and node entries",
				  step ? step : "");
	json_object_object_foreach(entries, name, e) {
		if (e && !json_object_is_type(e, json_type_object))
			return smpol_fail(err, errlen, EINVAL, "node %s's placement record entry is not an object", name);
		if (!*name || !strcmp(name, SMPOL_RECORD_SUMMARY))
			return smpol_fail(err, errlen, EINVAL, "a placement record needs a node name, not '%s'", name);
	}
	return 0;
}

int smpol_record_check_steps(json_object *steps, char *err, size_t errlen)
{
	if (!json_object_is_type(steps, json_type_object) || !json_object_object_length(steps))
		return smpol_fail(err, errlen, EINVAL, "the placement record names no step");
	json_object_object_foreach(steps, step, entries) {
		int rc = check_entries(step, entries, err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* step's entries merged into record, which is then fitted within budget. */
static int merge_into(json_object *record, const char *step, json_object *entries, size_t budget, char *err,
		      size_t errlen)
{
	json_object *nodes = smpol_rec_child(smpol_rec_child(record, SMPOL_REC_STEPS), step);
	json_object *summary = smpol_rec_get(nodes, SMPOL_RECORD_SUMMARY);

	json_object_object_foreach(entries, node, entry) {
		bool folded = smpol_record_folded_has(record, step, node) == SMPOL_FOLDED_NAMED;

		if (!entry) {
			if (!folded && !smpol_rec_get(nodes, node) && !smpol_rec_names(summary, node))
				smpol_record_missing_add(record, step, node);
			continue;
		}
		smpol_record_missing_drop(record, step, node);
		if (summary)
			smpol_record_summary_add(summary, node, entry);
		else if (!folded)
			json_object_object_add(nodes, node, json_object_get(entry));
	}
	/* every entry was folded in already: the step stays where it is */
	if (json_object_object_length(nodes) == 0)
		json_object_object_del(smpol_rec_get(record, SMPOL_REC_STEPS), step);
	return smpol_record_fit(record, step, budget, err, errlen);
}

int smpol_record_merge_steps(const char *comment, uint32_t run, json_object *steps, size_t budget, char **merged,
			     char *err, size_t errlen)
{
	struct located loc;
	int rc;

	*merged = NULL;
	rc = smpol_record_check_steps(steps, err, errlen);
	if (rc < 0)
		return rc;
	if (smpol_record_is_jobstats(comment))
		return jobstats_refused(err, errlen);
	locate(comment, &loc);
	/* another run's record is that run's row's (slurmctld carried it over): ours
	 * takes its place */
	if (loc.record && smpol_record_run_of(loc.record) != run) {
		json_object_put(loc.record);
		loc.record = NULL;
	}
	if (!loc.record) {
		loc.record = json_object_new_object();
		json_object_object_add(loc.record, SMPOL_REC_VERSION, json_object_new_int(SMPOL_RECORD_VERSION_FLAT));
		json_object_object_add(loc.record, SMPOL_REC_UNIT_KIB, json_object_new_int(4));
		if (run > 0)
			json_object_object_add(loc.record, SMPOL_REC_RUN, json_object_new_int64(run));
	}
	/* one parse and one text for them all: each step fitted in turn, as a merge of
	 * each alone would fit it */
	json_object_object_foreach(steps, step, entries) {
		rc = merge_into(loc.record, step, entries, budget, err, errlen);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		rc = place(comment, &loc, loc.record, merged, err, errlen);
	located_free(&loc);
	return rc;
}

int smpol_record_merge_nodes(const char *comment, uint32_t run, const char *step, json_object *entries,
			    size_t budget, char **merged, char *err, size_t errlen)
{
	json_object *steps;
	int rc;

	*merged = NULL;
	rc = check_entries(step, entries, err, errlen);
	if (rc == 0)
		rc = smpol_record_one_step(step, entries, &steps, err, errlen);
	if (rc < 0)
		return rc;
	rc = smpol_record_merge_steps(comment, run, steps, budget, merged, err, errlen);
	json_object_put(steps);
	return rc;
}

int smpol_record_put(const char *comment, json_object *record, char **merged, char *err, size_t errlen)
{
	struct located loc;
	int rc;

	*merged = NULL;
	if (!is_ours(record))
		return smpol_fail(err, errlen, EINVAL, "what is to be put into the field is no placement record");
	if (smpol_record_is_jobstats(comment))
		return jobstats_refused(err, errlen);
	locate(comment, &loc);
	rc = place(comment, &loc, record, merged, err, errlen);
	located_free(&loc);
	return rc;
}

/* {key: value} as a new object in *out (a reference to value); what names the key. */
static int one_key(const char *key, const char *what, json_object *value, json_object **out, char *err,
		   size_t errlen)
{
	*out = NULL;
	if (!key || !*key)
		return smpol_fail(err, errlen, EINVAL, "a placement record needs a %s name", what);
	*out = json_object_new_object();
	if (!*out)
		return smpol_fail(err, errlen, ENOMEM, "out of memory building the placement record");
	json_object_object_add(*out, key, json_object_get(value));
	return 0;
}

int smpol_record_one_node(const char *node, json_object *entry, json_object **entries, char *err, size_t errlen)
{
	return one_key(node, "node", entry, entries, err, errlen);
}

int smpol_record_one_step(const char *step, json_object *entries, json_object **steps, char *err, size_t errlen)
{
	return one_key(step, "step", entries, steps, err, errlen);
}

int smpol_record_merge(const char *comment, uint32_t run, const char *step, const char *node,
		      json_object *entry, size_t budget, char **merged, char *err, size_t errlen)
{
	json_object *entries;
	int rc;

	*merged = NULL;
	rc = smpol_record_one_node(node, entry, &entries, err, errlen);
	if (rc == 0)
		rc = smpol_record_merge_nodes(comment, run, step, entries, budget, merged, err, errlen);
	json_object_put(entries);
	return rc;
}

/* Whether record is a record of run (NULL: none is). */
static bool of_run(json_object *record, uint32_t run)
{
	return record && smpol_record_run_of(record) == run;
}

/* The node entries of step in record (borrowed, NULL when none). */
static json_object *step_nodes(json_object *record, const char *step)
{
	return smpol_rec_get(smpol_rec_get(record, SMPOL_REC_STEPS), step);
}

bool smpol_record_holds(json_object *record, uint32_t run, const char *step, const char *node, json_object *entry)
{
	json_object *nodes, *summary, *mine;

	if (!of_run(record, run))
		return false;
	nodes = step_nodes(record, step);
	summary = smpol_rec_get(nodes, SMPOL_RECORD_SUMMARY);
	if (summary)
		return smpol_rec_names(summary, node);
	if ((mine = smpol_rec_get(nodes, node)))
		return !entry || json_object_equal(mine, entry);
	return smpol_record_folded_has(record, step, node) == SMPOL_FOLDED_NAMED;
}

bool smpol_record_holds_missing(json_object *record, uint32_t run, const char *step, const char *node)
{
	return of_run(record, run) && smpol_record_missing_has(record, step, node);
}

bool smpol_record_holds_dropped(json_object *record, uint32_t run, const char *step, const char *node)
{
	json_object *nodes, *summary;

	if (!of_run(record, run))
		return false;
	nodes = step_nodes(record, step);
	summary = smpol_rec_get(nodes, SMPOL_RECORD_SUMMARY);
	if (summary)
		return !smpol_rec_get(summary, SMPOL_REC_HOSTS);
	return !smpol_rec_get(nodes, node) && smpol_record_folded_has(record, step, node) == SMPOL_FOLDED_NAMELESS;
}

/* Our record in comment (a new reference), NULL when it holds none. */
static json_object *record_in(const char *comment)
{
	json_object *record;

	return smpol_record_find(comment, &record, NULL, 0) == 0 ? record : NULL;
}

bool smpol_record_contains(const char *comment, uint32_t run, const char *step, const char *node,
			   json_object *entry)
{
	json_object *record = record_in(comment);
	bool found = smpol_record_holds(record, run, step, node, entry);

	json_object_put(record);
	return found;
}

bool smpol_record_names_missing(const char *comment, uint32_t run, const char *step, const char *node)
{
	json_object *record = record_in(comment);
	bool named = smpol_record_holds_missing(record, run, step, node);

	json_object_put(record);
	return named;
}

bool smpol_record_names_dropped(const char *comment, uint32_t run, const char *step, const char *node)
{
	json_object *record = record_in(comment);
	bool dropped = smpol_record_holds_dropped(record, run, step, node);

	json_object_put(record);
	return dropped;
}
