/* test_topology.c - the topology reader on captured, crafted and broken sysfs trees. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "sysfs.h"
#include "topology.h"
#include "wi.h"

#define NODE_DIR "/sys/devices/system/node"

static void read_fixture(const char *name, struct smpol_topology *topo)
{
	char err[SMPOL_ERRLEN] = "";

	if (smpol_topology_read(fake_host(fixture_path(name), NULL), topo, err, sizeof(err)))
		fail_msg("reading %s: %s", name, err);
}

/* The fixture's weights table (the topology reader does not read it). */
static void read_table(const char *name, struct smpol_wi_table *t)
{
	char err[SMPOL_ERRLEN] = "";

	if (smpol_wi_read(fake_host(fixture_path(name), NULL), t, err, sizeof(err)))
		fail_msg("reading the table of %s: %s", name, err);
}

static const struct smpol_node *node(const struct smpol_topology *topo, int id)
{
	const struct smpol_node *n = smpol_topology_node(topo, id);

	assert_non_null(n);
	return n;
}

static const char *list(const struct smpol_bitmap *b)
{
	static char buf[256];

	assert_int_equal(smpol_bitmap_format_list(b, buf, sizeof(buf)), 0);
	return buf;
}

static const char *cpu_list(const struct smpol_cpus *c)
{
	static char buf[256];

	assert_int_equal(smpol_cpus_format_list(c, buf, sizeof(buf)), 0);
	return buf;
}

/* Some warning contains a and (unless NULL) b. */
/* Why the node's kind was guessed, in a static buffer. */
static const char *why_kind(const struct smpol_topology *topo, const struct smpol_node *n)
{
	static char buf[128];

	smpol_node_kind_reason(topo, n, buf, sizeof(buf));
	return buf;
}

static bool warned(const struct smpol_topology *topo, const char *a, const char *b)
{
	for (int i = 0; i < topo->nwarnings; i++)
		if (strstr(topo->warnings[i], a) && (!b || strstr(topo->warnings[i], b)))
			return true;
	return false;
}

static void test_linux_7_3_boot(void **state)
{
	struct smpol_wi_table t;
	struct smpol_topology topo;
	const struct smpol_node *n0, *n2;

	(void)state;
	read_fixture("linux-7.3-boot", &topo);
	assert_int_equal(topo.nwarnings, 0);
	assert_int_equal(topo.nnodes, 3);
	assert_string_equal(list(&topo.online), "0-2");
	assert_string_equal(list(&topo.possible), "0-3");
	assert_null(smpol_topology_node(&topo, 3));
	n0 = node(&topo, 0);
	n2 = node(&topo, 2);
	assert_true(n0->has_cpu && n0->has_memory);
	assert_false(n2->has_cpu);
	assert_true(n2->has_memory);
	assert_string_equal(cpu_list(&n0->cpus), "0-1");
	assert_string_equal(cpu_list(&node(&topo, 1)->cpus), "2-3");
	assert_true(smpol_cpus_empty(&n2->cpus));
	/* meminfo differs between runs: only its shape is fixed */
	assert_true(n2->mem_total_kb > 900000 && n2->mem_total_kb < 1048576);
	assert_true(n2->mem_free_kb > 0 && n2->mem_free_kb <= n2->mem_total_kb);
	assert_int_equal(n0->tier, 4);
	assert_int_equal(n2->tier, 49);
	assert_true(n2->access[1].valid);
	assert_int_equal(n2->access[1].read_bw, 64000);
	assert_int_equal(n2->access[1].write_lat, 250);
	assert_string_equal(cpu_list(&n2->access[1].initiators), "0");
	assert_int_equal(smpol_node_bandwidth(n0), 224000);
	assert_int_equal(smpol_node_bandwidth(n2), 64000);
	assert_int_equal(smpol_node_initiator(&topo, n2), 0);
	assert_int_equal(smpol_node_initiator(&topo, node(&topo, 1)), 1);
	assert_non_null(n0->distance);
	assert_int_equal(n0->distance[0], 10);
	assert_int_equal(n0->distance[1], 21);
	assert_int_equal(n0->distance[2], 14);
	assert_int_equal(n0->kind, SMPOL_KIND_DRAM);
	assert_int_equal(n2->kind, SMPOL_KIND_CXL);
	assert_non_null(strstr(why_kind(&topo, n2), "64000"));
	assert_non_null(strstr(why_kind(&topo, n2), "node0"));
	read_table("linux-7.3-boot", &t);
	assert_true(t.present);
	assert_string_equal(t.auto_name, "auto");
	assert_int_equal(t.auto_enabled, 1);
	assert_int_equal(smpol_bitmap_count(&t.has_file), 3);
	assert_int_equal(t.weight[0], 7);
	assert_int_equal(t.weight[2], 2);
	smpol_topology_free(&topo);
	smpol_topology_free(&topo);   /* twice is harmless */
}

