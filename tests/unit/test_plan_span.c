/* test_plan_span.c - plans for a set of CPUs (plan_span.h): the rule t(j) = sum_i c_i
 * f_i(j) on the fixture trees (two sockets with CXL, the four-node guest with its raw
 * HMAT pairs, the one-socket trees) and on hand-built trees with memory-only nodes and
 * asymmetric read/write; the exact reduction to a node's own plan; the scaling a step
 * that owns the node applies. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bw_sources.h"
#include "error.h"
#include "fake_tree.h"
#include "plan_span.h"

/* A tree and its per-node plans, with the bandwidth the plugin would resolve. */
struct planned {
	struct smpol_topology topo;
	struct smpol_bw_table bw;
	struct smpol_plan_opts opts;
	struct smpol_plan *plans;
	int nplans;
};

static void plan_all(struct planned *p)
{
	char err[SMPOL_ERRLEN] = "";

	smpol_plans_free(p->plans, p->nplans);
	if (smpol_plan_all(&p->topo, &p->opts, &p->plans, &p->nplans, err, sizeof(err)))
		fail_msg("plans: %s", err);
}

static struct planned *planned_fixture(const char *fixture, enum smpol_scope scope)
{
	struct planned *p = calloc(1, sizeof(*p));
	struct smpol_bw_origin origin;
	char err[SMPOL_ERRLEN] = "";

	assert_non_null(p);
	if (smpol_topology_read(fake_host(fixture_path(fixture), NULL), &p->topo, err, sizeof(err)))
		fail_msg("%s: %s", fixture, err);
	assert_int_equal(smpol_bw_resolve(&p->topo, NULL, false, &p->bw, &origin), 0);
	smpol_plan_opts_default(&p->opts);
	p->opts.scope = scope;
	p->opts.bandwidth = &p->bw;
	plan_all(p);
	return p;
}

static void planned_free(struct planned *p)
{
	smpol_plans_free(p->plans, p->nplans);
	smpol_bw_free(&p->bw);
	smpol_topology_free(&p->topo);
	free(p);
}

/* The CPUs of a list (the caller's to free). */
static struct smpol_cpus cpu_list(const char *list)
{
	struct smpol_cpus b = { 0 };

	assert_int_equal(smpol_cpus_parse_list(list, SMPOL_MAX_CPUS, &b, NULL, 0), 0);
	return b;
}

static void pick(const struct planned *p, const char *cpus, struct smpol_plan *out)
{
	struct smpol_cpus b = cpu_list(cpus);
	char err[SMPOL_ERRLEN] = "";

	smpol_plan_free(out);
	if (smpol_plan_pick(&p->topo, p->plans, p->nplans, &b, &p->opts, out, err, sizeof(err)))
		fail_msg("CPUs %s: %s", cpus, err);
	smpol_cpus_free(&b);
}

/* got is own, field by field and node by node (each has arrays of its own). */
static void assert_plan_equal(const struct smpol_plan *got, const struct smpol_plan *own)
{
	struct smpol_plan a = *got;
	size_t n = (size_t)own->nnodes;

	assert_int_equal(got->nnodes, own->nnodes);
	assert_memory_equal(got->nodes, own->nodes, sizeof(*own->nodes) * n);
	assert_memory_equal(got->weights, own->weights, sizeof(*own->weights) * n);
	assert_memory_equal(got->shares, own->shares, sizeof(*own->shares) * n);
	assert_memory_equal(got->bandwidth, own->bandwidth, sizeof(*own->bandwidth) * n);
	assert_memory_equal(got->sources, own->sources, sizeof(*own->sources) * n);
	a.nodes = own->nodes;
	a.weights = own->weights;
	a.shares = own->shares;
	a.bandwidth = own->bandwidth;
	a.sources = own->sources;
	assert_int_equal(got->nserved, own->nserved);
	assert_memory_equal(got->served, own->served, sizeof(*own->served) * (size_t)own->nserved);
	assert_memory_equal(got->served_cpus, own->served_cpus, sizeof(*own->served_cpus) * (size_t)own->nserved);
	a.served = own->served;
	a.served_cpus = own->served_cpus;
	assert_true(!got->notes == !own->notes && (!own->notes || !strcmp(got->notes, own->notes)));
	a.notes = own->notes;
	assert_memory_equal(&a, own, sizeof(a));
}

