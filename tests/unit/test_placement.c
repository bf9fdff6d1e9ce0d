/* test_placement.c - the one decision (smpol_place) on captured and crafted trees. */
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
#include "placement.h"
#include "wi.h"

/* A node as a fixture shows it, and the inputs of one decision on it. */
struct node_view {
	struct smpol_topology topo;
	struct smpol_wi_table table;
	struct smpol_site_decision site;
	struct smpol_place_in in;
	struct smpol_placement pl;
};

static struct node_view *view_of(const char *fixture, const char *spec)
{
	struct node_view *v = calloc(1, sizeof(*v));
	char err[SMPOL_ERRLEN] = "";

	assert_non_null(v);
	if (smpol_topology_read(fake_host(fixture_path(fixture), NULL), &v->topo, err, sizeof(err)) ||
	    smpol_wi_read(fake_host(fixture_path(fixture), NULL), &v->table, err, sizeof(err)))
		fail_msg("%s: %s", fixture, err);
	smpol_site_decision_default(&v->site);
	if (smpol_spec_parse(spec, &v->in.spec, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	v->in.site = &v->site;
	v->in.topo = &v->topo;
	v->in.table = &v->table;
	v->in.job_owns_node = true;
	v->in.lease = SMPOL_LEASE_UNTRIED;
	return v;
}

static void view_free(struct node_view *v)
{
	smpol_placement_free(&v->pl);
	smpol_topology_free(&v->topo);
	smpol_spec_free(&v->in.spec);
	free(v);
}

static void place(struct node_view *v)
{
	smpol_placement_free(&v->pl);
	assert_int_equal(smpol_place(&v->in, &v->pl), 0);
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

static const char *nodes_of(const struct smpol_placement *pl, int initiator)
{
	static char buf[128];

	for (int i = 0; i < pl->nplans; i++)
		if (pl->plans[i].initiator == initiator) {
			assert_int_equal(smpol_plan_format_nodes(&pl->plans[i], buf, sizeof(buf)), 0);
			return buf;
		}
	fail_msg("no plan for initiator %d", initiator);
	return NULL;
}

/* The spec wins where it says something; the site's values fill the rest. */
static void test_plan_opts_from_spec(void **state)
{
	struct smpol_site_decision cfg;
	struct smpol_spec spec;
	struct smpol_plan_opts o;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_site_decision_default(&cfg);
	cfg.algorithm = SMPOL_ALGO_KERNEL;
	cfg.precision = 0.9;
	cfg.max_weight_sum = 40;
	assert_int_equal(smpol_spec_parse("weighted", &spec, err, sizeof(err)), 0);
	smpol_plan_opts_from_spec(&spec, &cfg, 2048, &o);
	assert_int_equal(o.algorithm, SMPOL_ALGO_KERNEL);
	assert_true(o.weight.precision == 0.9);
	assert_int_equal(o.weight.max_sum, 40);
	assert_int_equal(o.scope, SMPOL_SCOPE_SOCKET);
	assert_int_equal(o.mem_kb, 2048);
	assert_false(o.has_nodes || o.has_weights);

	assert_int_equal(smpol_spec_parse("weighted,weights=0:3:2:1,scope=all,precision=0.5", &spec, err, sizeof(err)), 0);
	cfg.algorithm = SMPOL_ALGO_OPTIMAL;
	smpol_plan_opts_from_spec(&spec, &cfg, 0, &o);
	assert_true(o.weight.precision == 0.5);
	assert_int_equal(o.scope, SMPOL_SCOPE_ALL);
	assert_true(o.has_weights);
	assert_int_equal(o.weights[0], 3);
	assert_int_equal(o.weights[2], 1);
	assert_ptr_equal(o.weights, spec.weights);   /* borrowed */
	assert_int_equal(o.mem_kb, 0);
	smpol_spec_free(&spec);
	/* auto interleaves by the kernel's table: the kernel's node set, whatever the site says */
	assert_int_equal(smpol_spec_parse("auto", &spec, err, sizeof(err)), 0);
	smpol_plan_opts_from_spec(&spec, &cfg, 0, &o);
	assert_int_equal(o.algorithm, SMPOL_ALGO_KERNEL);
}

/* Weighted on a node the job owns: the table lacks its weights, so it asks for the
 * lease; holding it, the tasks run with their own weights. */
static void test_weighted_takes_the_lease(void **state)
{
	/* precision 0.9: fewer seats than the table's 7:2 */
	struct node_view *v = view_of("linux-7.3-boot", "weighted,precision=0.9");

	(void)state;
	place(v);
	assert_true(v->pl.active);
	assert_int_equal(v->pl.path, SMPOL_PATH_WEIGHTED);
	assert_true(v->pl.lease_wanted);
	assert_string_equal(nodes_of(&v->pl, 0), "0,2");
	assert_int_equal(v->pl.want->table.weight[0], v->pl.plans[0].weights[0]);
	assert_true(smpol_bitmap_test(&v->pl.want->nodes, 2));
	v->in.lease = SMPOL_LEASE_HELD;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_string_equal(weights_of(&v->pl, 0), "4:1");   /* its own, not the table's 7:2 */
	assert_true(v->pl.weights_known);
	assert_null(v->pl.note);
	view_free(v);
}

/* Refused lease, sysfs=never, a shared node under sysfs=exclusive: the table's weights
 * are what the tasks run with, and the note says why. */
static void test_weighted_without_lease_runs_on_the_table(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted");

	(void)state;
	v->in.lease = SMPOL_LEASE_NOT_HELD;
	v->in.lease_note = "the node's interleave weights are held by job 7";
	place(v);
	assert_string_equal(weights_of(&v->pl, 0), "7:2");
	assert_string_equal(weights_of(&v->pl, 1), "7");
	assert_string_equal(v->pl.note, "the node's interleave weights are held by job 7");
	assert_false(v->pl.lease_wanted);

	v->in.lease = SMPOL_LEASE_UNTRIED;
	v->site.sysfs = SMPOL_SYSFS_NEVER;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_string_equal(weights_of(&v->pl, 0), "7:2");
	assert_non_null(strstr(v->pl.note, "sysfs=never"));

	v->site.sysfs = SMPOL_SYSFS_EXCLUSIVE;
	v->in.job_owns_node = false;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_non_null(strstr(v->pl.note, "shares the node"));
	assert_string_equal(weights_of(&v->pl, 0), "7:2");
	view_free(v);
}

/* A step whose one task spans both sockets and which writes its own weights scales
 * socket 1's lone DRAM to the weight of socket 0's whole plan, so the table splits that
 * task's memory 50:50 (7:9:2); a task on one socket keeps its ratios. On the node's
 * table (a refused lease, a shared node) the task's split follows the table. */
static void test_span_scales_own_weights(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted");
	struct smpol_cpus span = { 0 }, one = { 0 };
	struct smpol_plan chosen = { 0 };
	char err[SMPOL_ERRLEN], w[64];

	(void)state;
	assert_int_equal(smpol_cpus_parse_list("0-3", SMPOL_MAX_CPUS, &span, NULL, 0), 0);
	assert_int_equal(smpol_cpus_parse_list("0-1", SMPOL_MAX_CPUS, &one, NULL, 0), 0);
	v->in.span_cpus = &span;
	place(v);
	assert_true(v->pl.lease_wanted);
	assert_int_equal(v->pl.want->table.weight[1], 9);
	assert_int_equal(v->pl.want->table.weight[0], 7);
	v->in.lease = SMPOL_LEASE_HELD;
	place(v);
	assert_string_equal(weights_of(&v->pl, 1), "9");
	smpol_plan_free(&chosen);
	assert_int_equal(smpol_placement_pick(&v->pl, &v->topo, &span, &chosen, err, sizeof(err)), 0);
	smpol_plan_format_weights(&chosen, w, sizeof(w));
	assert_string_equal(w, "7:9:2");
	assert_float_equal(chosen.efficiency, v->pl.plans[0].efficiency, 1e-12);
	smpol_plan_free(&chosen);
	assert_int_equal(smpol_placement_pick(&v->pl, &v->topo, &one, &chosen, err, sizeof(err)), 0);
	smpol_plan_format_weights(&chosen, w, sizeof(w));
	assert_string_equal(w, "7:2");
	/* the table (auto 7:7:2) is what a task runs on without the lease: 56:44 */
	v->in.lease = SMPOL_LEASE_NOT_HELD;
	place(v);
	smpol_plan_free(&chosen);
	assert_int_equal(smpol_placement_pick(&v->pl, &v->topo, &span, &chosen, err, sizeof(err)), 0);
	smpol_plan_format_weights(&chosen, w, sizeof(w));
	assert_string_equal(w, "7:7:2");
	assert_non_null(strstr(chosen.notes, "56%:44% of the memory, the task's CPUs are 50%:50%"));
	view_free(v);
	smpol_plan_free(&chosen);
	smpol_cpus_free(&span);
	smpol_cpus_free(&one);
}

/* The site's precision and algorithm reach the plans (and so rebalance targets). */
static void test_site_settings_reach_the_plans(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted");
	char optimal[32];

	(void)state;
	v->in.lease = SMPOL_LEASE_HELD;
	place(v);
	snprintf(optimal, sizeof(optimal), "%s", weights_of(&v->pl, 0));
	v->site.algorithm = SMPOL_ALGO_KERNEL;
	place(v);
	assert_string_equal(weights_of(&v->pl, 0), "24:7");   /* the kernel's formula on {224000, 64000} */
	v->site.algorithm = SMPOL_ALGO_OPTIMAL;
	v->site.precision = 0.9;
	place(v);
	assert_string_not_equal(weights_of(&v->pl, 0), optimal);
	assert_true(v->pl.plans[0].efficiency >= 0.9);
	assert_true(v->pl.plans[0].weight_sum < 9);
	view_free(v);
}

/* No bandwidth data and equal weights in the table: nothing to write (a fresh machine
 * with auto on stays on auto). A 0 file (6.9-6.15: never set) counts as 1. */
static void test_equal_weights_are_not_written(void **state)
{
	struct node_view *v = view_of("no-hmat", "weighted");

	(void)state;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_null(v->pl.note);
	for (int n = 0; n < 4; n++)
		v->table.weight[n] = 0;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_string_equal(weights_of(&v->pl, 0), "1:1");
	view_free(v);

	v = view_of("linux-6.18-auto-type", "weighted");
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_string_equal(weights_of(&v->pl, 0), "1");
	view_free(v);
}

/* auto: the kernel's node set, the table's weights, never a lease. */
static void test_auto_uses_the_table(void **state)
{
	struct node_view *v = view_of("linux-7.3-after-hotplug", "auto");

	(void)state;
	place(v);
	assert_false(v->pl.lease_wanted);
	assert_int_equal(v->pl.path, SMPOL_PATH_WEIGHTED);
	assert_string_equal(nodes_of(&v->pl, 0), "0,2");
	assert_string_equal(weights_of(&v->pl, 0), "4:1");
	assert_string_equal(weights_of(&v->pl, 1), "4:1");
	view_free(v);
}

static void test_interleave_is_equal(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "interleave");

	(void)state;
	place(v);
	assert_int_equal(v->pl.path, SMPOL_PATH_INTERLEAVE);
	assert_false(v->pl.lease_wanted);
	assert_string_equal(weights_of(&v->pl, 0), "1:1");
	assert_int_equal(v->pl.plans[0].weight_sum, 2);
	view_free(v);
}

static void test_none_is_inactive(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "none");

	(void)state;
	place(v);
	assert_false(v->pl.active);
	assert_int_equal(v->pl.nplans, 0);
	assert_null(v->pl.failure);
	view_free(v);
}

/* Before 6.9 there is no table: plain interleave, said so; strict fails the user's
 * request, but never a job that only got the site's default. */
static void test_old_kernel(void **state)
{
	struct node_view *v = view_of("linux-6.1-boot", "weighted");

	(void)state;
	place(v);
	assert_true(v->pl.active);
	assert_int_equal(v->pl.path, SMPOL_PATH_INTERLEAVE);
	assert_string_equal(weights_of(&v->pl, 0), "1:1");
	assert_string_equal(v->pl.note, "this kernel has no weighted interleave (needs Linux 6.9): plain "
			    "interleave over the same nodes");
	view_free(v);

	v = view_of("linux-6.1-boot", "weighted,strict");
	place(v);
	assert_false(v->pl.active);
	assert_string_equal(v->pl.failure, "strict: this kernel has no weighted interleave (needs Linux 6.9); "
			    "not falling back to interleave");
	v->in.site_default = true;
	place(v);
	assert_false(v->pl.active);
	assert_null(v->pl.failure);
	assert_non_null(strstr(v->pl.note, "the site's default 'weighted,strict' cannot apply on this node: strict"));
	assert_non_null(strstr(v->pl.note, "the tasks run without a memory policy"));
	view_free(v);
}

/* A node the machine lacks: the user's request fails; the site's default never does. */
static void test_site_default_never_fails_a_job(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted,nodes=5");

	(void)state;
	place(v);
	assert_false(v->pl.active);
	assert_non_null(strstr(v->pl.failure, "5"));
	v->in.site_default = true;
	place(v);
	assert_false(v->pl.active);
	assert_null(v->pl.failure);
	assert_non_null(strstr(v->pl.note, "the site's default 'weighted,nodes=5' cannot apply on this node"));
	view_free(v);
}

/* The table could not be read: the tasks still interleave, but nothing claims weights. */
static void test_unreadable_table(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted");

	(void)state;
	v->in.table_error = "/sys/kernel/mm/mempolicy/weighted_interleave/node0 does not hold a weight";
	v->site.sysfs = SMPOL_SYSFS_NEVER;
	place(v);
	assert_true(v->pl.active);
	assert_false(v->pl.weights_known);
	assert_false(v->pl.lease_wanted);
	assert_non_null(strstr(v->pl.note, "does not hold a weight"));
	assert_non_null(strstr(v->pl.note, "unknown"));
	smpol_spec_free(&v->in.spec);
	smpol_spec_parse("auto", &v->in.spec, NULL, 0);
	place(v);
	assert_false(v->pl.weights_known);
	assert_non_null(strstr(v->pl.note, "unknown"));
	view_free(v);
}

/* Region-aware: the plans are the large mappings'; how they get them depends on
 * process_mbind, and the note says what a kernel without it costs. */
static void test_region_aware(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted,min_region=64M");

	(void)state;
	/* a step that still wants the lease decides regions with its outcome */
	place(v);
	assert_true(v->pl.lease_wanted);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_NONE);
	v->in.lease = SMPOL_LEASE_HELD;
	place(v);
	assert_int_equal(v->pl.min_region_kb, 65536);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_MOVE);
	assert_int_equal(v->pl.path, SMPOL_PATH_WEIGHTED);
	assert_string_equal(nodes_of(&v->pl, 0), "0,2");
	assert_non_null(strstr(v->pl.note, "this kernel has no process_mbind (not upstream; plugstack "
				 "process_mbind_nr= names it where a kernel has it): large mappings' pages are moved "
				 "onto the plan at each sample"));
	assert_string_equal(smpol_regions_by_name(v->pl.regions_by), "move_pages");

	/* the probe's sentence says why process_mbind is not used */
	v->in.pmbind_note = "syscall 500 is not implemented by this kernel (no process_mbind)";
	place(v);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_MOVE);
	assert_non_null(strstr(v->pl.note, "syscall 500 is not implemented by this kernel (no process_mbind): "
				 "large mappings' pages are moved"));

	v->in.pmbind = true;
	v->in.pmbind_note = NULL;
	place(v);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_POLICY);
	assert_null(v->pl.note);
	assert_string_equal(smpol_regions_by_name(v->pl.regions_by), "process_mbind");

	/* one sample only: later mappings are not placed, and the note says so */
	v->site.sample_interval = 0;
	place(v);
	assert_non_null(strstr(v->pl.note, "sample_interval=0: large mappings are placed once"));
	view_free(v);

	/* notes add up: no lease and no process_mbind */
	v = view_of("linux-7.3-boot", "weighted,min_region=1G");
	v->in.lease = SMPOL_LEASE_NOT_HELD;
	v->in.lease_note = "the node's interleave weights are held by job 7";
	place(v);
	assert_int_equal(v->pl.min_region_kb, 1048576);
	assert_non_null(strstr(v->pl.note, "held by job 7; this kernel has no process_mbind"));
	assert_string_equal(weights_of(&v->pl, 0), "7:2");
	view_free(v);

	/* unknown weights and no process_mbind: nothing to move the pages onto */
	v = view_of("linux-7.3-boot", "auto,min_region=64M");
	v->in.table_error = "/sys/kernel/mm/mempolicy/weighted_interleave/node0 does not hold a weight";
	place(v);
	assert_false(v->pl.weights_known);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_NONE);
	assert_non_null(strstr(v->pl.note, "large mappings stay on the local node"));
	v->in.pmbind = true;
	place(v);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_POLICY);
	view_free(v);

	/* plain interleave on 6.1, region-aware all the same; without min_region nothing changes */
	v = view_of("linux-6.1-boot", "weighted,min_region=64M");
	place(v);
	assert_int_equal(v->pl.path, SMPOL_PATH_INTERLEAVE);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_MOVE);
	assert_non_null(strstr(v->pl.note, "plain interleave over the same nodes; this kernel has no process_mbind"));
	smpol_spec_free(&v->in.spec);
	smpol_spec_parse("weighted", &v->in.spec, NULL, 0);
	v->in.pmbind = true;
	place(v);
	assert_int_equal(v->pl.min_region_kb, 0);
	assert_int_equal(v->pl.regions_by, SMPOL_REGIONS_NONE);
	view_free(v);
}

