/* test_wi.c - the weighted-interleave table: read, write, restore, journal text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "plan.h"
#include "wi.h"

static int setup(void **state)
{
	*state = fake_tree_new();
	return 0;
}

static int teardown(void **state)
{
	fake_tree_free(*state);
	return 0;
}

static void test_read_auto_kernel(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(root, "auto", "true\n", "0:7 1:7 2:2");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), 0);
	assert_true(t.present);
	assert_string_equal(t.auto_name, "auto");
	assert_int_equal(t.auto_enabled, 1);
	assert_int_equal(smpol_bitmap_count(&t.has_file), 3);
	assert_int_equal(t.weight[0], 7);
	assert_int_equal(t.weight[2], 2);
}

static void test_read_auto_type_spelling(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(root, "__auto_type", "false\n", "0:1");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), 0);
	assert_string_equal(t.auto_name, "__auto_type");
	assert_int_equal(t.auto_enabled, 0);
}

/* The malformed fixture: a weight of 300 or banana, auto 'maybe': an error naming the file. */
static void test_read_malformed_fixture(void **state)
{
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN] = "";

	(void)state;
	assert_int_equal(smpol_wi_read(fake_host(fixture_path("malformed"), NULL), &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/sys/kernel/mm/mempolicy/weighted_interleave/"));
	assert_true(strstr(err, "weight 0-255") || strstr(err, "expected true or false"));
}

static void test_read_old_kernel(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	/* 6.9-6.15: node files, no auto. Before 6.9: no directory at all. */
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), 0);
	assert_false(t.present);
	fake_tree_wi(root, NULL, NULL, "0:1 3:1");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), 0);
	assert_true(t.present);
	assert_int_equal(t.auto_enabled, -1);
	assert_string_equal(t.auto_name, "");
	assert_true(smpol_bitmap_test(&t.has_file, 3));
}

static void test_read_malformed(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(root, "auto", "true", "0:7");
	fake_tree_write(root, FAKE_WI_DIR "/node1", "seven\n");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "node1"));
	fake_tree_write(root, FAKE_WI_DIR "/node1", "256\n");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "0-255"));
	fake_tree_write(root, FAKE_WI_DIR "/node1", "3\n");
	fake_tree_write(root, FAKE_WI_DIR "/auto", "maybe\n");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'maybe'"));
}

static void test_write(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t = { 0 };
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(root, "auto", "true", "0:7 1:7 2:2");
	smpol_bitmap_clear(&which);
	smpol_bitmap_set(&which, 0);
	smpol_bitmap_set(&which, 2);
	t.weight[0] = 12;
	t.weight[2] = 3;
	assert_int_equal(smpol_wi_write(fake_host(root, NULL), &t, &which, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node0"), "12");
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node1"), "7");
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node2"), "3");
}

static void test_write_bad(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t = { 0 };
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(root, "auto", "true", "0:7");
	smpol_bitmap_clear(&which);
	smpol_bitmap_set(&which, 5);
	t.weight[5] = 2;
	assert_int_equal(smpol_wi_write(fake_host(root, NULL), &t, &which, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "node 5 has no weighted-interleave weight file"));
	smpol_bitmap_clear(&which);
	smpol_bitmap_set(&which, 0);
	t.weight[0] = 0;
	assert_int_equal(smpol_wi_write(fake_host(root, NULL), &t, &which, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "weights are 1-255"));
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node0"), "7");
}

static void test_restore(void **state)
{
	const char *root = *state;
	struct smpol_wi_table saved, now;
	char err[SMPOL_ERRLEN];
	bool auto_failed = true;

	fake_tree_wi(root, "__auto_type", "true", "0:7 1:7 2:2");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &saved, err, sizeof(err)), 0);
	fake_tree_wi(root, "__auto_type", "false", "0:1 1:1 2:1");
	assert_int_equal(smpol_wi_restore(fake_host(root, NULL), &saved, &auto_failed, err, sizeof(err)), 0);
	assert_false(auto_failed);
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &now, err, sizeof(err)), 0);
	assert_memory_equal(&now, &saved, sizeof(now));
}

static void test_restore_vanished_node(void **state)
{
	const char *root = *state;
	struct smpol_wi_table saved, now;
	char err[SMPOL_ERRLEN], path[4096];
	bool auto_failed;

	fake_tree_wi(root, "auto", "false", "0:5 3:2");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &saved, err, sizeof(err)), 0);
	fake_tree_wi(root, NULL, NULL, "0:9");
	snprintf(path, sizeof(path), "%s" FAKE_WI_DIR "/node3", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(smpol_wi_restore(fake_host(root, NULL), &saved, &auto_failed, err, sizeof(err)), 0);
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &now, err, sizeof(err)), 0);
	assert_int_equal(now.weight[0], 5);
	assert_false(smpol_bitmap_test(&now.has_file, 3));
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node3"), "<missing>");
}