static const char *nodes_of(const struct smpol_plan *p)
{
	static char buf[256];

	assert_int_equal(smpol_plan_format_nodes(p, buf, sizeof(buf)), 0);
	return buf;
}

static const char *weights_of(const struct smpol_plan *p)
{
	static char buf[256];

	assert_int_equal(smpol_plan_format_weights(p, buf, sizeof(buf)), 0);
	return buf;
}

static const char *served_of(const struct smpol_plan *p)
{
	static char buf[256];

	assert_int_equal(smpol_plan_format_served(p, true, buf, sizeof(buf)), 0);
	return buf;
}

static const struct smpol_plan *plan_of(const struct planned *p, int initiator)
{
	for (int i = 0; i < p->nplans; i++)
		if (p->plans[i].initiator == initiator)
			return &p->plans[i];
	fail_msg("no plan for node %d", initiator);
	return NULL;
}

/* Node j's share in initiator i's plan, 0 when it names no such node. */
static double share_in(const struct smpol_plan *p, int node)
{
	for (int j = 0; j < p->nnodes; j++)
		if (p->nodes[j] == node)
			return p->shares[j];
	return 0;
}

/* The rule itself, checked node by node: t(j) = sum_i c_i f_i(j). */
static void expect_rule(const struct planned *p, const struct smpol_plan *got)
{
	unsigned total = 0;
	double sum = 0;

	for (int i = 0; i < got->nserved; i++)
		total += got->served_cpus[i];
	for (int k = 0; k < got->nnodes; k++) {
		double want = 0;

		for (int i = 0; i < got->nserved; i++)
			want += (double)got->served_cpus[i] / total * share_in(plan_of(p, got->served[i]), got->nodes[k]);
		assert_float_equal(got->shares[k], want, 1e-12);
		sum += got->shares[k];
	}
	assert_true(sum <= 1 + 1e-9);
}

/* CPUs on one node give that node's plan, field by field (only served_cpus counts
 * the task's CPUs): on every fixture, every CPU node, both scopes, all or one CPU. */
static void test_one_node_is_the_node_plan(void **state)
{
	static const char *const fixtures[] = { "two-socket-cxl", "linux-7.3-boot", "linux-7.3-acpi",
						"linux-7.3-after-hotplug", "hbm-dram", "asym-rw", "access0-differs",
						"no-hmat", "linux-6.12-boot" };

	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		for (int scope = SMPOL_SCOPE_SOCKET; scope <= SMPOL_SCOPE_ALL; scope++) {
			struct planned *p = planned_fixture(fixtures[f], (enum smpol_scope)scope);

			for (int i = 0; i < p->nplans; i++) {
				const struct smpol_plan *own = &p->plans[i];
				const struct smpol_node *n = smpol_topology_node(&p->topo, own->initiator);
				struct smpol_cpus one = { 0 };
				struct smpol_plan got = { 0 };
				char err[SMPOL_ERRLEN];

				assert_int_equal(smpol_plan_pick(&p->topo, p->plans, p->nplans, &n->cpus, &p->opts, &got,
								 err, sizeof(err)), 0);
				assert_plan_equal(&got, own);
				smpol_plan_free(&got);
				smpol_cpus_clear(&one);
				smpol_cpus_set(&one, smpol_cpus_next(&n->cpus, 0));
				assert_int_equal(smpol_plan_pick(&p->topo, p->plans, p->nplans, &one, &p->opts, &got,
								 err, sizeof(err)), 0);
				assert_int_equal(got.served_cpus[0], 1);
				got.served_cpus[0] = own->served_cpus[0];
				assert_plan_equal(&got, own);
				smpol_plan_free(&got);
				smpol_cpus_free(&one);
			}
			planned_free(p);
		}
	}
}

/* The case: -c16 on both sockets of two-socket-cxl gets every socket's DRAM and
 * CXL, half by each socket's plan: 5:5:1:1, as efficient as each socket's own 5:1. */
