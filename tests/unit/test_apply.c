/* test_apply.c - set_mempolicy from a plan, on this kernel's node 0 (every Linux has it). */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "task_policy.h"   /* first: <linux/mempolicy.h> before kernel.h */
#include "apply.h"
#include "plan_span.h"
#include "error.h"

static int reset_policy(void **state)
{
	(void)state;
	task_policy_reset();
	return 0;
}

/* A plan of one node (smpol_plan_free it). */
static struct smpol_plan plan_on(int initiator, int node)
{
	struct smpol_plan p = { .initiator = initiator };

	assert_int_equal(smpol_plan_alloc(&p, 1), 0);
	p.nnodes = 1;
	p.nodes[0] = node;
	p.weights[0] = 1;
	p.shares[0] = 1.0;
	p.efficiency = 1.0;
	p.weight_sum = 1;
	return p;
}

static void test_none_sets_nothing(void **state)
{
	struct smpol_plan p = plan_on(0, 0);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_NONE, true, &res, err, sizeof(err)), 0);
	assert_int_equal(res.path, SMPOL_PATH_NONE);
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	smpol_plan_free(&p);
}

static void test_interleave(void **state)
{
	struct smpol_plan p = plan_on(0, 0);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)), 0);
	assert_int_equal(res.path, SMPOL_PATH_INTERLEAVE);
	assert_false(res.fell_back);
	assert_int_equal(task_policy(), MPOL_INTERLEAVE);
	smpol_plan_free(&p);
}

static void test_weighted_follows_the_kernel(void **state)
{
	struct smpol_plan p = plan_on(0, 0);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];
	bool has = kernel_takes_weighted();

	(void)state;
	/* the placement chose weighted; the syscall decides: weighted, or a fallback that says EINVAL. */
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_WEIGHTED, false, &res, err, sizeof(err)), 0);
	assert_int_equal(res.path, has ? SMPOL_PATH_WEIGHTED : SMPOL_PATH_INTERLEAVE);
	assert_int_equal(res.fell_back, !has);
	assert_int_equal(task_policy(), has ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE);
	if (!has)
		assert_non_null(strstr(res.reason, "EINVAL"));
	smpol_plan_free(&p);
}

/* Standby nodes (no memory yet) ride along with MPOL_F_STATIC_NODES: the kernel keeps
 * them in the policy and interleaves onto them once memory is hot-added there. */
static void test_standby_nodes_are_static(void **state)
{
	struct smpol_plan p = plan_on(-1, 0);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];
	bool has = kernel_takes_weighted();
	int want = has ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE;

	(void)state;
	smpol_bitmap_set(&p.standby, SMPOL_MAX_NODES - 1);
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_WEIGHTED, false, &res, err, sizeof(err)), 0);
	assert_int_equal(task_policy(), want | MPOL_F_STATIC_NODES);
	task_policy_reset();
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)), 0);
	assert_int_equal(task_policy(), MPOL_INTERLEAVE | MPOL_F_STATIC_NODES);
	/* Without standby nodes the policy carries no flag. */
	task_policy_reset();
	smpol_bitmap_clear(&p.standby);
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)), 0);
	assert_int_equal(task_policy(), MPOL_INTERLEAVE);
	smpol_plan_free(&p);
}

/* Region-aware tasks are local: preferred on the plan's initiator when the plan has
 * that node, else MPOL_LOCAL; the policy of a region is the plan's own. */
