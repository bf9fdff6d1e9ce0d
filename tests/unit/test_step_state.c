/* test_step_state.c - a step's kept placement: written, read back exactly, listed,
 * reaped after a crash, updated by rebalance; re-deciding from it (task_target.h);
 * and telling a task that moved to another socket (migration.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "migration.h"
#include "step_state.h"
#include "task_target.h"
#include "wi.h"

struct fixture {
	char *dir;                     /* the state directory */
	const struct smpol_host *host; /* sysfs: the linux-7.3-boot fixture */
	struct smpol_topology topo;
	struct smpol_wi_table table;
	struct smpol_site_decision site;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char err[SMPOL_ERRLEN] = "";

	fx->dir = fake_tree_new();
	fx->host = fake_host(fixture_path("linux-7.3-boot"), fx->dir);
	if (smpol_topology_read(fx->host, &fx->topo, err, sizeof(err)) ||
	    smpol_wi_read(fx->host, &fx->table, err, sizeof(err)))
		fail_msg("%s", err);
	smpol_site_decision_default(&fx->site);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	smpol_topology_free(&fx->topo);
	fake_tree_free(fx->dir);
	free(fx);
	return 0;
}

/* The kept state of a step that asked for `spec`, as slurmstepd writes it. */
static void kept_of(struct fixture *fx, const char *spec, enum smpol_lease_outcome lease, uint32_t job,
		    struct smpol_step_state *st)
{
	struct smpol_place_in in = { .site = &fx->site, .topo = &fx->topo, .table = &fx->table,
				     .job_owns_node = true, .lease = lease, .mem_kb = 4096 };
	struct smpol_placement pl;
	char err[SMPOL_ERRLEN] = "";

	assert_int_equal(smpol_spec_parse(spec, &in.spec, err, sizeof(err)), 0);
	assert_int_equal(smpol_place(&in, &pl), 0);
	if (smpol_step_state_from(&in, &pl, job, 3, 1000, st, err, sizeof(err)))
		fail_msg("%s", err);
	smpol_placement_free(&pl);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st, back;
	char err[SMPOL_ERRLEN] = "", text[256];

	fx->site.precision = 0.1 + 0.2;         /* not exact in decimal: must survive anyway */
	fx->site.algorithm = SMPOL_ALGO_KERNEL;
	kept_of(fx, "verbose,weighted,scope=all", SMPOL_LEASE_HELD, 12, &st);
	assert_int_equal(smpol_step_state_add_task(&st, getpid(), err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_read(fx->host, 12, 3, &back, err, sizeof(err)), 0);
	assert_int_equal(back.job_id, 12);
	assert_int_equal(back.step_id, 3);
	assert_int_equal(back.uid, 1000);
	assert_int_equal(back.stepd_pid, getpid());
	assert_true(back.holder_alive);
	smpol_spec_format(&back.spec, text, sizeof(text));
	assert_string_equal(text, "verbose,weighted,scope=all");
	assert_true(back.site.precision == 0.1 + 0.2);
	assert_int_equal(back.site.algorithm, SMPOL_ALGO_KERNEL);
	assert_int_equal(back.mem_kb, 4096);
	assert_true(back.lease_held);
	assert_int_equal(back.path, SMPOL_PATH_WEIGHTED);
	assert_int_equal(back.nlaunch_free, 3);
	assert_int_equal(back.launch_free[2].node, 2);
	assert_int_equal(back.launch_free[2].free_kb, fx->topo.nodes[2].mem_free_kb);
	assert_int_equal(back.ntasks, 1);
	assert_non_null(smpol_step_state_task(&back, getpid(), st.tasks[0].start));
	assert_null(smpol_step_state_task(&back, getpid(), st.tasks[0].start + 1));   /* a recycled pid */
	assert_true(smpol_bitmap_empty(&back.tasks[0].rebound));
	assert_false(back.has_span);
	/* root-only: the file is 0600 */
	{
		char path[4300];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/step.12.3.json", fx->dir);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_mode & 0777, 0600);
	}
	smpol_step_state_free(&st);
	smpol_step_state_free(&back);
	assert_int_equal(smpol_step_state_remove(fx->host, 12, 3, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_read(fx->host, 12, 3, &back, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_step_state_remove(fx->host, 12, 3, err, sizeof(err)), 0);   /* twice is fine */
}

/* Malformed files are refused with a sentence and skipped (counted) by the listing. */
static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"", "{", "[]", "{\"v\":2}", "{\"v\":1,\"job\":\"x\"}",
		"{\"v\":1,\"job\":1,\"step\":0,\"uid\":0,\"stepd\":{\"pid\":1,\"start\":1},\"spec\":\"sideways\","
		"\"site_default\":false,\"site\":{\"algorithm\":\"optimal\",\"precision\":0.98,\"max_weight_sum\":64,"
		"\"sysfs\":\"never\"},\"mem_kb\":0,\"lease_held\":false,\"path\":\"none\",\"note\":\"\","
		"\"launch_free_kb\":{},\"tasks\":[]}",
	};
	struct fixture *fx = *state;
	struct smpol_step_state st, *list;
	char err[SMPOL_ERRLEN] = "", name[64];
	int n, nbad;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "/step.%zu.0.json", i + 1);
		fake_tree_write(fx->dir, name, bad[i]);
		err[0] = '\0';
		assert_int_equal(smpol_step_state_read(fx->host, (uint32_t)i + 1, 0, &st, err, sizeof(err)), -EBADMSG);
		assert_non_null(strstr(err, "is malformed"));
	}
	kept_of(fx, "weighted", SMPOL_LEASE_NOT_HELD, 99, &st);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	smpol_step_state_free(&st);
	fake_tree_write(fx->dir, "/unrelated.json", "{}");
	assert_int_equal(smpol_step_state_list(fx->host, &list, &n, &nbad, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].job_id, 99);
	assert_int_equal(nbad, (int)(sizeof(bad) / sizeof(bad[0])));
	smpol_step_states_free(list, n);
}