static void test_two_sockets_half_each(void **state)
{
	struct planned *p = planned_fixture("two-socket-cxl", SMPOL_SCOPE_SOCKET);
	struct smpol_plan got = { 0 };

	(void)state;
	pick(p, "0-15", &got);
	assert_string_equal(nodes_of(&got), "0,1,2,3");
	assert_string_equal(weights_of(&got), "5:5:1:1");
	assert_string_equal(served_of(&got), "0:8,1:8");
	assert_int_equal(got.initiator, 0);
	expect_rule(p, &got);
	assert_float_equal(got.shares[0], 0.5 * 300000 / 364000, 1e-12);
	assert_float_equal(got.shares[3], 0.5 * 64000 / 364000, 1e-12);
	assert_int_equal(got.weight_sum, 12);
	assert_float_equal(got.efficiency, plan_of(p, 0)->efficiency, 1e-12);
	assert_null(got.notes);
	assert_int_equal(got.bw_source, SMPOL_BW_SYSFS);
	smpol_plan_free(&got);
	planned_free(p);
}

/* Two thirds of the CPUs on socket 0: the plans' weights still split 50:50, which the
 * plan says (efficiency and a note); scaling socket 0's weights by 2 makes it exact,
 * and socket 1's tasks keep their ratios. */
static void test_uneven_split_and_scaling(void **state)
{
	struct planned *p = planned_fixture("two-socket-cxl", SMPOL_SCOPE_SOCKET);
	struct smpol_cpus span = cpu_list("0-11");
	struct smpol_plan got = { 0 }, socket1;

	(void)state;
	assert_int_equal(smpol_plan_copy(&socket1, plan_of(p, 1)), 0);
	pick(p, "0-11", &got);
	expect_rule(p, &got);
	assert_string_equal(served_of(&got), "0:8,1:4");
	assert_string_equal(weights_of(&got), "5:5:1:1");
	assert_true(got.efficiency < 0.7);
	assert_string_equal(got.notes, "the weights give CPU nodes 0,1 50%:50% of the memory, the task's CPUs are "
			    "67%:33% there.");
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &p->opts.weight), 1);
	assert_string_equal(weights_of(plan_of(p, 0)), "10:2");
	assert_plan_equal(plan_of(p, 1), &socket1);
	assert_float_equal(plan_of(p, 0)->efficiency, socket1.efficiency, 1e-12);
	pick(p, "0-11", &got);
	assert_string_equal(weights_of(&got), "10:5:2:1");
	assert_float_equal(got.efficiency, socket1.efficiency, 1e-12);
	assert_null(got.notes);
	smpol_plan_free(&got);
	smpol_plan_free(&socket1);
	planned_free(p);
	smpol_cpus_free(&span);
}

/* The four-node guest: socket 0 has DRAM and CXL, socket 1 DRAM alone. Its own plan
 * gives node1 weight 1, so the plain union splits 90:10; the owner's scaling gives node1
 * the weight of socket 0's whole plan (7:9:2, exact). */
static void test_asymmetric_sockets(void **state)
{
	struct planned *p = planned_fixture("linux-7.3-boot", SMPOL_SCOPE_SOCKET);
	struct smpol_cpus span = cpu_list("0-3");
	struct smpol_plan got = { 0 };

	(void)state;
	pick(p, "0-3", &got);
	expect_rule(p, &got);
	assert_string_equal(nodes_of(&got), "0,1,2");
	assert_string_equal(weights_of(&got), "7:1:2");
	assert_float_equal(got.shares[1], 0.5, 1e-12);
	assert_non_null(strstr(got.notes, "90%:10% of the memory, the task's CPUs are 50%:50%"));
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &p->opts.weight), 1);
	pick(p, "0-3", &got);
	assert_string_equal(weights_of(&got), "7:9:2");
	assert_float_equal(got.efficiency, plan_of(p, 0)->efficiency, 1e-12);
	/* three CPUs, two on node 1 */
	plan_all(p);
	pick(p, "1-3", &got);
	assert_string_equal(served_of(&got), "0:1,1:2");
	assert_int_equal(got.initiator, 1);
	expect_rule(p, &got);
	smpol_plan_free(&got);
	planned_free(p);
	smpol_cpus_free(&span);
}

/* scope=all over the raw HMAT pairs: each initiator weighs the other socket's DRAM at
 * 112000 and the far CXL at 48000, so the plans give shared nodes different weights.
 * The combined shares average them and are apportioned afresh. */