/* weights= gives every task the same nodes and weights, and the table to write is
 * exactly them. */
static void test_explicit_weights(void **state)
{
	struct node_view *v = view_of("two-socket-cxl", "weighted,weights=0:5:1:5:2:1:3:1");

	(void)state;
	place(v);
	for (int i = 0; i < v->pl.nplans; i++)
		assert_string_equal(weights_of(&v->pl, v->pl.plans[i].initiator), "5:5:1:1");
	assert_true(v->pl.lease_wanted);
	assert_int_equal(v->pl.want->table.weight[1], 5);
	assert_int_equal(v->pl.want->table.weight[3], 1);
	assert_int_equal(smpol_bitmap_count(&v->pl.want->nodes), 4);
	view_free(v);
}

static void test_pick(void **state)
{
	struct node_view *v = view_of("linux-7.3-boot", "weighted");
	struct smpol_plan chosen = { 0 };
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	place(v);
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 2);
	smpol_plan_free(&chosen);
	assert_int_equal(smpol_placement_pick(&v->pl, &v->topo, &cpus, &chosen, err, sizeof(err)), 0);
	assert_int_equal(chosen.initiator, 1);
	view_free(v);
	smpol_plan_free(&chosen);
	smpol_cpus_free(&cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_opts_from_spec),
		cmocka_unit_test(test_weighted_takes_the_lease),
		cmocka_unit_test(test_weighted_without_lease_runs_on_the_table),
		cmocka_unit_test(test_span_scales_own_weights),
		cmocka_unit_test(test_site_settings_reach_the_plans),
		cmocka_unit_test(test_equal_weights_are_not_written),
		cmocka_unit_test(test_auto_uses_the_table),
		cmocka_unit_test(test_interleave_is_equal),
		cmocka_unit_test(test_none_is_inactive),
		cmocka_unit_test(test_old_kernel),
		cmocka_unit_test(test_site_default_never_fails_a_job),
		cmocka_unit_test(test_unreadable_table),
		cmocka_unit_test(test_explicit_weights),
		cmocka_unit_test(test_region_aware),
		cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
