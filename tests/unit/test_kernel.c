/* test_kernel.c - the kernel ladder's rung, as the weights table read from captured and
 * crafted trees tells it. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "kernel.h"
#include "wi.h"

static void probe(const char *root, struct smpol_wi_table *t)
{
	char err[SMPOL_ERRLEN] = "";

	memset(t, 0xa5, sizeof(*t));   /* the read must set every field */
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), t, err, sizeof(err)), 0);
}

static void test_auto_kernel(void **state)
{
	struct smpol_wi_table caps;

	(void)state;
	probe(fixture_path("linux-7.3-boot"), &caps);
	assert_true(caps.present);
	assert_true(caps.auto_name[0]);
	assert_string_equal(caps.auto_name, "auto");
	assert_false(smpol_wi_weights_for_possible(&caps));
}

static void test_auto_type_spelling(void **state)
{
	struct smpol_wi_table caps;

	(void)state;
	probe(fixture_path("linux-6.18-auto-type"), &caps);
	assert_true(caps.present);
	assert_true(caps.auto_name[0]);
	assert_string_equal(caps.auto_name, "__auto_type");
	assert_false(smpol_wi_weights_for_possible(&caps));
}

static void test_possible_layout(void **state)
{
	struct smpol_wi_table caps;

	(void)state;
	probe(fixture_path("linux-6.12-boot"), &caps);
	assert_true(caps.present);
	assert_false(caps.auto_name[0]);
	assert_string_equal(caps.auto_name, "");
	assert_true(smpol_wi_weights_for_possible(&caps));
}

static void test_no_weighted_interleave(void **state)
{
	struct smpol_wi_table caps;
	char *root = fake_tree_new();

	(void)state;
	probe(fixture_path("linux-6.1-boot"), &caps);
	assert_false(caps.present);
	assert_false(caps.auto_name[0]);
	assert_false(smpol_wi_weights_for_possible(&caps));
	probe(root, &caps);                 /* an empty root is an old kernel, not an error */
	assert_false(caps.present);
	/* a file where the directory should be */
	fake_tree_write(root, "/sys/kernel/mm/mempolicy/weighted_interleave", "x");
	probe(root, &caps);
	assert_false(caps.present);
	fake_tree_free(root);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(smpol_is_auto_name("auto"));
	assert_true(smpol_is_auto_name("__auto_type"));
	assert_false(smpol_is_auto_name("node0"));
	assert_false(smpol_is_auto_name("auto2"));
	assert_false(smpol_is_auto_name(""));
	assert_string_equal(smpol_kernel_path_name(SMPOL_PATH_WEIGHTED), "weighted-interleave");
	assert_string_equal(smpol_kernel_path_name(SMPOL_PATH_INTERLEAVE), "interleave");
	assert_string_equal(smpol_kernel_path_name(SMPOL_PATH_NONE), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_kernel),
		cmocka_unit_test(test_auto_type_spelling),
		cmocka_unit_test(test_possible_layout),
		cmocka_unit_test(test_no_weighted_interleave),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