static void test_linux_7_3_after_hotplug(void **state)
{
	struct smpol_wi_table t;
	struct smpol_topology topo;
	const struct smpol_node *n3;

	(void)state;
	read_fixture("linux-7.3-after-hotplug", &topo);
	assert_int_equal(topo.nwarnings, 0);
	assert_int_equal(topo.nnodes, 4);
	n3 = node(&topo, 3);
	assert_true(n3->has_memory);
	assert_int_equal(smpol_node_initiator(&topo, n3), 1);
	assert_int_equal(n3->kind, SMPOL_KIND_CXL);
	assert_int_equal(n3->tier, 49);
	read_table("linux-7.3-after-hotplug", &t);
	assert_int_equal(t.weight[3], 1);
	assert_int_equal(t.weight[0], 4);
	smpol_topology_free(&topo);
}

static void test_linux_6_12_and_6_1(void **state)
{
	struct smpol_wi_table t;
	struct smpol_topology topo;

	(void)state;
	read_fixture("linux-6.12-boot", &topo);
	read_table("linux-6.12-boot", &t);
	assert_true(t.present);
	assert_string_equal(t.auto_name, "");
	assert_int_equal(t.auto_enabled, -1);
	assert_int_equal(smpol_bitmap_count(&t.has_file), 4);   /* every possible node, node3 offline */
	assert_int_equal(t.weight[2], 1);
	smpol_topology_free(&topo);

	read_fixture("linux-6.1-boot", &topo);
	read_table("linux-6.1-boot", &t);
	assert_false(t.present);
	assert_int_equal(t.auto_enabled, -1);
	assert_int_equal(node(&topo, 2)->tier, 4);   /* 6.1: one tier for all */
	assert_int_equal(node(&topo, 2)->kind, SMPOL_KIND_CXL);   /* HMAT still tells */
	smpol_topology_free(&topo);
}

static void test_two_socket_cxl(void **state)
{
	struct smpol_topology topo;

	(void)state;
	read_fixture("two-socket-cxl", &topo);
	assert_int_equal(topo.nwarnings, 0);
	assert_int_equal(smpol_node_initiator(&topo, node(&topo, 2)), 0);
	assert_int_equal(smpol_node_initiator(&topo, node(&topo, 3)), 1);
	assert_int_equal(smpol_node_bandwidth(node(&topo, 1)), 300000);
	assert_int_equal(smpol_node_bandwidth(node(&topo, 3)), 64000);
	assert_int_equal(node(&topo, 3)->kind, SMPOL_KIND_CXL);
	assert_string_equal(cpu_list(&node(&topo, 1)->cpus), "8-15");
	smpol_topology_free(&topo);
}

static void test_hbm(void **state)
{
	struct smpol_topology topo;
	const struct smpol_node *n1;

	(void)state;
	read_fixture("hbm-dram", &topo);
	n1 = node(&topo, 1);
	/* slower to reach (120 vs 90 ns) but 8x the bandwidth: HBM, not CXL */
	assert_int_equal(n1->kind, SMPOL_KIND_HBM);
	assert_non_null(strstr(why_kind(&topo, n1), "880000"));
	assert_int_equal(smpol_node_bandwidth(n1), 880000);
	smpol_topology_free(&topo);
}

