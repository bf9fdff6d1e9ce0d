/* test_record.c - the AdminComment record: build, merge without losing other text,
 * concurrent writers, folding within the budget without dropping a step, drift. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "record.h"
#include "record_fold.h"
#include "record_store.h"
#include "step_name.h"
#include "step_ids.h"

/* One node's entry: two NUMA nodes, target 3:1, achieved 700:300 pages. */
static json_object *make_entry(uint64_t n0, uint64_t n1, const char *note)
{
	static const double target[2] = { 0.75, 0.25 };
	static const char *const kind[2] = { "dram", "cxl" };
	uint64_t last[2] = { n0, n1 }, peak[2] = { n0 + 10, n1 + 5 };
	struct smpol_plan plan = { .initiator = 0, .nnodes = 2, .nodes = (int[]){ 0, 1 },
				  .weights = (unsigned[]){ 3, 1 }, .shares = (double[]){ 0.75, 0.25 },
				  .bandwidth = (uint32_t[2]){ 0 }, .sources = (enum smpol_bw_source[2]){ 0 },
				  .bw_source = SMPOL_BW_MEASURED };
	struct smpol_record_node in = {
		.requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
		.plans = &plan, .nplans = 1, .policy = "weighted interleave:0-1",
		.ntasks = 2, .nsamples = 3, .last_time = 1700000000, .max_node = 1,
		.last = last, .peak = peak, .target = target, .kind = kind, .nkind = 2, .note = note,
	};
	json_object *e = NULL;
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	return e;
}

