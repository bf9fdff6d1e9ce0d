/* test_bandwidth.c - the bandwidth table file (parse, write, does it fit this node),
 * the sources by precedence, plans that follow them, and the table a step keeps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bandwidth.h"
#include "bw_file.h"
#include "bw_sources.h"
#include "error.h"
#include "fake_tree.h"
#include "placement.h"
#include "plan.h"
#include "step_state.h"
#include "wi.h"

/* The captured guest's nodes: CPU nodes 0 (CPUs 0-1) and 1 (2-3), memory 0-2. */
#define GUEST_NODES \
	"node 0 cpus=0-1 memory=yes\n" \
	"node 1 cpus=2-3 memory=yes\n" \
	"node 2 cpus=- memory=yes\n"
#define GUEST_MEASURED \
	"measured 0 0 150000 120000\n" \
	"measured 0 1 60000 50000\n" \
	"measured 0 2 40000 30000\n" \
	"measured 1 0 60000 50000\n" \
	"measured 1 1 150000 120000\n" \
	"measured 1 2 30000 20000\n"

static void read_topo(const char *root, struct smpol_topology *topo)
{
	char err[SMPOL_ERRLEN];

	if (smpol_topology_read(fake_host(root, NULL), topo, err, sizeof(err)))
		fail_msg("%s: %s", root, err);
}

static void parse_ok(const char *text, struct smpol_bw_file *f)
{
	char err[SMPOL_ERRLEN] = "";

	if (smpol_bw_file_parse(text, f, err, sizeof(err)))
		fail_msg("refused: %s\n%s", err, text);
}

static void test_file_round_trip(void **state)
{
	struct smpol_bw_file f, again;
	char *text;

	(void)state;
	parse_ok("# a comment\n\nsmpol-bandwidth 1\nmachine QEMU / Standard PC (Q35 + ICH9, 2009) / -  \n" GUEST_NODES
		 "info stream median of 5, 64 MiB\r\n" GUEST_MEASURED "override 0 2 0 45000 # the admin's\n", &f);
	assert_string_equal(f.machine, "QEMU / Standard PC (Q35 + ICH9, 2009) / -");
	assert_int_equal(f.nnodes, 3);
	assert_true(f.nodes[2].memory && smpol_cpus_empty(&f.nodes[2].cpus));
	assert_string_equal(f.info, "stream median of 5, 64 MiB");
	assert_int_equal(f.table.nentries, 7);
	assert_int_equal(f.table.entries[6].source, SMPOL_BW_OVERRIDE);
	assert_int_equal(f.table.entries[6].write, 45000);
	assert_int_equal(smpol_bw_file_format(&f, &text), 0);
	parse_ok(text, &again);
	assert_string_equal(again.machine, f.machine);
	assert_string_equal(again.info, f.info);
	assert_int_equal(again.nnodes, f.nnodes);
	assert_int_equal(again.table.nentries, f.table.nentries);
	assert_memory_equal(again.table.entries, f.table.entries, sizeof(*f.table.entries) * (size_t)f.table.nentries);
	free(text);
	smpol_bw_file_free(&f);
	smpol_bw_file_free(&again);
}