static void test_no_hmat(void **state)
{
	struct smpol_topology topo;
	const struct smpol_node *n2;

	(void)state;
	read_fixture("no-hmat", &topo);
	n2 = node(&topo, 2);
	assert_false(n2->access[0].valid || n2->access[1].valid);
	assert_int_equal(smpol_node_bandwidth(n2), 0);
	assert_null(smpol_node_access(n2));
	/* no initiators listed: the nearest CPU node by distance (17 < 28) */
	assert_int_equal(smpol_node_initiator(&topo, n2), 0);
	assert_int_equal(n2->kind, SMPOL_KIND_UNKNOWN);
	assert_true(strlen(why_kind(&topo, n2)) > 0);
	/* has_memory was missing: guessed from meminfo */
	assert_true(n2->has_memory && node(&topo, 0)->has_memory);
	assert_false(n2->has_cpu);
	assert_true(warned(&topo, "has_memory", "guessed"));
	assert_true(warned(&topo, "HMAT bandwidth", "0-2"));
	smpol_topology_free(&topo);
}

static void test_access0_differs(void **state)
{
	struct smpol_topology topo;
	const struct smpol_node *n1, *n2;

	(void)state;
	read_fixture("access0-differs", &topo);
	n1 = node(&topo, 1);
	n2 = node(&topo, 2);
	/* access1, min(read 50000, write 40000), not access0's 100000 */
	assert_int_equal(smpol_node_bandwidth(n1), 40000);
	assert_ptr_equal(smpol_node_access(n1), &n1->access[1]);
	assert_string_equal(cpu_list(&n1->access[0].initiators), "2");
	assert_int_equal(smpol_node_initiator(&topo, n1), 0);
	assert_int_equal(n1->kind, SMPOL_KIND_CXL);
	/* the generic initiator: no CPUs, no memory */
	assert_false(n2->has_cpu || n2->has_memory);
	assert_int_equal(n2->kind, SMPOL_KIND_UNKNOWN);
	assert_non_null(strstr(why_kind(&topo, n2), "no memory"));
	smpol_topology_free(&topo);
}

static void test_malformed(void **state)
{
	struct smpol_topology topo;
	const struct smpol_node *n0, *n1, *n2, *n3;

	(void)state;
	read_fixture("malformed", &topo);
	assert_int_equal(topo.nnodes, 4);
	n0 = node(&topo, 0);
	n1 = node(&topo, 1);
	n2 = node(&topo, 2);
	n3 = node(&topo, 3);
	/* read_bandwidth 'fast': unknown, write 200000 still counts */
	assert_true(warned(&topo, "node0/access1/initiators/read_bandwidth", "'fast'"));
	assert_int_equal(n0->access[1].read_bw, 0);
	assert_int_equal(smpol_node_bandwidth(n0), 200000);
	/* zero bandwidths, empty latencies: nothing usable */
	assert_true(warned(&topo, "node1/access1/initiators/read_bandwidth", "reads 0"));
	assert_true(warned(&topo, "node1/access1/initiators/read_latency", "empty"));
	assert_false(n1->access[1].valid);
	assert_int_equal(smpol_node_bandwidth(n1), 0);
	assert_true(warned(&topo, "node1/meminfo", "MemTotal"));
	assert_int_equal(n1->mem_total_kb, 0);
	assert_true(warned(&topo, "node1/distance", "expected 4"));
	assert_null(n1->distance);
	/* out-of-range and negative numbers */
	assert_true(warned(&topo, "node2/access1/initiators/read_bandwidth", "18446744073709551616"));
	assert_true(warned(&topo, "node2/access1/initiators/read_latency", "'-5'"));
	assert_int_equal(smpol_node_bandwidth(n2), 64000);
	assert_true(warned(&topo, "node2/cpulist", "zero"));
	assert_true(smpol_cpus_empty(&n2->cpus));
	/* listed online, directory gone: kept, unknown, said so */
	assert_true(warned(&topo, "node 3 is listed online", "missing"));
	assert_true(n3->has_memory);
	assert_int_equal(n3->mem_total_kb, 0);
	assert_null(n3->distance);
	assert_int_equal(n3->kind, SMPOL_KIND_UNKNOWN);
	assert_true(warned(&topo, "memory_tier49/nodelist", "2-x"));
	assert_int_equal(n2->tier, -1);
	smpol_topology_free(&topo);
}