static void test_format_parse_roundtrip(void **state)
{
	const char *root = *state;
	struct smpol_wi_table t, back;
	char err[SMPOL_ERRLEN], text[256];

	fake_tree_wi(root, "auto", "true", "0:7 1:7 2:2 17:255");
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), 0);
	assert_int_equal(smpol_wi_format(&t, text, sizeof(text)), 0);
	assert_int_equal(smpol_wi_parse(text, &back, err, sizeof(err)), 0);
	assert_int_equal(back.auto_enabled, 1);
	assert_true(smpol_bitmap_equal(&back.has_file, &t.has_file));
	assert_memory_equal(back.weight, t.weight, sizeof(t.weight));
	assert_int_equal(smpol_wi_format(&t, text, 8), -ENOSPC);
}

static void test_parse_errors(void **state)
{
	static const struct { const char *text; const char *names; } bad[] = {
		{ "0:1", "auto state" },
		{ "auto=2 0:1", "auto=2" },
		{ "auto=1 auto=0", "twice" },
		{ "auto=1 0:256", "'0:256'" },
		{ "auto=1 0:", "'0:'" },
		{ "auto=1 :4", "':4'" },
		{ "auto=1 -1:4", "'-1:4'" },
		{ "auto=1 0:+4", "'0:+4'" },
		{ "auto=1 1024:1", "'1024:1'" },
		{ "auto=1 3:1 3:2", "node 3 appears twice" },
		{ "auto=1 junk", "'junk'" },
	};
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(smpol_wi_parse(bad[i].text, &t, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].names))
			fail_msg("'%s': error '%s' does not name '%s'", bad[i].text, err, bad[i].names);
	}
}

static void test_from_plans(void **state)
{
	struct smpol_plan plans[2] = { { .initiator = 0 }, { .initiator = 1 } };
	struct smpol_wi_table t;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(smpol_plan_alloc(&plans[i], 2), 0);
		plans[i].nnodes = 2;
	}
	/* Two sockets with disjoint node sets: one table holds both. */
	plans[0].nodes[0] = 0, plans[0].weights[0] = 5, plans[0].nodes[1] = 2, plans[0].weights[1] = 1;
	plans[1].nodes[0] = 1, plans[1].weights[0] = 5, plans[1].nodes[1] = 3, plans[1].weights[1] = 1;
	assert_int_equal(smpol_wi_from_plans(plans, 2, &t, &which, err, sizeof(err)), 0);
	assert_int_equal(smpol_bitmap_count(&which), 4);
	assert_int_equal(t.weight[1], 5);
	assert_int_equal(t.weight[3], 1);
	/* scope=all: both plans name node 2, with different weights. */
	plans[1].nodes[1] = 2;
	plans[1].weights[1] = 2;
	assert_int_equal(smpol_wi_from_plans(plans, 2, &t, &which, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "the plans give node 2 weights 1 and 2; one global table cannot hold both");
	plans[1].weights[1] = 1;
	assert_int_equal(smpol_wi_from_plans(plans, 2, &t, &which, err, sizeof(err)), 0);
	plans[0].weights[0] = 0;
	assert_int_equal(smpol_wi_from_plans(plans, 2, &t, &which, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "weight 0 for node 0"));
	smpol_plan_free(&plans[0]);
	smpol_plan_free(&plans[1]);
}

/* Plans take the table's weights for their nodes; an unset weight counts 1. */
static void test_weigh_plans(void **state)
{
	struct smpol_wi_table t = { .present = true };
	struct smpol_plan p = { .initiator = 0 };

	(void)state;
	assert_int_equal(smpol_plan_alloc(&p, 2), 0);
	p.nnodes = 2;
	p.nodes[0] = 0;
	p.nodes[1] = 2;
	p.shares[0] = 224.0 / 288;
	p.shares[1] = 64.0 / 288;
	p.weights[0] = 24;
	p.weights[1] = 7;
	t.weight[0] = 7;
	t.weight[2] = 2;
	smpol_wi_weigh_plans(&t, &p, 1);
	assert_int_equal(p.weights[0], 7);
	assert_int_equal(p.weights[1], 2);
	assert_int_equal(p.weight_sum, 9);
	assert_true(p.efficiency > 0.999 && p.efficiency < 1.001);
	t.weight[2] = 0;
	smpol_wi_weigh_plans(&t, &p, 1);
	assert_int_equal(p.weights[1], 1);
	assert_int_equal(p.weight_sum, 8);
	smpol_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weigh_plans),
		cmocka_unit_test_setup_teardown(test_read_auto_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_auto_type_spelling, setup, teardown),
		cmocka_unit_test(test_read_malformed_fixture),
		cmocka_unit_test_setup_teardown(test_read_old_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_vanished_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_parse_roundtrip, setup, teardown),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_from_plans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