static void test_file_bad(void **state)
{
	static const struct {
		const char *text, *says;
	} cases[] = {
		{ "", "it is empty" },
		{ "# only a comment\n", "it is empty" },
		{ "measured 0 0 1 1\n", "line 1: a bandwidth table starts with 'smpol-bandwidth 1'" },
		{ "smpol-bandwidth 2\n", "format version '2'" },
		{ "smpol-bandwidth\n", "format version ''" },
		{ "smpol-bandwidth 1\nmeasured 0 0 1\n", "line 2: 'measured' takes INITIATOR TARGET READ WRITE" },
		{ "smpol-bandwidth 1\nmeasured 0 0 1 1 1\n", "line 2: more words than any item takes" },
		{ "machine QEMU / Q35\nsmpol-bandwidth 1\n", "line 1: a bandwidth table starts with" },
		{ "smpol-bandwidth 1\nmeasured 0 1024 1 1\n", "are not node ids" },
		{ "smpol-bandwidth 1\nmeasured -1 0 1 1\n", "are not node ids" },
		{ "smpol-bandwidth 1\nmeasured 0 0 4294967296 1\n", "are not bandwidths" },
		{ "smpol-bandwidth 1\nmeasured 0 0 1.5 1\n", "are not bandwidths" },
		{ "smpol-bandwidth 1\nmeasured 0 0 0 0\n", "both 0" },
		{ "smpol-bandwidth 1\nmeasured 0 0 1 1\nmeasured 0 0 2 2\n", "line 3: measured node 0 to node 0 is given twice" },
		{ "smpol-bandwidth 1\nbogus 1\n", "unknown item 'bogus'" },
		{ "smpol-bandwidth 1\nnode 0 cpus=0-x memory=yes\n", "cpus:" },
		{ "smpol-bandwidth 1\nnode 0 cpus=0 memory=maybe\n", "memory= takes yes or no" },
		{ "smpol-bandwidth 1\nnode 0 memory=yes\n", "'node' takes ID" },
		{ "smpol-bandwidth 1\nnode 0 cpus=0 memory=yes\nnode 0 cpus=1 memory=no\n", "node 0 is described twice" },
		{ "smpol-bandwidth 1\nmachine a\nmachine b\n", "a second machine line" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct smpol_bw_file f;
		char err[SMPOL_ERRLEN] = "";
		int rc = smpol_bw_file_parse(cases[i].text, &f, err, sizeof(err));

		if (rc != -EBADMSG || !strstr(err, cases[i].says))
			fail_msg("'%s': rc %d '%s' (wanted '%s')", cases[i].text, rc, err, cases[i].says);
		assert_null(f.table.entries);
	}
	/* a line too long for the reader */
	{
		char text[2100];
		struct smpol_bw_file f;
		char err[SMPOL_ERRLEN] = "";

		snprintf(text, sizeof(text), "smpol-bandwidth 1\ninfo %02000d\n", 0);
		assert_int_equal(smpol_bw_file_parse(text, &f, err, sizeof(err)), -EBADMSG);
		assert_non_null(strstr(err, "line 2: longer than"));
	}
}

/* Does a table belong to the captured guest? */
static void test_file_match(void **state)
{
	static const struct {
		const char *text;
		const char *machine;      /* this machine's identity */
		const char *says;         /* NULL = it matches */
	} cases[] = {
		{ "smpol-bandwidth 1\nmachine QEMU / Q35 / -\n" GUEST_NODES GUEST_MEASURED, "QEMU / Q35 / -", NULL },
		/* the machine is unknown on one side: not compared */
		{ "smpol-bandwidth 1\nmachine QEMU / Q35 / -\n" GUEST_NODES GUEST_MEASURED, "- / - / -", NULL },
		/* overrides alone may be partial, and need no identity */
		{ "smpol-bandwidth 1\noverride 0 2 1000 1000\n", "QEMU / Q35 / -", NULL },
		{ "smpol-bandwidth 1\nmachine Dell / R760 / 0X\n" GUEST_NODES GUEST_MEASURED, "QEMU / Q35 / -",
		  "measured on a 'Dell / R760 / 0X', this machine is a 'QEMU / Q35 / -'" },
		{ "smpol-bandwidth 1\n" GUEST_NODES "node 3 cpus=- memory=yes\n" GUEST_MEASURED, "-",
		  "node 3, which is not online here" },
		{ "smpol-bandwidth 1\nnode 0 cpus=0-3 memory=yes\n", "-", "node 0 has other CPUs here" },
		{ "smpol-bandwidth 1\nnode 2 cpus=- memory=no\n", "-", "node 2 has memory here but had none" },
		{ "smpol-bandwidth 1\nnode 0 cpus=0-1 memory=yes\nnode 1 cpus=2-3 memory=yes\n", "-",
		  "node 2 has memory here but is not in the table: hot-added since" },
		{ "smpol-bandwidth 1\n" GUEST_MEASURED "measured 0 3 1 1\n", "-",
		  "memory node 3, which is no online node with memory here" },
		{ "smpol-bandwidth 1\n" GUEST_MEASURED "override 2 0 1 1\n", "-",
		  "initiator node 2, which is no online node with CPUs here" },
		{ "smpol-bandwidth 1\nmeasured 0 0 1 1\n", "-", "no measured bandwidth from node 0 to node 1" },
	};
	struct smpol_topology topo;

	(void)state;
	read_topo(fixture_path("linux-7.3-acpi"), &topo);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct smpol_bw_file f;
		char err[SMPOL_ERRLEN] = "";
		int rc;

		parse_ok(cases[i].text, &f);
		rc = smpol_bw_file_match(&f, &topo, cases[i].machine, err, sizeof(err));
		if (cases[i].says ? rc != -ESTALE || !strstr(err, cases[i].says) : rc != 0)
			fail_msg("case %zu: rc %d '%s' (wanted '%s')", i, rc, err, cases[i].says ? cases[i].says : "a match");
		smpol_bw_file_free(&f);
	}
	smpol_topology_free(&topo);
}

