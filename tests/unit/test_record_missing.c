/* test_record_missing.c - the nodes a step's record was written without: named by
 * the writer ({NODE:null}), taken off by the node's late entry, kept through folding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "record.h"
#include "step_ids.h"

static json_object *make_entry(uint64_t pages)
{
	uint64_t last[1] = { pages }, peak[1] = { pages };
	struct smpol_record_node in = { .requested = "weighted", .applied = "weighted", .path = "weighted-interleave",
				       .ntasks = 1, .nsamples = 1, .last_time = 1700000000, .max_node = 0,
				       .last = last, .peak = peak };
	json_object *e = NULL;
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_record_entry_build(&in, &e, err, sizeof(err)), 0);
	return e;
}

/* comment with step's entries merged: node names with an entry, then those missing. */
static char *write_step(char *comment, const char *step, const char *with, const char *without, size_t budget)
{
	json_object *entries = json_object_new_object();
	char err[SMPOL_ERRLEN], *merged = NULL;

	if (with)
		json_object_object_add(entries, with, make_entry(100));
	if (without)
		json_object_object_add(entries, without, NULL);
	assert_int_equal(smpol_record_merge_nodes(comment, 0, step, entries, budget, &merged, err, sizeof(err)), 0);
	json_object_put(entries);
	free(comment);
	return merged;
}

static json_object *record_of(const char *comment)
{
	json_object *rec = NULL;
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_record_find(comment, &rec, err, sizeof(err)), 0);
	return rec;
}

/* The steps comment names node missing from ("" when none). */
static const char *missing_of(json_object *rec, const char *node)
{
	json_object *missing, *ids;

	if (!json_object_object_get_ex(rec, SMPOL_REC_MISSING, &missing))
		return "";
	return json_object_object_get_ex(missing, node, &ids) ? json_object_get_string(ids) : "";
}

/* The collector of a two-node step writes without the lost node: the record names it,
 * stays version 1, and the writer's confirming read sees the name. */
static void test_lost_node_named(void **state)
{
	char *comment = write_step(strdup(""), "0", "c1", "c2", SMPOL_RECORD_BUDGET);
	json_object *rec = record_of(comment), *v;

	(void)state;
	assert_string_equal(missing_of(rec, "c2"), "0");
	assert_true(json_object_object_get_ex(rec, SMPOL_REC_VERSION, &v));
	assert_int_equal(json_object_get_int(v), SMPOL_RECORD_VERSION_FLAT);
	assert_true(smpol_record_names_missing(comment, 0, "0", "c2"));
	assert_false(smpol_record_contains(comment, 0, "0", "c2", NULL));
	assert_false(smpol_record_names_missing(comment, 0, "0", "c3"));
	assert_false(smpol_record_names_missing(comment, 0, "1", "c2"));
	json_object_put(rec);
	free(comment);
}

/* The first node lost: the second writes itself and names it; the lost node's entry
 * arriving after all takes it off, and the part goes with its last name. */
static void test_late_entry_takes_name_off(void **state)
{
	char *comment = write_step(strdup("ops note"), "3", "c2", "c1", SMPOL_RECORD_BUDGET);
	json_object *rec;

	(void)state;
	comment = write_step(comment, "3", "c1", NULL, SMPOL_RECORD_BUDGET);
	rec = record_of(comment);
	assert_false(json_object_object_get_ex(rec, SMPOL_REC_MISSING, NULL));
	assert_true(smpol_record_contains(comment, 0, "3", "c1", NULL));
	assert_non_null(strstr(comment, "ops note"));
	json_object_put(rec);
	free(comment);
}

/* A writer that lacks an entry the record holds already (another writer's) does not
 * name that node. */
static void test_held_entry_not_named(void **state)
{
	char *comment = write_step(strdup(""), "0", "c2", NULL, SMPOL_RECORD_BUDGET);
	json_object *rec;

	(void)state;
	comment = write_step(comment, "0", "c1", "c2", SMPOL_RECORD_BUDGET);
	rec = record_of(comment);
	assert_false(json_object_object_get_ex(rec, SMPOL_REC_MISSING, NULL));
	json_object_put(rec);
	free(comment);
}

/* Steps 5-7 lost c2, then step 6's entry came: "5,7". Folding 300 steps into a small
 * budget keeps the names. */
static void test_names_survive_folding(void **state)
{
	char *comment = strdup(""), step[16];
	json_object *rec;

	(void)state;
	for (int i = 0; i < 300; i++) {
		snprintf(step, sizeof(step), "%d", i);
		comment = write_step(comment, step, "c1", i >= 5 && i <= 7 ? "c2" : NULL, 2000);
		if (i == 7)
			comment = write_step(comment, "6", "c2", NULL, 2000);
	}
	rec = record_of(comment);
	assert_non_null(json_object_object_get_ex(rec, SMPOL_REC_FOLDED, NULL) ? rec : NULL);
	assert_string_equal(missing_of(rec, "c2"), "5,7");
	assert_true(smpol_record_names_missing(comment, 0, "7", "c2"));
	json_object_put(rec);
	free(comment);
}

/* A missing node's value is null or an entry object, nothing else. */
static void test_bad_value_refused(void **state)
{
	json_object *entries = json_object_new_object();
	char err[SMPOL_ERRLEN], *merged = NULL;

	(void)state;
	json_object_object_add(entries, "c1", json_object_new_string("lost"));
	assert_int_equal(smpol_record_merge_nodes("", 0, "0", entries, SMPOL_RECORD_BUDGET, &merged, err, sizeof(err)),
			 -EINVAL);
	assert_null(merged);
	json_object_put(entries);
}

static void test_step_ids_remove(void **state)
{
	struct smpol_step_ids s;
	char err[SMPOL_ERRLEN], *text;

	(void)state;
	smpol_step_ids_init(&s);
	assert_int_equal(smpol_step_ids_parse("0-3,batch,extern", &s, err, sizeof(err)), 0);
	smpol_step_ids_remove(&s, "2");
	smpol_step_ids_remove(&s, "batch");
	smpol_step_ids_remove(&s, "9");
	text = smpol_step_ids_format(&s);
	assert_string_equal(text, "0,1,3,extern");
	free(text);
	smpol_step_ids_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_node_named),
		cmocka_unit_test(test_late_entry_takes_name_off),
		cmocka_unit_test(test_held_entry_not_named),
		cmocka_unit_test(test_names_survive_folding),
		cmocka_unit_test(test_bad_value_refused),
		cmocka_unit_test(test_step_ids_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