static void test_raw_pairs_scope_all(void **state)
{
	struct planned *p = planned_fixture("linux-7.3-acpi", SMPOL_SCOPE_ALL);
	struct smpol_cpus span = cpu_list("0-3");
	struct smpol_plan got = { 0 };
	char w0[256];

	(void)state;
	assert_int_equal(plan_of(p, 0)->bw_source, SMPOL_BW_ACPI);
	snprintf(w0, sizeof(w0), "%s", weights_of(plan_of(p, 0)));
	assert_string_not_equal(w0, weights_of(plan_of(p, 1)));
	pick(p, "0-3", &got);
	expect_rule(p, &got);
	assert_string_equal(nodes_of(&got), "0,1,2");
	/* each DRAM node is local to half the CPUs and remote to the other half */
	assert_float_equal(got.shares[0], 0.5 * 224000 / 400000 + 0.5 * 112000 / 384000, 1e-12);
	assert_float_equal(got.shares[1], 0.5 * 112000 / 400000 + 0.5 * 224000 / 384000, 1e-12);
	assert_true(got.efficiency >= p->opts.weight.precision - SMPOL_PRECISION_FLOOR);
	assert_int_equal(got.bw_source, SMPOL_BW_ACPI);
	/* a node weighed by both: the mean of the pairs, by CPU share */
	assert_int_equal(got.bandwidth[0], (224000 + 112000) / 2);
	/* nothing to scale: the plans share nodes */
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &p->opts.weight), 0);
	smpol_plan_free(&got);
	planned_free(p);
	smpol_cpus_free(&span);
}

/* A hand-built node: CPU nodes get 4 CPUs each (4*id..); memory-only nodes are local to
 * `local`; read and write bandwidth apart. */
struct fake {
	struct smpol_topology topo;
	struct smpol_node nodes[8];
};

static void add_node(struct fake *f, int id, bool cpu, int local, uint32_t read, uint32_t write)
{
	struct smpol_node *n = &f->nodes[f->topo.nnodes++];

	memset(n, 0, sizeof(*n));
	n->id = id;
	n->has_cpu = cpu;
	n->has_memory = read > 0;
	n->mem_total_kb = n->mem_free_kb = read ? 16ULL << 20 : 0;
	n->tier = -1;
	for (int c = 0; cpu && c < 4; c++)
		smpol_cpus_set(&n->cpus, 4 * id + c);
	if (read) {
		n->access[1].valid = true;
		n->access[1].read_bw = read;
		n->access[1].write_bw = write;
		assert_int_equal(smpol_cpus_set(&n->access[1].initiators, local), 0);
	}
	smpol_bitmap_set(&f->topo.online, id);
	smpol_bitmap_set(&f->topo.possible, id);
}

/* The fake's plans; the fake's CPU sets are freed (it is not used after). */
static struct planned *planned_fake(struct fake *f)
{
	struct planned *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	assert_int_equal(smpol_topology_copy(&f->topo, &p->topo), 0);
	for (int i = 0; i < f->topo.nnodes; i++)
		smpol_node_free(&f->nodes[i]);
	smpol_plan_opts_default(&p->opts);
	plan_all(p);
	return p;
}

/* The hold-out style node: two sockets, each DRAM reading faster than it writes, socket
 * 0 with a memory-only HBM node that writes faster than it reads, socket 1 with a CXL
 * node; min(read, write) per pair, as the kernel. */
static void test_memory_only_and_asymmetric_rw(void **state)
{
	struct fake f = { .topo = { .nodes = f.nodes } };
	struct planned *p;
	struct smpol_plan got = { 0 };

	(void)state;
	add_node(&f, 0, true, 0, 200000, 100000);
	add_node(&f, 1, true, 1, 200000, 100000);
	add_node(&f, 2, false, 0, 400000, 800000);
	add_node(&f, 3, false, 1, 40000, 50000);
	p = planned_fake(&f);
	assert_string_equal(nodes_of(plan_of(p, 0)), "0,2");
	assert_string_equal(nodes_of(plan_of(p, 1)), "1,3");
	pick(p, "0-7", &got);
	assert_string_equal(nodes_of(&got), "0,1,2,3");
	expect_rule(p, &got);
	assert_float_equal(got.shares[0], 0.5 * 100000 / 500000, 1e-12);
	assert_float_equal(got.shares[2], 0.5 * 400000 / 500000, 1e-12);
	assert_float_equal(got.shares[1], 0.5 * 100000 / 140000, 1e-12);
	assert_float_equal(got.shares[3], 0.5 * 40000 / 140000, 1e-12);
	assert_int_equal(got.bandwidth[2], 400000);
	/* CPU 0 and all of socket 1: a fifth of the memory by socket 0's plan */
	pick(p, "0,4-7", &got);
	expect_rule(p, &got);
	assert_string_equal(served_of(&got), "0:1,1:4");
	assert_float_equal(got.shares[2], 0.2 * 0.8, 1e-12);
	smpol_plan_free(&got);
	planned_free(p);
}