/* A tree of the captured guest with a table file in it. */
static char *guest_with_table(const char *text, char *path, size_t len)
{
	char *root = fake_tree_new();

	fake_tree_copy(root, fixture_path("linux-7.3-acpi"));
	if (text) {
		fake_tree_write(root, "/etc/mem_interleave.bw", text);
		snprintf(path, len, "%s/etc/mem_interleave.bw", root);
	} else {
		snprintf(path, len, "%s/etc/none.bw", root);
	}
	return root;
}

static void expect_source(const struct smpol_bw_table *t, int i, int tg, enum smpol_bw_source s, uint32_t read)
{
	const struct smpol_bw_entry *e = smpol_bw_lookup(t, i, tg);

	if (!e || e->source != s || e->read != read)
		fail_msg("%d -> %d: %s %u (wanted %s %u)", i, tg, e ? smpol_bw_source_name(e->source) : "nothing",
			 e ? e->read : 0, smpol_bw_source_name(s), read);
}

/* override > measured > raw ACPI HMAT > sysfs HMAT, per pair. */
static void test_precedence(void **state)
{
	struct smpol_topology topo;
	struct smpol_bw_table t;
	struct smpol_bw_origin o;
	char path[4096], *root;

	(void)state;
	/* the raw HMAT over sysfs: every pair from it */
	root = guest_with_table(NULL, path, sizeof(path));
	read_topo(root, &topo);
	assert_int_equal(smpol_bw_resolve(&topo, path, false, &t, &o), 0);
	expect_source(&t, 0, 1, SMPOL_BW_ACPI, 112000);
	assert_int_equal(o.acpi_rc, 0);
	assert_int_equal(o.table_rc, -ENOENT);
	assert_false(o.table_named);
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	fake_tree_free(root);
	/* the measured table over it, the override over that */
	root = guest_with_table("smpol-bandwidth 1\n" GUEST_NODES GUEST_MEASURED "override 0 2 45000 45000\n", path,
				sizeof(path));
	read_topo(root, &topo);
	assert_int_equal(smpol_bw_resolve(&topo, path, true, &t, &o), 0);
	assert_int_equal(o.table_rc, 0);
	expect_source(&t, 0, 0, SMPOL_BW_MEASURED, 150000);
	expect_source(&t, 1, 2, SMPOL_BW_MEASURED, 30000);
	expect_source(&t, 0, 2, SMPOL_BW_OVERRIDE, 45000);
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	fake_tree_free(root);
	/* without the raw tables (not root, or no HMAT): sysfs's best-initiator figure for
	 * every initiator */
	read_topo(fixture_path("linux-7.3-boot"), &topo);
	assert_int_equal(smpol_bw_resolve(&topo, NULL, false, &t, &o), 0);
	expect_source(&t, 0, 1, SMPOL_BW_SYSFS, 224000);
	expect_source(&t, 1, 2, SMPOL_BW_SYSFS, 64000);
	assert_int_equal(o.acpi_rc, -ENOENT);
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
}