/* A step whose slurmstepd died: ignored by readers, removed by the reaper. */
static void test_reap_dead_steps(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st, *list;
	char err[SMPOL_ERRLEN] = "";
	int n, removed;
	pid_t dead = fork();

	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	kept_of(fx, "weighted", SMPOL_LEASE_NOT_HELD, 5, &st);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	st.job_id = 6;
	st.stepd_pid = dead;
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	smpol_step_state_free(&st);
	assert_int_equal(smpol_step_state_list(fx->host, &list, &n, NULL, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		assert_int_equal(list[i].holder_alive, list[i].job_id == 5);
	assert_null(smpol_step_state_find(list, n, 0, 0, 6, 3));   /* dead: never a target's source */
	assert_non_null(smpol_step_state_find(list, n, 0, 0, 5, 3));
	smpol_step_states_free(list, n);
	assert_int_equal(smpol_step_state_reap(fx->host, &removed, err, sizeof(err)), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(smpol_step_state_read(fx->host, 6, 3, &st, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_step_state_read(fx->host, 5, 3, &st, err, sizeof(err)), 0);
	smpol_step_state_free(&st);
}

static void test_set_rebound(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st;
	struct smpol_bitmap both;
	char err[SMPOL_ERRLEN] = "";
	uint64_t start;

	smpol_bitmap_clear(&both);
	smpol_bitmap_set(&both, 0);
	smpol_bitmap_set(&both, 1);
	kept_of(fx, "weighted", SMPOL_LEASE_NOT_HELD, 7, &st);
	assert_int_equal(smpol_step_state_add_task(&st, getpid(), err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_add_task(&st, getppid(), err, sizeof(err)), 0);
	start = st.tasks[0].start;
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	smpol_step_state_free(&st);
	assert_int_equal(smpol_step_state_set_rebound(fx->host, 7, 3, getpid(), start, &both, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_read(fx->host, 7, 3, &st, err, sizeof(err)), 0);
	assert_true(smpol_bitmap_equal(&st.tasks[0].rebound, &both));
	assert_true(smpol_bitmap_empty(&st.tasks[1].rebound));
	smpol_step_state_free(&st);
	assert_int_equal(smpol_step_state_set_rebound(fx->host, 7, 3, getpid(), start + 1, &both, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(smpol_step_state_set_rebound(fx->host, 8, 3, getpid(), start, &both, err, sizeof(err)), -ENOENT);
}

/* A file written before spanning plans names one initiator per task (-1: none). */
static void test_legacy_initiator(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st;
	char err[SMPOL_ERRLEN] = "", path[4300], *text;
	const char *old = "\"initiator\":1";
	FILE *f;
	long len;

	kept_of(fx, "weighted", SMPOL_LEASE_NOT_HELD, 14, &st);
	assert_int_equal(smpol_step_state_add_task(&st, getpid(), err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	smpol_step_state_free(&st);
	snprintf(path, sizeof(path), "%s/step.14.3.json", fx->dir);
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 32);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	char *at = strstr(text, "\"cpu_nodes\":\"\"");
	assert_non_null(at);
	memmove(at + strlen(old), at + strlen("\"cpu_nodes\":\"\""), strlen(at + strlen("\"cpu_nodes\":\"\"")) + 1);
	memcpy(at, old, strlen(old));
	rewind(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	fputs(text, f);
	fclose(f);
	free(text);
	assert_int_equal(smpol_step_state_read(fx->host, 14, 3, &st, err, sizeof(err)), 0);
	assert_int_equal(smpol_bitmap_count(&st.tasks[0].rebound), 1);
	assert_true(smpol_bitmap_test(&st.tasks[0].rebound, 1));
	smpol_step_state_free(&st);
}

/* A step that knew its one task spans both sockets and held the lease scaled socket 1's
 * weight to its CPUs (7:9:2 on this guest): the kept span makes a re-decision agree. */
static void test_span_kept(void **state)
{
	struct fixture *fx = *state;
	struct smpol_cpus span = { 0 }, cpus = { 0 };
	struct smpol_place_in in = { .site = &fx->site, .topo = &fx->topo, .table = &fx->table,
				     .job_owns_node = true, .lease = SMPOL_LEASE_HELD, .span_cpus = &span };
	struct smpol_target_in tin = { .topo = &fx->topo, .table = &fx->table, .cpus = &cpus };
	struct smpol_placement pl;
	struct smpol_step_state st, back;
	struct smpol_task_target t = { 0 };
	char err[SMPOL_ERRLEN] = "", w[64];

	assert_int_equal(smpol_cpus_parse_list("0-3", SMPOL_MAX_CPUS, &span, NULL, 0), 0);
	assert_int_equal(smpol_cpus_copy(&cpus, &span), 0);
	assert_int_equal(smpol_spec_parse("weighted", &in.spec, err, sizeof(err)), 0);
	assert_int_equal(smpol_place(&in, &pl), 0);
	assert_int_equal(smpol_step_state_from(&in, &pl, 15, 3, 1000, &st, err, sizeof(err)), 0);
	smpol_placement_free(&pl);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_read(fx->host, 15, 3, &back, err, sizeof(err)), 0);
	assert_true(back.has_span);
	assert_true(smpol_cpus_equal(&back.span_cpus, &span));
	tin.kept = &back;
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&tin, &t, err, sizeof(err)), 0);
	smpol_plan_format_weights(&t.plan, w, sizeof(w));
	assert_string_equal(w, "7:9:2");
	assert_int_equal(t.plan.nserved, 2);
	/* without the span, the launch would have written socket 1's own weight */
	back.has_span = false;
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&tin, &t, err, sizeof(err)), 0);
	smpol_plan_format_weights(&t.plan, w, sizeof(w));
	assert_string_equal(w, "7:1:2");
	smpol_plan_free(&t.plan);
	smpol_cpus_free(&span);
	smpol_cpus_free(&cpus);
	smpol_step_state_free(&st);
	smpol_step_state_free(&back);
}

/* Re-deciding from the kept state: the same request and settings, the launch's free
 * memory for nodes that existed then, and the lease as it was. */
static void test_target_from_kept(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st;
	struct smpol_task_target t = { 0 };
	struct smpol_cpus cpus = { 0 };
	struct smpol_target_in in = { .topo = &fx->topo, .table = &fx->table, .cpus = &cpus };
	char err[SMPOL_ERRLEN] = "", w[64];

	smpol_cpus_set(&cpus, 0);
	/* shared node, no lease: the table's 7:2 is what the task runs with */
	kept_of(fx, "weighted,precision=0.9", SMPOL_LEASE_NOT_HELD, 9, &st);
	in.kept = &st;
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), 0);
	smpol_plan_format_weights(&t.plan, w, sizeof(w));
	assert_string_equal(w, "7:2");
	assert_non_null(strstr(t.source, "job 9 step 3's kept placement"));
	smpol_step_state_free(&st);
	/* holding the lease: its own weights at its own precision */
	kept_of(fx, "weighted,precision=0.9", SMPOL_LEASE_HELD, 9, &st);
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), 0);
	smpol_plan_format_weights(&t.plan, w, sizeof(w));
	assert_string_equal(w, "4:1");
	/* the task on socket 1's CPUs: socket 1's plan */
	smpol_cpus_clear(&cpus);
	smpol_cpus_set(&cpus, 2);
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), 0);
	assert_int_equal(t.plan.initiator, 1);
	smpol_step_state_free(&st);
	/* no kept placement: the given spec, built-in settings, the table */
	in.kept = NULL;
	in.why_defaults = "not started by the plugin";
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), -EINVAL);
	{
		struct smpol_spec spec;

		assert_int_equal(smpol_spec_parse("interleave", &spec, err, sizeof(err)), 0);
		in.spec = &spec;
		smpol_plan_free(&t.plan);
		assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), 0);
		assert_int_equal(t.path, SMPOL_PATH_INTERLEAVE);
		assert_string_equal(t.source, "defaults (not started by the plugin)");
		assert_int_equal(smpol_spec_parse("none", &spec, err, sizeof(err)), 0);
		smpol_plan_free(&t.plan);
		assert_int_equal(smpol_task_target(&in, &t, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "names no interleave"));
	}
	smpol_plan_free(&t.plan);
	smpol_cpus_free(&cpus);
}

