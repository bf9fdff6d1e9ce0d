/* test_bitmap.c - id sets, the kernel's list and mask syntax, and their errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bitmap.h"
#include "error.h"

static void test_set_ops(void **state)
{
	struct smpol_bitmap a, b;

	(void)state;
	smpol_bitmap_clear(&a);
	assert_true(smpol_bitmap_empty(&a));
	assert_int_equal(smpol_bitmap_next(&a, 0), -1);
	smpol_bitmap_set(&a, 0);
	smpol_bitmap_set(&a, 63);
	smpol_bitmap_set(&a, 64);
	smpol_bitmap_set(&a, SMPOL_MAX_CPUS - 1);
	smpol_bitmap_set(&a, SMPOL_MAX_CPUS);   /* out of range: ignored */
	smpol_bitmap_set(&a, -1);
	assert_int_equal(smpol_bitmap_count(&a), 4);
	assert_true(smpol_bitmap_test(&a, 63) && smpol_bitmap_test(&a, 64));
	assert_false(smpol_bitmap_test(&a, 62) || smpol_bitmap_test(&a, -1) || smpol_bitmap_test(&a, SMPOL_MAX_CPUS));
	assert_int_equal(smpol_bitmap_next(&a, 1), 63);
	assert_int_equal(smpol_bitmap_next(&a, 65), SMPOL_MAX_CPUS - 1);
	assert_int_equal(smpol_bitmap_next(&a, SMPOL_MAX_CPUS), -1);
	assert_int_equal(smpol_bitmap_next(&a, -5), 0);
	smpol_bitmap_unset(&a, 63);
	assert_false(smpol_bitmap_test(&a, 63));
	smpol_bitmap_clear(&b);
	smpol_bitmap_set(&b, 64);
	smpol_bitmap_set(&b, 5);
	assert_int_equal(smpol_bitmap_and(&a, &b), 1);
	assert_true(smpol_bitmap_test(&a, 64));
	smpol_bitmap_or(&a, &b);
	assert_true(smpol_bitmap_equal(&a, &b));
}

