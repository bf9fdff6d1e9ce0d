/* test_recheck.c - records kept to look at again after their job's end
 * (record_recheck.h): kept, replaced, listed when due, rescheduled, bounded, each run
 * of a requeued job kept apart, and the times of the looks before and after the end;
 * a copy that keeps what the field lost, and its entries merged back where the field
 * lost them (record_merge_back.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "record.h"
#include "record_merge_back.h"
#include "record_recheck.h"

static json_object *record(int tasks)
{
	char text[160];

	snprintf(text, sizeof(text), "{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"n1\":{\"tasks\":%d}}}}", tasks);
	return json_tokener_parse(text);
}

/* Run 0 of job J, whose step started at 900. */
static const struct smpol_record_run *run0(uint32_t job)
{
	static struct smpol_record_run r;

	r = (struct smpol_record_run){ job, 0, 900 };
	return &r;
}

static void test_kept_due_and_replaced(void **state)
{
	struct fake_state *fx = *state;
	json_object *one = record(1), *two = record(2);
	struct smpol_recheck r;
	char err[SMPOL_ERRLEN];
	struct smpol_record_run *jobs;
	int64_t next;
	int n;

	/* nothing kept: nothing due */
	assert_int_equal(smpol_recheck_due(&fx->host, 1000, &jobs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(next, 0);
	assert_int_equal(smpol_recheck_put(&fx->host, run0(7), one, 1030, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_put(&fx->host, run0(8), one, 1100, err, sizeof(err)), 0);
	/* a later write of job 7 replaces its copy */
	assert_int_equal(smpol_recheck_put(&fx->host, run0(7), two, 1030, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_due(&fx->host, 1000, &jobs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(next, 1030);
	assert_int_equal(smpol_recheck_due(&fx->host, 1030, &jobs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].job, 7);
	assert_int_equal(jobs[0].run, 0);
	assert_int_equal(next, 1100);
	free(jobs);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(7), &r, err, sizeof(err)), 0);
	assert_true(json_object_equal(r.record, two));
	assert_int_equal(r.run.job, 7);
	assert_int_equal(r.run.started, 900);
	assert_int_equal(r.tries, 0);
	assert_int_equal(r.ended, 0);
	/* the end seen: kept with it, due later */
	r.ended = 1050;
	r.tries = 2;
	assert_int_equal(smpol_recheck_update(&fx->host, &r, 1080, err, sizeof(err)), 0);
	json_object_put(r.record);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(7), &r, err, sizeof(err)), 0);
	assert_int_equal(r.ended, 1050);
	assert_int_equal(r.tries, 2);
	json_object_put(r.record);
	assert_int_equal(smpol_recheck_due(&fx->host, 1090, &jobs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].job, 7);
	free(jobs);
	assert_int_equal(smpol_recheck_remove(&fx->host, run0(7), err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(7), &r, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_recheck_remove(&fx->host, run0(7), err, sizeof(err)), 0);
	json_object_put(one);
	json_object_put(two);
}

/* A requeued job's runs each keep their copy (each is its own row's), named apart. */
static void test_runs_apart(void **state)
{
	struct fake_state *fx = *state;
	json_object *one = record(1), *two = record(2);
	struct smpol_record_run first = { 7, 0, 900 }, second = { 7, 1, 1200 }, *runs;
	struct smpol_recheck r;
	char err[SMPOL_ERRLEN], path[4400];
	int64_t next;
	FILE *f;
	int n;

	assert_int_equal(smpol_recheck_put(&fx->host, &first, one, 1030, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_put(&fx->host, &second, two, 1300, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/recheck/7.run1.json", fx->dir);
	assert_int_equal(access(path, F_OK), 0);
	/* names of no run (run 0 spelled out, another ending) are not entries */
	snprintf(path, sizeof(path), "%s/recheck/7.run0.json", fx->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(smpol_recheck_due(&fx->host, 2000, &runs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].job, 7);
	assert_int_equal(runs[0].run, 0);
	assert_int_equal(runs[1].job, 7);
	assert_int_equal(runs[1].run, 1);
	assert_int_equal(smpol_recheck_get(&fx->host, &runs[1], &r, err, sizeof(err)), 0);
	assert_true(json_object_equal(r.record, two));
	assert_int_equal(r.run.run, 1);
	assert_int_equal(r.run.started, 1200);
	json_object_put(r.record);
	free(runs);
	/* one run's entry goes, the other's stays */
	assert_int_equal(smpol_recheck_remove(&fx->host, &first, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_get(&fx->host, &first, &r, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_recheck_get(&fx->host, &second, &r, err, sizeof(err)), 0);
	assert_true(json_object_equal(r.record, two));
	json_object_put(r.record);
	json_object_put(one);
	json_object_put(two);
}

static void test_bounded(void **state)
{
	struct fake_state *fx = *state;
	json_object *one = record(1);
	char err[SMPOL_ERRLEN];
	struct smpol_record_run *jobs;
	int64_t next;
	int n;

	for (uint32_t job = 1; job <= SMPOL_RECHECK_MAX + 3; job++)
		assert_int_equal(smpol_recheck_put(&fx->host, run0(job), one, 5000 + job, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_due(&fx->host, 1000000, &jobs, &n, &next, err, sizeof(err)), 0);
	assert_int_equal(n, SMPOL_RECHECK_MAX);
	/* those due first went */
	assert_int_equal(jobs[0].job, 4);
	free(jobs);
	json_object_put(one);
}

static void test_schedule(void **state)
{
	struct smpol_recheck r = { .run = { .job = 1 } };
	int64_t due;

	(void)state;
	/* before the end: 30 s, doubling, up to 10 min */
	assert_true(smpol_recheck_next(&r, 1000, &due));
	assert_int_equal(due, 1030);
	r.tries = 1;
	assert_true(smpol_recheck_next(&r, 1000, &due));
	assert_int_equal(due, 1060);
	r.tries = 9;
	assert_true(smpol_recheck_next(&r, 1000, &due));
	assert_int_equal(due, 1600);
	/* after it: 30 s, 1, 2, 4, 8, 10 min after the end, then no more */
	r.ended = 1000;
	assert_true(smpol_recheck_next(&r, 1005, &due));
	assert_int_equal(due, 1030);
	assert_true(smpol_recheck_next(&r, 1030, &due));
	assert_int_equal(due, 1060);
	assert_true(smpol_recheck_next(&r, 1300, &due));
	assert_int_equal(due, 1480);
	assert_true(smpol_recheck_next(&r, 1480, &due));
	assert_int_equal(due, 1600);
	assert_false(smpol_recheck_next(&r, 1600, &due));
}

static void test_damaged_entry(void **state)
{
	struct fake_state *fx = *state;
	json_object *one = record(1);
	struct smpol_recheck r;
	char err[SMPOL_ERRLEN], path[4400];
	FILE *f;

	assert_int_equal(smpol_recheck_put(&fx->host, run0(9), one, 1, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/recheck/9.json", fx->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"job\":9}", f);
	fclose(f);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(9), &r, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "recheck/9.json"));
	json_object_put(one);
}

static json_object *parse(const char *text)
{
	json_object *obj = json_tokener_parse(text);

	assert_non_null(obj);
	return obj;
}

/* The tasks of step's entry on node in comment's record (-1: none there). */
static int64_t tasks_in(const char *comment, const char *step, const char *node)
{
	json_object *rec = NULL, *steps, *nodes, *entry, *tasks;
	int64_t n = -1;

	if (smpol_record_find(comment, &rec, NULL, 0) == 0 && json_object_object_get_ex(rec, "steps", &steps) &&
	    json_object_object_get_ex(steps, step, &nodes) && json_object_object_get_ex(nodes, node, &entry) &&
	    json_object_object_get_ex(entry, "tasks", &tasks))
		n = json_object_get_int64(tasks);
	json_object_put(rec);
	return n;
}

/* A later write whose read had lost an entry of an earlier one: the copy keeps both,
 * and a node's newer entry for a step takes the place of its older one. */
static void test_copy_keeps_lost(void **state)
{
	struct fake_state *fx = *state;
	json_object *first = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"n1\":{\"tasks\":1}}}}");
	json_object *second = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"1\":{\"n1\":{\"tasks\":2}},"
				    "\"2\":{\"n2\":{\"tasks\":3}}}}");
	json_object *third = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"n1\":{\"tasks\":7}}}}");
	struct smpol_recheck r;
	char err[SMPOL_ERRLEN], *text = NULL;

	assert_int_equal(smpol_recheck_put(&fx->host, run0(5), first, 1030, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_put(&fx->host, run0(5), second, 1060, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(5), &r, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_put("", r.record, &text, err, sizeof(err)), 0);
	assert_int_equal(tasks_in(text, "0", "n1"), 1);
	assert_int_equal(tasks_in(text, "1", "n1"), 2);
	assert_int_equal(tasks_in(text, "2", "n2"), 3);
	free(text);
	json_object_put(r.record);
	assert_int_equal(smpol_recheck_put(&fx->host, run0(5), third, 1090, err, sizeof(err)), 0);
	assert_int_equal(smpol_recheck_get(&fx->host, run0(5), &r, err, sizeof(err)), 0);
	assert_int_equal(smpol_record_put("", r.record, &text, err, sizeof(err)), 0);
	assert_int_equal(tasks_in(text, "0", "n1"), 7);
	assert_int_equal(tasks_in(text, "1", "n1"), 2);
	free(text);
	json_object_put(r.record);
	json_object_put(first);
	json_object_put(second);
	json_object_put(third);
}

/* The copy's entries the field lost are merged back; what the field holds of a step
 * and node (another entry, a summary naming the node or one whose names were dropped)
 * stays as it is; a copy's own summary is not taken apart; other text is kept. */
static void test_merge_missing(void **state)
{
	const char *field = "ops mempolicy={\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"a\":{\"tasks\":1}},"
			    "\"1\":{\"b\":{\"tasks\":2}},\"4\":{\"*\":{\"n\":2,\"tasks\":2}},"
			    "\"5\":{\"*\":{\"n\":2,\"hosts\":[\"a\",\"x\"],\"tasks\":2}}}} tail";
	json_object *copy = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"a\":{\"tasks\":9}},"
				  "\"2\":{\"a\":{\"tasks\":3}},\"3\":{\"*\":{\"n\":2,\"hosts\":[\"a\",\"c\"]}},"
				  "\"4\":{\"a\":{\"tasks\":1}},\"5\":{\"a\":{\"tasks\":1}}}}");
	char err[SMPOL_ERRLEN], *merged = NULL, *again = NULL;
	int count = 0;

	(void)state;
	assert_false(smpol_record_has_all(field, copy));
	assert_int_equal(smpol_record_merge_back(field, copy, SMPOL_RECORD_BUDGET, &merged, &count, err,
						    sizeof(err)), 0);
	assert_int_equal(count, 1);
	assert_int_equal(tasks_in(merged, "2", "a"), 3);
	assert_int_equal(tasks_in(merged, "0", "a"), 1);       /* the field's entry stays */
	assert_int_equal(tasks_in(merged, "1", "b"), 2);
	assert_int_equal(tasks_in(merged, "3", "*"), -1);      /* the copy's summary is not merged */
	assert_int_equal(tasks_in(merged, "4", "a"), -1);      /* nameless summary: not counted twice */
	assert_int_equal(tasks_in(merged, "5", "a"), -1);      /* named in a summary */
	assert_memory_equal(merged, "ops mempolicy={", 15);
	assert_string_equal(merged + strlen(merged) - 5, " tail");
	assert_true(smpol_record_has_all(merged, copy));
	/* nothing missing: the field as it was */
	assert_int_equal(smpol_record_merge_back(merged, copy, SMPOL_RECORD_BUDGET, &again, &count, err,
						    sizeof(err)), 0);
	assert_int_equal(count, 0);
	assert_string_equal(again, merged);
	free(again);
	free(merged);
	json_object_put(copy);
}

/* A field that names a node missing from a step (its collector wrote without it) still
 * gets the node's kept entry of that step back, and the name goes. */
static void test_merge_back_names_no_more(void **state)
{
	const char *field = "{\"mempolicy\":{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"a\":{\"tasks\":1}}},"
			    "\"missing\":{\"b\":\"0\"}}}";
	json_object *copy = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"b\":{\"tasks\":2}}}}");
	char err[SMPOL_ERRLEN], *merged = NULL;
	int count = 0;

	(void)state;
	assert_true(smpol_record_names_missing(field, 0, "0", "b"));
	assert_false(smpol_record_has_all(field, copy));
	assert_int_equal(smpol_record_merge_back(field, copy, SMPOL_RECORD_BUDGET, &merged, &count, err,
						  sizeof(err)), 0);
	assert_int_equal(count, 1);
	assert_int_equal(tasks_in(merged, "0", "b"), 2);
	assert_int_equal(tasks_in(merged, "0", "a"), 1);
	assert_false(smpol_record_names_missing(merged, 0, "0", "b"));
	assert_null(strstr(merged, "\"missing\""));
	free(merged);
	json_object_put(copy);
}

/* A field with no record of the copy's run gets the copy whole; jobstats' summary is
 * never written into. */
static void test_merge_missing_no_record(void **state)
{
	json_object *copy = parse("{\"v\":1,\"unit_kib\":4,\"steps\":{\"0\":{\"a\":{\"tasks\":9}}}}"), *got;
	const char *other_run = "{\"mempolicy\":{\"v\":1,\"unit_kib\":4,\"run\":1,\"steps\":{\"0\":{\"b\":{}}}}}";
	char err[SMPOL_ERRLEN], *merged = NULL;
	int count = 0;

	(void)state;
	assert_false(smpol_record_has_all("burst buffer: done", copy));
	assert_int_equal(smpol_record_merge_back("burst buffer: done", copy, SMPOL_RECORD_BUDGET, &merged, &count,
						    err, sizeof(err)), 0);
	assert_int_equal(count, -1);
	assert_int_equal(smpol_record_find(merged, &got, err, sizeof(err)), 0);
	assert_true(json_object_equal(got, copy));
	json_object_put(got);
	free(merged);
	assert_false(smpol_record_has_all(other_run, copy));
	assert_int_equal(smpol_record_merge_back(other_run, copy, SMPOL_RECORD_BUDGET, &merged, &count, err,
						    sizeof(err)), 0);
	assert_int_equal(count, -1);
	assert_int_equal(tasks_in(merged, "0", "a"), 9);
	assert_int_equal(tasks_in(merged, "0", "b"), -1);
	free(merged);
	assert_int_equal(smpol_record_merge_back("JS1:H4sI", copy, SMPOL_RECORD_BUDGET, &merged, &count, err,
						    sizeof(err)), -EEXIST);
	assert_null(merged);
	json_object_put(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_due_and_replaced, fake_state_setup, fake_state_teardown),
		cmocka_unit_test_setup_teardown(test_runs_apart, fake_state_setup, fake_state_teardown),
		cmocka_unit_test_setup_teardown(test_bounded, fake_state_setup, fake_state_teardown),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test_setup_teardown(test_damaged_entry, fake_state_setup, fake_state_teardown),
		cmocka_unit_test_setup_teardown(test_copy_keeps_lost, fake_state_setup, fake_state_teardown),
		cmocka_unit_test(test_merge_missing),
		cmocka_unit_test(test_merge_back_names_no_more),
		cmocka_unit_test(test_merge_missing_no_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
