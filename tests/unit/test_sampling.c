/* test_sampling.c - the sums of a step's placement samples and their node_exporter
 * textfile form. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "proc_stat.h"
#include "prom_textfile.h"
#include "sampling.h"

/* A task's usage: pages on nodes 0 and 2, under a policy. */
static void usage(struct smpol_numa_usage *u, uint64_t n0, uint64_t n2, const char *policy)
{
	smpol_numa_usage_init(u);
	u->anon[0] = n0;
	u->anon[2] = n2;
	u->max_node = n2 ? 2 : 0;
	u->nprocs = 1;
	if (policy) {
		u->npolicies = 1;
		snprintf(u->policies[0].policy, sizeof(u->policies[0].policy), "%s", policy);
		u->policies[0].pages = n0 + n2;
	}
}

static const struct smpol_plan plans[2] = {
	{ .initiator = 0, .nnodes = 2, .nodes = (int[]){ 0, 2 }, .weights = (unsigned[]){ 3, 1 }, .weight_sum = 4,
	  .shares = (double[]){ 0.75, 0.25 }, .bandwidth = (uint32_t[2]){ 0 },
	  .sources = (enum smpol_bw_source[2]){ 0 } },
	{ .initiator = 1, .nnodes = 1, .nodes = (int[]){ 1 }, .weights = (unsigned[]){ 1 }, .weight_sum = 1,
	  .shares = (double[]){ 1 }, .bandwidth = (uint32_t[1]){ 0 }, .sources = (enum smpol_bw_source[1]){ 0 } },
};

static void test_target_from_matching_plan(void **state)
{
	struct smpol_sampling s;
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	char err[SMPOL_ERRLEN];

	(void)state;
	/* room for one node only: the arrays grow to the node ids seen */
	assert_int_equal(smpol_sampling_init(&s, 1, err, sizeof(err)), 0);
	smpol_sampling_begin(&s);
	usage(u, 600, 200, "weighted interleave:0,2");
	assert_int_equal(smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_WEIGHTED), 0);
	/* a task whose policy matches no plan counts pages but no target */
	usage(u, 100, 0, "bind:1");
	assert_int_equal(smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_WEIGHTED), 0);
	smpol_sampling_end(&s, 1700000000);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.max_node, 2);
	assert_true(s.span >= 3);
	assert_int_equal(s.last[0], 700);
	assert_int_equal(s.last[2], 200);
	assert_true(s.have_target);
	assert_float_equal(s.expect[0], 600.0, 1e-9);     /* 800 pages x 3/4 */
	assert_float_equal(s.expect[2], 200.0, 1e-9);
	assert_string_equal(s.policy, "weighted interleave:0,2");

	/* plain interleave: equal shares whatever the weights */
	smpol_sampling_begin(&s);
	usage(u, 100, 300, "interleave:0,2");
	assert_int_equal(smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_INTERLEAVE), 0);
	smpol_sampling_end(&s, 1700000030);
	assert_float_equal(s.expect[0], 200.0, 1e-9);
	assert_int_equal(s.peak[0], 700);                 /* the first sample's */
	assert_int_equal(s.last[0], 100);
	assert_int_equal(s.n, 2);

	/* a region-aware step: each task's large mappings by how they were placed */
	assert_false(s.have_regions);
	smpol_sampling_begin(&s);
	smpol_sampling_add_regions(&s, &(struct smpol_region_ways){ .allocation = 2, .pending = 1 });
	smpol_sampling_add_regions(&s, &(struct smpol_region_ways){ .allocation = 1, .sampler = 1 });
	assert_int_equal(smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_INTERLEAVE), 0);
	smpol_sampling_end(&s, 1700000040);
	assert_true(s.have_regions);
	assert_int_equal(s.regions.allocation, 3);
	assert_int_equal(s.regions.sampler, 1);
	assert_int_equal(s.regions.pending, 1);
	assert_int_equal(s.n, 3);

	/* a round where every task had gone changes nothing */
	smpol_sampling_begin(&s);
	smpol_sampling_end(&s, 1700000060);
	assert_true(s.have_regions);
	assert_int_equal(s.regions.allocation, 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.time, 1700000040);
	assert_int_equal(s.last[2], 300);
	smpol_sampling_free(&s);
	free(u);
}

static void test_policy_without_plan(void **state)
{
	struct smpol_sampling s;
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_sampling_init(&s, 4, err, sizeof(err)), 0);
	assert_null(smpol_plan_of_policy("default", plans, 2));
	assert_null(smpol_plan_of_policy("weighted interleave:0-x", plans, 2));
	assert_ptr_equal(smpol_plan_of_policy("weighted interleave=static:0,2", plans, 2), &plans[0]);
	smpol_sampling_begin(&s);
	usage(u, 50, 0, NULL);
	assert_int_equal(smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_WEIGHTED), 0);
	smpol_sampling_end(&s, 1);
	assert_false(s.have_target);
	assert_string_equal(s.policy, "");
	smpol_sampling_free(&s);
	free(u);
}

/* The textfile: HELP and TYPE before each metric, units in the names, one line per
 * NUMA node, written whole under its final name. */