/* A region-aware step keeps how its large mappings were placed: a rebalance re-decides
 * the same way (process_mbind only where the step's probe found it) for the same
 * mappings; a file without it is a step from before (none); a wrong one is refused. */
static void test_region_aware_kept(void **state)
{
	static const char *const bad[] = { "\"sideways\"", "2", "null", "\"\"" };
	struct fixture *fx = *state;
	struct smpol_place_in in = { .site = &fx->site, .topo = &fx->topo, .table = &fx->table,
				     .job_owns_node = true, .lease = SMPOL_LEASE_NOT_HELD, .pmbind = true };
	struct smpol_step_state st, back;
	struct smpol_topology launch;
	struct smpol_placement pl;
	struct smpol_task_target t = { 0 };
	struct smpol_cpus cpus = { 0 };
	struct smpol_target_in tin = { .topo = &fx->topo, .table = &fx->table, .cpus = &cpus, .kept = &back };
	char err[SMPOL_ERRLEN] = "", *text, *at;
	const char *key = "\"regions_by\":\"process_mbind\",";

	smpol_cpus_set(&cpus, 0);
	assert_int_equal(smpol_spec_parse("weighted,min_region=64M", &in.spec, err, sizeof(err)), 0);
	assert_int_equal(smpol_place(&in, &pl), 0);
	assert_int_equal(pl.regions_by, SMPOL_REGIONS_POLICY);
	assert_int_equal(smpol_step_state_from(&in, &pl, 5, 3, 1000, &st, err, sizeof(err)), 0);
	smpol_placement_free(&pl);
	assert_int_equal(smpol_step_state_write(fx->host, &st, err, sizeof(err)), 0);
	assert_int_equal(smpol_step_state_read(fx->host, 5, 3, &back, err, sizeof(err)), 0);
	assert_int_equal(back.regions_by, SMPOL_REGIONS_POLICY);
	assert_int_equal(smpol_step_state_place_in(&back, &fx->topo, &fx->table, NULL, &launch, &in, err,
						   sizeof(err)), 0);
	assert_true(in.pmbind);
	smpol_topology_free(&launch);
	smpol_plan_free(&t.plan);
	assert_int_equal(smpol_task_target(&tin, &t, err, sizeof(err)), 0);
	assert_int_equal(t.min_region_kb, 65536);
	smpol_plan_free(&t.plan);
	smpol_cpus_free(&cpus);
	smpol_step_state_free(&back);

	/* the same file with the key removed, then with wrong values */
	text = strdup(fake_tree_read(fx->dir, "/step.5.3.json"));
	assert_non_null(text);
	at = strstr(text, key);
	assert_non_null(at);
	memmove(at, at + strlen(key), strlen(at + strlen(key)) + 1);
	fake_tree_write(fx->dir, "/step.5.3.json", text);
	assert_int_equal(smpol_step_state_read(fx->host, 5, 3, &back, err, sizeof(err)), 0);
	assert_int_equal(back.regions_by, SMPOL_REGIONS_NONE);
	smpol_step_state_free(&back);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *edited = malloc(strlen(text) + 64);

		assert_non_null(edited);
		snprintf(edited, strlen(text) + 64, "{\"regions_by\":%s,%s", bad[i], text + 1);
		fake_tree_write(fx->dir, "/step.5.3.json", edited);
		err[0] = '\0';
		assert_int_equal(smpol_step_state_read(fx->host, 5, 3, &back, err, sizeof(err)), -EBADMSG);
		assert_non_null(strstr(err, "is malformed"));
		free(edited);
	}
	free(text);
	smpol_step_state_free(&st);
}