/* A table that is not for this node is refused whole, with a warning when named. */
static void test_refused_table(void **state)
{
	struct smpol_topology topo;
	struct smpol_bw_table t;
	struct smpol_bw_origin o;
	char path[4096], warning[SMPOL_ERRLEN + 64], *root;

	(void)state;
	root = guest_with_table("smpol-bandwidth 1\n" GUEST_NODES GUEST_MEASURED "override 9 2 1 1\n", path, sizeof(path));
	read_topo(root, &topo);
	assert_int_equal(smpol_bw_resolve(&topo, path, true, &t, &o), 0);
	assert_int_equal(o.table_rc, -ESTALE);
	expect_source(&t, 0, 0, SMPOL_BW_ACPI, 224000);
	smpol_bw_origin_warning(&o, warning, sizeof(warning));
	assert_non_null(strstr(warning, "initiator node 9"));
	assert_non_null(strstr(warning, "HMAT is used instead"));
	smpol_bw_free(&t);
	/* a malformed one */
	fake_tree_write(root, "/etc/mem_interleave.bw", "smpol-bandwidth 1\nmeasured x\n");
	assert_int_equal(smpol_bw_resolve(&topo, path, true, &t, &o), 0);
	assert_int_equal(o.table_rc, -EBADMSG);
	smpol_bw_origin_warning(&o, warning, sizeof(warning));
	assert_non_null(strstr(warning, "is malformed: line 2"));
	smpol_bw_free(&t);
	/* missing: a warning only when the site named it */
	unlink(path);
	assert_int_equal(smpol_bw_resolve(&topo, path, true, &t, &o), 0);
	smpol_bw_origin_warning(&o, warning, sizeof(warning));
	assert_non_null(strstr(warning, "does not exist"));
	smpol_bw_free(&t);
	assert_int_equal(smpol_bw_resolve(&topo, path, false, &t, &o), 0);
	smpol_bw_origin_warning(&o, warning, sizeof(warning));
	assert_string_equal(warning, "");
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	fake_tree_free(root);
}

static const char *plan_weights(const struct smpol_topology *topo, const struct smpol_bw_table *t, int init,
				enum smpol_scope scope, struct smpol_plan *p)
{
	static char buf[64];
	struct smpol_plan_opts o;
	char err[SMPOL_ERRLEN];

	smpol_plan_opts_default(&o);
	o.scope = scope;
	o.bandwidth = t;
	smpol_plan_free(p);
	if (smpol_plan_for_initiator(topo, init, &o, p, err, sizeof(err)))
		fail_msg("plan: %s", err);
	smpol_plan_format_weights(p, buf, sizeof(buf));
	return buf;
}

/* Plans follow the table: remote DRAM weighs less than local under scope=all, and a
 * table that reverses DRAM and CXL reverses the weights. */
static void test_plans_follow(void **state)
{
	struct smpol_topology topo;
	struct smpol_bw_table t = { 0 };
	struct smpol_bw_origin o;
	struct smpol_plan p = { 0 };
	char path[4096], *root;

	(void)state;
	read_topo(fixture_path("linux-7.3-acpi"), &topo);
	/* sysfs alone: node1's DRAM looks as fast from node0 as node0's own */
	assert_string_equal(plan_weights(&topo, NULL, 0, SMPOL_SCOPE_ALL, &p), "4:4:1");
	assert_int_equal(p.bw_source, SMPOL_BW_SYSFS);
	assert_int_equal(smpol_bw_resolve(&topo, NULL, false, &t, &o), 0);
	assert_string_equal(plan_weights(&topo, &t, 0, SMPOL_SCOPE_ALL, &p), "4:2:1");
	assert_int_equal(p.bandwidth[1], 112000);
	assert_int_equal(p.sources[1], SMPOL_BW_ACPI);
	assert_int_equal(p.bw_source, SMPOL_BW_ACPI);
	assert_string_equal(plan_weights(&topo, &t, 1, SMPOL_SCOPE_ALL, &p), "5:10:2");
	assert_string_equal(plan_weights(&topo, &t, 0, SMPOL_SCOPE_SOCKET, &p), "7:2");
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	/* CXL measured faster than DRAM: the weights turn round */
	root = guest_with_table("smpol-bandwidth 1\nmeasured 0 0 64000 64000\nmeasured 0 1 30000 30000\n"
				"measured 0 2 224000 224000\nmeasured 1 0 30000 30000\nmeasured 1 1 64000 64000\n"
				"measured 1 2 10000 10000\n", path, sizeof(path));
	read_topo(root, &topo);
	assert_int_equal(smpol_bw_resolve(&topo, path, true, &t, &o), 0);
	assert_int_equal(o.table_rc, 0);
	assert_string_equal(plan_weights(&topo, &t, 0, SMPOL_SCOPE_SOCKET, &p), "2:7");
	assert_int_equal(p.bw_source, SMPOL_BW_MEASURED);
	/* a missing pair falls back to sysfs, and the plan says it rests on it */
	smpol_bw_free(&t);
	assert_int_equal(smpol_bw_put(&t, &(struct smpol_bw_entry){ 0, 0, 100000, 100000, SMPOL_BW_OVERRIDE }), 0);
	plan_weights(&topo, &t, 0, SMPOL_SCOPE_SOCKET, &p);
	assert_int_equal(p.sources[0], SMPOL_BW_OVERRIDE);
	assert_int_equal(p.sources[1], SMPOL_BW_SYSFS);
	assert_int_equal(p.bw_source, SMPOL_BW_SYSFS);
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	fake_tree_free(root);
	smpol_plan_free(&p);
}