static void test_prom_textfile(void **state)
{
	struct smpol_sampling s;
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	char err[SMPOL_ERRLEN], dir[] = "/tmp/test_prom.XXXXXX", path[128], *text, body[8192];
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(smpol_sampling_init(&s, 3, err, sizeof(err)), 0);
	smpol_sampling_begin(&s);
	usage(u, 768, 256, "weighted interleave:0,2");
	smpol_sampling_add(&s, u, plans, 2, SMPOL_PATH_WEIGHTED);
	smpol_sampling_end(&s, 1700000000);
	assert_int_equal(smpol_prom_format(77, "0", &s, &text), 0);
	assert_non_null(strstr(text, "# HELP slurm_mempolicy_anon_bytes "));
	assert_non_null(strstr(text, "# TYPE slurm_mempolicy_anon_bytes gauge\n"));
	/* 768 pages of 4 KiB */
	assert_non_null(strstr(text, "slurm_mempolicy_anon_bytes{jobid=\"77\",step=\"0\",numa_node=\"0\"} 3145728\n"));
	assert_non_null(strstr(text, "slurm_mempolicy_anon_bytes{jobid=\"77\",step=\"0\",numa_node=\"1\"} 0\n"));
	assert_non_null(strstr(text, "slurm_mempolicy_target_ratio{jobid=\"77\",step=\"0\",numa_node=\"0\"} 0.75\n"));
	assert_non_null(strstr(text, "slurm_mempolicy_share_ratio{jobid=\"77\",step=\"0\",numa_node=\"2\"} 0.25\n"));
	assert_non_null(strstr(text, "slurm_mempolicy_drift_ratio{jobid=\"77\",step=\"0\"} 0\n"));
	free(text);

	assert_non_null(mkdtemp(dir));
	assert_int_equal(smpol_prom_write(dir, 77, "batch", &s, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/slurm_mempolicy_77_batch.prom", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(body, 1, sizeof(body) - 1, f);
	body[n] = '\0';
	fclose(f);
	assert_non_null(strstr(body, "step=\"batch\""));
	/* the writer named for the sweep, in a comment line node_exporter ignores */
	assert_memory_equal(body, "# slurm-mempolicy writer ", strlen("# slurm-mempolicy writer "));
	/* no temporary left beside it */
	snprintf(path, sizeof(path), "%s/.slurm_mempolicy_77_batch.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* one a killed writer left (even a FIFO) is replaced, never opened */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(smpol_prom_write(dir, 77, "batch", &s, err, sizeof(err)), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(smpol_prom_remove(dir, 77, "batch", err, sizeof(err)), 0);
	assert_int_equal(smpol_prom_remove(dir, 77, "batch", err, sizeof(err)), 0);
	/* a directory that is not there: the sentence names it */
	assert_int_equal(smpol_prom_write("/nonexistent/metrics", 77, "0", &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/metrics"));
	/* one that others may write, or no directory at all: refused */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(smpol_prom_write(dir, 77, "0", &s, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by no one else"));
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(smpol_prom_write("/dev/null", 77, "0", &s, err, sizeof(err)), -ENOTDIR);
	rmdir(dir);
	smpol_sampling_free(&s);
	free(u);
}

/* put NAME in dir with TEXT, modified `age` seconds ago */
static void plant(const char *dir, const char *name, const char *text, time_t age)
{
	char path[4200];
	struct timespec t[2] = { { time(NULL) - age, 0 }, { time(NULL) - age, 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool present(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The sweep removes what a dead step left (its writer gone, a temporary, an older
 * release's file a day old, a FIFO of our name) and keeps a live step's file, a young
 * file without a writer and everything not ours. */
static void test_prom_sweep(void **state)
{
	char dir[] = "/tmp/mpol-prom-sweep.XXXXXX", err[SMPOL_ERRLEN], path[4200], line[96];
	struct smpol_sampling s;
	uint64_t start;
	pid_t dead = fork();
	int removed;

	(void)state;
	if (dead == 0)
		_exit(0);
	assert_true(dead > 0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(smpol_sampling_init(&s, 1, err, sizeof(err)), 0);
	assert_int_equal(smpol_prom_write(dir, 5, "0", &s, err, sizeof(err)), 0);
	/* the reaped child started after this process: its pid with our start time names no one */
	assert_int_equal(smpol_proc_stat(getpid(), &start, NULL, NULL, 0), 0);
	snprintf(line, sizeof(line), "# slurm-mempolicy writer %d %llu\n", (int)dead, (unsigned long long)start);
	plant(dir, "slurm_mempolicy_6_0.prom", line, 0);
	plant(dir, ".slurm_mempolicy_6_1.tmp", line, 0);
	plant(dir, "slurm_mempolicy_7_0.prom", "slurm_mempolicy_drift_ratio 0\n", 2 * SMPOL_PROM_UNOWNED_STALE_S);
	plant(dir, "slurm_mempolicy_8_0.prom", "slurm_mempolicy_drift_ratio 0\n", 60);
	plant(dir, "node_other.prom", line, 2 * SMPOL_PROM_UNOWNED_STALE_S);
	snprintf(path, sizeof(path), "%s/slurm_mempolicy_9_0.prom", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(smpol_prom_sweep(dir, &removed, err, sizeof(err)), 0);
	alarm(0);
	assert_int_equal(removed, 4);
	assert_true(present(dir, "slurm_mempolicy_5_0.prom"));
	assert_false(present(dir, "slurm_mempolicy_6_0.prom"));
	assert_false(present(dir, ".slurm_mempolicy_6_1.tmp"));
	assert_false(present(dir, "slurm_mempolicy_7_0.prom"));
	assert_true(present(dir, "slurm_mempolicy_8_0.prom"));
	assert_true(present(dir, "node_other.prom"));
	assert_false(present(dir, "slurm_mempolicy_9_0.prom"));
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(smpol_prom_sweep(dir, &removed, err, sizeof(err)), -EPERM);
	assert_int_equal(chmod(dir, 0755), 0);
	for (const char *const *n = (const char *const[]){ "slurm_mempolicy_5_0.prom", "slurm_mempolicy_8_0.prom",
							   "node_other.prom", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
	smpol_sampling_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_from_matching_plan),
		cmocka_unit_test(test_prom_sweep),
		cmocka_unit_test(test_policy_without_plan),
		cmocka_unit_test(test_prom_textfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