/* The launch's free memory is what a capacity cap is decided on again. */
static void test_launch_memory(void **state)
{
	struct fixture *fx = *state;
	struct smpol_step_state st;
	struct smpol_topology launch;
	struct smpol_place_in in;
	char err[SMPOL_ERRLEN] = "";

	kept_of(fx, "weighted", SMPOL_LEASE_HELD, 4, &st);
	st.launch_free[0].free_kb = 12345;
	st.nlaunch_free = 1;              /* node 2 "came later": it keeps today's */
	assert_int_equal(smpol_step_state_place_in(&st, &fx->topo, &fx->table, NULL, &launch, &in, err, sizeof(err)), 0);
	assert_int_equal(launch.nodes[0].mem_free_kb, 12345);
	assert_int_equal(launch.nodes[2].mem_free_kb, fx->topo.nodes[2].mem_free_kb);
	assert_int_equal(fx->topo.nodes[0].mem_free_kb == 12345, 0);   /* today's topology untouched */
	assert_int_equal(in.lease, SMPOL_LEASE_HELD);
	assert_int_equal(in.mem_kb, 4096);
	smpol_topology_free(&launch);
	smpol_step_state_free(&st);
}

static struct smpol_plan plan_of(int initiator, const char *nodes)
{
	struct smpol_plan p = { .initiator = initiator };

