/* test_plan.c - plans on hand-built topologies (no sysfs): candidates per scope,
 * missing HMAT data, capacity caps, explicit nodes and weights, left-out nodes. */
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
#include "plan.h"

#define GIB (1024ULL * 1024)   /* in KiB */

struct fake {
	struct smpol_topology topo;
	struct smpol_node nodes[8];
};

/* A node: CPU nodes get CPUs 4*id..4*id+3; bw 0 = no HMAT data; initiator < 0 = none listed. */
static void add_node(struct fake *f, int id, bool cpu, uint64_t mem_kb, uint32_t bw, int initiator)
{
	struct smpol_node *n = &f->nodes[f->topo.nnodes++];

	memset(n, 0, sizeof(*n));
	n->id = id;
	n->has_cpu = cpu;
	n->has_memory = mem_kb > 0;
	n->mem_total_kb = n->mem_free_kb = mem_kb;
	n->tier = -1;
	for (int c = 0; cpu && c < 4; c++)
		smpol_cpus_set(&n->cpus, 4 * id + c);
	if (bw) {
		n->access[1].valid = true;
		n->access[1].read_bw = n->access[1].write_bw = bw;
	}
	if (initiator >= 0)
		assert_int_equal(smpol_cpus_set(&n->access[1].initiators, initiator), 0);
	smpol_bitmap_set(&f->topo.online, id);
	smpol_bitmap_set(&f->topo.possible, id);
}

/* Free what the nodes hold (a fake is zeroed when declared). */
static void fake_free(struct fake *f)
{
	for (int i = 0; f->topo.nodes == f->nodes && i < f->topo.nnodes; i++)
		smpol_node_free(&f->nodes[i]);
}

static void fake_init(struct fake *f)
{
	fake_free(f);
	memset(f, 0, sizeof(*f));
	f->topo.nodes = f->nodes;
}

/* tests/fixtures/two-socket-cxl by hand: DRAM 0-1 at 300000 MB/s, CXL 2 (local to 0)
 * and 3 (local to 1) at 64000 MB/s. */
static void two_socket_cxl(struct fake *f)
{
	fake_init(f);
	add_node(f, 0, true, 16 * GIB, 300000, 0);
	add_node(f, 1, true, 16 * GIB, 300000, 1);
	add_node(f, 2, false, 64 * GIB, 64000, 0);
	add_node(f, 3, false, 64 * GIB, 64000, 1);
}

static void plan_ok(const struct fake *f, int initiator, const struct smpol_plan_opts *o, struct smpol_plan *p)
{
	char err[SMPOL_ERRLEN] = "";

	smpol_plan_free(p);
	if (smpol_plan_for_initiator(&f->topo, initiator, o, p, err, sizeof(err)))
		fail_msg("plan for node %d refused: %s", initiator, err);
}