static json_object *path_get(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *v = o;

	if (a && !json_object_object_get_ex(v, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	if (c && !json_object_object_get_ex(v, c, &v))
		return NULL;
	return v;
}

static void test_entry_fields(void **state)
{
	json_object *e = make_entry(700, 300, NULL);

	(void)state;
	assert_string_equal(json_object_get_string(path_get(e, "req", NULL, NULL)), "weighted");
	assert_string_equal(json_object_get_string(path_get(e, "path", NULL, NULL)), "weighted-interleave");
	assert_int_equal(json_object_get_int64(path_get(e, "last", "0", NULL)), 700);
	assert_int_equal(json_object_get_int64(path_get(e, "peak", "1", NULL)), 305);
	assert_string_equal(json_object_get_string(path_get(e, "kind", "1", NULL)), "cxl");
	/* 0.7/0.3 against 0.75/0.25 */
	assert_float_equal(json_object_get_double(path_get(e, "drift", NULL, NULL)), 0.05, 1e-9);
	assert_string_equal(json_object_to_json_string_ext(path_get(e, "plans", NULL, NULL), JSON_C_TO_STRING_PLAIN),
			    "[{\"init\":0,\"nodes\":[0,1],\"w\":[3,1],\"share\":[0.75,0.25],\"bw\":\"measured\"}]");
	assert_null(path_get(e, "note", NULL, NULL));
	/* not region-aware: no count of large mappings */
	assert_null(path_get(e, "regions", NULL, NULL));
	json_object_put(e);
}

/* A region-aware step's large mappings, by how they were placed. */
static void test_entry_regions(void **state)
{
	struct smpol_region_ways ways = { .allocation = 3, .sampler = 1, .pending = 2 };
	struct smpol_record_node in = { .requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
				       .max_node = -1, .regions = &ways };
	json_object *e;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	assert_string_equal(json_object_to_json_string_ext(path_get(e, "regions", NULL, NULL), JSON_C_TO_STRING_PLAIN),
			    "{\"alloc\":3,\"sampler\":1,\"pending\":2}");
	json_object_put(e);
}

/* A plan for CPUs spanning CPU nodes says which, with the task's CPUs on each. */
static void test_entry_spanning_plan(void **state)
{
	struct smpol_plan plan = { .initiator = 0, .nnodes = 4, .nodes = (int[]){ 0, 1, 2, 3 },
				   .weights = (unsigned[]){ 5, 5, 1, 1 }, .shares = (double[]){ 0.41, 0.41, 0.09, 0.09 },
				   .bandwidth = (uint32_t[4]){ 0 }, .sources = (enum smpol_bw_source[4]){ 0 },
				   .bw_source = SMPOL_BW_SYSFS, .nserved = 2,
				   .served = (int[]){ 0, 1 }, .served_cpus = (unsigned[]){ 8, 8 } };
	struct smpol_record_node in = { .requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
				       .plans = &plan, .nplans = 1, .max_node = -1 };
	json_object *e;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	assert_string_equal(json_object_to_json_string_ext(path_get(e, "plans", NULL, NULL), JSON_C_TO_STRING_PLAIN),
			    "[{\"init\":0,\"cpus\":{\"0\":8,\"1\":8},\"nodes\":[0,1,2,3],\"w\":[5,5,1,1],"
			    "\"share\":[0.41,0.41,0.09,0.09],\"bw\":\"sysfs-hmat\"}]");
	json_object_put(e);
}

static void test_entry_without_samples(void **state)
{
	struct smpol_record_node in = { .requested = "weighted", .applied = "none", .path = "none",
				       .max_node = -1, .note = "kernel has no weighted interleave" };
	json_object *e;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	assert_null(path_get(e, "last", NULL, NULL));
	assert_null(path_get(e, "drift", NULL, NULL));
	assert_string_equal(json_object_get_string(path_get(e, "note", NULL, NULL)),
			    "kernel has no weighted interleave");
	json_object_put(e);
}

static char *merge(const char *comment, const char *step, const char *node, json_object *e)
{
	char err[SMPOL_ERRLEN], *out = NULL;

	assert_int_equal(smpol_record_merge(comment, 0, step, node, e, SMPOL_RECORD_BUDGET, &out, err, sizeof(err)), 0);
	assert_non_null(out);
	return out;
}

static void test_merge_empty(void **state)
{
	json_object *e = make_entry(700, 300, NULL), *root, *rec;
	char err[SMPOL_ERRLEN], *out = merge(NULL, "0", "n1", e);

	(void)state;
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_non_null(path_get(root, "mempolicy", "steps", "0"));
	assert_true(smpol_record_contains(out, 0, "0", "n1", e));
	assert_false(smpol_record_contains(out, 0, "0", "n2", e));
	assert_false(smpol_record_contains(out, 0, "1", "n1", e));
	assert_int_equal(smpol_record_find(out, &rec, err, sizeof(err)), 0);
	/* nothing folded: version 1, which older readers read too */
	assert_int_equal(json_object_get_int(path_get(rec, "v", NULL, NULL)), SMPOL_RECORD_VERSION_FLAT);
	json_object_put(rec);
	json_object_put(root);
	free(out);
	/* whitespace only is empty too */
	out = merge("  ", "0", "n1", e);
	assert_int_equal(out[0], '{');
	free(out);
	json_object_put(e);
}

static void test_merge_keeps_plain_text(void **state)
{
	const char *text = "checked by ops; ticket 42 {see: x}";
	json_object *a = make_entry(700, 300, NULL), *b = make_entry(600, 400, "fell back");
	char *one, *two, *three;

	(void)state;
	one = merge(text, "0", "n1", a);
	assert_memory_equal(one, text, strlen(text));
	assert_non_null(strstr(one, " " SMPOL_RECORD_MARK "{"));
	two = merge(one, "0", "n2", b);
	assert_memory_equal(two, text, strlen(text));
	assert_true(smpol_record_contains(two, 0, "0", "n1", a));
	assert_true(smpol_record_contains(two, 0, "0", "n2", b));
	/* one record, replaced in place: the marker appears once */
	assert_null(strstr(strstr(two, SMPOL_RECORD_MARK) + 1, SMPOL_RECORD_MARK));
	/* text someone added after our record survives the next merge */
	three = malloc(strlen(two) + 16);
	sprintf(three, "%s -- later", two);
	free(one);
	one = merge(three, "1", "n1", a);
	assert_memory_equal(one, text, strlen(text));
	assert_non_null(strstr(one, "} -- later"));
	assert_true(smpol_record_contains(one, 0, "0", "n2", b));
	assert_true(smpol_record_contains(one, 0, "1", "n1", a));
	free(one);
	free(two);
	free(three);
	json_object_put(a);
	json_object_put(b);
}

static void test_merge_keeps_foreign_json_object(void **state)
{
	const char *text = "{\"site\":{\"cost\":12.5,\"tags\":[\"a\",\"b\"]},\"n\":1}";
	json_object *e = make_entry(700, 300, NULL), *root;
	char *out;

	(void)state;
	out = merge(text, "batch", "n1", e);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_float_equal(json_object_get_double(path_get(root, "site", "cost", NULL)), 12.5, 0);
	assert_int_equal(json_object_array_length(path_get(root, "site", "tags", NULL)), 2);
	assert_int_equal(json_object_get_int(path_get(root, "n", NULL, NULL)), 1);
	assert_true(smpol_record_contains(out, 0, "batch", "n1", e));
	json_object_put(root);
	free(out);
	json_object_put(e);
}

/* Comments that are not a JSON object of ours: kept byte for byte, record appended. */
static void test_merge_keeps_other_forms(void **state)
{
	static const char *const texts[] = {
		"{\"broken\": [1, 2",                   /* malformed JSON */
		"[1,2,3]",                              /* a JSON array */
		"{\"mempolicy\":\"someone else's\"}",   /* our key, not our record */
		"mempolicy={not json} x",               /* our marker, not our record */
		"xmempolicy={\"v\":1}",                 /* not a word of its own */
		"\"just a string\"",
	};
	json_object *e = make_entry(700, 300, NULL), *rec;
	char err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *out = merge(texts[i], "0", "n1", e);

		assert_memory_equal(out, texts[i], strlen(texts[i]));
		assert_true(smpol_record_contains(out, 0, "0", "n1", e));
		assert_int_equal(smpol_record_find(out, &rec, err, sizeof(err)), 0);
		json_object_put(rec);
		free(out);
	}
	json_object_put(e);
}

static void test_find_reports_why(void **state)
{
	json_object *rec;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_record_find(NULL, &rec, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_record_find("plain words", &rec, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_record_find("{\"a\":1}", &rec, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_record_find("ops mempolicy={\"v\":", &rec, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "not a placement record"));
	assert_int_equal(smpol_record_find("{\"mempolicy\":[1]}", &rec, err, sizeof(err)), -EBADMSG);
	assert_null(rec);
}

/*
 * Two nodes read the same comment, each merges its entry and writes: the second write
 * loses the first entry. The first writer's check sees that and merges again on top
 * of what is there now; then both entries are present.
 */
static void test_lost_update_detected_and_repaired(void **state)
{
	const char *base = "ops note";
	json_object *a = make_entry(700, 300, NULL), *b = make_entry(10, 20, NULL);
	char *by_a = merge(base, "0", "a", a), *by_b = merge(base, "0", "b", b), *fixed;

	(void)state;
	/* slurmctld keeps the last write: by_b */
	assert_false(smpol_record_contains(by_b, 0, "0", "a", a));
	fixed = merge(by_b, "0", "a", a);
	assert_true(smpol_record_contains(fixed, 0, "0", "a", a));
	assert_true(smpol_record_contains(fixed, 0, "0", "b", b));
	assert_memory_equal(fixed, base, strlen(base));
	/* merging the same entry again changes nothing */
	free(by_a);
	by_a = merge(fixed, "0", "a", a);
	assert_string_equal(by_a, fixed);
	free(by_a);
	free(by_b);
	free(fixed);
	json_object_put(a);
	json_object_put(b);
}

static void test_many_nodes_summarized(void **state)
{
	json_object *e = make_entry(700, 300, NULL), *noted = make_entry(100, 100, "fell back"), *rec, *sum;
	char err[SMPOL_ERRLEN], *comment = strdup("keep me"), name[32];

	(void)state;
	for (int i = 0; i < 400; i++) {
		char *next = NULL;

		snprintf(name, sizeof(name), "node%03d", i);
		assert_int_equal(smpol_record_merge(comment, 0, "0", name, i == 7 ? noted : e, 8192,
						   &next, err, sizeof(err)), 0);
		free(comment);
		comment = next;
		assert_true(smpol_record_contains(comment, 0, "0", name, i == 7 ? noted : e));
	}
	assert_memory_equal(comment, "keep me", 7);
	assert_true(strlen(comment) <= 8192 + strlen("keep me mempolicy="));
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	sum = path_get(rec, "steps", "0", SMPOL_RECORD_SUMMARY);
	assert_non_null(sum);
	assert_int_equal(json_object_get_int(path_get(sum, "n", NULL, NULL)), 400);
	assert_int_equal(json_object_get_int(path_get(sum, "notes", NULL, NULL)), 1);
	/* what was asked for and applied survive the fold (mpolctl report printed "requested ?") */
	assert_string_equal(json_object_get_string(path_get(sum, "req", NULL, NULL)), "weighted");
	assert_string_equal(json_object_get_string(path_get(sum, "mode", NULL, NULL)), "weighted");
	assert_int_equal(json_object_get_int64(path_get(sum, "last", "0", NULL)), 399 * 700 + 100);
	/* the largest single drift: node007 at 0.5/0.5 against 0.75/0.25 */
	assert_float_equal(json_object_get_double(path_get(sum, "drift_max", NULL, NULL)), 0.25, 1e-9);
	/* a repeated merge of a summarized node does not count it twice */
	{
		char *again = NULL;

		assert_int_equal(smpol_record_merge(comment, 0, "0", "node010", e, 8192, &again, err, sizeof(err)), 0);
		assert_string_equal(again, comment);
		free(again);
	}
	json_object_put(rec);
	free(comment);
	json_object_put(e);
	json_object_put(noted);
}

/* A region-aware step folded: its large mappings by how they were placed add up. */
static void test_summary_counts_regions(void **state)
{
	struct smpol_region_ways ways = { .allocation = 3, .sampler = 1, .pending = 0 };
	uint64_t last[1] = { 100 };
	struct smpol_record_node in = { .requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
				       .ntasks = 1, .nsamples = 1, .max_node = 0, .last = last, .peak = last,
				       .regions = &ways };
	json_object *e, *rec;
	char err[SMPOL_ERRLEN], *comment = NULL, name[32];

	(void)state;
	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	for (int i = 0; i < 200; i++) {
		char *next = NULL;

		snprintf(name, sizeof(name), "node%03d", i);
		assert_int_equal(smpol_record_merge(comment, 0, "0", name, e, 4096, &next, err, sizeof(err)), 0);
		free(comment);
		comment = next;
	}
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	assert_non_null(path_get(rec, "steps", "0", SMPOL_RECORD_SUMMARY));
	assert_string_equal(json_object_to_json_string_ext(path_get(path_get(rec, "steps", "0", SMPOL_RECORD_SUMMARY),
								    "regions", NULL, NULL), JSON_C_TO_STRING_PLAIN),
			    "{\"alloc\":600,\"sampler\":200,\"pending\":0}");
	json_object_put(rec);
	json_object_put(e);
	free(comment);
}

static void test_budget_exhausted(void **state)
{
	json_object *e = make_entry(700, 300, NULL);
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	assert_int_equal(smpol_record_merge("text", 0, "0", "n1", e, 40, &out, err, sizeof(err)), -E2BIG);
	assert_null(out);
	assert_non_null(strstr(err, "40 bytes"));
	assert_int_equal(smpol_record_merge("text", 0, "0", SMPOL_RECORD_SUMMARY, e, 4096, &out, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_record_merge("text", 0, "", "n1", e, 4096, &out, err, sizeof(err)), -EINVAL);
	json_object_put(e);
}

/* A record of exactly the budget is kept as it is; one byte less folds it. */
static void test_budget_is_inclusive(void **state)
{
	json_object *e = make_entry(700, 300, NULL);
	char err[SMPOL_ERRLEN], *roomy = NULL, *exact = NULL, *tight = NULL;
	size_t ours;
	int rc;

	(void)state;
	assert_int_equal(smpol_record_merge("", 0, "0", "n1", e, 8192, &roomy, err, sizeof(err)), 0);
	/* our object alone, as fit_budget measures it: the field is {"mempolicy":OBJECT} */
	assert_memory_equal(roomy, "{\"mempolicy\":", strlen("{\"mempolicy\":"));
	ours = strlen(roomy) - strlen("{\"mempolicy\":}");
	assert_int_equal(smpol_record_merge("", 0, "0", "n1", e, ours, &exact, err, sizeof(err)), 0);
	assert_string_equal(exact, roomy);
	rc = smpol_record_merge("", 0, "0", "n1", e, ours - 1, &tight, err, sizeof(err));
	assert_true(rc == -E2BIG || (rc == 0 && strcmp(tight, roomy) != 0));
	free(roomy);
	free(exact);
	free(tight);
	json_object_put(e);
}

/* found by tests/fuzz: a damaged count (1e999, negative) in a step being summarized
 * was summed into "inf" or a wrapped number, and the record became invalid JSON */
static void test_summary_skips_damaged_counts(void **state)
{
	static const char *const entry =
		"{\"req\":\"weighted\",\"mode\":\"weighted\",\"path\":\"weighted\",\"tasks\":%s,"
		"\"last\":{\"0\":%s,\"1\":100},\"peak\":{\"0\":10,\"1\":%s},\"target\":{\"0\":0.75,\"1\":0.25},"
		"\"drift\":%s}";
	char good[512], bad[512], comment[2048], err[SMPOL_ERRLEN], *out = NULL;
	json_object *e = make_entry(700, 300, NULL), *rec, *sum = json_object_new_object(), *g, *b;

	(void)state;
	snprintf(good, sizeof(good), entry, "1", "300", "5", "0.0");
	/* found by fuzz_record: a task count at INT64_MAX overflowed the summary's sum */
	snprintf(bad, sizeof(bad), entry, "9223372036854775807", "1e999", "-7", "1e999");
	g = json_tokener_parse(good);
	b = json_tokener_parse(bad);
	smpol_record_summary_add(sum, "a", g);
	smpol_record_summary_add(sum, "b", b);
	assert_int_equal(json_object_get_int(path_get(sum, "n", NULL, NULL)), 2);
	/* the good node's counts are kept, the damaged ones left out */
	assert_int_equal(json_object_get_int64(path_get(sum, "last", "0", NULL)), 300);
	assert_int_equal(json_object_get_int64(path_get(sum, "peak", "1", NULL)), 5);
	assert_int_equal(json_object_get_int(path_get(sum, "tasks", NULL, NULL)), 1);
	/* and a record holding them folds into valid JSON at every budget */
	snprintf(comment, sizeof(comment), "x mempolicy={\"v\":1,\"unit_kib\":4,\"steps\":{\"1\":{\"a\":%s,\"b\":%s}}}",
		 good, bad);
	for (size_t budget = 1000; budget >= 300; budget -= 100) {
		int rc = smpol_record_merge(comment, 0, "0", "n1", e, budget, &out, err, sizeof(err));

		if (rc == -E2BIG)
			break;
		assert_int_equal(rc, 0);
		assert_int_equal(smpol_record_find(out, &rec, err, sizeof(err)), 0);
		assert_true(smpol_record_contains(out, 0, "0", "n1", e) || smpol_record_names_dropped(out, 0, "0", "n1"));
		json_object_put(rec);
		free(out);
	}
	json_object_put(g);
	json_object_put(b);
	json_object_put(sum);
	json_object_put(e);
}

static void test_drift(void **state)
{
	double t[3] = { 0.75, 0, 0.25 }, half[2] = { 1, 1 };
	uint64_t exact[3] = { 300, 0, 100 }, off[3] = { 0, 5, 0 }, none[3] = { 0 }, p2[2] = { 9, 1 };

	(void)state;
	assert_float_equal(smpol_placement_drift(t, exact, 2), 0, 1e-12);
	assert_float_equal(smpol_placement_drift(t, off, 2), 1, 1e-12);
	assert_true(smpol_placement_drift(t, none, 2) < 0);
	/* target given as expected pages, normalized */
	assert_float_equal(smpol_placement_drift(half, p2, 1), 0.4, 1e-12);
}


/* A fake AdminComment: what slurmctld keeps, shared by the writers. */
struct fake_comment {
	pthread_mutex_t lock;
	char *text;
	int rmw_delay_us;       /* time between a read and the write that follows it */
	int pause_ms;
	int clobber_writes;     /* this many first writes are undone by "another node" */
	int writes;
	const char *clobber_base;
	int fail_read, fail_write;
};

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int fake_read(void *ctx, char **comment, char *err, size_t errlen)
{
	struct fake_comment *f = ctx;

	if (f->fail_read)
		return smpol_fail(err, errlen, ECONNREFUSED, "slurmctld is not answering");
	pthread_mutex_lock(&f->lock);
	*comment = strdup(f->text);
	pthread_mutex_unlock(&f->lock);
	/* the writer now merges: others may write meanwhile */
	sleep_us(f->rmw_delay_us);
	return 0;
}

static int fake_write(void *ctx, const char *comment, char *err, size_t errlen)
{
	struct fake_comment *f = ctx;

	if (f->fail_write)
		return smpol_fail(err, errlen, EPERM, "Access/permission denied");
	pthread_mutex_lock(&f->lock);
	free(f->text);
	f->writes++;
	/* the first clobber_writes writes are undone by a slow writer that read before them */
	f->text = strdup(f->writes <= f->clobber_writes ? f->clobber_base : comment);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

static void fake_pause(void *ctx, int attempt)
{
	struct fake_comment *f = ctx;

	(void)attempt;
	sleep_us(f->pause_ms * 1000L + rand() % 5000);
}

struct writer {
	struct fake_comment *fake;
	char node[16];
	json_object *entry;
	int rc;
	struct smpol_store_result res;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, w->fake };
	char err[SMPOL_ERRLEN];

	w->rc = smpol_record_store(&store, "0", w->node, w->entry, SMPOL_RECORD_BUDGET, 20, &w->res, err, sizeof(err));
	json_object_put(w->res.record);
	return NULL;
}

/* Eight nodes end a step at the same moment: no entry is lost, other text survives. */
static void test_store_racing_writers(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER, .rmw_delay_us = 2000, .pause_ms = 10 };
	struct writer w[8];
	pthread_t th[8];
	int losses = 0;

	(void)state;
	f.text = strdup("ops: keep this");
	for (int i = 0; i < 8; i++) {
		w[i].fake = &f;
		snprintf(w[i].node, sizeof(w[i].node), "node%d", i);
		w[i].entry = make_entry(100 * (uint64_t)i + 1, 7, NULL);
		assert_int_equal(pthread_create(&th[i], NULL, writer_run, &w[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].rc, 0);
		losses += w[i].res.losses;
	}
	for (int i = 0; i < 8; i++) {
		assert_true(smpol_record_contains(f.text, 0, "0", w[i].node, w[i].entry));
		json_object_put(w[i].entry);
	}
	assert_memory_equal(f.text, "ops: keep this", 14);
	/* the race really happened: more writes than writers */
	assert_true(f.writes > 8 || losses == 0);
	print_message("# 8 racing writers: %d writes, %d losses repaired\n", f.writes, losses);
	free(f.text);
}

/* Scripted losses: a slow node's write, based on a read from before ours, lands right
 * after ours. The writer sees its entry vanish and merges it into the newer comment. */
static void test_store_repairs_losses(void **state)
{
	json_object *mine = make_entry(5, 5, NULL), *theirs = make_entry(9, 9, NULL);
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER, .clobber_writes = 1 };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN], *base = NULL;

	(void)state;
	assert_int_equal(smpol_record_merge("x", 0, "0", "other", theirs, SMPOL_RECORD_BUDGET, &base, err, sizeof(err)), 0);
	f.text = strdup("x");
	f.clobber_base = base;
	assert_int_equal(smpol_record_store(&store, "0", "mine", mine, SMPOL_RECORD_BUDGET, 8, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.losses, 1);
	assert_int_equal(res.writes, 2);
	assert_true(smpol_record_contains(f.text, 0, "0", "mine", mine));
	assert_true(smpol_record_contains(f.text, 0, "0", "other", theirs));
	assert_memory_equal(f.text, "x ", 2);

	/* a writer that always wins: bounded, and the error says so */
	free(f.text);
	f.text = strdup("x");
	f.writes = 0;
	f.clobber_writes = 1000;
	assert_int_equal(smpol_record_store(&store, "0", "mine", mine, SMPOL_RECORD_BUDGET, 4, &res, err, sizeof(err)), -EAGAIN);
	assert_int_equal(res.reads, 4);
	assert_int_equal(res.losses, 3);
	assert_non_null(strstr(err, "overwritten by other writers"));
	free(f.text);
	free(base);
	json_object_put(mine);
	json_object_put(theirs);
}

static void test_store_errors_propagate(void **state)
{
	json_object *e = make_entry(1, 1, NULL);
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	char err[SMPOL_ERRLEN];

	(void)state;
	f.text = strdup("before");
	f.fail_read = 1;
	assert_int_equal(smpol_record_store(&store, "0", "n", e, SMPOL_RECORD_BUDGET, 5, NULL, err, sizeof(err)), -ECONNREFUSED);
	f.fail_read = 0;
	f.fail_write = 1;
	assert_int_equal(smpol_record_store(&store, "0", "n", e, SMPOL_RECORD_BUDGET, 5, NULL, err, sizeof(err)), -EPERM);
	/* nothing was changed by the failed attempts */
	assert_string_equal(f.text, "before");
	free(f.text);
	json_object_put(e);
}

/* A record of another version (a future format, or someone's "v":99) is left byte
 * for byte; ours is added beside it and found by the reader. */
static void test_other_version_left_alone(void **state)
{
	static const char *const keyed = "{\"mempolicy\":{\"v\":99,\"steps\":{\"0\":{\"n1\":{\"x\":1}}}}}";
	static const char *const marked = "ops mempolicy={\"v\":3,\"steps\":{}} tail";
	json_object *e = make_entry(1, 2, NULL), *rec;
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	assert_int_equal(smpol_record_find(keyed, &rec, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "version 99"));
	assert_int_equal(smpol_record_merge(keyed, 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &out, err, sizeof(err)), 0);
	assert_memory_equal(out, keyed, strlen(keyed));
	assert_true(smpol_record_contains(out, 0, "0", "n1", e));
	free(out);
	assert_int_equal(smpol_record_merge(marked, 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &out, err, sizeof(err)), 0);
	assert_memory_equal(out, marked, strlen(marked));
	assert_true(smpol_record_contains(out, 0, "0", "n1", e));
	assert_int_equal(smpol_record_find(out, &rec, err, sizeof(err)), 0);
	json_object_put(rec);
	free(out);
	json_object_put(e);
}

/* jobstats' summary is the whole field: no text of ours before or after it. */
static void test_jobstats_summary_untouched(void **state)
{
	json_object *e = make_entry(1, 2, NULL);
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	assert_int_equal(smpol_record_merge("JS1:H4sIAAAAAAAAA6tWyk", 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &out, err,
					    sizeof(err)), -EEXIST);
	assert_null(out);
	assert_non_null(strstr(err, "SystemComment"));
	/* as 22.05's sacctmgr stores it, lower-cased */
	assert_true(smpol_record_is_jobstats("js1:h4siaaaaaaaaa6twyk"));
	assert_int_equal(smpol_record_merge("js1:h4siaaaaaaaaa6twyk", 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &out, err,
					    sizeof(err)), -EEXIST);
	assert_false(smpol_record_is_jobstats("JS2:x"));
	assert_false(smpol_record_is_jobstats(NULL));
	/* "JS1:" elsewhere than at the start is someone's text like any other */
	assert_int_equal(smpol_record_merge("see JS1:x", 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &out, err, sizeof(err)), 0);
	assert_memory_equal(out, "see JS1:x mempolicy={", 21);
	free(out);
	json_object_put(e);
}

/* A requeued job's next run: slurmctld carries the comment (with the first run's
 * record) into it. The second run's record takes the place of the first's, with the
 * run named and the text around it kept; an entry of one run is not taken for the
 * other's, and a store of run 1 confirms its entries only in run 1's record. */
static void test_runs_of_a_requeued_job(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f, 1 };
	json_object *first = make_entry(700, 300, NULL), *second = make_entry(600, 400, NULL), *rec, *entries;
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN], *run0, *run1 = NULL, *text;

	(void)state;
	assert_int_equal(smpol_record_merge("before", 0, "0", "n1", first, SMPOL_RECORD_BUDGET, &text, err,
					    sizeof(err)), 0);
	assert_int_equal(smpol_record_merge(text, 0, "1", "n1", first, SMPOL_RECORD_BUDGET, &run0, err,
					    sizeof(err)), 0);
	free(text);
	assert_true(asprintf(&text, "%s after", run0) > 0);
	/* run 0's record names no run (as version 1 readers know it) */
	assert_int_equal(smpol_record_find(text, &rec, err, sizeof(err)), 0);
	assert_null(path_get(rec, "run", NULL, NULL));
	assert_int_equal(smpol_record_run_of(rec), 0);
	json_object_put(rec);
	assert_true(smpol_record_contains(text, 0, "0", "n1", first));
	assert_false(smpol_record_contains(text, 1, "0", "n1", first));
	assert_false(smpol_record_names_dropped(text, 1, "0", "n1"));
	assert_int_equal(smpol_record_merge(text, 1, "0", "n1", second, SMPOL_RECORD_BUDGET, &run1, err,
					    sizeof(err)), 0);
	assert_memory_equal(run1, "before mempolicy=", 17);
	assert_string_equal(run1 + strlen(run1) - 6, " after");
	assert_int_equal(smpol_record_find(run1, &rec, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_run_of(rec), 1);
	assert_int_equal(json_object_get_int64(path_get(rec, "run", NULL, NULL)), 1);
	/* run 0's steps are its row's, not run 1's */
	assert_null(path_get(rec, "steps", "1", NULL));
	assert_non_null(path_get(rec, "steps", "0", "n1"));
	json_object_put(rec);
	assert_true(smpol_record_contains(run1, 1, "0", "n1", second));
	assert_false(smpol_record_contains(run1, 0, "0", "n1", second));
	/* the store of run 1 over run 0's record writes run 1's, and reads it back */
	f.text = strdup(text);
	assert_int_equal(smpol_record_one_node("n1", second, &entries, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_store_nodes(&store, "0", entries, SMPOL_RECORD_BUDGET, 10, 1, &res, err,
						  sizeof(err)), 0);
	assert_int_equal(res.writes, 1);
	json_object_put(res.record);
	assert_string_equal(f.text, run1);
	/* and a store of run 0 into run 1's record puts run 0's back, not run 1's kept */
	store.run = 0;
	assert_int_equal(smpol_record_store_nodes(&store, "0", entries, SMPOL_RECORD_BUDGET, 10, 1, &res, err,
						  sizeof(err)), 0);
	assert_int_equal(res.writes, 1);
	json_object_put(res.record);
	assert_int_equal(smpol_record_find(f.text, &rec, err, sizeof(err)), 0);
	assert_null(path_get(rec, "run", NULL, NULL));
	json_object_put(rec);
	json_object_put(entries);
	free(f.text);
	/* a run's record folded to fit still names its run */
	for (int i = 0; i < 200; i++) {
		char key[16], *next = NULL;

		snprintf(key, sizeof(key), "%d", i);
		assert_int_equal(smpol_record_merge(text, 3, key, "n1", i % 2 ? first : second, 3000, &next, err,
						    sizeof(err)), 0);
		free(text);
		text = next;
	}
	assert_int_equal(smpol_record_find(text, &rec, err, sizeof(err)), 0);
	assert_non_null(path_get(rec, "folded", NULL, NULL));
	assert_int_equal(smpol_record_run_of(rec), 3);
	json_object_put(rec);
	free(text);
	free(run0);
	free(run1);
	json_object_put(first);
	json_object_put(second);
}

/* One collector writes a step's nodes at once: one read, one write, all of them in,
 * and one read that sees them there. */
static void test_store_nodes_sole_writer(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	json_object *entries = json_object_new_object(), *bad = json_object_new_object();
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN], name[16];

	(void)state;
	f.text = strdup("keep me");
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "node%d", i);
		json_object_object_add(entries, name, make_entry((uint64_t)i + 1, 3, NULL));
	}
	assert_int_equal(smpol_record_store_nodes(&store, "0", entries, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.reads, 2);
	assert_int_equal(res.writes, 1);
	json_object_object_foreach(entries, node, entry)
		assert_true(smpol_record_contains(f.text, 0, "0", node, entry));
	assert_memory_equal(f.text, "keep me ", 8);
	/* already there: one read, no write */
	assert_int_equal(smpol_record_store_nodes(&store, "0", entries, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.reads, 1);
	assert_int_equal(res.writes, 0);
	/* a write that does not hold (slurmdbd took it and a slower writer undid it) is
	 * seen by the read back and made again */
	free(f.text);
	f.text = strdup("keep me");
	f.writes = 0;
	f.clobber_writes = 1;
	f.clobber_base = "keep me";
	assert_int_equal(smpol_record_store_nodes(&store, "0", entries, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.losses, 1);
	assert_int_equal(res.writes, 2);
	assert_int_equal(res.reads, 3);
	json_object_object_foreach(entries, n2, e2)
		assert_true(smpol_record_contains(f.text, 0, "0", n2, e2));
	/* a node named like the summary, or no name, is refused before anything is read */
	json_object_object_add(bad, SMPOL_RECORD_SUMMARY, make_entry(1, 1, NULL));
	assert_int_equal(smpol_record_store_nodes(&store, "0", bad, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), -EINVAL);
	json_object_put(bad);
	json_object_put(entries);
	free(f.text);
}

/* Every step the record counts: the steps it details, and each folded part's list
 * (or the count of one that lost its list). */
static size_t steps_counted(const char *comment)
{
	json_object *rec, *folded, *same, *parts[256];
	struct smpol_step_ids all;
	char err[SMPOL_ERRLEN];
	size_t unlisted = 0, count;
	int nparts = 0;

	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	smpol_step_ids_init(&all);
	json_object_object_foreach(path_get(rec, "steps", NULL, NULL), step, nodes) {
		(void)nodes;
		assert_int_equal(smpol_step_ids_add(&all, step, err, sizeof(err)), 0);
	}
	folded = path_get(rec, "folded", NULL, NULL);
	same = path_get(folded, "same", NULL, NULL);
	for (size_t i = 0; same && i < json_object_array_length(same) && nparts < 254; i++)
		parts[nparts++] = json_object_array_get_idx(same, i);
	parts[nparts++] = path_get(folded, "by_node", NULL, NULL);
	parts[nparts++] = path_get(folded, "job", NULL, NULL);
	for (int i = 0; i < nparts; i++) {
		json_object *ids = path_get(parts[i], "ids", NULL, NULL);

		if (ids)
			assert_int_equal(smpol_step_ids_parse(json_object_get_string(ids), &all, err, sizeof(err)), 0);
		else if (parts[i])
			unlisted += (size_t)json_object_get_int(path_get(parts[i], "nsteps", NULL, NULL));
	}
	count = smpol_step_ids_count(&all) + unlisted;
	smpol_step_ids_free(&all);
	json_object_put(rec);
	return count;
}

/* {STEP:{"n1":ENTRY}} of steps 0..n-1, the entries cycling through `kinds` distinct ones. */
static json_object *steps_on_n1(int n, int kinds)
{
	json_object *steps = json_object_new_object();
	char key[16];

	for (int i = 0; i < n; i++) {
		json_object *nodes = json_object_new_object();

		json_object_object_add(nodes, "n1", make_entry((uint64_t)(i % kinds) + 1, 2, NULL));
		snprintf(key, sizeof(key), "%d", i);
		json_object_object_add(steps, key, nodes);
	}
	return steps;
}

/* Whether text holds every step's n1 entry in detail. */
static bool holds_steps(const char *text, json_object *steps)
{
	json_object_object_foreach(steps, step, entries) {
		if (!smpol_record_contains(text, 0, step, "n1", json_object_object_get(entries, "n1")))
			return false;
	}
	return true;
}

/* A courier delivers a job's spooled steps together: one read, one write and one read
 * back for all of them; a write a slower writer undid is made again with every step;
 * a batch folded to fit still counts every step; no step at all is refused. */
static void test_store_steps_together(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	json_object *steps = steps_on_n1(5, 5), *many = steps_on_n1(300, 3), *none = json_object_new_object();
	json_object *none_more = NULL;
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	f.text = strdup("keep me");
	assert_int_equal(smpol_record_store_steps(&store, steps, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.reads, 2);
	assert_int_equal(res.writes, 1);
	assert_true(holds_steps(f.text, steps));
	assert_memory_equal(f.text, "keep me ", 8);
	/* undone by a slower writer: seen by the read back, every step written again */
	free(f.text);
	f.text = strdup("keep me");
	f.writes = 0;
	f.clobber_writes = 1;
	f.clobber_base = "keep me";
	assert_int_equal(smpol_record_store_steps(&store, steps, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.losses, 1);
	assert_int_equal(res.writes, 2);
	assert_true(holds_steps(f.text, steps));
	/* 300 steps in one store of Extra's budget: folded, every step counted */
	free(f.text);
	f.text = strdup("");
	assert_int_equal(smpol_record_store_steps(&store, many, SMPOL_RECORD_BUDGET_EXTRA, 10, 1, &res, err,
						  sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.writes, 1);
	assert_true(strlen(f.text) <= SMPOL_RECORD_BUDGET_EXTRA);
	assert_int_equal(steps_counted(f.text), 300);
	assert_int_equal(smpol_record_store_steps(&store, none, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)),
			 -EINVAL);
	/* a step whose entries a merge cannot take fails the batch before any read (the
	 * fake store's read fails: it is never reached) */
	f.fail_read = 1;
	json_object_object_add(many, "300", json_object_new_int(5));
	assert_int_equal(smpol_record_store_steps(&store, many, SMPOL_RECORD_BUDGET, 10, 1, &res, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "a placement record needs a step ('300') and node entries");
	json_object_object_add(many, "300", json_tokener_parse("{\"n1\":[1]}"));
	assert_int_equal(smpol_record_check_steps(many, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node n1's placement record entry is not an object");
	json_object_object_add(many, "300", json_tokener_parse("{\"n1\":null}"));
	assert_int_equal(smpol_record_check_steps(many, err, sizeof(err)), 0);
	f.fail_read = 0;
	/* one step's object needs the step's name */
	assert_int_equal(smpol_record_one_step("", steps, &none_more, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a step name"));
	assert_null(none_more);
	json_object_put(none);
	json_object_put(many);
	json_object_put(steps);
	free(f.text);
}

/* What record.h calls "the field": our object wrapped in {"mempolicy":...}. */
#define WRAP (sizeof("{\"mempolicy\":}") - 1)

/* The nodes of step i and their entries ({NODE:ENTRY}). */
typedef json_object *(*step_nodes_fn)(int i);

/*
 * Write nsteps steps into one record at budget, each as its writer does (all of a
 * step's entries in one merge). After every write: within the budget; the step just
 * written held, and every step so far counted (each now and then, and at the end).
 * The newest step is in "steps" at the end.
 */
static char *write_steps(int nsteps, size_t budget, step_nodes_fn nodes_of)
{
	char *comment = strdup(""), step[16], err[SMPOL_ERRLEN];
	json_object *rec;

	for (int i = 0; i < nsteps; i++) {
		json_object *entries = nodes_of(i);
		char *next = NULL;

		snprintf(step, sizeof(step), "%d", i);
		assert_int_equal(smpol_record_merge_nodes(comment, 0, step, entries, budget, &next, err, sizeof(err)), 0);
		free(comment);
		comment = next;
		if (strlen(comment) > budget + WRAP)
			fail_msg("step %d: %zu bytes, over the budget of %zu", i, strlen(comment) - WRAP, budget);
		/* (every 7th step: reading the record back is most of the test's time) */
		json_object_object_foreach(entries, node, e) {
			if ((i % 7 == 0 || i == nsteps - 1) && !smpol_record_contains(comment, 0, step, node, e))
				fail_msg("step %d: the entry of %s just written is not held", i, node);
		}
		if ((i % 499 == 0 || i == nsteps - 1) && steps_counted(comment) != (size_t)i + 1)
			fail_msg("after step %d the record counts %zu steps", i, steps_counted(comment));
		json_object_put(entries);
	}
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	assert_non_null(path_get(rec, "steps", step, NULL));
	json_object_put(rec);
	return comment;
}

/* pages vary from step to step; what makes steps the same does not */
static json_object *one_node(int i)
{
	json_object *entries = json_object_new_object();

	json_object_object_add(entries, "node1", make_entry(700 + (uint64_t)(i % 50), 300, NULL));
	return entries;
}

static json_object *two_nodes(int i)
{
	json_object *entries = one_node(i);

	json_object_object_add(entries, "node2", make_entry(600, 400 + (uint64_t)(i % 30), NULL));
	return entries;
}

/* one-node and two-node steps in turn, and every 97th step another one: it fell back */
static json_object *interleaved(int i)
{
	json_object *entries;

	if (i % 97 == 96) {
		entries = json_object_new_object();
		json_object_object_add(entries, "node2", make_entry(0, 1000, "fell back to interleave"));
		return entries;
	}
	return i % 2 ? one_node(i) : two_nodes(i);
}

static const char *folded_ids(json_object *rec, size_t group)
{
	return json_object_get_string(path_get(json_object_array_get_idx(path_get(rec, "folded", "same", NULL), group),
					       "ids", NULL, NULL));
}

/* A courier's batch of steps merged in one parse folds as merging them one after
 * another does: the same record, batch by batch, over Extra's budget (folding). */
static void test_merge_steps_as_one_by_one(void **state)
{
	char *one_by_one = write_steps(200, SMPOL_RECORD_BUDGET_EXTRA, interleaved), *batched = strdup("");
	char err[SMPOL_ERRLEN], step[16];
	json_object *a, *b;

	(void)state;
	for (int i = 0; i < 200; i += 8) {
		json_object *steps = json_object_new_object();
		char *next = NULL;

		for (int k = i; k < i + 8 && k < 200; k++) {
			snprintf(step, sizeof(step), "%d", k);
			json_object_object_add(steps, step, interleaved(k));
		}
		assert_int_equal(smpol_record_merge_steps(batched, 0, steps, SMPOL_RECORD_BUDGET_EXTRA, &next, err,
							  sizeof(err)), 0);
		free(batched);
		batched = next;
		json_object_put(steps);
	}
	assert_int_equal(smpol_record_find(one_by_one, &a, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(batched, &b, err, sizeof(err)), 0);
	assert_non_null(path_get(a, "folded", NULL, NULL));
	assert_true(json_object_equal(a, b));
	assert_int_equal(steps_counted(batched), 200);
	json_object_put(a);
	json_object_put(b);
	free(one_by_one);
	free(batched);
}

/* The job: 150 one-node steps lost steps 133-149. Now the oldest identical
 * steps are folded into one group, and the newest keep their entries. */
static void test_fold_150_steps(void **state)
{
	char *comment = write_steps(150, SMPOL_RECORD_BUDGET, one_node), err[SMPOL_ERRLEN], first[16];
	json_object *rec, *steps;
	int detailed;

	(void)state;
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(path_get(rec, "v", NULL, NULL)), 2);
	steps = path_get(rec, "steps", NULL, NULL);
	detailed = json_object_object_length(steps);
	assert_true(detailed > 20 && detailed < 150);
	/* one group: the oldest steps, in one range, the rest in detail */
	assert_int_equal(json_object_array_length(path_get(rec, "folded", "same", NULL)), 1);
	snprintf(first, sizeof(first), "0-%d", 149 - detailed);
	assert_string_equal(folded_ids(rec, 0), first);
	for (int i = 150 - detailed; i < 150; i++) {
		char step[16];

		snprintf(step, sizeof(step), "%d", i);
		assert_non_null(path_get(steps, step, "node1", NULL));
	}
	/* the group keeps what made the steps the same, and adds up their pages */
	{
		json_object *g = path_get(json_object_array_get_idx(path_get(rec, "folded", "same", NULL), 0),
					  "nodes", "node1", NULL);
		uint64_t last0 = 0;

		for (int i = 0; i < 150 - detailed; i++)
			last0 += 700 + (uint64_t)(i % 50);
		assert_non_null(path_get(g, "plans", NULL, NULL));
		assert_string_equal(json_object_get_string(path_get(g, "kind", "1", NULL)), "cxl");
		assert_int_equal(json_object_get_int64(path_get(g, "last", "0", NULL)), last0);
		assert_int_equal(json_object_get_int(path_get(g, "tasks", NULL, NULL)), 2 * (150 - detailed));
		/* the largest peak of one step, not a sum */
		assert_int_equal(json_object_get_int64(path_get(g, "peak", "0", NULL)), 700 + 49 + 10);
		assert_null(path_get(g, "target", NULL, NULL));
		assert_non_null(path_get(g, "exp", "0", NULL));
	}
	print_message("# 150 one-node steps: %d in detail, %s folded\n", detailed, folded_ids(rec, 0));
	json_object_put(rec);
	free(comment);
}

/* Region-aware steps folded into a group: their large mappings by how they were
 * placed add up, as pages do (they vary from step to step). */
static json_object *one_node_regions(int i)
{
	static const struct smpol_region_ways ways = { .allocation = 3, .sampler = 1, .pending = 0 };
	uint64_t last[1] = { 100 + (uint64_t)i };
	struct smpol_record_node in = { .requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
				       .ntasks = 1, .nsamples = 1, .max_node = 0, .last = last, .peak = last,
				       .regions = &ways };
	json_object *entries = json_object_new_object(), *e;
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	json_object_object_add(entries, "node1", e);
	return entries;
}

static void test_fold_counts_regions(void **state)
{
	char *comment = write_steps(40, 2048, one_node_regions), err[SMPOL_ERRLEN];
	json_object *rec, *group;
	int nsteps;

	(void)state;
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	group = json_object_array_get_idx(path_get(rec, "folded", "same", NULL), 0);
	assert_non_null(group);
	nsteps = json_object_get_int(path_get(group, "nsteps", NULL, NULL));
	assert_true(nsteps > 1);
	assert_int_equal(json_object_get_int(path_get(path_get(group, "nodes", "node1", "regions"), "alloc", NULL, NULL)),
			 3 * nsteps);
	assert_int_equal(json_object_get_int(path_get(path_get(group, "nodes", "node1", "regions"), "sampler", NULL,
						      NULL)), nsteps);
	json_object_put(rec);
	free(comment);
}

/* nsteps steps in AdminComment's budget and in Extra's. */
static void write_in_both_budgets(int nsteps, step_nodes_fn nodes_of, const char *what)
{
	size_t budgets[] = { SMPOL_RECORD_BUDGET, SMPOL_RECORD_BUDGET_EXTRA };

	for (size_t b = 0; b < 2; b++) {
		char *comment = write_steps(nsteps, budgets[b], nodes_of);

		print_message("# %d %s steps in %zu bytes: %zu\n", nsteps, what, budgets[b], strlen(comment) - WRAP);
		free(comment);
	}
}

static void test_fold_10000_one_node_steps(void **state)
{
	(void)state;
	write_in_both_budgets(10000, one_node, "one-node");
}

static void test_fold_2000_two_node_steps(void **state)
{
	(void)state;
	write_in_both_budgets(2000, two_nodes, "two-node");
}

/* One-node and two-node steps in turn, with a distinct step every 97th: the groups
 * list their steps with strides ("1-N:2"), the newest steps stay in detail. */
static void test_fold_interleaved_steps(void **state)
{
	char *comment = write_steps(10000, SMPOL_RECORD_BUDGET, interleaved), err[SMPOL_ERRLEN];
	json_object *rec, *same;
	bool strided = false;

	(void)state;
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	same = path_get(rec, "folded", "same", NULL);
	for (size_t i = 0; same && i < json_object_array_length(same); i++)
		strided |= strstr(folded_ids(rec, i), ":2") != NULL;
	assert_true(strided);
	for (int i = 9990; i < 10000; i++) {
		char step[16];

		snprintf(step, sizeof(step), "%d", i);
		assert_non_null(path_get(rec, "steps", step, NULL));
	}
	print_message("# 10,000 interleaved steps in %zu bytes: %zu groups, %d in detail\n", strlen(comment) - WRAP,
		      same ? json_object_array_length(same) : 0, json_object_object_length(path_get(rec, "steps", NULL, NULL)));
	json_object_put(rec);
	free(comment);
	comment = write_steps(10000, SMPOL_RECORD_BUDGET_EXTRA, interleaved);
	free(comment);
}

/* A node late for a step that was folded already is not counted twice; a late node
 * whose step is folded but without it is added. */
static void test_fold_late_node(void **state)
{
	char *comment = write_steps(200, SMPOL_RECORD_BUDGET, one_node), err[SMPOL_ERRLEN], *again = NULL;
	json_object *e = make_entry(700, 300, NULL), *rec;

	(void)state;
	assert_true(smpol_record_contains(comment, 0, "3", "node1", e));
	assert_false(smpol_record_contains(comment, 0, "3", "node9", e));
	assert_int_equal(smpol_record_merge(comment, 0, "3", "node1", e, SMPOL_RECORD_BUDGET, &again, err, sizeof(err)), 0);
	assert_string_equal(again, comment);
	free(again);
	assert_int_equal(smpol_record_merge(comment, 0, "3", "node9", e, SMPOL_RECORD_BUDGET, &again, err, sizeof(err)), 0);
	assert_true(smpol_record_contains(again, 0, "3", "node9", e));
	assert_true(smpol_record_contains(again, 0, "3", "node1", e));
	assert_int_equal(steps_counted(again), 200);
	assert_int_equal(smpol_record_find(again, &rec, err, sizeof(err)), 0);
	json_object_put(rec);
	free(again);
	free(comment);
	json_object_put(e);
}

/* Past even the groups: the job's total, which loses its node names first (then its
 * writers' entries are neither shown nor denied), but never its step count. */
static void test_fold_to_job_total(void **state)
{
	char *comment = strdup("ops"), err[SMPOL_ERRLEN], step[16], node[64];
	json_object *e = make_entry(700, 300, NULL), *rec, *job;

	(void)state;
	for (int i = 0; i < 60; i++) {
		char *next = NULL;

		snprintf(step, sizeof(step), "%d", i);
		snprintf(node, sizeof(node), "a-rather-long-node-name-of-this-cluster-%03d", i);
		assert_int_equal(smpol_record_merge(comment, 0, step, node, e, 1200, &next, err, sizeof(err)), 0);
		free(comment);
		comment = next;
		assert_true(smpol_record_contains(comment, 0, step, node, e));
		assert_true(strlen(comment) <= 1200 + strlen("ops mempolicy="));
	}
	assert_int_equal(steps_counted(comment), 60);
	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	job = path_get(rec, "folded", "job", NULL);
	assert_non_null(job);
	assert_null(path_get(job, "hosts", NULL, NULL));
	/* the oldest steps, the rest in detail, the newest among them */
	assert_memory_equal(json_object_get_string(path_get(job, "ids", NULL, NULL)), "0-5", 3);
	assert_non_null(path_get(rec, "steps", "59", NULL));
	assert_int_equal(json_object_get_int(path_get(job, "tasks", NULL, NULL)),
			 2 * json_object_get_int(path_get(job, "nsteps", NULL, NULL)));
	assert_string_equal(json_object_get_string(path_get(job, "mode", NULL, NULL)), "weighted");
	assert_true(smpol_record_names_dropped(comment, 0, "0", "a-rather-long-node-name-of-this-cluster-000"));
	assert_false(smpol_record_contains(comment, 0, "0", "a-rather-long-node-name-of-this-cluster-000", e));
	assert_memory_equal(comment, "ops mempolicy=", 14);
	json_object_put(rec);
	free(comment);
	json_object_put(e);
}

/* A record of version 1 (a summary "*", nothing folded) is read, merged into and kept
 * at version 1 while nothing needs folding. */
static void test_version_1_read_and_kept(void **state)
{
	static const char *const v1 = "{\"mempolicy\":{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"*\":{\"n\":3,"
				      "\"hosts\":[\"a\",\"b\",\"c\"],\"tasks\":6,\"last\":{\"0\":9}}}}}}";
	json_object *e = make_entry(700, 300, NULL), *rec;
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	assert_true(smpol_record_contains(v1, 0, "0", "b", e));
	assert_int_equal(smpol_record_merge(v1, 0, "1", "a", e, SMPOL_RECORD_BUDGET, &out, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(out, &rec, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(path_get(rec, "v", NULL, NULL)), 1);
	assert_int_equal(json_object_get_int(path_get(path_get(rec, "steps", "0", "*"), "n", NULL, NULL)), 3);
	assert_non_null(path_get(rec, "steps", "1", "a"));
	assert_null(path_get(rec, "folded", NULL, NULL));
	json_object_put(rec);
	free(out);
	json_object_put(e);
}

/* A copy of the whole record, put into another field (SystemComment): the field's own
 * text stays as the merge rules keep it, a record of ours there is replaced, jobstats'
 * summary and what is no record are refused. */
static void test_put_copy(void **state)
{
	json_object *e = make_entry(1, 2, NULL), *rec, *got, *empty = json_object_new_object();
	char err[SMPOL_ERRLEN], *with = NULL, *out = NULL;
	const char *old = "{\"v\":1,\"unit_kib\":4,\"steps\":{}}";
	size_t len;

	(void)state;
	assert_int_equal(smpol_record_merge("", 0, "0", "n1", e, SMPOL_RECORD_BUDGET, &with, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(with, &rec, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_put(NULL, rec, &out, err, sizeof(err)), 0);
	assert_string_equal(out, with);
	free(out);
	/* Slurm's own SystemComment text */
	assert_int_equal(smpol_record_put("slurm_cred_create failure, holding job.", rec, &out, err, sizeof(err)), 0);
	assert_memory_equal(out, "slurm_cred_create failure, holding job. mempolicy={", 51);
	assert_int_equal(smpol_record_find(out, &got, err, sizeof(err)), 0);
	assert_true(json_object_equal(got, rec));
	json_object_put(got);
	free(out);
	/* an older record of ours in a JSON object: replaced, the other keys kept */
	{
		char obj[256];

		snprintf(obj, sizeof(obj), "{\"site\":1,\"mempolicy\":%s}", old);
		assert_int_equal(smpol_record_put(obj, rec, &out, err, sizeof(err)), 0);
	}
	assert_non_null(strstr(out, "\"site\":1"));
	assert_int_equal(smpol_record_find(out, &got, err, sizeof(err)), 0);
	assert_true(json_object_equal(got, rec));
	json_object_put(got);
	free(out);
	/* a marked one in text: replaced in place, the text after it kept */
	{
		char text[256];

		snprintf(text, sizeof(text), "a mempolicy=%s b", old);
		assert_int_equal(smpol_record_put(text, rec, &out, err, sizeof(err)), 0);
	}
	len = strlen(out);
	assert_memory_equal(out, "a mempolicy={", 13);
	assert_string_equal(out + len - 2, " b");
	free(out);
	assert_int_equal(smpol_record_put("JS1:H4sI", rec, &out, err, sizeof(err)), -EEXIST);
	assert_null(out);
	assert_int_equal(smpol_record_put("", empty, &out, err, sizeof(err)), -EINVAL);
	json_object_put(empty);
	json_object_put(rec);
	free(with);
	json_object_put(e);
}

/* Copies of one job's record merged into SystemComment by several nodes: the first
 * put whole beside other text, the next adding only what is missing, written once and
 * read back. */
static void test_store_copy(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	char *small_text = write_steps(2, SMPOL_RECORD_BUDGET, one_node);
	char *big_text = write_steps(5, SMPOL_RECORD_BUDGET, one_node), err[SMPOL_ERRLEN];
	struct smpol_store_result res;
	json_object *small, *big, *got, *later;

	(void)state;
	assert_int_equal(smpol_record_find(small_text, &small, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(big_text, &big, err, sizeof(err)), 0);
	f.text = strdup("burst buffer: stage-in done");
	assert_int_equal(smpol_record_store_copy(&store, small, SMPOL_RECORD_BUDGET, &res, err, sizeof(err)), 0);
	assert_int_equal(res.writes, 1);
	assert_int_equal(res.reads, 3);
	assert_true(json_object_equal(res.record, small));
	json_object_put(res.record);
	assert_memory_equal(f.text, "burst buffer: stage-in done mempolicy={", 39);
	/* a copy with more steps adds them */
	assert_int_equal(smpol_record_store_copy(&store, big, SMPOL_RECORD_BUDGET, &res, err, sizeof(err)), 0);
	assert_int_equal(res.writes, 1);
	json_object_put(res.record);
	assert_int_equal(smpol_record_find(f.text, &got, err, sizeof(err)), 0);
	assert_true(json_object_equal(got, big));
	json_object_put(got);
	/* one with nothing missing: read twice, nothing written */
	assert_int_equal(smpol_record_store_copy(&store, small, SMPOL_RECORD_BUDGET, &res, err, sizeof(err)), 0);
	assert_int_equal(res.writes, 0);
	assert_int_equal(res.reads, 2);
	assert_true(json_object_equal(res.record, big));
	json_object_put(res.record);
	/* the copy of a later run (requeued) replaces another run's record, however
	 * complete: that one is the other run's row's, carried over by slurmctld */
	later = NULL;
	assert_int_equal(json_object_deep_copy(small, &later, NULL), 0);
	json_object_object_add(later, "run", json_object_new_int(1));
	assert_int_equal(smpol_record_store_copy(&(struct smpol_comment_store){ fake_read, fake_write, fake_pause, &f,
										 1 }, later, SMPOL_RECORD_BUDGET,
						 &res, err, sizeof(err)), 0);
	assert_int_equal(res.writes, 1);
	assert_true(json_object_equal(res.record, later));
	json_object_put(res.record);
	json_object_put(later);
	/* jobstats' summary is never written into */
	free(f.text);
	f.text = strdup("JS1:H4sI");
	assert_int_equal(smpol_record_store_copy(&store, big, SMPOL_RECORD_BUDGET, &res, err, sizeof(err)), -EEXIST);
	assert_string_equal(f.text, "JS1:H4sI");
	free(f.text);
	json_object_put(small);
	json_object_put(big);
	free(small_text);
	free(big_text);
}

struct copy_writer {
	struct fake_comment *fake;
	json_object *copy;
	int rc;
};

static void *copy_writer_run(void *arg)
{
	struct copy_writer *w = arg;
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, w->fake };
	char err[SMPOL_ERRLEN];

	w->rc = smpol_record_store_copy(&store, w->copy, SMPOL_RECORD_BUDGET, NULL, err, sizeof(err));
	return NULL;
}

/* Two nodes look again at once, each with a copy holding an entry the field lost: each
 * reads back and merges again after a loss, so both entries are there at the end. */
static void test_store_copies_racing(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER, .rmw_delay_us = 3000, .pause_ms = 10 };
	struct copy_writer w[2] = { { &f, NULL, 0 }, { &f, NULL, 0 } };
	json_object *e0 = make_entry(1, 2, NULL), *ea = make_entry(3, 4, NULL), *eb = make_entry(5, 6, NULL);
	char *base = NULL, *a = NULL, *b = NULL, err[SMPOL_ERRLEN];
	pthread_t th[2];

	(void)state;
	/* the field: step 0 alone; node a's copy adds step 1, node b's step 2 */
	assert_int_equal(smpol_record_merge("", 0, "0", "a", e0, SMPOL_RECORD_BUDGET, &base, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_merge(base, 0, "1", "a", ea, SMPOL_RECORD_BUDGET, &a, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_merge(base, 0, "2", "b", eb, SMPOL_RECORD_BUDGET, &b, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(a, &w[0].copy, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(b, &w[1].copy, err, sizeof(err)), 0);
	for (int round = 0; round < 10; round++) {
		f.text = strdup(base);
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&th[i], NULL, copy_writer_run, &w[i]), 0);
		for (int i = 0; i < 2; i++) {
			pthread_join(th[i], NULL);
			assert_int_equal(w[i].rc, 0);
		}
		assert_true(smpol_record_contains(f.text, 0, "0", "a", e0));
		assert_true(smpol_record_contains(f.text, 0, "1", "a", ea));
		assert_true(smpol_record_contains(f.text, 0, "2", "b", eb));
		free(f.text);
	}
	for (int i = 0; i < 2; i++)
		json_object_put(w[i].copy);
	free(base);
	free(a);
	free(b);
	json_object_put(e0);
	json_object_put(ea);
	json_object_put(eb);
}

/* The store hands back our record as its confirming read had it. */
static void test_store_hands_back_record(void **state)
{
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	json_object *e = make_entry(3, 4, NULL), *rec;
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	f.text = strdup("x");
	assert_int_equal(smpol_record_store(&store, "2", "n9", e, SMPOL_RECORD_BUDGET, 10, &res, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_find(f.text, &rec, err, sizeof(err)), 0);
	assert_non_null(res.record);
	assert_true(json_object_equal(res.record, rec));
	json_object_put(res.record);
	json_object_put(rec);
	free(f.text);
	json_object_put(e);
}

/* A node late for its step's collector writes into a summary whose names were dropped:
 * that summary neither shows nor denies its entry, so it is folded in once (it used
 * to count as there already, and the node was lost). */
static void test_store_into_nameless_summary(void **state)
{
	json_object *e = make_entry(700, 300, NULL), *rec, *sum;
	struct fake_comment f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct smpol_comment_store store = { fake_read, fake_write, fake_pause, &f };
	struct smpol_store_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	f.text = strdup("{\"mempolicy\":{\"v\":1,\"unit_kib\":4,\"steps\":{\"7\":{\"*\":{\"n\":1,\"tasks\":2}}}}}");
	assert_false(smpol_record_contains(f.text, 0, "7", "late", e));
	assert_true(smpol_record_names_dropped(f.text, 0, "7", "late"));
	assert_int_equal(smpol_record_store(&store, "7", "late", e, SMPOL_RECORD_BUDGET, 10, &res, err, sizeof(err)), 0);
	json_object_put(res.record);
	assert_int_equal(res.writes, 1);
	assert_int_equal(res.losses, 0);
	assert_int_equal(smpol_record_find(f.text, &rec, err, sizeof(err)), 0);
	sum = path_get(rec, "steps", "7", SMPOL_RECORD_SUMMARY);
	assert_int_equal(json_object_get_int(path_get(sum, "n", NULL, NULL)), 2);
	assert_int_equal(json_object_get_int(path_get(sum, "tasks", NULL, NULL)), 4);
	json_object_put(rec);
	free(f.text);
	json_object_put(e);
}

/* One table of step names for the record's keys and mpolctl's job ids: each name
 * gives back its number, and Slurm's special steps their words. */
static void test_step_names(void **state)
{
	static const char *const bad[] = { "+3", "-1", "4294967295", "4294967280", "0x3", "", "Batch", "3 " };
	static const uint32_t steps[] = { 0, 17, SMPOL_STEP_MAX, SMPOL_STEP_BATCH, SMPOL_STEP_EXTERN,
					  SMPOL_STEP_INTERACTIVE };
	char name[32], err[SMPOL_ERRLEN];
	uint32_t step;

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		smpol_step_name(steps[i], name, sizeof(name));
		assert_int_equal(smpol_step_number(name, &step, err, sizeof(err)), 0);
		assert_int_equal(step, steps[i]);
	}
	smpol_step_name(SMPOL_STEP_BATCH, name, sizeof(name));
	assert_string_equal(name, "batch");
	smpol_step_name(0xfffffffcU, name, sizeof(name));
	assert_string_equal(name, "extern");
	smpol_step_name(0xfffffffaU, name, sizeof(name));
	assert_string_equal(name, "interactive");
	smpol_step_name(4, name, sizeof(name));
	assert_string_equal(name, "4");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (smpol_step_number(bad[i], &step, err, sizeof(err)) != -EINVAL || !strstr(err, "names no step"))
			fail_msg("'%s' was taken as a step", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_fields),
		cmocka_unit_test(test_entry_spanning_plan),
		cmocka_unit_test(test_step_names),
		cmocka_unit_test(test_entry_without_samples),
		cmocka_unit_test(test_entry_regions),
		cmocka_unit_test(test_merge_empty),
		cmocka_unit_test(test_merge_keeps_plain_text),
		cmocka_unit_test(test_merge_keeps_foreign_json_object),
		cmocka_unit_test(test_merge_keeps_other_forms),
		cmocka_unit_test(test_find_reports_why),
		cmocka_unit_test(test_lost_update_detected_and_repaired),
		cmocka_unit_test(test_many_nodes_summarized),
		cmocka_unit_test(test_budget_exhausted),
		cmocka_unit_test(test_budget_is_inclusive),
		cmocka_unit_test(test_summary_skips_damaged_counts),
		cmocka_unit_test(test_summary_counts_regions),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_store_racing_writers),
		cmocka_unit_test(test_store_repairs_losses),
		cmocka_unit_test(test_store_errors_propagate),
		cmocka_unit_test(test_other_version_left_alone),
		cmocka_unit_test(test_store_nodes_sole_writer),
		cmocka_unit_test(test_store_steps_together),
		cmocka_unit_test(test_runs_of_a_requeued_job),
		cmocka_unit_test(test_jobstats_summary_untouched),
		cmocka_unit_test(test_fold_150_steps),
		cmocka_unit_test(test_fold_counts_regions),
		cmocka_unit_test(test_fold_10000_one_node_steps),
		cmocka_unit_test(test_fold_2000_two_node_steps),
		cmocka_unit_test(test_fold_interleaved_steps),
		cmocka_unit_test(test_merge_steps_as_one_by_one),
		cmocka_unit_test(test_fold_late_node),
		cmocka_unit_test(test_fold_to_job_total),
		cmocka_unit_test(test_version_1_read_and_kept),
		cmocka_unit_test(test_store_into_nameless_summary),
		cmocka_unit_test(test_put_copy),
		cmocka_unit_test(test_store_copy),
		cmocka_unit_test(test_store_copies_racing),
		cmocka_unit_test(test_store_hands_back_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