static void test_node_list_errors(void **state)
{
	static const char *const bad[] = { "", "x", "0-", "3-1", "0,,1", "5000" };
	char *root = fake_tree_new();
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "online"));
	assert_null(topo.nodes);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		fake_tree_write(root, NODE_DIR "/online", bad[i]);
		assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "online"));
		assert_null(topo.nodes);
		assert_int_equal(topo.nwarnings, 0);
	}
	fake_tree_free(root);
}

/* Sizes come from the tree read, not from the host running the test: a four-node tree
 * of sixteen CPUs reads as such on a smaller host, its CPU sets are as long as their
 * ids, and a CPU the tree cannot have is refused by name. */
static void test_sized_by_the_tree(void **state)
{
	char *root = fake_tree_new();
	struct smpol_topology topo, copy;
	char err[SMPOL_ERRLEN];

	(void)state;
	read_fixture("two-socket-cxl", &topo);
	assert_int_equal(topo.nnodes, 4);
	assert_string_equal(list(&topo.possible), "0-3");
	assert_int_equal(topo.cpu_ids, 16);
	assert_int_equal(node(&topo, 1)->cpus.nwords, 1);      /* CPUs 8-15: one word */
	assert_int_equal(smpol_topology_copy(&topo, &copy), 0);
	assert_true(smpol_cpus_equal(&node(&copy, 1)->cpus, &node(&topo, 1)->cpus));
	assert_true(node(&copy, 1)->cpus.bits != node(&topo, 1)->cpus.bits);
	smpol_topology_free(&copy);
	smpol_topology_free(&topo);
	fake_tree_copy(root, fixture_path("two-socket-cxl"));
	fake_tree_write(root, NODE_DIR "/node1/cpulist", "8-16\n");
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), 0);
	assert_true(warned(&topo, "node1/cpulist", "bad CPU list '8-16': id '16': give a whole number from 0 to 15"));
	assert_true(smpol_cpus_empty(&node(&topo, 1)->cpus));
	smpol_topology_free(&topo);
	fake_tree_write(root, "/sys/devices/system/cpu/possible", "0-7,4096\n");
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), 0);
	assert_int_equal(topo.cpu_ids, 4097);
	assert_string_equal(cpu_list(&node(&topo, 1)->cpus), "8-16");   /* the same file, now within the tree's CPUs */
	smpol_topology_free(&topo);
	fake_tree_free(root);
}

/* A tree with only the node list: every other file missing, no crash, defaults. */
static void test_bare_tree(void **state)
{
	char *root = fake_tree_new();
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];

	(void)state;
	fake_tree_write(root, NODE_DIR "/online", "0\n");
	fake_tree_write(root, NODE_DIR "/node0/cpulist", "0-1\n");
	fake_tree_write(root, NODE_DIR "/node0/meminfo",
			"Node 0 MemTotal: 1000 kB\nNode 0 MemFree: 500 kB\n");
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), 0);
	assert_string_equal(list(&topo.possible), "0");
	assert_int_equal(topo.cpu_ids, SMPOL_MAX_CPUS);   /* no cpu/possible: the kernel's largest */
	assert_true(node(&topo, 0)->has_cpu && node(&topo, 0)->has_memory);
	assert_int_equal(node(&topo, 0)->mem_free_kb, 500);
	assert_int_equal(node(&topo, 0)->tier, -1);
	assert_true(warned(&topo, "distance", NULL));
	smpol_topology_free(&topo);
	fake_tree_free(root);
}

/* A FIFO where a sysfs file should be would block slurmstepd until written: refused at
 * once (the alarm fails a blocked read). Binary or huge contents are escaped or refused,
 * never echoed raw into a warning. */
