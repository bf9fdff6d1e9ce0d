/* test_bitmap.c - node sets and CPU sets, the kernel's list and mask syntax, and their
 * errors; lists beyond the machine's possible ids. */
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
	smpol_bitmap_set(&a, SMPOL_MAX_NODES - 1);
	smpol_bitmap_set(&a, SMPOL_MAX_NODES);   /* out of range: ignored */
	smpol_bitmap_set(&a, -1);
	assert_int_equal(smpol_bitmap_count(&a), 4);
	assert_true(smpol_bitmap_test(&a, 63) && smpol_bitmap_test(&a, 64));
	assert_false(smpol_bitmap_test(&a, 62) || smpol_bitmap_test(&a, -1) || smpol_bitmap_test(&a, SMPOL_MAX_NODES));
	assert_int_equal(smpol_bitmap_next(&a, 1), 63);
	assert_int_equal(smpol_bitmap_next(&a, 65), SMPOL_MAX_NODES - 1);
	assert_int_equal(smpol_bitmap_next(&a, SMPOL_MAX_NODES), -1);
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
	/* a node set is the kernel's nodemask_t: 1024 bits */
	assert_int_equal(sizeof(a), 128);
}

/* A CPU set grows to its highest id: an empty one holds nothing, one word per 64 ids. */
static void test_cpus_ops(void **state)
{
	struct smpol_cpus a = { 0 }, b = { 0 };

	(void)state;
	assert_true(smpol_cpus_empty(&a));
	assert_null(a.bits);
	assert_int_equal(smpol_cpus_next(&a, 0), -1);
	assert_false(smpol_cpus_test(&a, 5));
	assert_int_equal(smpol_cpus_set(&a, 3), 0);
	assert_int_equal(a.nwords, 1);
	assert_int_equal(smpol_cpus_set(&a, SMPOL_MAX_CPUS - 1), 0);
	assert_int_equal(a.nwords, SMPOL_MAX_CPUS / 64);
	assert_int_equal(smpol_cpus_set(&a, SMPOL_MAX_CPUS), 0);   /* out of range: ignored */
	assert_int_equal(smpol_cpus_set(&a, -1), 0);
	assert_int_equal(smpol_cpus_count(&a), 2);
	assert_int_equal(smpol_cpus_next(&a, 4), SMPOL_MAX_CPUS - 1);
	assert_int_equal(smpol_cpus_set(&b, 3), 0);
	assert_int_equal(smpol_cpus_count_and(&a, &b), 1);
	assert_int_equal(smpol_cpus_count_and(&b, &a), 1);
	assert_false(smpol_cpus_equal(&a, &b));
	/* sets of other lengths with the same ids are equal */
	smpol_cpus_clear(&a);
	assert_int_equal(a.nwords, SMPOL_MAX_CPUS / 64);
	assert_int_equal(smpol_cpus_set(&a, 3), 0);
	assert_true(smpol_cpus_equal(&a, &b) && smpol_cpus_equal(&b, &a));
	assert_int_equal(smpol_cpus_set(&b, 200), 0);
	assert_int_equal(smpol_cpus_or(&a, &b), 0);
	assert_int_equal(smpol_cpus_count(&a), 2);
	assert_int_equal(smpol_cpus_copy(&b, &(struct smpol_cpus){ 0 }), 0);
	assert_true(smpol_cpus_empty(&b));
	assert_int_equal(smpol_cpus_copy(&b, &a), 0);
	assert_true(smpol_cpus_equal(&a, &b) && b.bits != a.bits);
	smpol_cpus_free(&a);
	smpol_cpus_free(&b);
	assert_null(a.bits);
	assert_int_equal(a.nwords, 0);
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
	{
		struct smpol_cpus c = { 0 };

		assert_int_equal(smpol_cpus_parse_list("8191", SMPOL_MAX_CPUS, &c, err, sizeof(err)), 0);
		assert_true(smpol_cpus_test(&c, 8191));
		assert_int_equal(smpol_cpus_parse_list("0-3,8", SMPOL_MAX_CPUS, &c, err, sizeof(err)), 0);
		assert_int_equal(c.nwords, 1);   /* what it held before is gone */
		assert_int_equal(smpol_cpus_format_list(&c, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "0-3,8");
		smpol_cpus_free(&c);
	}
}

/* The machine's possible ids are the limit where the machine is known: a list naming
 * more fails with a sentence saying which id and what is allowed; the one node limit
 * holds before the machine is known. */
static void test_beyond_possible(void **state)
{
	struct smpol_bitmap nodes;
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_bitmap_clear(&nodes);
	smpol_bitmap_set(&nodes, 1);
	/* a four-node machine (possible 0-3) */
	assert_int_equal(smpol_bitmap_parse_list("0-3", 4, &nodes, err, sizeof(err)), 0);
	assert_int_equal(smpol_bitmap_parse_list("0,5", 4, &nodes, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad node list '0,5': id '5': give a whole number from 0 to 3 (digits only)");
	assert_int_equal(smpol_bitmap_count(&nodes), 4);   /* unchanged */
	/* a limit beyond the kernel's is the kernel's */
	assert_int_equal(smpol_bitmap_parse_list("1024", 100000, &nodes, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad node list '1024': id '1024': give a whole number from 0 to 1023 (digits only)");
	/* sixteen possible CPUs (0-15) */
	assert_int_equal(smpol_cpus_parse_list("8-15", 16, &cpus, err, sizeof(err)), 0);
	assert_int_equal(smpol_cpus_parse_list("8-16", 16, &cpus, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad CPU list '8-16': id '16': give a whole number from 0 to 15 (digits only)");
	assert_int_equal(smpol_cpus_count(&cpus), 8);      /* unchanged */
	assert_int_equal(smpol_cpus_parse_mask("10000", 16, &cpus, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad mask '10000': it sets id 16, ids are 0-15");
	smpol_cpus_free(&cpus);
}

static void test_list_bad(void **state)
{
	static const struct { const char *in, *says; } cases[] = {
		{ "0-x", "bad node list '0-x': id 'x': give a whole number from 0 to 1023" },
		{ "abc", "id 'abc': give a whole number" },
		{ "3-1", "the range '3-1' goes backwards" },
		{ "1024", "id '1024': give a whole number from 0 to 1023" },
		{ "99999999999999999999", "id '99999999999999999999': give a whole number from 0 to 1023" },
		{ "0,,1", "empty entry" },
		{ ",1", "empty entry" },
		{ "1,", "ends with a comma" },
		{ "-1", "a range is missing a number" },
		{ "1-", "a range is missing a number" },
		{ "1 ,2", "id '1 ': give" },
		{ "+1", "id '+1': give" },
		{ "0-3:2", "id '3:2': give" },
		{ "1-2-3", "id '2-3': give" },
		{ "0,\001\377", "id '\\x01\\xff': give" },
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
	{
		struct smpol_cpus c = { 0 };

		assert_int_equal(smpol_cpus_parse_list("9000", SMPOL_MAX_CPUS, &c, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "bad CPU list '9000': id '9000': give a whole number from 0 to 8191 (digits only)");
		assert_null(c.bits);
	}
	/* a NULL error buffer is allowed */
	assert_int_equal(smpol_bitmap_parse_list("x", SMPOL_MAX_NODES, &b, NULL, 0), -EINVAL);
}

static void test_mask(void **state)
{
	struct smpol_cpus b = { 0 };
	struct smpol_bitmap nodes;
	char err[SMPOL_ERRLEN], buf[64];

	(void)state;
	assert_int_equal(smpol_cpus_parse_mask("00000000,0000000f\n", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_cpus_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(smpol_cpus_parse_mask("1,80000000", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_cpus_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "31-32");
	assert_int_equal(smpol_cpus_parse_mask("A", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	smpol_cpus_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "1,3");
	assert_int_equal(smpol_cpus_parse_mask("0", SMPOL_MAX_CPUS, &b, err, sizeof(err)), 0);
	assert_true(smpol_cpus_empty(&b));

	assert_int_equal(smpol_cpus_parse_mask("", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(smpol_cpus_parse_mask("0000000g", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'g' is not a hex digit"));
	assert_int_equal(smpol_cpus_parse_mask("123456789", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1-8 hex digits"));
	assert_int_equal(smpol_cpus_parse_mask("f,,f", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_cpus_parse_mask(",f", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_cpus_parse_mask("f,", SMPOL_MAX_CPUS, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_cpus_parse_mask("1,00000000", 32, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sets id 32, ids are 0-31"));
	smpol_cpus_free(&b);
	/* node masks too (the kernel's Mems_allowed) */
	assert_int_equal(smpol_bitmap_parse_mask("5", SMPOL_MAX_NODES, &nodes, err, sizeof(err)), 0);
	smpol_bitmap_format_list(&nodes, buf, sizeof(buf));
	assert_string_equal(buf, "0,2");
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
	struct smpol_cpus all = { 0 }, back = { 0 };
	char small[64], err[SMPOL_ERRLEN];

	(void)state;
	for (int i = 0; i < SMPOL_MAX_CPUS; i += 2)
		assert_int_equal(smpol_cpus_set(&all, i), 0);
	assert_int_equal(smpol_cpus_format_list(&all, small, sizeof(small)), -ENOSPC);
	assert_int_equal(smpol_cpus_format_list(&all, huge, sizeof(huge)), 0);
	assert_int_equal(smpol_cpus_parse_list(huge, SMPOL_MAX_CPUS, &back, err, sizeof(err)), 0);
	assert_true(smpol_cpus_equal(&all, &back));
	smpol_cpus_free(&all);
	smpol_cpus_free(&back);
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
		cmocka_unit_test(test_cpus_ops),
		cmocka_unit_test(test_list_good),
		cmocka_unit_test(test_list_bad),
		cmocka_unit_test(test_beyond_possible),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_format_short),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_random_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