/* The step keeps the table it decided with; rebalance's inputs carry it back. */
static void test_step_keeps_table(void **state)
{
	struct smpol_topology topo, launch;
	struct smpol_wi_table wi;
	struct smpol_site_config site;
	struct smpol_place_in in = { 0 }, again;
	struct smpol_placement pl;
	struct smpol_step_state st, back;
	struct smpol_bw_table t = { 0 };
	char err[SMPOL_ERRLEN] = "", *state_dir = fake_tree_new();

	(void)state;
	read_topo(fixture_path("linux-7.3-boot"), &topo);
	assert_int_equal(smpol_wi_read(fake_host(fixture_path("linux-7.3-boot"), NULL), &wi, err, sizeof(err)), 0);
	assert_int_equal(smpol_bw_put(&t, &(struct smpol_bw_entry){ 0, 2, 224000, 200000, SMPOL_BW_MEASURED }), 0);
	assert_int_equal(smpol_bw_put(&t, &(struct smpol_bw_entry){ 0, 0, 64000, 0, SMPOL_BW_OVERRIDE }), 0);
	assert_int_equal(smpol_config_default(&site), 0);
	assert_int_equal(smpol_host_copy(&site.host, fake_host(fixture_path("linux-7.3-boot"), state_dir)), 0);
	assert_int_equal(smpol_spec_parse("weighted", &in.spec, err, sizeof(err)), 0);
	in.site = &site.decide;
	in.topo = &topo;
	in.table = &wi;
	in.lease = SMPOL_LEASE_NOT_HELD;
	in.bandwidth = &t;
	assert_int_equal(smpol_place(&in, &pl), 0);
	assert_int_equal(pl.plans[0].bw_source, SMPOL_BW_MEASURED);   /* the weaker of the two */
	if (smpol_step_state_from(&in, &pl, 7, 0, 0, &st, err, sizeof(err)) ||
	    smpol_step_state_write(&site.host, &st, err, sizeof(err)) ||
	    smpol_step_state_read(&site.host, 7, 0, &back, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(back.bandwidth.nentries, 2);
	assert_memory_equal(back.bandwidth.entries, st.bandwidth.entries, 2 * sizeof(*t.entries));
	assert_int_equal(smpol_step_state_place_in(&back, &topo, &wi, NULL, &launch, &again, err, sizeof(err)), 0);
	assert_ptr_equal(again.bandwidth, &back.bandwidth);
	smpol_topology_free(&launch);
	smpol_step_state_free(&st);
	smpol_step_state_free(&back);
	smpol_placement_free(&pl);
	smpol_bw_free(&t);
	smpol_topology_free(&topo);
	smpol_spec_free(&in.spec);
	smpol_config_free(&site);
	fake_tree_free(state_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_file_bad),
		cmocka_unit_test(test_file_match),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_refused_table),
		cmocka_unit_test(test_plans_follow),
		cmocka_unit_test(test_step_keeps_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
