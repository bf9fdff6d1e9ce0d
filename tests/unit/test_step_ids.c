/* test_step_ids.c - step lists of the folded record: ranges, strides, names, limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "step_ids.h"

/* text parsed and written again */
static void assert_round_trip(const char *text, const char *written, size_t count)
{
	struct smpol_step_ids s;
	char err[SMPOL_ERRLEN], *out;

	smpol_step_ids_init(&s);
	assert_int_equal(smpol_step_ids_parse(text, &s, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_ids_count(&s), count);
	out = smpol_step_ids_format(&s);
	assert_string_equal(out, written);
	free(out);
	smpol_step_ids_free(&s);
}

static void test_lists(void **state)
{
	(void)state;
	assert_round_trip("0", "0", 1);
	assert_round_trip("0-131,140", "0-131,140", 133);
	/* a pair is not a range; three in a row are */
	assert_round_trip("5,6", "5,6", 2);
	assert_round_trip("5,6,7", "5-7", 3);
	/* strides, as Slurm writes job arrays */
	assert_round_trip("0,2,4,6,8", "0-8:2", 5);
	assert_round_trip("0-9998:2,1-9999:2", "0-9999", 10000);
	assert_round_trip("0,2,3,4", "0,2-4", 4);
	/* two strides woven together, and every third step missing */
	assert_round_trip("350,352,353,355,356,358,359,361", "350-359:3,352-361:3", 8);
	assert_round_trip("0,1,3,4,6,7,9,10", "0-9:3,1-10:3", 8);
	/* unsorted, repeated, and named steps after the numbered ones */
	assert_round_trip("batch,9,3,3,extern,1-5", "1-5,9,batch,extern", 8);
	assert_round_trip("interactive", "interactive", 1);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"", ",", "1,", "-1", "01", "1-", "5-3", "1-9:0", "1:2", "Batch", "a b", "1.5",
		"4294967296", "0-4294967295", "a234567890123456",
	};
	struct smpol_step_ids s;
	char err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc;

		smpol_step_ids_init(&s);
		err[0] = '\0';
		rc = smpol_step_ids_parse(bad[i], &s, err, sizeof(err));
		if (rc == 0)
			fail_msg("'%s' was taken as a list of steps", bad[i]);
		assert_true(rc == -EINVAL || rc == -E2BIG);
		assert_true(err[0] != '\0');
		smpol_step_ids_free(&s);
	}
	/* a key that cannot be listed is refused one by one too, and says which */
	smpol_step_ids_init(&s);
	assert_int_equal(smpol_step_ids_add(&s, "1,2", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'1,2'"));
	assert_false(smpol_step_key_listable("x y"));
	assert_true(smpol_step_key_listable("batch"));
	assert_true(smpol_step_key_listable("4294967295"));
	smpol_step_ids_free(&s);
}

static void test_add_has_merge(void **state)
{
	struct smpol_step_ids a, b;
	char err[SMPOL_ERRLEN], *out;

	(void)state;
	smpol_step_ids_init(&a);
	smpol_step_ids_init(&b);
	for (int i = 9; i >= 0; i -= 3) {
		char key[8];

		snprintf(key, sizeof(key), "%d", i);
		assert_int_equal(smpol_step_ids_add(&a, key, err, sizeof(err)), 0);
	}
	assert_int_equal(smpol_step_ids_add(&a, "batch", err, sizeof(err)), 0);
	assert_int_equal(smpol_step_ids_add(&a, "batch", err, sizeof(err)), 0);
	assert_true(smpol_step_ids_has(&a, "6"));
	assert_false(smpol_step_ids_has(&a, "7"));
	assert_true(smpol_step_ids_has(&a, "batch"));
	assert_false(smpol_step_ids_has(&a, "extern"));
	assert_int_equal(smpol_step_ids_parse("1-8:3,extern", &b, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_ids_merge(&a, &b, err, sizeof(err)), 0);
	out = smpol_step_ids_format(&a);
	assert_string_equal(out, "0-9:3,1-7:3,batch,extern");
	free(out);
	smpol_step_ids_free(&a);
	smpol_step_ids_free(&b);
}

static void test_order(void **state)
{
	(void)state;
	assert_true(smpol_step_key_cmp("2", "10") < 0);
	assert_true(smpol_step_key_cmp("10", "batch") < 0);
	assert_true(smpol_step_key_cmp("batch", "extern") < 0);
	assert_true(smpol_step_key_cmp("extern", "x,y") < 0);
	assert_int_equal(smpol_step_key_cmp("7", "7"), 0);
}

/* A list as long as Slurm allows steps in a job, and one past the limit. */
static void test_limits(void **state)
{
	struct smpol_step_ids s;
	char err[SMPOL_ERRLEN], text[64];

	(void)state;
	smpol_step_ids_init(&s);
	snprintf(text, sizeof(text), "0-%u", SMPOL_STEP_IDS_MAX - 1);
	assert_int_equal(smpol_step_ids_parse(text, &s, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_ids_count(&s), SMPOL_STEP_IDS_MAX);
	assert_int_equal(smpol_step_ids_add(&s, "99999999", err, sizeof(err)), -E2BIG);
	smpol_step_ids_free(&s);
	assert_int_equal(smpol_step_ids_parse("a,b,c,d,e,f,g,h,i", &s, err, sizeof(err)), -E2BIG);
	smpol_step_ids_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_add_has_merge),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
