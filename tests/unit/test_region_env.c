/* test_region_env.c - the interposer's environment variable: what the plugin writes
 * the interposer reads back, and what it refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "region_env.h"

/* format, then parse: the same policy */
static void test_round_trip(void **state)
{
	struct smpol_region_env e = { .min_bytes = 64ull << 20, .weighted = true }, back;
	char buf[256], err[SMPOL_ERRLEN];

	(void)state;
	smpol_bitmap_set(&e.nodes, 0);
	smpol_bitmap_set(&e.nodes, 2);
	assert_int_equal(smpol_region_env_format(&e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "67108864 weighted 0,2");
	assert_int_equal(smpol_region_env_parse(buf, &back, err, sizeof(err)), 0);
	assert_true(back.min_bytes == e.min_bytes && back.weighted && !back.static_nodes);
	assert_true(smpol_bitmap_equal(&back.nodes, &e.nodes));
	/* plain interleave over standby nodes too */
	e = (struct smpol_region_env){ .min_bytes = 4096, .static_nodes = true };
	for (int n = 0; n < 4; n++)
		smpol_bitmap_set(&e.nodes, n);
	assert_int_equal(smpol_region_env_format(&e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4096 interleave=static 0-3");
	assert_int_equal(smpol_region_env_parse(buf, &back, err, sizeof(err)), 0);
	assert_true(back.min_bytes == 4096 && !back.weighted && back.static_nodes);
	assert_int_equal(smpol_bitmap_count(&back.nodes), 4);
	/* a short buffer, an empty node set */
	assert_int_equal(smpol_region_env_format(&e, buf, 8), -ENOSPC);
	smpol_bitmap_clear(&e.nodes);
	assert_int_equal(smpol_region_env_format(&e, buf, sizeof(buf)), -EINVAL);
}

static void test_refused(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "the smallest allocation placed: " },
		{ "0 weighted 0", "'0 weighted 0': the smallest allocation placed: " },
		{ "64M weighted 0", "the smallest allocation placed" },
		{ "-1 weighted 0", "the smallest allocation placed" },
		{ "4096 bind 0", "the mode must be weighted or interleave" },
		{ "4096 =static 0", "the mode must be weighted or interleave" },
		{ "4096 weighted=relative 0", "the mode must be weighted or interleave" },
		{ "4096 weighted", "write MIN_BYTES MODE NODES, three words" },
		{ "4096 weighted 0 1", "write MIN_BYTES MODE NODES, three words" },
		{ "4096 weighted 0-x", "bad node list" },
		{ "4096 weighted 5000", "bad node list" },
	};
	struct smpol_region_env e;
	char err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(smpol_region_env_parse(cases[i].text, &e, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("'%s': '%s' lacks '%s'", cases[i].text, err, cases[i].says);
		assert_non_null(strstr(err, SMPOL_REGION_ENV "="));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
