/* test_lease_place.c - decide, take the weights lease, decide again (smpol_place_with_lease)
 * on a copy of a captured 7.3 node whose weights table a test may write. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "lease_place.h"

/* The node (its table "auto=true 0:7 1:7 2:2"), a site that lets a weighted step write
 * the table, and one step's decision inputs. */
struct fixture {
	char *root;
	struct smpol_site_config site;
	struct smpol_topology topo;
	struct smpol_wi_table table;
	struct smpol_place_in in;
	struct smpol_placement pl;
	struct smpol_lease_try lt;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char err[SMPOL_ERRLEN], statedir[4200];

	assert_non_null(fx);
	fx->root = fake_tree_new();
	fake_tree_copy(fx->root, fixture_path("linux-7.3-boot"));
	snprintf(statedir, sizeof(statedir), "%s/state", fx->root);
	assert_int_equal(smpol_config_default(&fx->site), 0);
	fx->site.decide.sysfs = SMPOL_SYSFS_ALWAYS;
	if (smpol_host_set_fsroot(&fx->site.host, fx->root, err, sizeof(err)) ||
	    smpol_host_set_statedir(&fx->site.host, statedir, err, sizeof(err)) ||
	    smpol_topology_read(&fx->site.host, &fx->topo, err, sizeof(err)) ||
	    smpol_spec_parse("weighted,precision=0.9", &fx->in.spec, err, sizeof(err)))
		fail_msg("%s", err);
	fx->in.site = &fx->site.decide;
	fx->in.topo = &fx->topo;
	fx->in.job_owns_node = true;
	fx->in.lease = SMPOL_LEASE_UNTRIED;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	smpol_placement_free(&fx->pl);
	smpol_topology_free(&fx->topo);
	smpol_spec_free(&fx->in.spec);
	smpol_config_free(&fx->site);
	fake_tree_free(fx->root);
	free(fx);
	return 0;
}

/* What the step read before deciding, as the plugin reads it. */
static void read_table(struct fixture *fx)
{
	char err[SMPOL_ERRLEN];

	if (smpol_wi_read(&fx->site.host, &fx->table, err, sizeof(err)))
		fail_msg("%s", err);
}

static const char *weights_of(const struct smpol_placement *pl, int initiator)
{
	static char buf[128];

	for (int i = 0; i < pl->nplans; i++)
		if (pl->plans[i].initiator == initiator) {
			assert_int_equal(smpol_plan_format_weights(&pl->plans[i], buf, sizeof(buf)), 0);
			return buf;
		}
	fail_msg("no plan for initiator %d", initiator);
	return NULL;
}

/* The table lacks the step's weights: it takes the lease, writes them and runs on them;
 * releasing puts the node's table back. */
static void test_takes_the_lease(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = { .job_id = 1, .uid = 1001 };
	char err[SMPOL_ERRLEN];

	read_table(fx);
	assert_int_equal(smpol_place_with_lease(&fx->in, &fx->table, &me, &fx->pl, &fx->lt), 0);
	assert_true(fx->lt.held);
	assert_string_equal(fx->lt.refused, "");
	assert_int_equal(fx->in.lease, SMPOL_LEASE_HELD);
	assert_false(fx->pl.lease_wanted);
	assert_null(fx->pl.want);          /* written: the step keeps no copy of it */
	assert_string_equal(weights_of(&fx->pl, 0), "4:1");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "4");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node2"), "1");
	assert_int_not_equal(me.pid, 0);   /* the owner is this process, by pid and start time */
	assert_int_equal(smpol_lease_release(&fx->site.host, &me, NULL, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "7");
}

/* Another step took the lease and wrote its weights after this step read the table:
 * refused, this step decides on the table as it now is, and says why. */
static void test_refused_reads_the_table_again(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = { .job_id = 1, .uid = 1001 }, other = { .job_id = 7, .uid = 1007 };
	struct smpol_wi_table theirs = { 0 };
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	read_table(fx);
	smpol_bitmap_clear(&which);
	smpol_bitmap_set(&which, 0);
	smpol_bitmap_set(&which, 2);
	theirs.weight[0] = 9;
	theirs.weight[2] = 3;
	assert_int_equal(smpol_lease_owner_self(&other, err, sizeof(err)), 0);
	assert_int_equal(smpol_lease_acquire(&fx->site.host, &other, &theirs, &which, err, sizeof(err)), 0);

	assert_int_equal(smpol_place_with_lease(&fx->in, &fx->table, &me, &fx->pl, &fx->lt), 0);
	assert_false(fx->lt.held);
	assert_non_null(strstr(fx->lt.refused, "held by job 7"));
	assert_int_equal(fx->in.lease, SMPOL_LEASE_NOT_HELD);
	assert_ptr_equal(fx->in.lease_note, fx->lt.refused);
	assert_null(fx->in.table_error);
	assert_string_equal(weights_of(&fx->pl, 0), "9:3");   /* not the 7:2 read before */
	assert_int_equal(fx->table.weight[0], 9);
	assert_non_null(strstr(fx->pl.note, "held by job 7"));
	assert_int_equal(smpol_lease_release(&fx->site.host, &other, NULL, err, sizeof(err)), 0);
}

/* A site whose steps never write the table: one decision, no lease, no write. */
static void test_no_lease_wanted(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = { .job_id = 1, .uid = 1001 };

	fx->site.decide.sysfs = SMPOL_SYSFS_NEVER;
	read_table(fx);
	assert_int_equal(smpol_place_with_lease(&fx->in, &fx->table, &me, &fx->pl, &fx->lt), 0);
	assert_false(fx->lt.held);
	assert_string_equal(fx->lt.refused, "");
	assert_int_equal(fx->in.lease, SMPOL_LEASE_UNTRIED);
	assert_string_equal(weights_of(&fx->pl, 0), "7:2");
	assert_string_equal(fake_tree_read(fx->root, "/state/weights.journal"), "<missing>");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_takes_the_lease, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_reads_the_table_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_lease_wanted, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