/* A CPU node without memory of its own plans over every node with memory, the nodes of
 * socket 0's plan too: on sysfs HMAT both weigh them alike, so the union keeps their
 * weights. CPUs on no node are not counted. */
static void test_memoryless_cpu_node(void **state)
{
	struct fake f = { .topo = { .nodes = f.nodes } };
	struct planned *p;
	struct smpol_plan got = { 0 };

	(void)state;
	add_node(&f, 0, true, 0, 300000, 300000);
	add_node(&f, 1, true, 1, 0, 0);
	add_node(&f, 2, false, 0, 64000, 64000);
	p = planned_fake(&f);
	assert_string_equal(nodes_of(plan_of(p, 1)), "0,2");
	pick(p, "0-7,100", &got);
	assert_string_equal(served_of(&got), "0:4,1:4");
	assert_string_equal(nodes_of(&got), "0,2");
	expect_rule(p, &got);
	assert_true(got.efficiency >= p->opts.weight.precision - SMPOL_PRECISION_FLOOR);
	assert_non_null(strstr(got.notes, "node 1 has no memory of its own"));
	smpol_plan_free(&got);
	planned_free(p);
}

/* No CPU on a node, or a node without a plan: -ENOENT with the CPUs named; a
 * node-independent plan serves any CPUs. */
static void test_no_plan(void **state)
{
	struct planned *p = planned_fixture("two-socket-cxl", SMPOL_SCOPE_SOCKET);
	struct smpol_cpus cpus = cpu_list("200-201");
	struct smpol_plan got = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_plan_pick(&p->topo, p->plans, p->nplans, &cpus, &p->opts, &got, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "the task's CPUs 200-201 belong to no NUMA node of this machine");
	smpol_cpus_free(&cpus);
	cpus = cpu_list("4-11");
	assert_int_equal(smpol_plan_pick(&p->topo, p->plans, 1, &cpus, &p->opts, &got, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "the task's CPUs 4-11 are on node 1, for which no plan was made");
	p->plans[0].initiator = -1;
	assert_int_equal(smpol_plan_pick(&p->topo, p->plans, 1, &cpus, &p->opts, &got, err, sizeof(err)), 0);
	assert_int_equal(got.initiator, -1);
	smpol_plan_free(&got);
	planned_free(p);
	smpol_cpus_free(&cpus);
}

/* Scaling keeps every weight within the kernel's u8 and the sums within max_sum per
 * plan: with a tight max_sum it stops at the best split it can reach. */
static void test_scaling_bounds(void **state)
{
	struct planned *p = planned_fixture("linux-7.3-boot", SMPOL_SCOPE_SOCKET);
	struct smpol_cpus span = cpu_list("0,2-3");
	struct smpol_weight_opts tight = p->opts.weight;
	struct smpol_plan got = { 0 };

	(void)state;
	/* 1 CPU on node 0 (7:2, sum 9), 2 on node 1 (sum 1): node1 wants 18 */
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &p->opts.weight), 1);
	assert_string_equal(weights_of(plan_of(p, 1)), "18");
	plan_all(p);
	tight.max_sum = 6;      /* at most 12 in all: node1 may take 3 */
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &tight), 1);
	assert_string_equal(weights_of(plan_of(p, 1)), "3");
	pick(p, "0,2-3", &got);
	assert_true(got.efficiency < p->opts.weight.precision);
	/* one node: nothing to scale */
	smpol_cpus_free(&span);
	span = cpu_list("2-3");
	smpol_plan_free(&got);
	plan_all(p);
	assert_int_equal(smpol_plan_scale_for_span(&p->topo, p->plans, p->nplans, &span, &p->opts.weight), 0);
	planned_free(p);
	smpol_cpus_free(&span);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_is_the_node_plan),
		cmocka_unit_test(test_two_sockets_half_each),
		cmocka_unit_test(test_uneven_split_and_scaling),
		cmocka_unit_test(test_asymmetric_sockets),
		cmocka_unit_test(test_raw_pairs_scope_all),
		cmocka_unit_test(test_memory_only_and_asymmetric_rw),
		cmocka_unit_test(test_memoryless_cpu_node),
		cmocka_unit_test(test_no_plan),
		cmocka_unit_test(test_scaling_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