static void test_local_task_policy(void **state)
{
	struct smpol_plan p = plan_on(0, 0);
	unsigned long mask[SMPOL_MASK_LONGS];
	char err[SMPOL_ERRLEN];
	int node = 7, mode = 0;

	(void)state;
	assert_int_equal(smpol_apply_local(&p, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 0);
	assert_int_equal(task_policy(), MPOL_PREFERRED);
	/* a plan without its initiator's node (no memory there): local */
	smpol_plan_free(&p);
	p = plan_on(3, 0);
	assert_int_equal(smpol_apply_local(&p, &node, err, sizeof(err)), 0);
	assert_int_equal(node, -1);
	assert_int_equal(task_policy(), MPOL_LOCAL);
	/* a plan for CPUs spanning CPU nodes: local, each thread by its own socket */
	smpol_plan_free(&p);
	p = plan_on(0, 0);
	p.nserved = 2;
	assert_int_equal(smpol_apply_local(&p, &node, err, sizeof(err)), 0);
	assert_int_equal(node, -1);
	assert_int_equal(task_policy(), MPOL_LOCAL);
	/* a node this kernel does not have: refused with the node named, policy kept */
	smpol_plan_free(&p);
	p = plan_on(SMPOL_MAX_NODES - 1, SMPOL_MAX_NODES - 1);
	assert_int_equal(smpol_apply_local(&p, &node, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "set_mempolicy(MPOL_PREFERRED, node 1023) failed"));
	assert_int_equal(task_policy(), MPOL_LOCAL);

	smpol_plan_free(&p);
	p = plan_on(0, 0);
	smpol_bitmap_set(&p.standby, 5);
	assert_int_equal(smpol_plan_policy(&p, SMPOL_PATH_WEIGHTED, &mode, mask, err, sizeof(err)), 0);
	assert_int_equal(mode, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES);
	assert_true(mask[0] == 0x21);
	smpol_bitmap_clear(&p.standby);
	assert_int_equal(smpol_plan_policy(&p, SMPOL_PATH_INTERLEAVE, &mode, mask, err, sizeof(err)), 0);
	assert_int_equal(mode, MPOL_INTERLEAVE);
	assert_true(mask[0] == 1 && mask[1] == 0);
	assert_int_equal(smpol_plan_policy(&p, SMPOL_PATH_NONE, &mode, mask, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no interleave policy"));
	smpol_plan_free(&p);
}

/* strict: a kernel that refuses weighted interleave fails the task, policy untouched;
 * one that takes it needs no fallback. */
static void test_strict_refuses_fallback(void **state)
{
	struct smpol_plan p = plan_on(0, 0);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	if (kernel_takes_weighted()) {
		assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_WEIGHTED, true, &res, err, sizeof(err)), 0);
		assert_int_equal(task_policy(), MPOL_WEIGHTED_INTERLEAVE);
		smpol_plan_free(&p);
		return;
	}
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_WEIGHTED, true, &res, err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "strict: the kernel refused MPOL_WEIGHTED_INTERLEAVE (EINVAL); "
			    "not falling back to interleave");
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	smpol_plan_free(&p);
}