	assert_int_equal(smpol_plan_alloc(&p, (int)strlen(nodes)), 0);
	for (const char *c = nodes; *c; c++)
		if (*c >= '0' && *c <= '9')
			p.nodes[p.nnodes++] = *c - '0';
	return p;
}

static struct smpol_bitmap nodes_set(const char *list)
{
	struct smpol_bitmap b;

	assert_int_equal(smpol_bitmap_parse_list(list, SMPOL_MAX_NODES, &b, NULL, 0), 0);
	return b;
}

static void test_migration_check(void **state)
{
	struct fixture *fx = *state;
	struct smpol_plan sock0 = plan_of(0, "0,2"), sock1 = plan_of(1, "1"), all = plan_of(0, "0,1,2");
	struct smpol_bitmap from, on1 = nodes_set("1"), on01 = nodes_set("0-1");

	/* launched on socket 0, still there (or moved within it) */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", NULL, &sock0, &from),
			 SMPOL_MIGRATION_STAYS);
	/* now on socket 1's CPUs */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", NULL, &sock1, &from),
			 SMPOL_MIGRATION_MOVED);
	assert_true(smpol_bitmap_equal(&from, &(struct smpol_bitmap){ .bits = { 1 } }));
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave=static:0,2", NULL, &sock1, &from),
			 SMPOL_MIGRATION_MOVED);
	/* rebalanced to socket 1 already: the record says so */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", &on1, &sock1, &from),
			 SMPOL_MIGRATION_STAYS);
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", &on1, &sock0, &from),
			 SMPOL_MIGRATION_MOVED);
	assert_true(smpol_bitmap_equal(&from, &on1));
	/* the task set its own policy */
	assert_int_equal(smpol_migration_check(&fx->topo, "default", NULL, &sock1, &from), SMPOL_MIGRATION_NOT_OURS);
	assert_int_equal(smpol_migration_check(&fx->topo, NULL, NULL, &sock1, &from), SMPOL_MIGRATION_NOT_OURS);
	/* scope=all: every socket's plan covers the same nodes */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0-2", NULL, &all, &from),
			 SMPOL_MIGRATION_STAYS);
	/* launched on socket 0, its CPUs now span both: the combined plan's sockets differ */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", NULL, &all, &from),
			 SMPOL_MIGRATION_MOVED);
	/* launched spanning both, now on socket 1 alone; and rebalanced onto both already */
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0-2", NULL, &sock1, &from),
			 SMPOL_MIGRATION_MOVED);
	assert_true(smpol_bitmap_equal(&from, &on01));
	assert_int_equal(smpol_migration_check(&fx->topo, "weighted interleave:0,2", &on01, &all, &from),
			 SMPOL_MIGRATION_STAYS);
	assert_string_equal(smpol_migration_name(SMPOL_MIGRATION_MOVED), "moved");
	smpol_plan_free(&sock0);
	smpol_plan_free(&sock1);
	smpol_plan_free(&all);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_malformed),
		T(test_reap_dead_steps),
		T(test_set_rebound),
		T(test_legacy_initiator),
		T(test_span_kept),
		T(test_target_from_kept),
		T(test_region_aware_kept),
		T(test_launch_memory),
		T(test_migration_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