static void test_fifo_binary_huge_files(void **state)
{
	char *root = fake_tree_new(), path[PATH_MAX], huge[20000];
	struct smpol_topology topo;
	struct smpol_wi_table t;
	char err[SMPOL_ERRLEN];

	(void)state;
	fake_tree_write(root, NODE_DIR "/online", "0\n");
	fake_tree_write(root, NODE_DIR "/node0/meminfo", "Node 0 MemTotal: 1000 kB\nNode 0 MemFree: 500 kB\n");
	snprintf(path, sizeof(path), "%s" NODE_DIR "/node0/cpulist", root);
	assert_int_equal(mkfifo(path, 0600), 0);
	fake_tree_write(root, NODE_DIR "/node0/access1/initiators/read_bandwidth", "\033[2J\a\377");
	memset(huge, '1', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	fake_tree_write(root, NODE_DIR "/node0/distance", huge);
	fake_tree_wi(root, "auto", "true", "0:7");
	snprintf(path, sizeof(path), "%s" FAKE_WI_DIR "/node1", root);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20);
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), 0);
	assert_int_equal(smpol_wi_read(fake_host(root, NULL), &t, err, sizeof(err)), -SMPOL_ENOTREG);
	alarm(0);
	assert_non_null(strstr(err, "node1: it is not a regular file"));
	assert_true(warned(&topo, "node0/cpulist", "it is not a regular file"));
	assert_true(warned(&topo, "read_bandwidth", "'\\x1b[2J\\x07\\xff' is not a number"));
	assert_true(warned(&topo, "node0/distance", NULL));
	for (int i = 0; i < topo.nwarnings; i++)
		for (const char *c = topo.warnings[i]; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				fail_msg("a raw byte 0x%02x in warning: %s", (unsigned char)*c, topo.warnings[i]);
	smpol_topology_free(&topo);
	fake_tree_free(root);
}

/* An initiator link to a node that is not online (dangling) is ignored; distance decides. */
static void test_dangling_initiator(void **state)
{
	char *root = fake_tree_new(), path[PATH_MAX];
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];

	(void)state;
	fake_tree_write(root, NODE_DIR "/online", "0-1,4\n");
	fake_tree_write(root, NODE_DIR "/has_cpu", "0-1\n");
	fake_tree_write(root, NODE_DIR "/has_memory", "0-1,4\n");
	fake_tree_write(root, NODE_DIR "/node0/distance", "10 20 30\n");
	fake_tree_write(root, NODE_DIR "/node1/distance", "20 10 15\n");
	fake_tree_write(root, NODE_DIR "/node4/distance", "30 15 10\n");
	fake_tree_write(root, NODE_DIR "/node4/access1/initiators/read_bandwidth", "1000\n");
	snprintf(path, sizeof(path), "%s" NODE_DIR "/node4/access1/initiators/node7", root);
	assert_int_equal(symlink("../../../node7", path), 0);
	assert_int_equal(smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)), 0);
	assert_string_equal(cpu_list(&node(&topo, 4)->access[1].initiators), "7");
	assert_int_equal(smpol_node_initiator(&topo, node(&topo, 4)), 1);
	assert_int_equal(smpol_node_bandwidth(node(&topo, 4)), 1000);
	smpol_topology_free(&topo);
	fake_tree_free(root);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(smpol_node_kind_name(SMPOL_KIND_DRAM), "DRAM");
	assert_string_equal(smpol_node_kind_name(SMPOL_KIND_CXL), "CXL");
	assert_string_equal(smpol_node_kind_name(SMPOL_KIND_HBM), "HBM");
	assert_string_equal(smpol_node_kind_name(SMPOL_KIND_UNKNOWN), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_7_3_boot),
		cmocka_unit_test(test_linux_7_3_after_hotplug),
		cmocka_unit_test(test_linux_6_12_and_6_1),
		cmocka_unit_test(test_two_socket_cxl),
		cmocka_unit_test(test_sized_by_the_tree),
		cmocka_unit_test(test_hbm),
		cmocka_unit_test(test_no_hmat),
		cmocka_unit_test(test_access0_differs),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_node_list_errors),
		cmocka_unit_test(test_bare_tree),
		cmocka_unit_test(test_fifo_binary_huge_files),
		cmocka_unit_test(test_dangling_initiator),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