static void test_bad_plans(void **state)
{
	struct smpol_plan p = plan_on(0, SMPOL_MAX_NODES - 1);
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "nodes 1023"));
	assert_non_null(strstr(err, "online"));
	p.nnodes = 0;
	assert_int_equal(smpol_apply_plan(&p, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no memory nodes"));
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	smpol_plan_free(&p);
}

/* Two CPU nodes: node 0 with CPUs 0-1, node 1 with CPUs 2-3 (both plans use node 0,
 * the one memory node this machine surely has). */
static void two_socket_topology(struct smpol_topology *topo, struct smpol_node nodes[2])
{
	memset(topo, 0, sizeof(*topo));
	memset(nodes, 0, 2 * sizeof(nodes[0]));
	for (int i = 0; i < 2; i++) {
		nodes[i].id = i;
		nodes[i].has_cpu = nodes[i].has_memory = true;
		nodes[i].tier = -1;
		smpol_cpus_set(&nodes[i].cpus, 2 * i);
		smpol_cpus_set(&nodes[i].cpus, 2 * i + 1);
		smpol_bitmap_set(&topo->online, i);
		smpol_bitmap_set(&topo->possible, i);
	}
	topo->nodes = nodes;
	topo->nnodes = 2;
}

/* What a pick case holds: its plans, the pick, the task's CPUs and the nodes' CPUs. */
static void pick_case_free(struct smpol_plan *plans, int nplans, struct smpol_plan *chosen, struct smpol_cpus *cpus,
			   struct smpol_node nodes[2])
{
	for (int i = 0; i < nplans; i++)
		smpol_plan_free(&plans[i]);
	smpol_plan_free(chosen);
	smpol_cpus_free(cpus);
	smpol_cpus_free(&nodes[0].cpus);
	smpol_cpus_free(&nodes[1].cpus);
}

static void test_task_picks_its_socket(void **state)
{
	struct smpol_node nodes[2];
	struct smpol_topology topo;
	struct smpol_plan plans[2] = { plan_on(0, 0), plan_on(1, 0) };
	struct smpol_plan chosen = { 0 };
	struct smpol_apply_result res;
	struct smpol_plan_opts opts;
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_plan_opts_default(&opts);
	two_socket_topology(&topo, nodes);
	smpol_cpus_set(&cpus, 2);
	smpol_cpus_set(&cpus, 3);
	assert_int_equal(smpol_plan_pick(&topo, plans, 2, &cpus, &opts, &chosen, err, sizeof(err)), 0);
	assert_int_equal(chosen.initiator, 1);
	assert_true(smpol_plan_same(&chosen, &plans[1]));
	assert_int_equal(smpol_apply_plan(&chosen, SMPOL_PATH_INTERLEAVE, false, &res, err, sizeof(err)), 0);
	assert_int_equal(res.path, SMPOL_PATH_INTERLEAVE);
	pick_case_free(plans, 2, &chosen, &cpus, nodes);
}

static void test_task_without_plan(void **state)
{
	struct smpol_node nodes[2];
	struct smpol_topology topo;
	struct smpol_plan plans[1] = { plan_on(0, 0) };
	struct smpol_plan chosen = { 0 };
	struct smpol_plan_opts opts;
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_plan_opts_default(&opts);
	two_socket_topology(&topo, nodes);
	smpol_cpus_set(&cpus, 3);
	assert_int_equal(smpol_plan_pick(&topo, plans, 1, &cpus, &opts, &chosen, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "the task's CPUs 3 are on node 1, for which no plan was made");
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 40);
	assert_true(smpol_plan_pick(&topo, plans, 1, &cpus, &opts, &chosen, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "CPUs 40 belong to no NUMA node"));
	pick_case_free(plans, 1, &chosen, &cpus, nodes);
}

static void test_node_independent_plan(void **state)
{
	struct smpol_node nodes[2];
	struct smpol_topology topo;
	struct smpol_plan plans[1] = { plan_on(-1, 0) };
	struct smpol_plan chosen = { 0 };
	struct smpol_plan_opts opts;
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_plan_opts_default(&opts);
	two_socket_topology(&topo, nodes);
	smpol_cpus_set(&cpus, 40);      /* no node: the plan does not care */
	assert_int_equal(smpol_plan_pick(&topo, plans, 1, &cpus, &opts, &chosen, err, sizeof(err)), 0);
	assert_int_equal(chosen.initiator, -1);
	assert_int_equal(chosen.nserved, 0);
	pick_case_free(plans, 1, &chosen, &cpus, nodes);
}

static void test_applied_mode_names(void **state)
{
	(void)state;
	assert_string_equal(smpol_applied_mode_name(SMPOL_MODE_WEIGHTED, SMPOL_PATH_WEIGHTED), "weighted");
	assert_string_equal(smpol_applied_mode_name(SMPOL_MODE_AUTO, SMPOL_PATH_WEIGHTED), "auto");
	assert_string_equal(smpol_applied_mode_name(SMPOL_MODE_WEIGHTED, SMPOL_PATH_INTERLEAVE), "interleave");
	assert_string_equal(smpol_applied_mode_name(SMPOL_MODE_NONE, SMPOL_PATH_NONE), "none");
}

static void test_task_cpus(void **state)
{
	struct smpol_cpus cpus = { 0 };
	cpu_set_t set;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(smpol_task_cpus(0, &cpus, err, sizeof(err)), 0);
	assert_int_equal(smpol_cpus_count(&cpus), CPU_COUNT(&set));
	assert_int_equal(smpol_task_cpus(getpid(), &cpus, err, sizeof(err)), 0);
	assert_int_equal(smpol_cpus_count(&cpus), CPU_COUNT(&set));
	/* A process that is gone: a sentence, not a crash. */
	assert_int_equal(smpol_task_cpus(INT32_MAX, &cpus, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "cannot read the CPU affinity of the process"));
	smpol_cpus_free(&cpus);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, reset_policy, reset_policy)
	const struct CMUnitTest tests[] = {
		T(test_none_sets_nothing),
		T(test_interleave),
		T(test_weighted_follows_the_kernel),
		T(test_standby_nodes_are_static),
		T(test_local_task_policy),
		T(test_strict_refuses_fallback),
		T(test_bad_plans),
		T(test_task_picks_its_socket),
		T(test_task_without_plan),
		T(test_node_independent_plan),
		T(test_applied_mode_names),
		T(test_task_cpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