static void test_list_good(void **state)
{
	static const struct { const char *in, *out; int count; } cases[] = {
		{ "0-3,8", "0-3,8", 5 }, { "", "", 0 }, { "  \n", "", 0 }, { " 1\n", "1", 1 },
		{ "3,1,2", "1-3", 3 }, { "0-0", "0", 1 }, { "5,5,4-6", "4-6", 3 }, { "007", "7", 1 },
		{ "0,2,4-5,1023", "0,2,4-5,1023", 5 },
	};
	struct smpol_bitmap b;
	char err[SMPOL_ERRLEN], buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(smpol_bitmap_parse_list(cases[i].in, SMPOL_MAX_NODES, &b, err, sizeof(err)), 0);
		assert_int_equal(smpol_bitmap_count(&b), cases[i].count);
		assert_int_equal(smpol_bitmap_format_list(&b, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].out);
	}
	assert_int_equal(smpol_bitmap_parse_list("8191", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	assert_true(smpol_bitmap_test(&b, 8191));
}

static void test_list_bad(void **state)
{
	static const struct { const char *in, *says; } cases[] = {
		{ "0-x", "bad node list '0-x': 'x' is not a number" },
		{ "abc", "'abc' is not a number" },
		{ "3-1", "the range '3-1' goes backwards" },
		{ "1024", "1024 is too large (ids are 0-1023)" },
		{ "99999999999999999999", "is too large" },
		{ "0,,1", "empty entry" },
		{ ",1", "empty entry" },
		{ "1,", "ends with a comma" },
		{ "-1", "a range is missing a number" },
		{ "1-", "a range is missing a number" },
		{ "1 ,2", "'1 ' is not a number" },
		{ "+1", "'+1' is not a number" },
		{ "0-3:2", "'3:2' is not a number" },
		{ "1-2-3", "'2-3' is not a number" },
	};
	struct smpol_bitmap b;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_bitmap_clear(&b);
	smpol_bitmap_set(&b, 42);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(smpol_bitmap_parse_list(cases[i].in, SMPOL_MAX_NODES, &b, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("'%s': got '%s', want '%s'", cases[i].in, err, cases[i].says);
		/* a failed parse leaves the output alone */
		assert_int_equal(smpol_bitmap_count(&b), 1);
	}
	assert_int_equal(smpol_bitmap_parse_list("9000", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad CPU list '9000'"));
	/* a NULL error buffer is allowed */
	assert_int_equal(smpol_bitmap_parse_list("x", SMPOL_MAX_NODES, &b, NULL, 0), -EINVAL);
}

static void test_mask(void **state)
{
	struct smpol_bitmap b;
	char err[SMPOL_ERRLEN], buf[64];

	(void)state;
	assert_int_equal(smpol_bitmap_parse_mask("00000000,0000000f\n", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_bitmap_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(smpol_bitmap_parse_mask("1,80000000", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_bitmap_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "31-32");
	assert_int_equal(smpol_bitmap_parse_mask("A", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_bitmap_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "1,3");
	assert_int_equal(smpol_bitmap_parse_mask("0", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	assert_true(smpol_bitmap_empty(&b));

	assert_int_equal(smpol_bitmap_parse_mask("", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(smpol_bitmap_parse_mask("0000000g", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'g' is not a hex digit"));
	assert_int_equal(smpol_bitmap_parse_mask("123456789", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1-8 hex digits"));
	assert_int_equal(smpol_bitmap_parse_mask("f,,f", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_bitmap_parse_mask(",f", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_bitmap_parse_mask("f,", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_bitmap_parse_mask("1,00000000", 32, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sets id 32, ids are 0-31"));
}

static void test_format_short(void **state)
{
	struct smpol_bitmap b;
	char buf[6] = "xxxxx";

	(void)state;
	smpol_bitmap_clear(&b);
	smpol_bitmap_set(&b, 100);
	smpol_bitmap_set(&b, 200);
	assert_int_equal(smpol_bitmap_format_list(&b, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(smpol_bitmap_format_list(&b, buf, 0), -ENOSPC);
}

/* Every other id up to the CPU limit formats and parses back. */
static void test_format_roundtrip(void **state)
{
	static char huge[SMPOL_MAX_CPUS * 3];
	struct smpol_bitmap all, back;
	char small[64], err[SMPOL_ERRLEN];

	(void)state;
	smpol_bitmap_clear(&all);
	for (int i = 0; i < SMPOL_MAX_CPUS; i += 2)
		smpol_bitmap_set(&all, i);
	assert_int_equal(smpol_bitmap_format_list(&all, small, sizeof(small)), -ENOSPC);
	assert_int_equal(smpol_bitmap_format_list(&all, huge, sizeof(huge)), 0);
	assert_int_equal(smpol_bitmap_parse_list(huge, SMPOL_MAX_CPUS, &back, err, sizeof(err)), 0);
	assert_true(smpol_bitmap_equal(&all, &back));
}

/* Random strings over the list alphabet: refused with a sentence, or parsed, and then
 * the canonical text parses back to the same set. */
static void test_random_lists(void **state)
{
	static const char alphabet[] = "0123456789--,, x";
	int accepted = 0, refused = 0;

	(void)state;
	srand(99);
	for (int iter = 0; iter < 20000; iter++) {
		char text[16], err[SMPOL_ERRLEN], buf[4096];
		struct smpol_bitmap b, back;
		int len = rand() % (int)sizeof(text);

		for (int i = 0; i < len; i++)
			text[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		text[len] = '\0';
		err[0] = '\0';
		if (smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, &b, err, sizeof(err))) {
			assert_non_null(strstr(err, text));
			refused++;
			continue;
		}
		accepted++;
		assert_int_equal(smpol_bitmap_format_list(&b, buf, sizeof(buf)), 0);
		assert_int_equal(smpol_bitmap_parse_list(buf, SMPOL_MAX_NODES, &back, err, sizeof(err)), 0);
		assert_true(smpol_bitmap_equal(&b, &back));
	}
	assert_true(accepted > 100 && refused > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ops),
		cmocka_unit_test(test_list_good),
		cmocka_unit_test(test_list_bad),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_format_short),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_random_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