static void expect_plan(const struct smpol_plan *p, const char *nodes, const char *weights)
{
	char buf[128];

	assert_int_equal(smpol_plan_format_nodes(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, nodes);
	assert_int_equal(smpol_plan_format_weights(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, weights);
}

static void test_scope_socket(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan *plans;
	char err[SMPOL_ERRLEN];
	int n;

	(void)state;
	two_socket_cxl(&f);
	smpol_plan_opts_default(&o);
	assert_int_equal(smpol_plan_all(&f.topo, &o, &plans, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	/* shares 300:64 -> 5:1 (eff 0.989) at the default precision */
	assert_int_equal(plans[0].initiator, 0);
	expect_plan(&plans[0], "0,2", "5:1");
	assert_int_equal(plans[1].initiator, 1);
	expect_plan(&plans[1], "1,3", "5:1");
	assert_int_equal(plans[0].weight_sum, 6);
	assert_float_equal(plans[0].efficiency, 6 * (300.0 / 364) / 5, 1e-12);
	assert_float_equal(plans[0].shares[0], 300.0 / 364, 1e-12);
	assert_true(plans[0].bandwidth_known);
	assert_false(plans[0].capacity_capped);
	assert_int_equal(plans[0].nleft_out, 0);
	assert_null(plans[0].notes);
	assert_int_equal(plans[0].algorithm, SMPOL_ALGO_OPTIMAL);
	smpol_plans_free(plans, n);
	fake_free(&f);
}

static void test_scope_all(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	two_socket_cxl(&f);
	smpol_plan_opts_default(&o);
	o.scope = SMPOL_SCOPE_ALL;
	plan_ok(&f, 1, &o, &p);
	expect_plan(&p, "0,1,2,3", "5:5:1:1");
	o.algorithm = SMPOL_ALGO_KERNEL;
	plan_ok(&f, 1, &o, &p);
	expect_plan(&p, "0,1,2,3", "13:13:2:2");
	assert_int_equal(p.algorithm, SMPOL_ALGO_KERNEL);
	assert_int_equal(p.weight_sum, 30);
	assert_true(smpol_bitmap_empty(&p.standby));
	smpol_plan_free(&p);
	fake_free(&f);
}

/* A possible node without memory (a hot-add target) is on standby in scope=all plans,
 * never in socket plans: its socket is unknown until it has memory. */
static void test_standby_nodes(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };
	char buf[64];

	(void)state;
	two_socket_cxl(&f);
	smpol_bitmap_set(&f.topo.possible, 5);
	smpol_plan_opts_default(&o);
	o.scope = SMPOL_SCOPE_ALL;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1,2,3", "5:5:1:1");
	smpol_bitmap_format_list(&p.standby, buf, sizeof(buf));
	assert_string_equal(buf, "5");
	o.scope = SMPOL_SCOPE_SOCKET;
	plan_ok(&f, 0, &o, &p);
	assert_true(smpol_bitmap_empty(&p.standby));
	o.scope = SMPOL_SCOPE_ALL;
	o.has_nodes = true;
	smpol_bitmap_clear(&o.nodes);
	smpol_bitmap_set(&o.nodes, 0);
	plan_ok(&f, 0, &o, &p);
	assert_true(smpol_bitmap_empty(&p.standby));
	smpol_plan_free(&p);
	fake_free(&f);
}

/* The QEMU fixture numbers: 224000, 224000 and a CXL node at 64000. */
static void test_qemu_numbers(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	fake_init(&f);
	add_node(&f, 0, true, 4 * GIB, 224000, 0);
	add_node(&f, 1, true, 4 * GIB, 224000, 1);
	add_node(&f, 2, false, 2 * GIB, 64000, 0);
	smpol_plan_opts_default(&o);
	o.scope = SMPOL_SCOPE_ALL;
	o.algorithm = SMPOL_ALGO_KERNEL;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1,2", "7:7:2");
	assert_float_equal(p.efficiency, 1, 1e-12);
	o.algorithm = SMPOL_ALGO_OPTIMAL;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1,2", "4:4:1");
	assert_float_equal(p.efficiency, 9 * 0.4375 / 4, 1e-12);
	/* kernel on a socket plan: the formula over its own candidates, 24:7 */
	o.scope = SMPOL_SCOPE_SOCKET;
	o.algorithm = SMPOL_ALGO_KERNEL;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,2", "24:7");
	o.algorithm = SMPOL_ALGO_OPTIMAL;
	/* socket scope on node1: no local memory-only node, just itself */
	o.scope = SMPOL_SCOPE_SOCKET;
	plan_ok(&f, 1, &o, &p);
	expect_plan(&p, "1", "1");
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_named_nodes(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	two_socket_cxl(&f);
	add_node(&f, 4, true, 0, 0, 4);   /* CPUs, no memory */
	smpol_plan_opts_default(&o);
	o.has_nodes = true;
	smpol_bitmap_set(&o.nodes, 0);
	smpol_bitmap_set(&o.nodes, 2);
	/* named nodes are used as named, whichever socket the task is on */
	plan_ok(&f, 1, &o, &p);
	expect_plan(&p, "0,2", "5:1");
	smpol_bitmap_set(&o.nodes, 4);
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node 4 has no memory; nodes with memory: 0-3");
	smpol_bitmap_unset(&o.nodes, 4);
	smpol_bitmap_set(&o.nodes, 7);
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node 7 is not online; nodes with memory: 0-3");
	smpol_bitmap_clear(&o.nodes);
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no nodes were named"));
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_explicit_weights(void **state)
{
	struct fake f = { 0 };
	uint8_t w[6] = { 2, 0, 2 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	two_socket_cxl(&f);
	smpol_plan_opts_default(&o);
	o.has_weights = true;
	o.weights = w;
	o.nweights = 3;
	/* used as given, no GCD reduction; rated against the bandwidth shares */
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,2", "2:2");
	assert_int_equal(p.weight_sum, 4);
	/* the CXL node is over-fed: eff = 4 * min(f0/2, f2/2) = 2 * f2 */
	assert_float_equal(p.efficiency, 2 * (64.0 / 364), 1e-12);
	o.has_nodes = true;
	smpol_bitmap_set(&o.nodes, 1);
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nodes= and weights= name different nodes"));
	o.has_nodes = false;
	w[5] = 1;
	o.nweights = 6;
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "node 5 is not online"));
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_missing_hmat(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	/* none known: equal shares */
	fake_init(&f);
	add_node(&f, 0, true, 4 * GIB, 0, -1);
	add_node(&f, 1, false, 4 * GIB, 0, 0);
	smpol_plan_opts_default(&o);
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1", "1:1");
	assert_false(p.bandwidth_known);
	assert_float_equal(p.shares[0], 0.5, 1e-12);

	/* some known: the unknown node is weighed as the slowest known, and said so */
	two_socket_cxl(&f);
	f.nodes[1].access[1].valid = false;   /* node1 */
	smpol_plan_opts_default(&o);
	o.scope = SMPOL_SCOPE_ALL;
	plan_ok(&f, 0, &o, &p);
	assert_true(p.bandwidth_known);
	assert_non_null(strstr(p.notes, "no HMAT bandwidth for node(s) 1"));
	assert_non_null(strstr(p.notes, "64000 MB/s"));
	assert_float_equal(p.shares[1], 64.0 / (300 + 3 * 64), 1e-12);
	/* the kernel algorithm sees 0 for it, as the kernel does: weight 1 */
	o.algorithm = SMPOL_ALGO_KERNEL;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1,2,3", "22:1:4:4");
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_capacity(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	two_socket_cxl(&f);
	f.nodes[0].mem_free_kb = 8 * GIB;
	smpol_plan_opts_default(&o);
	/* 8 GiB fits the bandwidth shares (6.6 GiB on node0): no cap */
	o.mem_kb = 8 * GIB;
	plan_ok(&f, 0, &o, &p);
	assert_false(p.capacity_capped);
	expect_plan(&p, "0,2", "5:1");
	/* 32 GiB: node0 holds 8 (25%), node2 the rest */
	o.mem_kb = 32 * GIB;
	plan_ok(&f, 0, &o, &p);
	assert_true(p.capacity_capped);
	assert_float_equal(p.shares[0], 0.25, 1e-12);
	assert_float_equal(p.shares[1], 0.75, 1e-12);
	expect_plan(&p, "0,2", "1:3");
	assert_null(p.notes);
	/* more than all free memory: shares follow free memory, with a note, not an error */
	o.mem_kb = 100 * GIB;
	plan_ok(&f, 0, &o, &p);
	assert_true(p.capacity_capped);
	assert_float_equal(p.shares[0], 8.0 / 72, 1e-12);
	assert_non_null(strstr(p.notes, "do not fit in the 73728 MiB free"));
	/* free memory unknown on a candidate: no cap at all */
	f.nodes[2].mem_free_kb = 0;
	plan_ok(&f, 0, &o, &p);
	assert_false(p.capacity_capped);
	expect_plan(&p, "0,2", "5:1");
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_left_out(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	fake_init(&f);
	add_node(&f, 0, true, 4 * GIB, 990000, 0);
	add_node(&f, 1, false, 4 * GIB, 10000, 0);
	smpol_plan_opts_default(&o);
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0", "1");
	assert_int_equal(p.nleft_out, 1);
	assert_int_equal(p.left_out[0].node, 1);
	assert_string_equal(p.left_out[0].reason, "no seat at weight sum 1 (share 1.0%)");
	assert_float_equal(p.efficiency, 0.99, 1e-12);
	/* with precision 1 a node with 3% takes part (32:1 reaches 0.99 at a third of
	 * 97:3's sum; 1% is still left out: 1:0 reaches 0.99 at sum 1) */
	fake_init(&f);
	add_node(&f, 0, true, 4 * GIB, 970000, 0);
	add_node(&f, 1, false, 4 * GIB, 30000, 0);
	o.weight.precision = 1;
	o.weight.max_sum = 200;
	plan_ok(&f, 0, &o, &p);
	expect_plan(&p, "0,1", "32:1");
	assert_int_equal(p.nleft_out, 0);
	smpol_plan_free(&p);
	fake_free(&f);
}

/* A CPU node without memory, and no memory-only node local to it. */
static void test_memoryless_initiator(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	two_socket_cxl(&f);
	add_node(&f, 4, true, 0, 0, 4);
	smpol_plan_opts_default(&o);
	plan_ok(&f, 4, &o, &p);
	expect_plan(&p, "0,1,2,3", "5:5:1:1");
	assert_non_null(strstr(p.notes, "node 4 has no memory of its own"));
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 6, &o, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "node 6 is not online"));
	smpol_plan_free(&p);
	fake_free(&f);
}

static void test_no_memory_or_cpus(void **state)
{
	struct fake f = { 0 };
	struct smpol_plan_opts o;
	struct smpol_plan p, *plans = (struct smpol_plan *)1;
	char err[SMPOL_ERRLEN];
	int n = 7;

	(void)state;
	fake_init(&f);
	add_node(&f, 0, true, 0, 0, 0);
	smpol_plan_opts_default(&o);
	smpol_plan_free(&p);
	assert_int_equal(smpol_plan_for_initiator(&f.topo, 0, &o, &p, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no online node has memory"));
	assert_int_equal(smpol_plan_all(&f.topo, &o, &plans, &n, err, sizeof(err)), -ENODEV);
	assert_null(plans);
	assert_int_equal(n, 0);
	smpol_plans_free(plans, 1);   /* no list: nothing to free, whatever the count says */
	fake_init(&f);
	add_node(&f, 0, false, 4 * GIB, 100, -1);
	assert_int_equal(smpol_plan_all(&f.topo, &o, &plans, &n, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no online node has CPUs"));
	fake_free(&f);
}

/* One node limit: a plan may name every node a kernel can number (there was a second
 * limit of 256 per plan). */
static void test_every_node_a_kernel_numbers(void **state)
{
	struct fake f = { 0 };
	struct smpol_node *many = calloc(SMPOL_MAX_NODES, sizeof(*many));
	uint8_t all_one[SMPOL_MAX_NODES];
	struct smpol_plan_opts o;
	struct smpol_plan p = { 0 };

	(void)state;
	assert_non_null(many);
	fake_init(&f);
	for (int id = 0; id < SMPOL_MAX_NODES; id++) {
		f.topo.nnodes = 0;
		add_node(&f, id, id == 0, GIB, 1000, 0);
		many[id] = f.nodes[0];
	}
	f.topo.nodes = many;
	f.topo.nnodes = SMPOL_MAX_NODES;
	smpol_plan_opts_default(&o);
	o.scope = SMPOL_SCOPE_ALL;
	o.has_weights = true;
	memset(all_one, 1, sizeof(all_one));
	o.weights = all_one;
	o.nweights = SMPOL_MAX_NODES;
	plan_ok(&f, 0, &o, &p);
	assert_int_equal(p.nnodes, SMPOL_MAX_NODES);
	assert_int_equal(p.nodes[SMPOL_MAX_NODES - 1], SMPOL_MAX_NODES - 1);
	assert_int_equal(p.weight_sum, SMPOL_MAX_NODES);
	smpol_plan_free(&p);
	for (int id = 0; id < SMPOL_MAX_NODES; id++)
		smpol_node_free(&many[id]);
	free(many);
}

static void test_initiator_for_cpus(void **state)
{
	struct fake f = { 0 };
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];
	int init = -1;

	(void)state;
	two_socket_cxl(&f);
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 1);
	smpol_cpus_set(&cpus, 4);
	smpol_cpus_set(&cpus, 5);
	assert_int_equal(smpol_initiator_for_cpus(&f.topo, &cpus, &init, err, sizeof(err)), 0);
	assert_int_equal(init, 1);
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 1);
	smpol_cpus_set(&cpus, 4);
	assert_int_equal(smpol_initiator_for_cpus(&f.topo, &cpus, &init, err, sizeof(err)), 0);
	assert_int_equal(init, 0);   /* a tie: the lowest id */
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 100);
	assert_int_equal(smpol_initiator_for_cpus(&f.topo, &cpus, &init, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "none of the CPUs 100 belongs to an online NUMA node");
	smpol_cpus_clear(&cpus);
	assert_int_equal(smpol_initiator_for_cpus(&f.topo, &cpus, &init, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "(none)"));
	smpol_cpus_free(&cpus);
	fake_free(&f);
}

static void test_format(void **state)
{
	struct smpol_plan p = { 0 };
	char buf[8];

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(smpol_plan_format_nodes(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(smpol_plan_alloc(&p, 3), 0);
	p.nnodes = 3;
	p.nodes[0] = 0, p.nodes[1] = 2, p.nodes[2] = 1000;
	p.weights[0] = 255, p.weights[1] = 2, p.weights[2] = 1;
	assert_int_equal(smpol_plan_format_nodes(&p, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(smpol_plan_format_weights(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "255:2:1");
	assert_int_equal(smpol_plan_format_weights(&p, buf, 7), -ENOSPC);
	assert_string_equal(smpol_algorithm_name(SMPOL_ALGO_KERNEL), "kernel");
	assert_string_equal(smpol_algorithm_name(SMPOL_ALGO_OPTIMAL), "optimal");
	assert_string_equal(smpol_scope_name(SMPOL_SCOPE_ALL), "all");
	assert_string_equal(smpol_scope_name(SMPOL_SCOPE_SOCKET), "socket");
	smpol_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scope_socket),
		cmocka_unit_test(test_scope_all),
		cmocka_unit_test(test_standby_nodes),
		cmocka_unit_test(test_qemu_numbers),
		cmocka_unit_test(test_named_nodes),
		cmocka_unit_test(test_explicit_weights),
		cmocka_unit_test(test_missing_hmat),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_left_out),
		cmocka_unit_test(test_memoryless_initiator),
		cmocka_unit_test(test_no_memory_or_cpus),
		cmocka_unit_test(test_every_node_a_kernel_numbers),
		cmocka_unit_test(test_initiator_for_cpus),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
